#!/usr/bin/env python3
"""The floods of issue #39 against a running scannerd, measured (Tests/soak/flood.sh runs it).

  flood.py photos PID SOCKET PORT SECONDS   4 socket + 8 WebSocket clients send `capture` and never read
  flood.py idle   PID SOCKET PORT COUNT      COUNT idle HTTP connections, then a socket ping and a new /items
  flood.py events PID SOCKET PORT COUNT      COUNT never-reading /events clients, then `set` until they overflow
  flood.py snapshots PID SOCKET PORT COUNT   COUNT clients ask for /snapshot.jpg and never read, twice 30 s
                                             apart; a new /items every 0.5 s meanwhile

Prints one JSON object: resident memory (peak, after), the control client's ping latency (worst,
median), and what each flood is about. Standard library only.
"""
import json, os, resource, socket, statistics, subprocess, sys, threading, time


def rss_mb(pid):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS"):
                return int(line.split()[1]) // 1024
    return 0


def descriptors(pid):
    return len(os.listdir(f"/proc/{pid}/fd"))


class Control:
    """A socket client that reads: ping and the other requests, timed."""

    def __init__(self, path):
        self.sock = socket.socket(socket.AF_UNIX)
        self.sock.settimeout(10)
        self.sock.connect(path)
        self.file = self.sock.makefile("rwb")
        self.file.readline()  # hello

    def ask(self, request):
        started = time.monotonic()
        self.file.write((json.dumps(request) + "\n").encode())
        self.file.flush()
        while True:
            line = self.file.readline()
            if not line:
                return None, time.monotonic() - started
            if b'"reply"' in line:
                return json.loads(line), time.monotonic() - started


def websocket(port, receive_buffer=4096):
    s = socket.socket()
    s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, receive_buffer)
    s.connect(("127.0.0.1", port))
    s.sendall(
        b"GET /ws HTTP/1.1\r\nHost: 127.0.0.1:%d\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
        b"Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n" % port)
    head = b""
    while b"\r\n\r\n" not in head:
        head += s.recv(1)
    return s


def masked(payload):
    key = os.urandom(4)
    return bytes([0x81, 0x80 | len(payload)]) + key + bytes(b ^ key[i % 4] for i, b in enumerate(payload))


def photos(pid, path, port, seconds):
    request = b'{"request":"capture"}'
    clients = []
    for _ in range(4):
        s = socket.socket(socket.AF_UNIX)
        s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
        s.connect(path)
        clients.append((s, request + b"\n"))
    for _ in range(8):
        clients.append((websocket(port), masked(request)))
    for s, _ in clients:
        s.setblocking(False)
    done = threading.Event()

    def pump():
        while not done.is_set():
            for s, data in clients:
                try:
                    s.send(data)
                except OSError:
                    pass
            time.sleep(0.01)

    threading.Thread(target=pump, daemon=True).start()
    control = Control(path)
    before = rss_mb(pid)
    pings, peak = [], before
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        reply, took = control.ask({"request": "ping"})
        pings.append(took * 1000 if reply else float("inf"))
        peak = max(peak, rss_mb(pid))
        time.sleep(0.25)
    done.set()
    for s, _ in clients:
        s.close()
    time.sleep(5)
    return {"rssBeforeMB": before, "rssPeakMB": peak, "rssAfterMB": rss_mb(pid), "pingWorstMs": round(max(pings), 1),
            "pingMedianMs": round(statistics.median(pings), 1), "pings": len(pings)}


def idle(pid, path, port, count):
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (min(hard, count + 256), hard))
    connections, started = [], time.monotonic()
    for _ in range(count):
        s = socket.socket()
        s.settimeout(5)
        try:
            s.connect(("127.0.0.1", port))
        except OSError:
            break
        connections.append(s)
    opened = time.monotonic() - started
    try:
        control = Control(path)
        reply, ping = control.ask({"request": "ping"})
    except OSError:  # no answer within 10 s: locked out
        reply, ping = None, None
    started = time.monotonic()
    items = subprocess.run(["curl", "-s", "-m", "10", "-o", "/dev/null", "-w", "%{http_code}", f"http://127.0.0.1:{port}/items"],
                           capture_output=True, text=True).stdout
    took = time.monotonic() - started
    held = descriptors(pid)
    return {"connected": len(connections), "openedSeconds": round(opened, 1), "pingMs": round(ping * 1000, 1) if reply else "no answer in 10 s",
            "itemsStatus": items, "itemsMs": round(took * 1000, 1), "descriptorsHeld": held, "rssMB": rss_mb(pid)}


def events(pid, path, port, count):
    stalled = []
    for _ in range(count):
        s = socket.socket()
        s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
        s.connect(("127.0.0.1", port))
        s.sendall(b"GET /events HTTP/1.1\r\nHost: 127.0.0.1:%d\r\n\r\n" % port)
        stalled.append(s)
    control = Control(path)
    started, sets = time.monotonic(), 0
    while time.monotonic() - started < 60:
        reply, _ = control.ask({"request": "stats"})
        if reply["events"]["overflows"] >= count:
            break
        for n in range(100):
            control.ask({"request": "set", "quality": "fast" if (sets + n) % 2 else "balanced"})
        sets += 100
    overflowed = time.monotonic() - started
    time.sleep(1.5)
    established = subprocess.run(f"ss -Htn state established '( sport = :{port} )' | wc -l", shell=True, capture_output=True, text=True).stdout.strip()
    fresh = subprocess.run(["curl", "-s", "-N", "-m", "3", f"http://127.0.0.1:{port}/events"], capture_output=True, text=True).stdout
    return {"streams": count, "setsSent": sets, "allOverflowedSeconds": round(overflowed, 1), "stillEstablished": int(established),
            "newStreamServed": '"event":"hello"' in fresh, "rssMB": rss_mb(pid)}


def established(port):
    out = subprocess.run(f"ss -Htn state established '( sport = :{port} )'", shell=True, capture_output=True, text=True).stdout
    return len(out.splitlines())


def snapshots(pid, path, port, count):
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (min(hard, 2 * count + 256), hard))
    stalled, probes, closed_after, failed = [], [], [], []
    started = time.monotonic()
    for wave in range(2):
        while time.monotonic() - started < 30 * wave:
            time.sleep(0.1)
        wave_start = time.monotonic()
        for _ in range(count):
            s = socket.socket()
            s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
            s.settimeout(5)
            try:
                s.connect(("127.0.0.1", port))
                s.sendall(b"GET /snapshot.jpg HTTP/1.1\r\nHost: 127.0.0.1:%d\r\n\r\n" % port)
                stalled.append(s)
            except OSError:
                s.close()
        # Every 0.5 s for 30 s: a new /items, timed; and how many connections the server still holds.
        drained = None
        while time.monotonic() - wave_start < 30:
            t = time.monotonic()
            code = subprocess.run(["curl", "-s", "-m", "10", "-o", "/dev/null", "-w", "%{http_code}", f"http://127.0.0.1:{port}/items"],
                                  capture_output=True, text=True).stdout
            probes.append((code, time.monotonic() - t))
            if code != "200":
                failed.append(f"wave {wave + 1} at {t - wave_start:.1f} s: {code}")
            if drained is None and established(port) <= 1:
                drained = time.monotonic() - wave_start
            time.sleep(max(0, 0.5 - (time.monotonic() - t)))
        closed_after.append(round(drained, 1) if drained is not None else "not within 30 s")
    for s in stalled:
        s.close()
    times = [took for _, took in probes]
    return {"stalledClients": count, "waves": 2, "itemsAsked": len(probes), "itemsAnswered": sum(code == "200" for code, _ in probes), "itemsFailed": len(failed), "firstFailed": failed[:3],
            "itemsWorstMs": round(max(times) * 1000, 1), "itemsMedianMs": round(statistics.median(times) * 1000, 1),
            "allStalledClosedAfterSeconds": closed_after, "rssMB": rss_mb(pid)}


if __name__ == "__main__":
    kind, pid, path, port, n = sys.argv[1], int(sys.argv[2]), sys.argv[3], int(sys.argv[4]), int(sys.argv[5])
    print(json.dumps({"photos": photos, "idle": idle, "events": events, "snapshots": snapshots}[kind](pid, path, port, n)))
