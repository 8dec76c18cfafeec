import Foundation
import TestSupport
import Testing

/// `scanctl` against a running `scannerd run` on a replay, through the real socket.
@Suite(.serialized) struct ScanctlTests {
    let scannerd = Subprocess.executable("scannerd")
    let scanctl = Subprocess.executable("scanctl")

    func socketPath() throws -> String {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("scanctl-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        return directory.appendingPathComponent("scannerd.sock").path
    }

    func waitForSocket(_ path: String) {
        let deadline = Date().addingTimeInterval(20)
        while !FileManager.default.fileExists(atPath: path) && Date() < deadline { Thread.sleep(forTimeInterval: 0.05) }
    }

    @Test func watchShowsItemsAddedAndRemoved() throws {
        let socket = try socketPath()
        let daemon = try Subprocess.Running(scannerd, ["run", "--source", "Tests/Fixtures/clips/sequence", "--loop", "--socket", socket])
        waitForSocket(socket)
        let watch = try Subprocess.Running(scanctl, ["watch", "--socket", socket])
        // Readable lines: time, event, kind, payload, id prefix.
        let sawLife = watch.waitFor(timeout: 30) { lines in
            lines.contains { $0.contains("added") && $0.contains("qr") && $0.contains("https://example.com/clip") }
                && lines.contains { $0.contains("removed") && $0.contains("https://example.com/clip") }
        }
        let json = try Subprocess.Running(scanctl, ["watch", "--json", "--socket", socket, "--kinds", "text"])
        let sawPhone = json.waitFor(timeout: 30) { lines in lines.contains { $0.contains(#""event":"added""#) && $0.contains("+12125550187") } }
        _ = watch.stop(signal: SIGINT)
        _ = json.stop(signal: SIGINT)
        #expect(sawLife, "\(watch.output.suffix(5))")
        #expect(watch.output.first?.contains("hello") == true)
        #expect(sawPhone, "\(json.output.suffix(5))")
        #expect(!json.output.contains { $0.contains("https://example.com/clip") }, "--kinds text leaves the QR code out")

        let ping = try Subprocess.run(scanctl, ["ping", "--socket", socket])
        #expect(ping.status == 0 && ping.stdout.contains("answered"))
        let stats = try Subprocess.run(scanctl, ["stats", "--socket", socket])
        #expect(stats.status == 0, "\(stats.stderr)")
        for figure in ["uptime", "capture.frames", "capture.decoded", "capture.dropped", "capture.corrupt", "capture.reconnects", "capture.fps",
                       "barcodes.scans", "barcodes.latencyP50", "barcodes.latencyP99", "text.passes", "text.perSecond",
                       "text.latencyP50", "text.latencyP99", "events.items", "events.clients"] {
            #expect(stats.stdoutLines.contains { $0.hasPrefix(figure + ": ") }, "scanctl stats shows \(figure): \(stats.stdout)")
        }
        func figure(_ name: String) -> Double? {
            stats.stdoutLines.first { $0.hasPrefix(name + ": ") }.flatMap { Double($0.dropFirst(name.count + 2)) }
        }
        // The phone was read, so Tesseract ran; its latencies are real measurements, in order.
        #expect((figure("text.passes") ?? 0) > 0 && (figure("capture.decoded") ?? 0) > 0 && (figure("barcodes.scans") ?? 0) > 0)
        #expect((figure("text.latencyP50") ?? 0) > 0 && (figure("text.latencyP50") ?? .infinity) <= (figure("text.latencyP99") ?? 0))
        let items = try Subprocess.run(scanctl, ["items", "--socket", socket])
        #expect(items.status == 0)
        #expect(items.stdoutLines.allSatisfy { $0.hasPrefix("{") && $0.contains("\"id\"") })
        #expect(daemon.stop() == 0)
        #expect(!FileManager.default.fileExists(atPath: socket), "the daemon removes its socket when it stops")
    }

    /// The issue's "done when": the demo with `scanctl watch` shows its items added and removed.
    @Test func watchingTheDemoShowsItsItemsComeAndGo() throws {
        let socket = try socketPath()
        let daemon = try Subprocess.Running(scannerd, ["run", "--source", "demo", "--loop", "--socket", socket])
        waitForSocket(socket)
        let watch = try Subprocess.Running(scanctl, ["watch", "--socket", socket])
        func saw(_ lines: [String], _ event: String, _ payload: String) -> Bool {
            lines.contains { $0.contains(event) && $0.contains(payload) }
        }
        let cycle = watch.waitFor(timeout: 30) { lines in
            saw(lines, "added", "https://example.com/scannerd-demo") && saw(lines, "removed", "https://example.com/scannerd-demo")
                && saw(lines, "added", "+14155550123") && saw(lines, "removed", "+14155550123")
        }
        _ = watch.stop(signal: SIGINT)
        _ = daemon.stop()
        #expect(cycle, "\(watch.output.suffix(8))")
    }

    @Test func captureSavesTheNewestFrame() throws {
        let socket = try socketPath()
        let directory = (socket as NSString).deletingLastPathComponent
        let daemon = try Subprocess.Running(scannerd, ["run", "--source", "Tests/Fixtures/clips/sequence", "--loop", "--socket", socket])
        waitForSocket(socket)
        let plain = directory + "/plain.jpg", annotated = directory + "/annotated.jpg"
        let first = try Subprocess.run(scanctl, ["capture", "--socket", socket, plain])
        // Wait for an item, so that there is something to draw.
        let watch = try Subprocess.Running(scanctl, ["watch", "--json", "--socket", socket])
        let item = watch.waitFor(timeout: 20) { lines in lines.contains { $0.contains(#""event":"added""#) } }
        _ = watch.stop(signal: SIGINT)
        let second = try Subprocess.run(scanctl, ["capture", "--annotate", "--socket", socket, annotated])
        // The daemon writes the file itself when given an absolute path.
        let direct = directory + "/direct.jpg"
        let probe = try ScannerClientProbe(path: socket)
        let reply = try probe.ask(#"{"request":"capture","path":"\#(direct)"}"#)
        let relative = try probe.ask(#"{"request":"capture","path":"photo.jpg"}"#)
        _ = daemon.stop()
        #expect(first.status == 0 && first.stdout.contains("640x480"), "\(first.stdout)\(first.stderr)")
        #expect(item)
        #expect(second.status == 0)
        for path in [plain, annotated, direct] {
            let data = try Data(contentsOf: URL(fileURLWithPath: path))
            #expect(data.starts(with: [0xFF, 0xD8, 0xFF]) && data.count > 1000, "\(path) is a JPEG")
        }
        #expect(try Data(contentsOf: URL(fileURLWithPath: plain)) != Data(contentsOf: URL(fileURLWithPath: annotated)))
        #expect(reply.contains(#""ok":true"#) && reply.contains(#""path":"\#(direct)""#), "\(reply)")
        #expect(relative.contains("bad-argument"))
    }

    @Test func aSecondDaemonOnTheSameSocketIsRefused() throws {
        let socket = try socketPath()
        let first = try Subprocess.Running(scannerd, ["run", "--source", "demo", "--loop", "--socket", socket])
        waitForSocket(socket)
        let second = try Subprocess.run(scannerd, ["run", "--source", "demo", "--socket", socket])
        _ = first.stop()
        #expect(second.status == 2)
        #expect(second.stderr.contains("another scannerd is listening"), "\(second.stderr)")
    }

    @Test func noDaemonMeansExitThreeWithAClearMessage() throws {
        let result = try Subprocess.run(scanctl, ["ping", "--socket", "/tmp/no-such-scannerd.sock"])
        #expect(result.status == 3)
        #expect(result.stderr.contains("is scannerd running?"))
        let usage = try Subprocess.run(scanctl, ["watch", "--socket", "/tmp/x.sock", "--bogus"])
        #expect(usage.status == 2)
    }
}

/// Access control and socket activation: the daemon as systemd and other users meet it.
@Suite(.serialized) struct SocketAccessTests {
    let scannerd = Subprocess.executable("scannerd")
    let scanctl = Subprocess.executable("scanctl")

    /// A directory other users may enter.
    func sharedDirectory() throws -> String {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("scannerd-acl-\(UUID().uuidString.prefix(8))").path
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o755])
        return path
    }

    func waitForSocket(_ path: String) {
        let deadline = Date().addingTimeInterval(20)
        while !FileManager.default.fileExists(atPath: path) && Date() < deadline { Thread.sleep(forTimeInterval: 0.05) }
    }

    @Test func peersOutsideTheAllowedGroupsAreRefused() throws {
        try #require(FileManager.default.isExecutableFile(atPath: "/usr/bin/setpriv"), "util-linux's setpriv runs a command as another user")
        let socket = try sharedDirectory() + "/s.sock"
        let daemon = try Subprocess.Running(scannerd, ["run", "--source", "demo", "--loop", "--socket", socket, "--socket-mode", "0666", "--allow-group", "root"])
        waitForSocket(socket)
        let root = try Subprocess.run(scanctl, ["ping", "--socket", socket])
        let nobody = try Subprocess.run("/usr/bin/setpriv", ["--reuid=nobody", "--regid=nogroup", "--clear-groups", scanctl, "ping", "--socket", socket])
        _ = daemon.stop()
        #expect(root.status == 0)
        #expect(nobody.status == 3, "\(nobody.stderr)")
        #expect(nobody.stderr.contains("access-denied") && nobody.stderr.contains("may not use this socket"))
        #expect(daemon.stderr.contains("client refused"), "the refusal is logged")
        // The socket's mode was applied.
        #expect(!FileManager.default.fileExists(atPath: socket))
    }

    @Test func socketModeIsApplied() throws {
        let socket = try sharedDirectory() + "/s.sock"
        let daemon = try Subprocess.Running(scannerd, ["run", "--source", "demo", "--loop", "--socket", socket, "--socket-mode", "0600"])
        waitForSocket(socket)
        let attributes = try FileManager.default.attributesOfItem(atPath: socket)
        _ = daemon.stop()
        #expect((attributes[.posixPermissions] as? Int) == 0o600)
    }

    @Test func aSocketPassedBySystemdIsUsed() throws {
        // Listen on a socket as systemd would, and start the daemon with it as descriptor 3.
        let path = try sharedDirectory() + "/activated.sock"
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { raw in raw.copyBytes(from: Array(path.utf8)); raw[path.utf8.count] = 0 }
        let bound = withUnsafePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) } }
        try #require(bound == 0 && listen(fd, 16) == 0)
        defer { close(fd) }
        // LISTEN_PID must be the daemon's own pid: a shell sets it to $$ and then execs the daemon.
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        posix_spawn_file_actions_adddup2(&actions, fd, 3)
        defer { posix_spawn_file_actions_destroy(&actions) }
        let command = "LISTEN_FDS=1 LISTEN_PID=$$ exec '\(scannerd)' run --source demo --loop --socket /nonexistent/unused.sock --log-level error"
        var pid: pid_t = 0
        let argv: [UnsafeMutablePointer<CChar>?] = [strdup("/bin/sh"), strdup("-c"), strdup(command), nil]
        defer { argv.forEach { free($0) } }
        let spawned = posix_spawn(&pid, "/bin/sh", &actions, nil, argv, environ)
        try #require(spawned == 0)
        // The socket accepts at once (the kernel queues connections); the daemon answers once it runs.
        var ping = try Subprocess.run(scanctl, ["ping", "--socket", path])
        let deadline = Date().addingTimeInterval(20)
        while ping.status != 0 && Date() < deadline {
            Thread.sleep(forTimeInterval: 0.2)
            ping = try Subprocess.run(scanctl, ["ping", "--socket", path])
        }
        kill(pid, SIGTERM)
        var status: Int32 = 0
        waitpid(pid, &status, 0)
        #expect(ping.status == 0, "\(ping.stderr)")
        #expect(FileManager.default.fileExists(atPath: path), "a socket systemd owns is not removed by the daemon")
    }
}

/// `set` over the socket changes what the running pipeline recognizes, from the next frame.
@Suite(.serialized) struct LiveSettingsTests {
    let scannerd = Subprocess.executable("scannerd")

    @Test func setChangesTypesForEveryClientAndIsAnnounced() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("scannerd-set-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let socket = directory.appendingPathComponent("s.sock").path
        let daemon = try Subprocess.Running(scannerd, ["run", "--source", "Tests/Fixtures/clips/sequence", "--loop", "--socket", socket, "--events-stdout"])
        let deadline = Date().addingTimeInterval(20)
        while !FileManager.default.fileExists(atPath: socket) && Date() < deadline { Thread.sleep(forTimeInterval: 0.05) }
        let connection = try ScannerClientProbe(path: socket)
        let reply = try connection.ask(#"{"request":"set","id":"s1","types":["telephoneNumber"]}"#)
        #expect(reply.contains(#""reply":"set","id":"s1","ok":true"#), "\(reply)")
        #expect(reply.contains(#""types":["telephoneNumber"]"#))
        // The same through scanctl.
        let scanctl = try Subprocess.run(Subprocess.executable("scanctl"), ["set", "--socket", socket, "--single", "off", "--roi", "full"])
        #expect(scanctl.status == 0 && scanctl.stdout.contains("single: 0") || scanctl.stdout.contains("single: false"), "\(scanctl.stdout)\(scanctl.stderr)")
        let bad = try Subprocess.run(Subprocess.executable("scanctl"), ["set", "--socket", socket, "--quality", "best"])
        #expect(bad.status == 1 && bad.stderr.contains("bad-argument"))
        // Every client hears the change; after it, only phone numbers are added (a loop is 6.5 s).
        let announced = daemon.waitFor(timeout: 10) { $0.contains { $0.contains(#""event":"config""#) } }
        #expect(announced)
        let configIndex = daemon.output.firstIndex { $0.contains(#""event":"config""#) } ?? 0
        let sawPhone = daemon.waitFor(timeout: 40) { lines in lines[configIndex...].contains { $0.contains(#""event":"added""#) && $0.contains("+12125550187") } }
        Thread.sleep(forTimeInterval: 1)
        _ = daemon.stop()
        let after = daemon.output[configIndex...].filter { $0.contains(#""event":"added""#) }
        #expect(sawPhone)
        #expect(!after.contains { $0.contains("https://example.com/clip") }, "no QR code is added after types became telephoneNumber only")
    }
}

/// A tiny blocking client for one request (scanctl has no `set` yet).
struct ScannerClientProbe {
    let fd: Int32

    init(path: String) throws {
        fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { raw in raw.copyBytes(from: Array(path.utf8)); raw[path.utf8.count] = 0 }
        let rc = withUnsafePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) } }
        try #require(rc == 0)
    }

    /// Sends `line`, returns the first reply line (skipping hello and events).
    func ask(_ line: String) throws -> String {
        _ = Array((line + "\n").utf8).withUnsafeBytes { send(fd, $0.baseAddress, $0.count, 0) }
        var pending = [UInt8]()
        var buffer = [UInt8](repeating: 0, count: 65536)
        while true {
            let n = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if n <= 0 { return "" }
            pending += buffer[..<n]
            while let newline = pending.firstIndex(of: 0x0A) {
                let text = String(decoding: pending[..<newline], as: UTF8.self)
                pending.removeSubrange(...newline)
                if text.contains(#""reply""#) { return text }
            }
        }
    }
}
