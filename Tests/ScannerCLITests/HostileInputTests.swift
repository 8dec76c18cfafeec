import Foundation
import TestSupport
import TestTraits
import Testing

/// The reproductions of issue #11, run against the real binaries the way an attacker or a careless
/// operator would: each once destroyed data, hung, or took gigabytes. Limits in docs/security.md.
@Suite(.offThePool(minutes: 5), .serialized) struct HostileInputTests {
    let scannerd = Subprocess.executable("scannerd")
    let scanctl = Subprocess.executable("scanctl")

    func daemon(socket: String, _ arguments: [String] = []) throws -> Subprocess.Running {
        try Subprocess.Running(scannerd, ["run", "--no-config", "--source", "demo", "--loop", "--types", "qr", "--socket", socket] + arguments)
    }

    func asNobody(_ arguments: [String], user: String = "nobody") throws -> Subprocess.Result {
        try #require(FileManager.default.isExecutableFile(atPath: "/usr/bin/setpriv"), "util-linux's setpriv runs a command as another user")
        return try Subprocess.run(
            "/usr/bin/setpriv", ["--reuid=\(user)", "--regid=\(user == "nobody" ? "nogroup" : user)", "--clear-groups"] + arguments)
    }

    // Finding 1.
    @Test func aFileAtTheSocketPathIsKept() throws {
        let scratch = try TemporaryDirectory("scannerd-hostile")
        let directory = scratch.path
        let path = directory + "/x.conf"
        try "precious\n".write(toFile: path, atomically: false, encoding: .utf8)
        let result = try Subprocess.run(scannerd, ["run", "--no-config", "--source", "demo", "--socket", path])
        #expect(result.status == 2)
        #expect(result.stderr.contains("\(path): exists and is not a socket; refusing to remove it"), "\(result.stderr)")
        #expect(try String(contentsOfFile: path, encoding: .utf8) == "precious\n")
    }

    // Finding 2.
    @Test func clientsCannotHaveTheDaemonDestroyFiles() throws {
        try #require(geteuid() == 0, "runs a client as another user")
        let scratch = try TemporaryDirectory("scannerd-hostile")
        let directory = scratch.path
        let socket = directory + "/s.sock"
        let secret = directory + "/secret.conf"
        try "secret\n".write(toFile: secret, atomically: false, encoding: .utf8)
        chmod(secret, 0o600)
        let running = try daemon(socket: socket, ["--socket-mode", "0666"])
        try #require(waitForSocket(socket))
        func ask(_ request: String) throws -> String { try ScannerClientProbe(path: socket).ask(request) }
        // Another user: writing files is not theirs to ask, whatever the path.
        let nobody = try asNobody([scanctl, "request", "--socket", socket, #"{"request":"capture","path":"\#(directory)/new.jpg"}"#])
        #expect(nobody.status == 1 && nobody.stdout.contains(#""code":"access-denied""#), "\(nobody.stdout)\(nobody.stderr)")
        let overwrite = try asNobody([scanctl, "request", "--socket", socket, #"{"request":"capture","path":"\#(secret)","overwrite":true}"#])
        #expect(overwrite.status == 1 && overwrite.stdout.contains(#""code":"access-denied""#), "\(overwrite.stdout)\(overwrite.stderr)")
        #expect(!FileManager.default.fileExists(atPath: directory + "/new.jpg"))
        // The daemon's own user: a new file yes; an existing one only when asked, and only its own
        // regular file — never the socket, a device, a FIFO or a link.
        let fresh = try ask(#"{"request":"capture","path":"\#(directory)/fresh.jpg"}"#)
        #expect(fresh.contains(#""ok":true"#), "\(fresh)")
        let existing = try ask(#"{"request":"capture","path":"\#(secret)"}"#)
        #expect(existing.contains(#""code":"exists""#), "\(existing)")
        let ownSocket = try ask(#"{"request":"capture","path":"\#(socket)","overwrite":true}"#)
        #expect(ownSocket.contains(#""code":"write-failed""#) && ownSocket.contains("is a socket; not replaced"), "\(ownSocket)")
        let device = try ask(#"{"request":"capture","path":"/dev/null","overwrite":true}"#)

        #expect(device.contains("is a device; not replaced"), "\(device)")
        let link = directory + "/link.jpg"
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: secret)
        let throughLink = try ask(#"{"request":"capture","path":"\#(link)","overwrite":true}"#)
        #expect(throughLink.contains("is a symbolic link; not replaced"), "\(throughLink)")
        // Still serving on its own socket.
        let ping = try Subprocess.run(scanctl, ["ping", "--socket", socket])
        // A rare stall (the daemon stopped answering after a few captures, and ignored SIGTERM) was
        // seen in full-suite runs and once in ~10 isolated ones: keep its threads' stacks if it recurs.
        let stacks = ping.status == 0 ? "" : running.threadStacks()
        let status = running.stop()
        #expect(status == 0, "the daemon's log: \(running.stderr.suffix(3000))\nits threads:\n\(Self.ownThreads(stacks))")
        #expect(ping.status == 0, "\(ping.stderr)")
        #expect(try String(contentsOfFile: secret, encoding: .utf8) == "secret\n")
        var info = stat()
        #expect(stat("/dev/null", &info) == 0 && info.st_mode & S_IFMT == S_IFCHR)
        let mode = (try FileManager.default.attributesOfItem(atPath: directory + "/fresh.jpg")[.posixPermissions] as? Int) ?? 0
        #expect(mode == 0o640)
    }

    /// The threads of a gdb `thread apply all bt` that are in scannerd's own code (the stall seen on
    /// 2026-11-22: two threads waiting for `EventHub`'s mutex; the holder was cut off by a plain
    /// suffix), each frame shortened, so the whole picture fits a test failure.
    static func ownThreads(_ stacks: String) -> String {
        let threads = stacks.components(separatedBy: "\nThread ").dropFirst()
        // Swift mangles a module name as its length and the name ("$s6Events…").
        let marks = ["Events", "Pipeline", "Daemon", "EventServer", "Capture"].map { "$s\($0.count)\($0)" } + ["_MutexHandle"]
        return threads.filter { thread in marks.contains { thread.contains($0) } }
            .map { thread in
                thread.split(separator: "\n").prefix(24).map { String($0.prefix(220)) }.joined(separator: "\n")
            }
            .joined(separator: "\n--\n")
    }

    // Finding 3.
    @Test func checkConfigAnswersAtOnceOnABillionLaughs() throws {
        let scratch = try TemporaryDirectory("scannerd-hostile")
        let directory = scratch.path
        let path = directory + "/laughs.conf"
        try Self.laughs.write(toFile: path, atomically: false, encoding: .utf8)
        let result = try Subprocess.run(scannerd, ["check-config", path])
        #expect(result.status == 2)
        #expect(result.stderr.contains("\(path):2:10: refused: anchors (&name) are not supported"), "\(result.stderr)")
        #expect(result.stderr.split(separator: "\n").count == 1, "one line: \(result.stderr)")
    }

    static let laughs = HostileInputs.billionLaughs

    @Test func aReloadWithLaughsIsRefusedAndTheNextGoodFileApplies() throws {
        let scratch = try TemporaryDirectory("scannerd-hostile")
        let directory = scratch.path
        let config = directory + "/scannerd.conf"
        func write(_ text: String) throws { try text.write(toFile: config, atomically: true, encoding: .utf8) }
        try write("camera:\n  source: demo\n  loop: true\nrecognition:\n  quality: balanced\n")
        let socket = directory + "/s.sock"
        let notify = try NotifyListener()
        let running = try Subprocess.Running(
            scannerd, ["run", "--config", config, "--socket", socket, "--events-stdout"], environment: ["NOTIFY_SOCKET": notify.path])
        try #require(notify.waitFor(timeout: 20) { $0 == "READY=1" })
        try write(Self.laughs)
        running.signal(SIGHUP)
        let refused = notify.waitFor(timeout: 10) { $0.hasPrefix("STATUS=reload refused: ") && $0.contains("anchors (&name) are not supported") }
        try write("camera:\n  source: demo\n  loop: true\nrecognition:\n  quality: fast\n")
        // The next SIGHUP is heard only if the first did not wedge the reload.
        var applied = false
        let deadline = Date().addingTimeInterval(20)
        while !applied && Date() < deadline {
            running.signal(SIGHUP)
            applied = running.waitFor(timeout: 1) { lines in lines.contains { $0.contains(#""event":"config""#) && $0.contains(#""quality":"fast""#) }
            }
        }
        let ping = try Subprocess.run(scanctl, ["ping", "--socket", socket])
        // Not gone 5 s after SIGTERM: killed, and the status says so.
        let status = running.stop(signal: SIGTERM, timeout: 5)
        #expect(refused, "\(notify.fields.suffix(4))")
        #expect(applied, "\(running.stderr.suffix(600))")
        #expect(ping.status == 0)
        #expect(status == 0, "SIGTERM ends the daemon")
        #expect(
            running.stderr.contains("configuration reload refused") && running.stderr.contains("anchors (&name) are not supported"),
            "\(running.stderr.suffix(800))")
    }

    // Finding 4 and 7.
    @Test func scanRefusesBombsAndStillReportsTheGoodFiles() throws {
        let bombs = ["bomb-65535.png", "bomb-20000-rgb.png", "bomb.pgm", "bomb.tif", "bomb.gif", "bomb.jpg", "bomb.webp"].map {
            Fixtures.path("hostile/" + $0)
        }
        let result = try Subprocess.run(scannerd, ["scan", Fixtures.path("qr.png")] + bombs + [Fixtures.path("hostile/truncated.tif")])
        #expect(result.status == 2)
        #expect(result.stdout.contains("https://example.com/scannerd"), "the good file is reported: \(result.stdout)")
        for bomb in bombs {
            #expect(result.stderr.contains("scannerd: \(bomb): image too large ("), "\(bomb): \(result.stderr)")
        }
        // A truncated TIFF that Leptonica would return with rows missing, after 43 lines of noise.
        #expect(
            result.stderr.contains("scannerd: \(Fixtures.path("hostile/truncated.tif")): damaged image: Bad file: amount too big: 192"),
            "\(result.stderr)")
        // One line per bad file, nothing from the libraries.
        #expect(result.stderrLines.count == bombs.count + 1, "\(result.stderr)")
        #expect(result.stderrLines.allSatisfy { $0.hasPrefix("scannerd: ") }, "\(result.stderr)")
    }

    @Test func scanNamesWhatIsWrongWithEachPath() throws {
        let scratch = try TemporaryDirectory("scannerd-hostile")
        let directory = scratch.path
        let fifo = directory + "/fifo.png"
        #expect(mkfifo(fifo, 0o600) == 0)
        // A name that is not UTF-8 is a name all the same: qr-<FF>.png.
        let oddName = Array(directory.utf8) + Array("/qr-".utf8) + [0xFF] + Array(".png".utf8)
        let created = (oddName + [0]).withUnsafeBufferPointer { bytes in
            bytes.withMemoryRebound(to: CChar.self) { open($0.baseAddress!, O_WRONLY | O_CREAT | O_EXCL, 0o644) }
        }
        try #require(created >= 0)
        let qr = try Data(contentsOf: URL(fileURLWithPath: Fixtures.path("qr.png")))
        _ = qr.withUnsafeBytes { write(created, $0.baseAddress, $0.count) }
        close(created)
        // 2 GB that take no disk: refused from fstat, never read.
        let sparse = directory + "/sparse.png"
        let sparseFile = open(sparse, O_WRONLY | O_CREAT | O_EXCL, 0o644)
        try #require(sparseFile >= 0 && ftruncate(sparseFile, 2 << 30) == 0)
        close(sparseFile)
        let damaged = directory + "/damaged.png"
        var png = qr
        png[png.count / 2] ^= 0xFF
        try png.write(to: URL(fileURLWithPath: damaged))
        // The odd name goes through a shell glob, the way a user would hand it over.
        let result = try Subprocess.run(
            "/bin/sh", ["-c", #"exec "$0" scan "$@" "$1"/qr-*.png"#, scannerd, directory, fifo, "/dev/zero", "/no/such/file.png", damaged, sparse])
        #expect(result.status == 2)
        let lines = result.stderrLines
        #expect(lines.contains("scannerd: \(directory): is a directory"), "\(lines)")
        #expect(lines.contains("scannerd: \(fifo): not a regular file"))
        #expect(lines.contains("scannerd: /dev/zero: not a regular file"))
        #expect(lines.contains("scannerd: /no/such/file.png: no such file"))
        #expect(
            lines.contains { $0.hasPrefix("scannerd: \(damaged): not a readable image") && $0.contains("libpng error: IDAT") },
            "libpng's words, on the file's line: \(lines)")
        #expect(lines.contains("scannerd: \(sparse): file too large (2147483648 bytes; at most 64 MiB)"), "\(lines)")
        #expect(lines.count == 6, "one line per bad path: \(lines)")
        #expect(result.stdout.contains("https://example.com/scannerd"), "the file with a non-UTF-8 name was scanned: \(result.stdout)")
    }

    @Test func aReplayDirectorySkipsABombAndPlaysTheRest() throws {
        let scratch = try TemporaryDirectory("scannerd-hostile")
        let directory = scratch.path
        try FileManager.default.copyItem(atPath: Fixtures.path("hostile/bomb-65535.png"), toPath: directory + "/0.png")
        try FileManager.default.copyItem(atPath: Fixtures.path("qr.png"), toPath: directory + "/1.png")
        let result = try Subprocess.run(scannerd, ["run", "--no-config", "--no-socket", "--events-stdout", "--source", directory, "--pace", "none"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.contains(#""event":"added""#) && result.stdout.contains("https://example.com/scannerd"), "\(result.stdout)")
        #expect(
            result.stderr.contains("replay frame skipped") && result.stderr.contains("image too large (65535×65535; at most 50 megapixels)"),
            "\(result.stderr)")
    }

    @Test func aReplaySourceThatIsNoFileIsRefusedAtOnce() throws {
        let scratch = try TemporaryDirectory("scannerd-hostile")
        let directory = scratch.path
        let fifo = directory + "/clip.mjpeg"
        #expect(mkfifo(fifo, 0o600) == 0)
        // Reading a FIFO would wait for a writer for ever.
        let result = try Subprocess.run(scannerd, ["run", "--no-config", "--no-socket", "--source", fifo])
        #expect(result.status == 2)
        #expect(result.stderr.contains("\(fifo): not a directory or a regular file"), "\(result.stderr)")
    }

    // Finding 5.
    @Test func maxClientsBeyondTheOpenFileLimitIsRefusedAtStart() throws {
        try #require(FileManager.default.isExecutableFile(atPath: "/usr/bin/prlimit"), "util-linux's prlimit")
        let scratch = try TemporaryDirectory("scannerd-hostile")
        let directory = scratch.path
        let result = try Subprocess.run(
            "/usr/bin/prlimit",
            ["--nofile=256:256", scannerd, "run", "--no-config", "--source", "demo", "--socket", directory + "/s.sock", "--max-clients", "1000"])
        #expect(result.status == 2)
        #expect(result.stderr.contains("max-clients 1000 needs 1064 open files, but the limit is 256"), "\(result.stderr)")
        #expect(!FileManager.default.fileExists(atPath: directory + "/s.sock"))
    }

    // Finding 6.
    @Test func watchersCannotLockTheOperatorOut() throws {
        try #require(geteuid() == 0, "runs clients as other users")
        let scratch = try TemporaryDirectory("scannerd-hostile")
        let directory = scratch.path
        let socket = directory + "/s.sock"
        let running = try daemon(socket: socket, ["--socket-mode", "0666", "--max-clients", "8", "--max-clients-per-user", "2"])
        try #require(waitForSocket(socket))
        func watcher(_ user: String) throws -> Subprocess.Running {
            let group = user == "nobody" ? "nogroup" : user
            return try Subprocess.Running(
                "/usr/bin/setpriv", ["--reuid=\(user)", "--regid=\(group)", "--clear-groups", scanctl, "watch", "--json", "--socket", socket])
        }
        func hello(_ client: Subprocess.Running) -> Bool { client.waitFor(timeout: 10) { $0.first?.contains(#""event":"hello""#) == true } }
        // Two per user…
        let first = try [watcher("nobody"), watcher("nobody")]
        #expect(first.allSatisfy(hello))
        let third = try asNobody([scanctl, "ping", "--socket", socket])
        #expect(third.status == 3 && third.stderr.contains("one user may hold at most 2 connections"), "\(third.stderr)")
        // …and the last four of eight slots for root, the daemon's user and control users.
        let others = try [watcher("daemon"), watcher("daemon")]
        #expect(others.allSatisfy(hello))
        let fifth = try asNobody([scanctl, "ping", "--socket", socket], user: "bin")
        #expect(fifth.status == 3 && fifth.stderr.contains("kept for control users"), "\(fifth.stderr)")
        let operatorPing = try Subprocess.run(scanctl, ["ping", "--socket", socket])
        let operatorSet = try Subprocess.run(scanctl, ["set", "--socket", socket, "--quality", "fast"])
        // The daemon first: its watchers end with it (end of stream), nothing to signal across users.
        #expect(running.stop() == 0)
        for client in first + others { _ = client.stop(signal: SIGTERM) }
        #expect(operatorPing.status == 0, "\(operatorPing.stderr)")
        #expect(operatorSet.status == 0, "\(operatorSet.stderr)")
    }

    // Finding 8 (the wire side; RequestValidationTests has each rule).
    @Test func setRefusesValuesTheDaemonCouldNotReport() throws {
        let scratch = try TemporaryDirectory("scannerd-hostile")
        let directory = scratch.path
        let socket = directory + "/s.sock"
        let running = try daemon(socket: socket)
        try #require(waitForSocket(socket))
        let client = try ScannerClientProbe(path: socket)
        let tiny = try client.ask(#"{"request":"set","roi":[0,0,1e-300,1e-300]}"#)
        let single = try client.ask(#"{"request":"set","single":1}"#)
        let id = try client.ask(#"{"request":"ping","id":{"a":1}}"#)
        #expect(running.stop() == 0)
        #expect(tiny.contains(#""code":"bad-argument""#) && tiny.contains("at least 0.001"), "\(tiny)")
        #expect(single.contains(#""code":"bad-argument""#), "\(single)")
        #expect(id.contains(#""code":"bad-argument""#) && !id.contains(#""id""#), "\(id)")
    }
}
