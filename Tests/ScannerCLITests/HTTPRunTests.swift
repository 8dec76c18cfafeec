import Foundation
import ScannerCore
import ScannerProtocol
import TestSupport
import TestTraits
import Testing

/// A TCP socket bound to a free loopback port (listening if asked): its descriptor and port.
func loopbackSocket(listening: Bool) throws -> (fd: Int32, port: Int) {
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    try #require(fd >= 0)
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    let bound = withUnsafeMutablePointer(to: &address) { pointer in
        pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
            bind(fd, $0, length) == 0 && (!listening || listen(fd, 1) == 0) && getsockname(fd, $0, &length) == 0
        }
    }
    if !bound { close(fd) }
    try #require(bound)
    return (fd, Int(UInt16(bigEndian: address.sin_port)))
}

/// A TCP port on loopback that nothing listens on right now.
func freeLoopbackPort() throws -> Int {
    let (fd, port) = try loopbackSocket(listening: false)
    close(fd)
    return port
}

/// `scannerd run` with `arguments` and its HTTP server on a loopback port the kernel chooses
/// (`--http 127.0.0.1:0`), and that port, from the daemon's `http listening` line. A port found free
/// beforehand can be bound by a daemon of a test running alongside first: both tests then talk to
/// that one daemon until its test stops it (seen: the preview-page test's browser found nothing
/// listening, attempt after attempt, while its own daemon had exited on "address in use").
/// `wrapper` runs the daemon under another command (`prlimit --nofile=1024`); then `arguments` must
/// name `--no-config` themselves (`Subprocess` adds it only when it starts scannerd itself).
func httpDaemon(_ arguments: [String], environment: [String: String] = [:], wrapper: [String] = []) throws -> (daemon: Subprocess.Running, port: Int)
{
    let scannerd = Subprocess.executable("scannerd")
    let command = wrapper + [scannerd] + arguments + ["--http", "127.0.0.1:0"]
    let daemon = try Subprocess.Running(command[0], Array(command.dropFirst()), environment: environment)
    let pattern = /http listening url=http:\/\/127\.0\.0\.1:([0-9]+)\//
    daemon.waitForStderr(timeout: 30) { $0.contains(pattern) }
    guard let match = daemon.stderr.firstMatch(of: pattern), let port = Int(match.1) else {
        _ = daemon.stop()
        throw HTTPDaemonFailure(stderr: daemon.stderr)
    }
    return (daemon, port)
}

struct HTTPDaemonFailure: Error, CustomStringConvertible {
    var stderr: String
    var description: String { "the daemon logged no http listening line: \(stderr.suffix(1500))" }
}

/// `scannerd run --http`: the daemon's HTTP server as a browser's kiosk app reaches it. Each test
/// waits on subprocesses inside `blocking`, off the cooperative pool (a thread a core here): a browser
/// that hangs must not starve every other suite of the run.
@Suite(.offThePool(minutes: 3)) struct HTTPRunTests {
    let scannerd = Subprocess.executable("scannerd")

    @Test func theDemoReachesAnEventStreamClientAndTheSnapshotIsAJPEG() async throws {
        try await blocking {
            let (daemon, port) = try httpDaemon(["run", "--no-socket", "--source", "demo", "--loop", "--types", "qr"])
            defer { _ = daemon.stop() }
            // curl waits for the listener (connection refused → retry), then streams.
            let client = try Subprocess.Running(
                "/usr/bin/curl",
                [
                    "-s", "-N", "--max-time", "60", "--retry", "100", "--retry-connrefused", "--retry-delay", "0", "--retry-max-time", "30",
                    "http://127.0.0.1:\(port)/events",
                ])
            defer { _ = client.stop(signal: SIGKILL) }
            let payloads = { (lines: [String]) -> [String] in
                Array(JSONLines.addedPayloads(lines.filter { $0.hasPrefix("data: ") }.map { String($0.dropFirst(6)) }))
            }
            #expect(client.waitFor(timeout: itemWithin) { payloads($0).contains("https://example.com/scannerd-demo") }, "\(client.output.suffix(5))")
            let first = client.output.first { $0.hasPrefix("data: ") }.flatMap { try? EventLine(decoding: String($0.dropFirst(6))).event }
            if case .hello(let hello)? = first {
                #expect(!hello.daemon.isEmpty)
            } else {
                Issue.record("no hello first: \(String(describing: first))")
            }
            let scratch = try TemporaryDirectory("scannerd-http")
            let snapshot = try Subprocess.run(
                "/usr/bin/curl",
                [
                    "-s", "--max-time", "10", "-o", scratch.file("s.jpg"), "-w", "%{http_code} %{content_type}",
                    "http://127.0.0.1:\(port)/snapshot.jpg?annotate=1",
                ])
            #expect(snapshot.stdout == "200 image/jpeg", "\(snapshot.stdout)")
            let jpeg = try Data(contentsOf: URL(fileURLWithPath: scratch.file("s.jpg")))
            #expect(jpeg.prefix(3) == Data([0xFF, 0xD8, 0xFF]) && jpeg.count > 1000, "a JPEG")
            #expect(daemon.stop() == 0)
            #expect(daemon.stderr.contains("http listening") && daemon.stderr.contains("url=http://127.0.0.1:\(port)/"), "\(daemon.stderr)")
        }
    }

    /// The same requests over the socket and over WebSocket get the same replies.
    @Test func webSocketRequestsGetTheSocketsReplies() async throws {
        try await blocking {
            let scratch = try TemporaryDirectory("scannerd-ws")
            let socket = scratch.file("s.sock")
            let (daemon, port) = try httpDaemon(["run", "--socket", socket, "--source", "demo", "--loop", "--types", "qr"])
            defer { _ = daemon.stop() }
            try #require(waitForSocket(socket), "\(daemon.stderr)")
            let requests = [
                #"{"request":"ping","id":"a"}"#, #"{"request":"subscribe","kinds":["barcode"]}"#, #"{"request":"nope"}"#,
                #"{"request":"set","quality":"best"}"#,
                #"{"request":"set","single":false,"id":3}"#, #"{"request":"capture","path":"\#(scratch.file("photo.jpg"))"}"#, "not json",
            ]
            let probe = try ScannerClientProbe(path: socket)
            let overSocket = try requests.map { try probe.ask($0) }
            let python = Fixtures.packageRoot.appendingPathComponent(".build/footage-venv/bin/python").path
            let client = try Subprocess.Running(
                python,
                ["Tests/Fixtures/clients/ws_client.py", "ws://127.0.0.1:\(port)/ws", "--seconds", "20"] + requests.flatMap { ["--send", $0] })
            defer { _ = client.stop(signal: SIGKILL) }
            let replies = { (lines: [String]) in lines.filter { $0.contains(#""reply""#) } }
            #expect(client.waitFor(timeout: 20) { replies($0).count >= requests.count }, "\(client.output)")
            // The socket's peer is this test's user (root here: it may write files); a WebSocket client
            // never has files written.
            var expected = overSocket
            expected[5] = try #require(replies(client.output).dropFirst(5).first)
            #expect(JSONLines.object(expected[5])["ok"]?.bool == false && expected[5].contains("access-denied"), "\(expected[5])")
            #expect(replies(client.output) == expected, "socket: \(overSocket)")
            #expect(overSocket.allSatisfy { !$0.isEmpty })
        }
    }

    /// `/metrics` is Prometheus text (prometheus-client's parser accepts it) and its counters move.
    @Test func metricsParseAsPrometheusTextAndMove() async throws {
        try await blocking {
            let (daemon, port) = try httpDaemon(["run", "--no-socket", "--source", "demo", "--loop"])
            defer { _ = daemon.stop() }
            let python = Fixtures.packageRoot.appendingPathComponent(".build/footage-venv/bin/python").path
            func scrape() throws -> JSONValue {
                let text = try Subprocess.run(
                    "/usr/bin/curl",
                    [
                        "-s", "--max-time", "10", "--retry", "100", "--retry-connrefused", "--retry-delay", "0", "--retry-max-time", "30",
                        "http://127.0.0.1:\(port)/metrics",
                    ], timeout: 40)
                let file = FileManager.default.temporaryDirectory.appendingPathComponent("metrics-\(UUID().uuidString).txt").path
                defer { try? FileManager.default.removeItem(atPath: file) }
                try text.stdout.write(toFile: file, atomically: true, encoding: .utf8)
                let parsed = try Subprocess.run("/bin/sh", ["-c", "\"$0\" Tests/Fixtures/clients/prometheus_text.py < \"$1\"", python, file])
                try #require(parsed.status == 0, "\(parsed.stderr)\n\(text.stdout.prefix(500))")
                return JSONLines.object(parsed.stdout)
            }
            let first = try scrape()
            // Wait for frames to move on and every stage to have run once (a condition, not a sleep):
            // the demo plays at 10 fps, and text is read on the latest frame when the reader is free,
            // which on a loaded machine can be seconds after the first frames.
            let stages = ["decode", "barcodes", "text", "detection"]
            let moved = { (second: JSONValue) -> Bool in
                (second["scannerd_frames_total{outcome=decoded}"]?.doubleValue ?? 0)
                    > (first["scannerd_frames_total{outcome=decoded}"]?.doubleValue ?? 0)
                    + 5
                    && stages.allSatisfy { (second["scannerd_stage_duration_seconds_count{stage=\($0)}"]?.doubleValue ?? 0) > 0 }
            }
            var second = first
            let deadline = Date().addingTimeInterval(60)
            while Date() < deadline, !moved(second) {
                second = try scrape()
            }
            let types = second["#types"] ?? .null
            #expect(
                types["scannerd_frames"]?.string == "counter" && types["scannerd_events"]?.string == "counter"
                    && types["scannerd_stage_duration_seconds"]?.string == "histogram", "\(types)")
            #expect(
                (second["scannerd_frames_total{outcome=decoded}"]?.doubleValue ?? 0)
                    > (first["scannerd_frames_total{outcome=decoded}"]?.doubleValue ?? 0)
                    + 5)
            #expect((second["scannerd_events_total{}"]?.doubleValue ?? 0) >= 1, "the demo's QR code was added")
            for stage in stages {
                #expect((second["scannerd_stage_duration_seconds_count{stage=\(stage)}"]?.doubleValue ?? 0) > 0, "\(stage)")
            }
            #expect(second["scannerd_clients{}"] != nil && second["scannerd_items{}"] != nil)
            // The text networks loaded: no failure flagged (issue #54).
            #expect(second["scannerd_text_models_failed{}"]?.doubleValue == 0, "\(second)")
            // Recognition failures counted per stage (issue #54): none on the demo.
            for stage in ["barcodes", "detection", "reading"] {
                #expect(second["scannerd_recognition_failures_total{stage=\(stage)}"]?.doubleValue == 0, "\(stage)")
            }
        }
    }

    /// The preview page in a real browser (Debian's headless Chromium) against the demo: its QR code
    /// appears in the page's list and its quad is drawn over the picture. (The demo loops every 3 s
    /// and shows the code for about 2 of them: the page is loaded again until it is in view.)
    @Test func thePreviewPageShowsTheItemsInAHeadlessBrowser() async throws {
        try await blocking {
            // Short names: Chromium's SingletonSocket goes in $TMPDIR/org.chromium.Chromium.XXXXXX/,
            // and it refuses to start (exit 6) where that path passes a Unix socket's 107 bytes.
            let scratch = try TemporaryDirectory("p")
            let (daemon, port) = try httpDaemon(["run", "--no-socket", "--source", "demo", "--loop", "--types", "qr"])
            defer { _ = daemon.stop() }
            // The page itself: served with a policy that lets it load nothing from elsewhere.
            let head = try Subprocess.run(
                "/usr/bin/curl",
                [
                    "-s", "-D", "-", "-o", "/dev/null", "--retry", "100", "--retry-connrefused", "--retry-delay", "0", "--retry-max-time", "30",
                    "http://127.0.0.1:\(port)/",
                ], timeout: 40)
            #expect(head.stdout.lowercased().contains("content-security-policy: default-src 'none'; script-src 'self'"), "\(head.stdout)")
            let (dom, summary) = try Self.browse(port: port, scratch: scratch) { $0.contains(#"<span class="kind">qr</span>"#) }
            #expect(
                dom.contains(#"<span class="kind">qr</span>https://example.com/scannerd-demo</li>"#),
                "\(summary)\nthe daemon \(daemon.process.isRunning ? "runs" : "exited \(daemon.process.terminationStatus)"): \(daemon.stderr.suffix(1500))\n\(dom.suffix(1500))"
            )
            // The QR item's own quad: the polygon with the list entry's id.
            let entry = try #require(dom.range(of: #"<span class="kind">qr</span>"#), "\(dom.suffix(1500))")
            let id = try #require(dom[..<entry.lowerBound].components(separatedBy: #"<li data-id=""#).last?.prefix { $0 != "\"" })
            let polygon = try #require(
                dom.range(of: #"<polygon points="([^"]*)" data-id="\#(id)""#, options: .regularExpression), "its quad drawn: \(dom.suffix(1500))")
            let points = dom[polygon].dropFirst(#"<polygon points=""#.count).prefix { $0 != "\"" }.split(separator: " ").map {
                $0.split(separator: ",").compactMap { Double($0) }
            }
            #expect(points.count == 4 && points.allSatisfy { $0.count == 2 && $0.allSatisfy { (0...1).contains($0) } }, "\(points)")
            #expect(dom.contains("camera available"), "the hello reached the page")
        }
    }

    /// The page's DOM as headless Chromium renders it, loaded again until `done` holds or 110 s pass;
    /// and a summary of the attempts for a failure message.
    ///
    /// Chromium usually answers in ~2 s. It exited 5 within 0.1 s on every attempt whenever this test
    /// process's umask had been left at 0177 (in-process EventServer tests used to borrow the
    /// process-wide umask while binding, and concurrent borrows could leave 0177 behind; a Chromium
    /// that inherits it cannot enter the directories it makes). The server no longer touches the
    /// umask, but other tests set it for a moment (PhotoFileTests), so Chromium is still started with
    /// umask 022, and with default signal dispositions, under timeout(1) (which kills its whole
    /// process group), with a profile, home and temporary directory of its own; failed attempts are
    /// printed and summed up.
    static func browse(port: Int, scratch: TemporaryDirectory, until done: (String) -> Bool) throws -> (dom: String, summary: String) {
        var dom = ""
        var attempts: [(status: Int32, bytes: Int, stderr: String)] = []
        let deadline = Date().addingTimeInterval(110)
        repeat {
            let own = scratch.file("\(attempts.count)")
            try FileManager.default.createDirectory(atPath: own + "/tmp", withIntermediateDirectories: true)
            let browser = try Subprocess.run(
                "/bin/sh",
                [
                    "-c", #"umask 022 && exec "$@""#, "sh", "/usr/bin/env", "--default-signal", "/usr/bin/timeout", "-k", "5", "25",
                    "/usr/bin/chromium",
                    "--headless", "--no-sandbox", "--disable-gpu", "--user-data-dir=\(own)/profile", "--virtual-time-budget=3000", "--dump-dom",
                    "http://127.0.0.1:\(port)/",
                ],
                environment: ["HOME": own, "TMPDIR": own + "/tmp"], timeout: 40)
            dom = browser.stdout
            let said = browser.stderr.split(separator: "\n").filter {
                !$0.contains("Failed to connect to the bus") && !$0.contains("object_proxy.cc")
            }.joined(separator: " | ")
            attempts.append((browser.status, dom.count, said))
        } while !done(dom) && Date() < deadline
        let failed = attempts.filter { $0.status != 0 }
        let summary =
            "\(attempts.count) attempts, \(failed.count) failed; the last: exit \(attempts.last?.status ?? -1), \(attempts.last?.bytes ?? 0) bytes: \(attempts.last?.stderr ?? "")"
        if !failed.isEmpty {
            print("browse: Chromium failed to start: \(summary); first failure: \(failed[0].stderr)")
        }
        return (dom, summary)
    }

    /// Issue #43's items on the preview page: a still of the label fixture replayed, the new types
    /// asked for. A tracking number is named by its carrier, a date by its kind; the recipient's
    /// address, printed on two lines, is one item (the live text stage joins them).
    @Test func thePreviewPageShowsTheNewContentTypes() async throws {
        try await blocking {
            let scratch = try TemporaryDirectory("p")
            let clip = scratch.file("clip")
            try FileManager.default.createDirectory(atPath: clip, withIntermediateDirectories: true)
            // 10 empty frames (less than the grace period: the scene behind, for the document), then the
            // label for 30, looped, every
            // frame on the replay's own clock (`--pace none`): a loaded machine reads it as slowly as
            // it must but as often as an idle one (at realtime, a full test run's load left too few
            // passes for the items that need agreeing reads; a still scene is read for 2 s only).
            for index in 0..<40 {
                try FileManager.default.createSymbolicLink(
                    atPath: clip + String(format: "/frame-%03d.jpg", index),
                    withDestinationPath: Fixtures.path(index < 10 ? "empty.jpg" : "label.jpg"))
            }
            let (daemon, port) = try httpDaemon([
                "run", "--no-socket", "--source", clip, "--loop", "--pace", "none", "--types",
                "contentTypes,shipmentTrackingNumber,dateTimeDuration,fullStreetAddress,document",
                "--line-model", Fixtures.packageRoot.appendingPathComponent(".build/models").path,
            ])
            defer { _ = daemon.stop() }
            // Text is added after agreeing reads over several passes, which a loaded machine makes
            // slow: the daemon's own list is waited for first, then the page (whose hello has it).
            let listed = Date().addingTimeInterval(90)
            var items = ""
            let payloads = ["9400111899223397881238", "2210 Harbor Lane, Apt 5, Oakland CA 94607", "2026-11-21T14:03", #""kind":"document""#]
            while Date() < listed, !payloads.allSatisfy({ items.contains($0) }) {
                items = try Subprocess.run(
                    "/usr/bin/curl",
                    ["-s", "--max-time", "5", "--retry", "20", "--retry-connrefused", "--retry-delay", "0", "http://127.0.0.1:\(port)/items"],
                    timeout: 30
                ).stdout
                if !payloads.allSatisfy({ items.contains($0) }) { Thread.sleep(forTimeInterval: 0.5) }
            }
            try #require(payloads.allSatisfy { items.contains($0) }, "not added: \(items) \(daemon.stderr.suffix(800))")
            let wanted = [
                #"<span class="kind">tracking usps</span>9400111899223397881238</li>"#,
                #"<span class="kind">fullStreetAddress</span>2210 Harbor Lane, Apt 5, Oakland CA 94607</li>"#,
                #"<span class="kind">dateTime</span>2026-11-21T14:03</li>"#,
                // The label itself, held up: its quad drawn apart, a link to its picture straightened.
                #"<span class="kind">document</span>document<a href="document.jpg" target="_blank">straightened</a></li>"#,
                #" class="document"></polygon>"#,
            ]
            let (dom, summary) = try Self.browse(port: port, scratch: scratch) { dom in wanted.allSatisfy { dom.contains($0) } }
            for line in wanted { #expect(dom.contains(line), "\(summary)\n\(daemon.stderr.suffix(800))\n\(dom.suffix(1500))") }
            for type in ["shipmentTrackingNumber", "currency", "dateTimeDuration", "flightNumber", "fullStreetAddress", "document"] {
                #expect(dom.contains(#"data-types="\#(type)""#), "the type buttons: \(type)")
            }
        }
    }

    @Test func aTakenPortEndsTheDaemonWithOneClearLine() async throws {
        try await blocking {
            // Something else listens on the port.
            let (fd, port) = try loopbackSocket(listening: true)
            defer { close(fd) }
            // A looping replay would run forever: the daemon must stop it and exit, not hang.
            let result = try Subprocess.run(
                scannerd, ["run", "--no-socket", "--source", "demo", "--loop", "--types", "qr", "--http", "127.0.0.1:\(port)"], timeout: 60)
            #expect(result.status != 0 && !result.timedOut, "\(result.stderr)")
            #expect(result.stderr.contains("http.listen 127.0.0.1:\(port): cannot listen:") && result.stderr.contains("in use"), "\(result.stderr)")
        }
    }

    @Test func aNonLoopbackAddressWithoutATokenAndABadTokenFileAreRefusedAtStart() async throws {
        try await blocking {
            let scratch = try TemporaryDirectory("scannerd-http")
            let long = try scratch.write("long", String(repeating: "x", count: 5000))
            let spaced = try scratch.write("spaced", "two words\n")
            let cases: [([String], String)] = [
                (["--http", "0.0.0.0:0"], "is not loopback: set http.token-file"),
                (["--http", "127.0.0.1:0", "--http-token-file", scratch.path], "not a regular file"),
                (["--http", "127.0.0.1:0", "--http-token-file", long], "longer than 4096 bytes"),
                (["--http", "127.0.0.1:0", "--http-token-file", spaced], "expected one token"),
                (["--http", "127.0.0.1:0", "--http-token-file", scratch.file("missing")], "cannot be read"),
                (["--http", "127.0.0.1"], "expected HOST:PORT"),
                (["--http", "127.0.0.1:0", "--http-allowed-origin", "evil.example"], "expected an origin"),
            ]
            for (arguments, message) in cases {
                let result = try Subprocess.run(scannerd, ["run", "--no-socket", "--source", "demo"] + arguments, timeout: 30)
                #expect(result.status != 0 && !result.timedOut, "\(arguments)")
                #expect(result.stderr.contains(message), "\(arguments): \(result.stderr)")
            }
        }
    }
}
