import Foundation
import ImageDecoding
import ScannerClient
import ScannerCore
import ScannerProtocol
import TestSupport
import TestTraits
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// `scanctl` against a running `scannerd run` on a replay, through the real socket.
@Suite(.offThePool(minutes: 5), .serialized) struct ScanctlTests {
    let scannerd = Subprocess.executable("scannerd")
    let scanctl = Subprocess.executable("scanctl")

    /// Each test's own directory, removed with the suite value.
    let scratch: TemporaryDirectory
    init() throws { scratch = try TemporaryDirectory("scanctl") }

    func socketPath() -> String { scratch.file("scannerd.sock") }

    @Test func watchShowsItemsAddedAndRemoved() throws {
        let socket = socketPath()
        let daemon = try Subprocess.Running(
            scannerd, ["run", "--source", "Tests/Fixtures/clips/sequence", "--loop", "--pace", "none", "--socket", socket])
        try #require(waitForSocket(socket))
        // The two watchers side by side: each loop of the clip (every frame read, text too) is long
        // on a loaded machine.
        let watch = try Subprocess.Running(scanctl, ["watch", "--socket", socket])
        let json = try Subprocess.Running(scanctl, ["watch", "--json", "--socket", socket, "--kinds", "text"])
        // Readable lines: time, event, kind, payload, id prefix.
        let sawLife = watch.waitFor(timeout: itemWithin) { lines in
            lines.contains { $0.contains("added") && $0.contains("qr") && $0.contains("https://example.com/clip") }
                && lines.contains { $0.contains("removed") && $0.contains("https://example.com/clip") }
        }
        let sawPhone = json.waitFor(timeout: itemWithin) { lines in lines.contains { $0.contains(#""event":"added""#) && $0.contains("+12125550187") }
        }
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
        for figure in [
            "uptime", "capture.frames", "capture.decoded", "capture.dropped", "capture.corrupt", "capture.reconnects", "capture.fps",
            "barcodes.scans", "barcodes.latencyP50", "barcodes.latencyP99", "text.passes", "text.perSecond",
            "text.latencyP50", "text.latencyP99", "events.items", "events.clients",
        ] {
            #expect(stats.stdoutLines.contains { $0.hasPrefix(figure + ": ") }, "scanctl stats shows \(figure): \(stats.stdout)")
        }
        func figure(_ name: String) -> Double? {
            stats.stdoutLines.first { $0.hasPrefix(name + ": ") }.flatMap { Double($0.dropFirst(name.count + 2)) }
        }
        // The phone was read, so Tesseract ran; its latencies are real measurements, in order.
        #expect((figure("text.passes") ?? 0) > 0 && (figure("capture.decoded") ?? 0) > 0 && (figure("barcodes.scans") ?? 0) > 0)
        #expect((figure("text.latencyP50") ?? 0) > 0 && (figure("text.latencyP50") ?? .infinity) <= (figure("text.latencyP99") ?? 0))
        // Asked while something is in view (the clip loops: items come and go): when the watcher's
        // view (`hello`'s items, then `added` and `removed`) holds an item; again at the next `added`
        // if the item left before `items` was answered.
        let present = try Subprocess.Running(scanctl, ["watch", "--json", "--socket", socket])
        func added(_ lines: [String]) -> Int { JSONLines.eventNames(lines).filter { $0 == "added" }.count }
        // Bounded by one deadline, not by a number of tries: on a loaded machine a loop of the clip
        // (every frame read, text too) takes longer than on an idle one.
        var listed: Subprocess.Result?
        let deadline = Date().addingTimeInterval(itemWithin)
        repeat {
            present.waitFor(timeout: max(1, deadline.timeIntervalSinceNow)) { !JSONLines.inView($0).isEmpty }
            let seen = added(present.output)
            let items = try Subprocess.run(scanctl, ["items", "--socket", socket])
            listed = items
            if items.status != 0 || !items.stdoutLines.isEmpty { break }
            present.waitFor(timeout: max(1, deadline.timeIntervalSinceNow)) { added($0) > seen }
        } while Date() < deadline
        _ = present.stop(signal: SIGINT)
        let items = try #require(listed)
        #expect(items.status == 0)
        #expect(!items.stdoutLines.isEmpty && items.stdoutLines.allSatisfy { $0.hasPrefix("{") && $0.contains("\"id\"") }, "\(items.stdout)")
        #expect(daemon.stop() == 0)
        #expect(!FileManager.default.fileExists(atPath: socket), "the daemon removes its socket when it stops")
    }

    /// The issue's "done when": the demo with `scanctl watch` shows its items added and removed.
    @Test func watchingTheDemoShowsItsItemsComeAndGo() throws {
        let socket = socketPath()
        let daemon = try Subprocess.Running(scannerd, ["run", "--source", "demo", "--loop", "--pace", "none", "--socket", socket])
        try #require(waitForSocket(socket))
        let watch = try Subprocess.Running(scanctl, ["watch", "--socket", socket])
        func saw(_ lines: [String], _ event: String, _ payload: String) -> Bool {
            lines.contains { $0.contains(event) && $0.contains(payload) }
        }
        let cycle = watch.waitFor(timeout: itemWithin) { lines in
            saw(lines, "added", "https://example.com/scannerd-demo") && saw(lines, "removed", "https://example.com/scannerd-demo")
                && saw(lines, "added", "+14155550123") && saw(lines, "removed", "+14155550123")
        }
        _ = watch.stop(signal: SIGINT)
        _ = daemon.stop()
        #expect(cycle, "\(watch.output.suffix(8))")
    }

    @Test func captureSavesTheNewestFrame() throws {
        let socket = socketPath()
        let directory = (socket as NSString).deletingLastPathComponent
        let daemon = try Subprocess.Running(
            scannerd, ["run", "--source", "Tests/Fixtures/clips/sequence", "--loop", "--types", "qr", "--socket", socket])
        try #require(waitForSocket(socket))
        let plain = directory + "/plain.jpg"
        let annotated = directory + "/annotated.jpg"
        let first = try Subprocess.run(scanctl, ["capture", "--socket", socket, plain])
        // Wait for an item, so that there is something to draw.
        let watch = try Subprocess.Running(scanctl, ["watch", "--json", "--socket", socket])
        let item = watch.waitFor(timeout: itemWithin) { lines in lines.contains { $0.contains(#""event":"added""#) } }
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
        #expect(reply.contains(#""ok":true"#) && reply.contains(#""path":"\#(direct)""#), "\(reply)")
        #expect(relative.contains("bad-argument"))
    }

    /// Issue #43, end to end: a printed grid held up at a slant in front of an empty desk becomes a
    /// `document` item (asked for with `--types document`), and `scanctl capture --document` writes
    /// it straightened: its lines straight and evenly spaced (`SlantedGridPage.grid`).
    @Test func aHeldUpDocumentIsAnItemAndIsCapturedStraightened() throws {
        let clip = try TemporaryDirectory("scannerd-held-up")
        let page = try JPEGEncoder().encode(SlantedGridPage().render(), quality: 90)
        let desk = try JPEGEncoder().encode(GrayImage(width: 640, height: 480, filledWith: 90), quality: 90)
        // Half a second of desk, then the page for 20 s (at the camera's pace), looped: a loaded machine
        // that misses it once sees it again, and a capture always has a next frame.
        for n in 0..<615 { try (n < 15 ? desk : page).write(to: URL(fileURLWithPath: clip.file(String(format: "%04d.jpg", n)))) }
        let socket = socketPath()
        let daemon = try Subprocess.Running(
            scannerd, ["run", "--source", clip.path, "--types", "document", "--loop", "--socket", socket, "--events-stdout"])
        defer { _ = daemon.stop() }
        try #require(waitForSocket(socket))
        try #require(
            daemon.waitFor(timeout: itemWithin) { $0.contains { $0.contains(#""event":"added""#) && $0.contains(#""kind":"document""#) } },
            "\(daemon.output.suffix(5))")
        let file = scratch.file("document.jpg")
        let saved = try Subprocess.run(scanctl, ["capture", "--document", "--socket", socket, file])
        #expect(saved.status == 0, "\(saved.stdout)\(saved.stderr)")
        let flat = try ImageDecoder().decode(Data(contentsOf: URL(fileURLWithPath: file))).image
        for across in [true, false] {
            let measured = SlantedGridPage.grid(flat, across: across)
            #expect(measured.straightness > 0.85 && measured.evenness < 1.2 && measured.lines >= (across ? 12 : 8), "across \(across): \(measured)")
        }
        let both = try Subprocess.run(scanctl, ["capture", "--document", "--annotate", "--socket", socket, file])
        #expect(both.status == 2 && both.stderr.contains("do not go together"), "\(both.stderr)")
    }

    /// One still frame, looped: the plain and the annotated photo show the same picture, so where they
    /// differ is exactly what was drawn.
    @Test func annotatedCaptureDrawsTheItemsBoundsAtFullResolution() throws {
        let clip = try TemporaryDirectory("scannerd-still")
        try FileManager.default.copyItem(atPath: Fixtures.path("qr.png"), toPath: clip.file("0.png"))
        let socket = socketPath()
        let daemon = try Subprocess.Running(
            scannerd, ["run", "--source", clip.path, "--loop", "--types", "qr", "--processing-width", "160", "--socket", socket, "--events-stdout"])
        try #require(waitForSocket(socket))
        try #require(daemon.waitFor(timeout: itemWithin) { JSONLines.addedPayloads($0).contains("https://example.com/scannerd") })
        let probe = try ScannerClientProbe(path: socket)
        let items = JSONLines.object(try probe.ask(#"{"request":"items"}"#))["items"]?.array ?? []
        let plain = JSONLines.object(try probe.ask(#"{"request":"capture"}"#))
        let annotated = JSONLines.object(try probe.ask(#"{"request":"capture","annotate":true}"#))
        _ = daemon.stop()
        func image(_ reply: JSONValue) throws -> GrayImage {
            let data = try #require(Data(base64Encoded: reply["jpeg"]?.string ?? ""), "\(reply)")
            return try ImageDecoder().decode(data).image
        }
        let before = try image(plain)
        let after = try image(annotated)
        let source = try ImageDecoder().decodeFile(atPath: Fixtures.path("qr.png")).image
        // Full resolution: the file's size, not the 160-px processing image.
        #expect(before.width == source.width && before.height == source.height && plain["width"]?.int == source.width)
        #expect(after.width == source.width && after.height == source.height)
        let bounds = try Event.Item(try #require(items.first)).bounds
        let corners = bounds.corners.map { Point(x: $0.x * Double(source.width), y: $0.y * Double(source.height)) }
        try #require(corners.count == 4)
        func distanceToOutline(_ p: Point) -> Double {
            (0..<4).map { i in
                let a = corners[i]
                let b = corners[(i + 1) % 4]
                let dx = b.x - a.x
                let dy = b.y - a.y
                let t = max(0, min(1, ((p.x - a.x) * dx + (p.y - a.y) * dy) / (dx * dx + dy * dy)))
                return hypot(p.x - (a.x + t * dx), p.y - (a.y + t * dy))
            }.min()!
        }
        var drawn = 0
        var stray = 0
        for y in 0..<before.height {
            for x in 0..<before.width where abs(Int(before.pixels[y * before.width + x]) - Int(after.pixels[y * after.width + x])) > 64 {
                if distanceToOutline(Point(x: Double(x), y: Double(y))) <= 8 { drawn += 1 } else { stray += 1 }
            }
        }
        let perimeter = (0..<4).map { hypot(corners[($0 + 1) % 4].x - corners[$0].x, corners[($0 + 1) % 4].y - corners[$0].y) }.reduce(0, +)
        #expect(Double(drawn) > perimeter, "the outline is drawn: \(drawn) changed pixels along a \(Int(perimeter))-px outline")
        #expect(stray == 0, "nothing is drawn elsewhere: \(stray) pixels")
    }

    @Test func aSecondDaemonOnTheSameSocketIsRefused() throws {
        let socket = socketPath()
        let first = try Subprocess.Running(scannerd, ["run", "--source", "demo", "--loop", "--types", "qr", "--socket", socket])
        try #require(waitForSocket(socket))
        let second = try Subprocess.run(scannerd, ["run", "--source", "demo", "--socket", socket])
        _ = first.stop()
        #expect(second.status == 2)
        #expect(second.stderr.contains("another scannerd is listening"), "\(second.stderr)")
    }

    @Test func noDaemonMeansExitThreeWithAClearMessage() throws {
        let result = try Subprocess.run(scanctl, ["ping", "--socket", scratch.file("no-such-scannerd.sock")])
        #expect(result.status == 3)
        #expect(result.stderr.contains("is scannerd running?"))
        let usage = try Subprocess.run(scanctl, ["watch", "--socket", scratch.file("x.sock"), "--bogus"])
        #expect(usage.status == 2)
    }
}

/// Access control and socket activation: the daemon as systemd and other users meet it.
@Suite(.offThePool(minutes: 5), .serialized) struct SocketAccessTests {
    let scannerd = Subprocess.executable("scannerd")
    let scanctl = Subprocess.executable("scanctl")

    /// A directory other users may enter (0755), removed with the suite value.
    let scratch: TemporaryDirectory
    init() throws { scratch = try TemporaryDirectory("scannerd-acl") }
    func sharedDirectory() -> String { scratch.path }

    @Test(.enabled(if: canRunAsOtherUsers)) func peersOutsideTheAllowedGroupsAreRefused() throws {
        let socket = sharedDirectory() + "/s.sock"
        let daemon = try Subprocess.Running(
            scannerd, ["run", "--source", "demo", "--loop", "--types", "qr", "--socket", socket, "--socket-mode", "0666", "--allow-group", "root"])
        try #require(waitForSocket(socket))
        let root = try Subprocess.run(scanctl, ["ping", "--socket", socket])
        let nobody = try Subprocess.run(
            "/usr/bin/setpriv", ["--reuid=nobody", "--regid=nogroup", "--clear-groups", scanctl, "ping", "--socket", socket])
        _ = daemon.stop()
        #expect(root.status == 0)
        #expect(nobody.status == 3, "\(nobody.stderr)")
        #expect(nobody.stderr.contains("access-denied") && nobody.stderr.contains("may not use this socket"))
        #expect(daemon.stderr.contains("client refused"), "the refusal is logged")
        // The daemon removed its socket when it stopped.
        #expect(!FileManager.default.fileExists(atPath: socket))
    }

    /// docs/protocol.md "Access control": control peers are root, the daemon's user, and the
    /// `--control-user`/`--control-group` members (supplementary groups count); only they may `set` (and
    /// `pause`) once control users are named, and only they may have the daemon write files.
    @Test(.enabled(if: canRunAsOtherUsers)) func controlUsersAndGroupsDecideWhoMayChangeAndWrite() throws {
        let socket = sharedDirectory() + "/control.sock"
        let daemon = try Subprocess.Running(
            scannerd,
            [
                "run", "--source", "demo", "--loop", "--types", "qr", "--socket", socket, "--socket-mode", "0666", "--control-user", "bin",
                "--control-group",
                "daemon",
            ])
        try #require(waitForSocket(socket))
        let set = [scanctl, "set", "--socket", socket, "--quality", "fast"]
        let write = [scanctl, "request", "--socket", socket, #"{"request":"capture","path":"\#(sharedDirectory())/by-nobody.jpg"}"#]
        let nobodySet = try runAs("nobody", set)
        let nobodyPause = try runAs("nobody", [scanctl, "pause", "--socket", socket])
        // Refused, recognition goes on: a new client hears it is running.
        let stillRunning = try ScannerClientProbe(path: socket).hello()
        let nobodyWrite = try runAs("nobody", write)
        let nobodyInDaemonGroup = try runAs("nobody", groups: ["daemon"], set)
        let bin = try runAs("bin", set)
        let root = try Subprocess.run(scanctl, ["set", "--socket", socket, "--quality", "balanced"])
        let nobodyWatches = try runAs("nobody", [scanctl, "ping", "--socket", socket])
        #expect(daemon.stop() == 0)
        #expect(nobodySet.status == 1 && nobodySet.stderr.contains("access-denied"), "\(nobodySet.stderr)")
        #expect(nobodyPause.status == 1 && nobodyPause.stderr.contains("access-denied"), "\(nobodyPause.stderr)")
        #expect(stillRunning.contains(#""recognition":"running""#), "\(stillRunning)")
        #expect(nobodyWrite.status == 1 && nobodyWrite.stdout.contains("access-denied"), "\(nobodyWrite.stdout)")
        #expect(!FileManager.default.fileExists(atPath: sharedDirectory() + "/by-nobody.jpg"))
        #expect(nobodyInDaemonGroup.status == 0, "a supplementary group counts: \(nobodyInDaemonGroup.stderr)")
        #expect(bin.status == 0, "\(bin.stderr)")
        #expect(root.status == 0, "root is always a control peer: \(root.stderr)")
        #expect(nobodyWatches.status == 0, "watching needs no control: \(nobodyWatches.stderr)")
    }

    @Test(.enabled(if: canRunAsOtherUsers)) func allowUserLetsOnlyThatUserIn() throws {
        let socket = sharedDirectory() + "/allow.sock"
        let daemon = try Subprocess.Running(
            scannerd, ["run", "--source", "demo", "--loop", "--types", "qr", "--socket", socket, "--socket-mode", "0666", "--allow-user", "nobody"])
        try #require(waitForSocket(socket))
        let nobody = try runAs("nobody", [scanctl, "ping", "--socket", socket])
        let bin = try runAs("bin", [scanctl, "ping", "--socket", socket])
        #expect(daemon.stop() == 0)
        #expect(nobody.status == 0, "\(nobody.stderr)")
        #expect(bin.status == 3 && bin.stderr.contains("may not use this socket"), "\(bin.stderr)")
    }

    @Test func theSocketIsOwnerAndGroupOnlyByDefaultAndTakesItsGroup() throws {
        let socket = sharedDirectory() + "/default.sock"
        let daemon = try Subprocess.Running(
            scannerd, ["run", "--source", "demo", "--loop", "--types", "qr", "--socket", socket, "--socket-group", "daemon"])
        // The file is owner-only from its first instant and takes its mode and group after: the daemon
        // says `listening` once it has them.
        try #require(daemon.waitForStderr(timeout: 30) { $0.contains("listening") }, "\(daemon.stderr)")
        var info = stat()
        let found = lstat(socket, &info) == 0
        #expect(daemon.stop() == 0)
        #expect(found && info.st_mode & 0o777 == 0o660, "mode \(String(info.st_mode & 0o777, radix: 8))")
        #expect(info.st_gid == getgrnam("daemon")?.pointee.gr_gid, "group \(info.st_gid)")
    }

    @Test func socketModeIsApplied() throws {
        let socket = sharedDirectory() + "/s.sock"
        // 0640, not the owner-only mode every socket file is created with, so that the test sees the
        // option applied.
        let daemon = try Subprocess.Running(
            scannerd, ["run", "--source", "demo", "--loop", "--types", "qr", "--socket", socket, "--socket-mode", "0640"])
        try #require(daemon.waitForStderr(timeout: 30) { $0.contains("listening") }, "\(daemon.stderr)")
        let attributes = try FileManager.default.attributesOfItem(atPath: socket)
        _ = daemon.stop()
        #expect((attributes[.posixPermissions] as? Int) == 0o640)
    }

    @Test func aSocketPassedBySystemdIsUsed() throws {
        // Listen on a socket as systemd would, and start the daemon with it as descriptor 3.
        let path = sharedDirectory() + "/activated.sock"
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            raw.copyBytes(from: Array(path.utf8))
            raw[path.utf8.count] = 0
        }
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        try #require(bound == 0 && listen(fd, 16) == 0)
        defer { close(fd) }
        // LISTEN_PID must be the daemon's own pid: a shell sets it to $$ and then execs the daemon.
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        posix_spawn_file_actions_adddup2(&actions, fd, 3)
        defer { posix_spawn_file_actions_destroy(&actions) }
        // Hermetic as `Subprocess` is: no installed configuration, and only a fixed environment (a
        // machine's /etc/scannerd/scannerd.conf or SCANNERD_* variables must not change the test).
        let command =
            "LISTEN_FDS=1 LISTEN_PID=$$ exec '\(scannerd)' run --no-config --source demo --loop --socket /nonexistent/unused.sock --log-level error"
        var pid: pid_t = 0
        let argv: [UnsafeMutablePointer<CChar>?] = [strdup("/bin/sh"), strdup("-c"), strdup(command), nil]
        defer { argv.forEach { free($0) } }
        let environment: [UnsafeMutablePointer<CChar>?] =
            Subprocess.environment().map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { environment.forEach { free($0) } }
        let spawned = posix_spawn(&pid, "/bin/sh", &actions, nil, argv, environment)
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
@Suite(.offThePool(minutes: 5), .serialized) struct LiveSettingsTests {
    let scannerd = Subprocess.executable("scannerd")

    /// A daemon started without any text type reads text once `set` asks for it (and stops again
    /// when `set` takes it away): the text thread is there from the start, idle.
    @Test func setTurnsTextRecognitionOnAndOff() throws {
        let scratch = try TemporaryDirectory("scannerd-text-on")
        let socket = scratch.file("s.sock")
        let daemon = try Subprocess.Running(
            scannerd,
            ["run", "--source", "Tests/Fixtures/clips/sequence", "--loop", "--pace", "none", "--types", "qr", "--socket", socket, "--events-stdout"])
        try #require(waitForSocket(socket))
        // The QR code shows the pipeline runs; no phone number is read while only qr is asked for.
        try #require(daemon.waitFor(timeout: itemWithin) { JSONLines.addedPayloads($0).contains("https://example.com/clip") })
        let on = try Subprocess.run(Subprocess.executable("scanctl"), ["set", "--socket", socket, "--types", "qr,telephoneNumber"])
        let sawPhone = daemon.waitFor(timeout: itemWithin) { JSONLines.addedPayloads($0).contains("+12125550187") }
        _ = daemon.stop()
        #expect(on.status == 0, "\(on.stderr)")
        #expect(sawPhone, "\(daemon.output.suffix(4))")
        let configIndex = daemon.output.firstIndex { $0.contains(#""event":"config""#) } ?? daemon.output.count
        #expect(!JSONLines.addedPayloads(Array(daemon.output[..<configIndex])).contains("+12125550187"), "no text before the change")
    }

    @Test func setChangesTypesForEveryClientAndIsAnnounced() throws {
        let scratch = try TemporaryDirectory("scannerd-set")
        let socket = scratch.file("s.sock")
        let daemon = try Subprocess.Running(
            scannerd, ["run", "--source", "Tests/Fixtures/clips/sequence", "--loop", "--pace", "none", "--socket", socket, "--events-stdout"])
        try #require(waitForSocket(socket))
        let connection = try ScannerClientProbe(path: socket)
        let reply = try connection.ask(#"{"request":"set","id":"s1","types":["telephoneNumber"]}"#)
        #expect(reply.contains(#""reply":"set","id":"s1","ok":true"#), "\(reply)")
        #expect(reply.contains(#""types":["telephoneNumber"]"#))
        // The same through scanctl.
        let scanctl = try Subprocess.run(Subprocess.executable("scanctl"), ["set", "--socket", socket, "--single", "off", "--roi", "full"])
        #expect(
            scanctl.status == 0 && (scanctl.stdout.contains("single: 0") || scanctl.stdout.contains("single: false")),
            "\(scanctl.stdout)\(scanctl.stderr)")
        let bad = try Subprocess.run(Subprocess.executable("scanctl"), ["set", "--socket", socket, "--quality", "best"])
        #expect(bad.status == 1 && bad.stderr.contains("bad-argument"))
        // Every client hears the change; after it, only phone numbers are added (a loop is 6.5 s).
        let announced = daemon.waitFor(timeout: 10) { $0.contains { $0.contains(#""event":"config""#) } }
        #expect(announced)
        let configIndex = daemon.output.firstIndex { $0.contains(#""event":"config""#) } ?? 0
        // The clip is 196 frames, the QR code in view at 10–41 of each pass, the phone at 105–134.
        // Only a phone added in a pass that *started* after the change proves the QR code's frames of
        // that pass went by with the new types.
        let lastFrameBefore = JSONLines.events(Array(daemon.output[..<configIndex])).compactMap(\.frame).max() ?? 0
        let nextPass = (lastFrameBefore / 196 + 1) * 196
        let sawPhone = daemon.waitFor(timeout: itemWithin) { lines in
            JSONLines.events(Array(lines[configIndex...])).contains { event in
                if case .added(let item, let frame) = event { item.payload == "+12125550187" && frame >= nextPass } else { false }
            }
        }
        _ = daemon.stop()
        let after = daemon.output[configIndex...].filter { $0.contains(#""event":"added""#) }
        #expect(sawPhone, "a phone added in a pass from frame \(nextPass) on: \(after)")
        #expect(!after.contains { $0.contains("https://example.com/clip") }, "no QR code is added after types became telephoneNumber only")
    }
}

/// `pause` / `resume`: recognition stops with the camera kept open, and starts again.
@Suite(.offThePool(minutes: 2)) struct PauseTests {
    let scannerd = Subprocess.executable("scannerd")
    let scanctl = Subprocess.executable("scanctl")
    static let demoQR = "https://example.com/scannerd-demo"

    @Test func pauseStopsDecodingAndRemovesItemsAndResumeFindsTheNextCode() throws {
        let scratch = try TemporaryDirectory("scannerd-pause")
        let socket = scratch.file("s.sock")
        let daemon = try Subprocess.Running(
            scannerd, ["run", "--no-config", "--source", "demo", "--loop", "--types", "qr", "--socket", socket, "--events-stdout"])
        defer { _ = daemon.stop() }
        try #require(waitForSocket(socket), "\(daemon.stderr)")
        func events(after index: Int) -> [Event] { JSONLines.events(Array(daemon.output.dropFirst(index))) }
        func added(_ event: Event) -> Bool {
            if case .added(let item, _) = event { item.payload == Self.demoQR } else { false }
        }
        try #require(daemon.waitFor(timeout: itemWithin) { JSONLines.events($0).contains(where: added) }, "the demo's QR code is added")

        let pause = try Subprocess.run(scanctl, ["pause", "--socket", socket])
        #expect(pause.status == 0 && pause.stdout == "recognition paused\n", "\(pause.stdout)\(pause.stderr)")
        let pausedAt = daemon.output.count
        // Everything tracked is removed, then the pause is announced: by then the removals are out.
        try #require(daemon.waitFor(timeout: 10) { lines in JSONLines.eventNames(lines).contains("paused") })
        let names = JSONLines.eventNames(daemon.output)
        let pausedIndex = try #require(names.lastIndex(of: "paused"))
        #expect(
            JSONLines.events(daemon.output).enumerated().contains { index, event in
                if case .removed(let item, _) = event { index < pausedIndex && item.payload == Self.demoQR } else { false }
            }, "the QR code is removed before `paused`")

        // A client connecting now is told so in its hello.
        let probe = try ScannerClientProbe(path: socket)
        let stats = { () throws -> (decoded: Int, skipped: Int) in
            let capture = JSONLines.object(try probe.ask(#"{"request":"stats"}"#))["capture"] ?? .null
            return (capture["decoded"]?.int ?? -1, capture["idleSkipped"]?.int ?? -1)
        }
        let hello = try ScannerClientProbe(path: socket).hello()
        #expect(hello.contains(#""recognition":"paused""#), "\(hello)")
        // Frames keep coming (the camera stays open) and none is decoded: at most the one in flight.
        let before = try stats()
        var after = before
        let deadline = Date().addingTimeInterval(20)
        while after.skipped < before.skipped + 30, Date() < deadline { after = try stats() }
        #expect(after.skipped >= before.skipped + 30, "frames keep arriving: \(before) → \(after)")
        #expect(after.decoded <= before.decoded + 1, "nothing is decoded while paused: \(before) → \(after)")
        #expect(!events(after: pausedAt).contains(where: added), "nothing is added while paused")

        let resume = try Subprocess.run(scanctl, ["resume", "--socket", socket])
        #expect(resume.status == 0 && resume.stdout == "recognition running\n", "\(resume.stdout)\(resume.stderr)")
        let resumedAt = daemon.output.count
        #expect(
            daemon.waitFor(timeout: itemWithin) { lines in JSONLines.events(Array(lines.dropFirst(resumedAt))).contains(where: added) },
            "the next pass of the loop is found again")
        #expect(JSONLines.eventNames(Array(daemon.output.dropFirst(pausedAt))).filter { $0 == "resumed" }.count == 1)
        // Resuming what runs changes nothing and says nothing more.
        #expect(try probe.ask(#"{"request":"resume","id":2}"#).contains(#""ok":true,"recognition":"running""#))
        #expect(JSONLines.eventNames(daemon.output).filter { $0 == "resumed" }.count == 1)
    }
}

/// A subscriber's `repeat` rule over the socket: the demo loops, so its QR code comes back every pass.
@Suite(.offThePool(minutes: 2)) struct RepeatRuleTests {
    @Test func oncePerSessionHearsOfTheCodeOnceWhileOthersHearEveryPass() throws {
        let scratch = try TemporaryDirectory("scannerd-repeat")
        let socket = scratch.file("s.sock")
        let daemon = try Subprocess.Running(
            Subprocess.executable("scannerd"), ["run", "--no-config", "--source", "demo", "--loop", "--types", "qr", "--socket", socket])
        defer { _ = daemon.stop() }
        try #require(waitForSocket(socket), "\(daemon.stderr)")
        let once = try ScannerConnection(path: socket)
        let every = try ScannerConnection(path: socket)
        #expect(try once.request(line: #"{"request":"subscribe","symbologies":["qr"],"repeat":"oncePerSession"}"#).head.ok == true)
        #expect(try every.request(line: #"{"request":"subscribe","symbologies":["qr"]}"#).head.ok == true)
        /// The demo QR code's events on `connection` until `done` says so, or until nothing comes for
        /// `quiet` seconds (a timeout: everything sent has been read), for 40 s at most.
        func qrEvents(_ connection: ScannerConnection, quiet: Double = 30, until done: ([String]) -> Bool = { _ in false }) throws -> [String] {
            var names: [String] = []
            let deadline = Date().addingTimeInterval(40)
            while !done(names), Date() < deadline {
                guard let line = try? connection.readLine(timeout: quiet) else { break }
                if let event = try? EventLine(decoding: line).event, event.item?.payload == PauseTests.demoQR {
                    names.append(event.name)
                }
            }
            return names
        }
        // Two whole showings for the client that hears every one (added, removed, added, removed).
        let everyPass = try qrEvents(every) { $0.filter { $0 == "removed" }.count >= 2 }
        #expect(everyPass.filter { $0 == "added" }.count >= 2, "\(everyPass)")
        // Meanwhile the other heard of the first showing only, whole: one added, its updates, one removed.
        let onePass = try qrEvents(once, quiet: 1)
        #expect(
            onePass.first == "added" && onePass.filter { $0 == "added" }.count == 1 && onePass.filter { $0 == "removed" }.count <= 1, "\(onePass)")
    }
}

/// The client library's reading of a stream the daemon cut off.
@Suite(.timeLimit(.minutes(1))) struct ScannerConnectionTests {
    /// A client that stopped reading is closed mid-line (docs/protocol.md, backpressure): the bytes
    /// after the last newline are no line, and the connection just ends.
    @Test func aLineCutOffByTheCloseIsNoLine() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("cut-\(UUID().uuidString.prefix(8)).sock").path
        defer { unlink(path) }
        let server = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        try #require(server >= 0)
        defer { close(server) }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            for (i, byte) in path.utf8.enumerated() where i < raw.count - 1 { raw[i] = byte }
        }
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(server, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        try #require(bound == 0 && listen(server, 1) == 0)
        let writer = Thread {
            let client = accept(server, nil, nil)
            let bytes = Array(#"{"event":"hello"}"#.utf8) + [10] + Array(#"{"event":"upd"#.utf8)
            _ = bytes.withUnsafeBytes { send(client, $0.baseAddress, $0.count, 0) }
            close(client)
        }
        writer.start()
        let connection = try ScannerConnection(path: path)
        #expect(try connection.readLine(timeout: answerWithin) == #"{"event":"hello"}"#)
        #expect(try connection.readLine(timeout: answerWithin) == nil, "the cut line is dropped: the stream ended")
    }
}
