/// `GET /`: the preview page — what the camera sees, the items on it, the region of interest to drag,
/// quality and types, and the event log. One page, its script at `/preview.js`; nothing from
/// anywhere else (a kiosk is often offline, and the page's Content-Security-Policy allows only this
/// server). Laid out for a 1024×600 kiosk screen; everything works with a finger or a mouse button.
enum PreviewPage {
    static let contentSecurityPolicy =
        "default-src 'none'; script-src 'self'; style-src 'unsafe-inline'; img-src 'self' blob:; connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"

    static let html = #"""
        <!doctype html>
        <html lang="en">
        <head>
        <meta charset="utf-8">
        <meta name="viewport" content="width=device-width, initial-scale=1">
        <title>scannerd preview</title>
        <style>
          * { box-sizing: border-box; }
          body { margin: 0; font: 15px/1.35 system-ui, sans-serif; background: #16181d; color: #e8e8e8; }
          main { display: grid; grid-template-columns: minmax(0, 1fr) 330px; gap: 10px; padding: 10px; height: 100vh; }
          #view { position: relative; align-self: start; background: #000; border-radius: 6px; overflow: hidden; touch-action: none; }
          #frame { display: block; width: 100%; height: auto; min-height: 120px; }
          #overlay { position: absolute; inset: 0; width: 100%; height: 100%; }
          #overlay polygon { fill: rgba(64, 200, 120, 0.18); stroke: #40c878; stroke-width: 0.004; }
          #overlay polygon.selected { fill: rgba(255, 200, 40, 0.30); stroke: #ffc828; stroke-width: 0.006; }
          #overlay polygon.document { fill: none; stroke: #5aa9ff; stroke-dasharray: 0.02 0.01; }
          #items a { color: #5aa9ff; margin-left: 8px; }
          #overlay text { fill: #fff; font-size: 0.028px; paint-order: stroke; stroke: #000; stroke-width: 0.006px; }
          #roi { fill: none; stroke: #5aa9ff; stroke-width: 0.004; stroke-dasharray: 0.015 0.01; }
          #roi-draft { fill: rgba(90, 169, 255, 0.15); stroke: #5aa9ff; stroke-width: 0.004; }
          aside { display: flex; flex-direction: column; gap: 8px; min-height: 0; }
          section { background: #22252c; border-radius: 6px; padding: 8px 10px; }
          h2 { font-size: 13px; text-transform: uppercase; letter-spacing: 0.05em; color: #9aa3b2; margin: 0 0 6px; }
          #status { font-size: 13px; color: #9aa3b2; }
          #status.live { color: #40c878; }
          #items { list-style: none; margin: 0; padding: 0; max-height: 180px; overflow-y: auto; }
          #items li { padding: 6px 4px; border-bottom: 1px solid #30343c; cursor: pointer; word-break: break-all; }
          #items li.selected { background: #3a3320; }
          #items .kind { color: #9aa3b2; font-size: 12px; display: block; }
          #log { flex: 1; min-height: 80px; overflow-y: auto; font: 12px/1.4 ui-monospace, monospace; margin: 0; padding: 0; list-style: none; }
          #log li { white-space: nowrap; overflow: hidden; text-overflow: ellipsis; }
          .controls { display: flex; flex-wrap: wrap; gap: 6px; align-items: center; }
          button, select { font: inherit; padding: 6px 10px; border-radius: 5px; border: 1px solid #444a55; background: #2d313a; color: inherit; min-height: 34px; }
          button.on { background: #2f5d43; border-color: #40c878; }
          #message { font-size: 13px; color: #ffb347; min-height: 1.2em; }
        </style>
        </head>
        <body>
        <main>
          <div>
            <div id="view">
              <img id="frame" alt="the camera's newest frame">
              <svg id="overlay" viewBox="0 0 1 1" preserveAspectRatio="none" aria-label="items and region of interest">
                <rect id="roi" x="0" y="0" width="1" height="1"></rect>
                <g id="quads"></g>
                <rect id="roi-draft" x="0" y="0" width="0" height="0" visibility="hidden"></rect>
              </svg>
            </div>
            <p id="message">Drag on the picture to set the region of interest.</p>
          </div>
          <aside>
            <section><h2>scannerd</h2><div id="status">connecting…</div></section>
            <section>
              <h2>Recognize</h2>
              <div class="controls">
                <select id="quality" aria-label="quality"><option>fast</option><option selected>balanced</option><option>accurate</option></select>
                <button id="roi-reset" type="button">Whole frame</button>
              </div>
              <div class="controls" id="types" style="margin-top:6px"></div>
            </section>
            <section><h2>Items</h2><ul id="items"></ul></section>
            <section style="flex:1; display:flex; flex-direction:column; min-height:0"><h2>Events</h2><ul id="log"></ul></section>
          </aside>
        </main>
        <script src="preview.js"></script>
        </body>
        </html>
        """#

    static let script = #"""
        "use strict";
        // The page speaks the socket's protocol over /ws (docs/protocol.md, docs/http.md).
        const token = new URLSearchParams(location.search).get("token");
        const withToken = (path) => token ? `${path}${path.includes("?") ? "&" : "?"}token=${encodeURIComponent(token)}` : path;
        const $ = (id) => document.getElementById(id);
        const items = new Map();
        let selected = null;
        // `#select=PAYLOAD` highlights that item when it is in view (a link to one item; the docs' screenshot).
        const selectPayload = new URLSearchParams(location.hash.slice(1)).get("select");
        let socket = null;
        let nextId = 1;
        const typeGroups = [
          ["qr", "QR"], ["barcodes", "Barcodes"], ["telephoneNumber", "Phone"], ["url", "URL"], ["emailAddress", "E-mail"],
          ["shipmentTrackingNumber", "Tracking"], ["currency", "Money"], ["dateTimeDuration", "Dates"], ["flightNumber", "Flights"],
          ["fullStreetAddress", "Addresses"], ["document", "Documents"],
        ];

        function log(text) {
          const entry = document.createElement("li");
          entry.textContent = `${new Date().toLocaleTimeString()}  ${text}`;
          $("log").prepend(entry);
          while ($("log").children.length > 200) $("log").lastChild.remove();
        }

        // What an item is; a tracking number with its carrier, an amount with its currency, a date or
        // duration with what kind it is (`parsed`).
        function label(item) {
          const parsed = item.parsed || {};
          if (parsed.type === "shipmentTracking") return `tracking ${parsed.carrier}`;
          if (parsed.type === "currency") return `money ${parsed.currency}`;
          if (parsed.type === "dateTime") return parsed.kind;
          if (parsed.type === "flight") return `flight ${parsed.airline}`;
          return item.symbology || item.contentType || item.kind;
        }

        function render() {
          const quads = $("quads");
          quads.replaceChildren();
          const list = $("items");
          list.replaceChildren();
          for (const item of items.values()) {
            const b = item.bounds;
            const points = [b.topLeft, b.topRight, b.bottomRight, b.bottomLeft];
            const polygon = document.createElementNS("http://www.w3.org/2000/svg", "polygon");
            polygon.setAttribute("points", points.map((p) => p.join(",")).join(" "));
            polygon.dataset.id = item.id;
            if (item.id === selected) polygon.classList.add("selected");
            if (item.kind === "document") polygon.classList.add("document");
            quads.append(polygon);
            const caption = document.createElementNS("http://www.w3.org/2000/svg", "text");
            caption.setAttribute("x", Math.min(...points.map((p) => p[0])));
            caption.setAttribute("y", Math.max(0.03, Math.min(...points.map((p) => p[1])) - 0.008));
            caption.textContent = item.payload;
            quads.append(caption);
            const entry = document.createElement("li");
            entry.dataset.id = item.id;
            if (item.id === selected) entry.classList.add("selected");
            const kind = document.createElement("span");
            kind.className = "kind";
            kind.textContent = label(item);
            entry.append(kind, document.createTextNode(item.payload));
            if (item.kind === "document") {
              // Its picture straightened, from the newest frame.
              const link = document.createElement("a");
              link.href = withToken("document.jpg"); link.target = "_blank"; link.textContent = "straightened";
              link.onclick = (event) => event.stopPropagation();
              entry.append(link);
            }
            entry.onclick = () => { selected = selected === item.id ? null : item.id; render(); };
            list.append(entry);
          }
        }

        function showConfig(config) {
          if (config.roi) {
            const [x, y, w, h] = config.roi;
            const roi = $("roi");
            roi.setAttribute("x", x); roi.setAttribute("y", y); roi.setAttribute("width", w); roi.setAttribute("height", h);
          }
          if (config.quality) $("quality").value = config.quality;
          if (config.types) {
            const on = new Set(config.types);
            // "barcodes" stands for every symbology but QR; the daemon names them one by one.
            const notBarcodes = new Set([
              "qr", "telephoneNumber", "url", "emailAddress", "shipmentTrackingNumber", "currency", "dateTimeDuration", "flightNumber",
              "fullStreetAddress", "text", "document",
            ]);
            const anyBarcode = [...on].some((t) => !notBarcodes.has(t));
            for (const button of $("types").children) {
              button.classList.toggle("on", button.dataset.types === "barcodes" ? anyBarcode : on.has(button.dataset.types));
            }
          }
        }

        function send(request) {
          if (!socket || socket.readyState !== WebSocket.OPEN) return;
          socket.send(JSON.stringify({ ...request, id: nextId++ }));
        }

        function connect() {
          const scheme = location.protocol === "https:" ? "wss" : "ws";
          socket = new WebSocket(withToken(`${scheme}://${location.host}/ws`));
          socket.onopen = () => { $("status").textContent = "connected"; $("status").className = "live"; send({ request: "stats" }); };
          socket.onclose = () => {
            $("status").textContent = "disconnected; reconnecting…"; $("status").className = "";
            setTimeout(connect, 1000);
          };
          socket.onmessage = (message) => {
            const event = JSON.parse(message.data);
            if (event.reply !== undefined) {
              if (!event.ok) $("message").textContent = `${event.reply}: ${event.error.message}`;
              return;
            }
            switch (event.event) {
              case "hello":
                items.clear();
                for (const item of event.items) {
                  items.set(item.id, item);
                  if (selectPayload && item.payload === selectPayload) selected = item.id;
                }
                $("status").textContent = `scannerd ${event.daemon} · ${event.source} · camera ${event.camera}`;
                log(`hello: ${event.items.length} item(s)`);
                break;
              case "added": case "updated":
                items.set(event.item.id, event.item);
                if (selectPayload && event.item.payload === selectPayload) selected = event.item.id;
                if (event.event === "added") log(`added ${label(event.item)} ${event.item.payload}`);
                break;
              case "removed":
                items.delete(event.item.id);
                if (selected === event.item.id) selected = null;
                log(`removed ${label(event.item)} ${event.item.payload}`);
                break;
              case "config":
                showConfig(event);
                log(`config: ${event.quality}, ${event.types.join(" ")}`);
                break;
              default:
                log(event.event + (event.reason ? `: ${event.reason}` : ""));
            }
            render();
          };
        }

        // The picture: the next snapshot once the last one has loaded, at most 4 a second, so a slow
        // link never piles up requests and the daemon encodes no more than the page shows.
        function refresh() {
          const started = performance.now();
          fetch(withToken(`snapshot.jpg?t=${Date.now()}`), { cache: "no-store" })
            .then((response) => response.ok ? response.blob() : Promise.reject(new Error(`snapshot: ${response.status}`)))
            .then((blob) => {
              const previous = $("frame").src;
              $("frame").src = URL.createObjectURL(blob);
              if (previous.startsWith("blob:")) URL.revokeObjectURL(previous);
            })
            .catch(() => {})
            .finally(() => setTimeout(refresh, Math.max(0, 250 - (performance.now() - started))));
        }

        // Dragging a rectangle on the picture sets the region of interest (pointer events: finger or mouse).
        function point(event) {
          const box = $("overlay").getBoundingClientRect();
          return [Math.min(1, Math.max(0, (event.clientX - box.left) / box.width)), Math.min(1, Math.max(0, (event.clientY - box.top) / box.height))];
        }
        let dragStart = null;
        $("overlay").addEventListener("pointerdown", (event) => { dragStart = point(event); $("overlay").setPointerCapture(event.pointerId); });
        $("overlay").addEventListener("pointermove", (event) => {
          if (!dragStart) return;
          const [x, y] = point(event);
          const draft = $("roi-draft");
          draft.setAttribute("x", Math.min(x, dragStart[0])); draft.setAttribute("y", Math.min(y, dragStart[1]));
          draft.setAttribute("width", Math.abs(x - dragStart[0])); draft.setAttribute("height", Math.abs(y - dragStart[1]));
          draft.setAttribute("visibility", "visible");
        });
        $("overlay").addEventListener("pointerup", (event) => {
          if (!dragStart) return;
          const [x, y] = point(event);
          const roi = [Math.min(x, dragStart[0]), Math.min(y, dragStart[1]), Math.abs(x - dragStart[0]), Math.abs(y - dragStart[1])];
          dragStart = null;
          $("roi-draft").setAttribute("visibility", "hidden");
          if (roi[2] > 0.05 && roi[3] > 0.05) send({ request: "set", roi: roi.map((v) => Math.round(v * 1000) / 1000) });
          else $("message").textContent = "Drag a larger rectangle to set the region of interest.";
        });
        $("roi-reset").onclick = () => send({ request: "set", roi: [0, 0, 1, 1] });
        $("quality").onchange = () => send({ request: "set", quality: $("quality").value });
        for (const [types, name] of typeGroups) {
          const button = document.createElement("button");
          button.type = "button"; button.textContent = name; button.dataset.types = types; button.classList.add("on");
          button.onclick = () => {
            button.classList.toggle("on");
            const wanted = [...$("types").children].filter((b) => b.classList.contains("on")).map((b) => b.dataset.types);
            if (wanted.length === 0) { button.classList.add("on"); $("message").textContent = "At least one type must stay on."; return; }
            send({ request: "set", types: wanted.join(",").split(",") });
          };
          $("types").append(button);
        }
        connect();
        refresh();
        """#
}
