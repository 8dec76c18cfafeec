import Foundation
import ScannerCore
import ScannerProtocol
import TestSupport
import TestTraits
import Testing

/// The unmodified `scannerd` binary on the emulated camera (LD_PRELOAD=libFakeCamera.so): the real V4L2
/// code path — open, QUERYCAP, format negotiation, mmap streaming, poll, DQBUF/QBUF — without a kernel
/// driver. Timeouts here only bound a wait; nothing asserts speed.
@Suite(.offThePool(minutes: 5), .serialized) struct EmulatedCameraTests {
    let scannerd = Subprocess.executable("scannerd")
    static let library = Subprocess.productsDirectory.appendingPathComponent("libFakeCamera.so").path
    static let clip = Fixtures.packageRoot.appendingPathComponent("Sources/CDemoClip/demo.mjpeg").path

    /// The daemon on the emulated camera; with `socket`, it also listens there (for `stats`).
    func camera(_ environment: [String: String], arguments: [String] = [], socket: String? = nil) throws -> Subprocess.Running {
        try #require(FileManager.default.fileExists(atPath: Self.library), "build the FakeCamera product first")
        var env = ["LD_PRELOAD": Self.library, "FAKECAM_FRAMES": Self.clip, "FAKECAM_DEVICE": "/dev/video0", "FAKECAM_FPS": "30"]
        env.merge(environment) { $1 }
        return try Subprocess.Running(
            scannerd,
            ["run"] + (socket.map { ["--socket", $0] } ?? ["--no-socket"])
                + ["--device", "/dev/video0", "--width", "640", "--height", "480", "--events-stdout", "--quality", "fast"]
                + arguments,
            environment: env)
    }

    static func events(_ lines: [String]) -> [Event] { JSONLines.events(lines) }
    static func names(_ lines: [String]) -> [String] { JSONLines.eventNames(lines) }
    static func payloads(_ lines: [String]) -> Set<String> { JSONLines.addedPayloads(lines) }

    /// Names of the source and item-lifecycle events, in order.
    static func lifecycle(_ lines: [String]) -> [String] {
        events(lines).map { event in event.item.map { "\(event.name) \($0.payload)" } ?? event.name }
    }

    @Test func mjpegStreamsTheClipThroughV4L2() throws {
        let daemon = try camera(["FAKECAM_FORMATS": "MJPG,YUYV"])
        let sawBoth = daemon.waitFor(timeout: 90) { lines in
            Self.payloads(lines).isSuperset(of: ["https://example.com/scannerd-demo", "+14155550123"])
        }
        let status = daemon.stop()
        #expect(sawBoth, "events: \(daemon.output.suffix(5)) stderr: \(daemon.stderr)")
        #expect(status == 0, "SIGTERM ends the daemon cleanly")
        #expect(Array(Self.names(daemon.output).prefix(2)) == ["hello", "available"])
        #expect(daemon.stderr.contains("format=MJPG"), "MJPEG preferred: \(daemon.stderr)")
        // One `added` per item however many frames show it: never added again before it is removed
        // (the camera loops the clip, and an item that left may come back with the next pass).
        var present = Set<String>()
        var addedAgain: [String] = []
        for event in Self.lifecycle(daemon.output) {
            if event.hasPrefix("added ") {
                let payload = String(event.dropFirst("added ".count))
                if !present.insert(payload).inserted { addedAgain.append(payload) }
            } else if event.hasPrefix("removed ") {
                present.remove(String(event.dropFirst("removed ".count)))
            }
        }
        #expect(Self.payloads(daemon.output).count >= 2 && addedAgain.isEmpty, "added again while present: \(addedAgain)")
    }

    @Test func yuyvFramesAreScannedFromTheirLumaPlane() throws {
        let daemon = try camera(["FAKECAM_FORMATS": "YUYV"])
        let sawQR = daemon.waitFor(timeout: itemWithin) { Self.payloads($0).contains("https://example.com/scannerd-demo") }
        _ = daemon.stop()
        #expect(sawQR, "stderr: \(daemon.stderr)")
        #expect(daemon.stderr.contains("format=YUYV"))
    }

    @Test func unplugAndReplugAreReportedAndStreamingResumes() throws {
        // One pass of the 30-frame clip per connection: every connection shows the QR code.
        let daemon = try camera(["FAKECAM_UNPLUG_AFTER": "30", "FAKECAM_REPLUG_AFTER_MS": "300"], arguments: ["--types", "qr"])
        let qr = "added https://example.com/scannerd-demo"
        let cycled = daemon.waitFor(timeout: 60) { lines in
            let events = Self.lifecycle(lines)
            guard let third = events.indices.filter({ events[$0] == "unavailable" }).dropFirst(2).first else { return false }
            return events[third...].contains(qr)
        }
        _ = daemon.stop()
        let events = Self.lifecycle(daemon.output)
        #expect(cycled, "events: \(events.suffix(20))")
        // available, added, (removed: the camera's items go with it), unavailable, available, added, …
        let sourceEvents = events.filter { $0 == "available" || $0 == "unavailable" }
        for (i, name) in sourceEvents.prefix(6).enumerated() {
            #expect(name == (i % 2 == 0 ? "available" : "unavailable"), "\(sourceEvents)")
        }
        // What a lost camera showed is removed before `unavailable` is sent.
        var showing = false
        for event in events {
            if event == qr { showing = true }
            if event.hasPrefix("removed") { showing = false }
            if event == "unavailable" { #expect(!showing, "\(events)") }
        }
        let reasons = Self.events(daemon.output).compactMap { if case .unavailable(let reason) = $0 { reason } else { nil } }
        #expect(!reasons.isEmpty && reasons.allSatisfy { $0.contains("/dev/video0") }, "\(reasons)")
    }

    @Test func corruptFramesAreDroppedAndCounted() throws {
        let daemon = try camera(["FAKECAM_CORRUPT_EVERY": "4"])
        let enough = daemon.waitFor(timeout: 90) { Self.payloads($0).isSuperset(of: ["https://example.com/scannerd-demo", "+14155550123"]) }
        let status = daemon.stop(signal: SIGINT)
        #expect(enough)
        #expect(status == 0)
        // The log's closing line counts them.
        let stats = daemon.stderr.split(separator: "\n").first { $0.contains("stopped") }.map(String.init) ?? ""
        let corrupt = stats.split(separator: " ").first { $0.hasPrefix("corrupt=") }.flatMap { Int($0.dropFirst(8)) } ?? 0
        #expect(corrupt > 0, "\(stats)")
        #expect(!Self.names(daemon.output).contains("unavailable"), "corrupt frames are not an outage")
        let added = Self.lifecycle(daemon.output).filter { $0.hasPrefix("added") }
        #expect(added.count == Set(added).count, "no duplicate added while frames are dropped: \(added)")
    }

    /// A camera that sends garbage, nothing, or a frame of another size now and then (issue #11): the
    /// emulated camera serves those frames as they are, and the daemon refuses each one (counted as
    /// corrupt) without losing the frames after it.
    @Test func garbageEmptyAndResizedFramesAreRefusedOneByOne() throws {
        let scratch = try TemporaryDirectory("scannerd-badclip")
        let directory = URL(fileURLWithPath: scratch.path)
        // First a JPEG-looking frame of noise (the decoder used to stay broken after its header),
        // then an empty one, then a clip with a QR code and a phone with a frame of another size in
        // its middle. (The clip's size is its first readable frame's.)
        var generator = SystemRandomNumberGenerator()
        let noise = Data([0xFF, 0xD8]) + Data((0..<4000).map { _ in UInt8.random(in: 0...0xFE, using: &generator) }) + Data([0xFF, 0xD9])
        try noise.write(to: directory.appendingPathComponent("0000-noise.jpg"))
        try Data().write(to: directory.appendingPathComponent("0001-empty.jpg"))
        try FileManager.default.copyItem(
            atPath: Fixtures.path("bench-1280x720.jpg"), toPath: directory.appendingPathComponent("10100-large.jpg").path)
        let clip = Fixtures.path("clips/sequence")
        for name in try FileManager.default.contentsOfDirectory(atPath: clip).filter({ $0.hasSuffix(".jpg") }).sorted() {
            let target = try FileManager.default.destinationOfSymbolicLink(atPath: clip + "/" + name)
            try FileManager.default.createSymbolicLink(
                atPath: directory.appendingPathComponent("1" + name).path, withDestinationPath: clip + "/" + target)
        }
        let daemon = try camera(["FAKECAM_FRAMES": directory.path, "FAKECAM_FORMATS": "MJPG"])
        let found = daemon.waitFor(timeout: 90) { Self.payloads($0).isSuperset(of: ["https://example.com/clip", "+12125550187"]) }
        let status = daemon.stop(signal: SIGINT)
        #expect(found, "events: \(daemon.output.suffix(5)) stderr: \(daemon.stderr.suffix(1500))")
        #expect(status == 0)
        #expect(daemon.stderr.contains("frame 0: not a readable JPEG; served as it is"), "\(daemon.stderr.prefix(1500))")
        #expect(daemon.stderr.contains("0001-empty.jpg: not a complete JPEG; served as it is"))
        #expect(daemon.stderr.contains(": 1280x720, not the clip's 640x480; served as it is"), "\(daemon.stderr.prefix(1500))")
        let stats = daemon.stderr.split(separator: "\n").first { $0.contains("stopped") }.map(String.init) ?? ""
        let corrupt = stats.split(separator: " ").first { $0.hasPrefix("corrupt=") }.flatMap { Int($0.dropFirst(8)) } ?? 0
        #expect(corrupt >= 2, "the noise and the large frame, at least once each: \(stats)")
        #expect(!Self.names(daemon.output).contains("unavailable"), "bad frames are not an outage")
    }

    @Test func descriptorsDoNotLeakOverTwentyUnplugCycles() throws {
        let daemon = try camera(["FAKECAM_UNPLUG_AFTER": "3", "FAKECAM_REPLUG_AFTER_MS": "50"], arguments: ["--types", "qr"])
        func outages() -> Int { Self.names(daemon.output).filter { $0 == "unavailable" }.count }
        /// The fewest descriptors seen while `outages` goes from `from` to `to`. Between an unplug and
        /// the reopen (the 0.25 s backoff) the daemon holds no camera descriptor, so over whole cycles
        /// the minimum is its baseline, whatever the timing of single samples; a leak raises it.
        func baselineDescriptors(from: Int, to: Int) -> Int {
            daemon.waitFor(timeout: 60) { lines in Self.names(lines).filter { $0 == "unavailable" }.count >= from }
            var fewest = Int.max
            let deadline = Date().addingTimeInterval(60)
            while outages() < to && Date() < deadline && daemon.process.isRunning {
                let count = daemon.descriptorCount
                if count > 0 { fewest = min(fewest, count) }
                Thread.sleep(forTimeInterval: 0.005)
            }
            return fewest
        }
        let early = baselineDescriptors(from: 1, to: 4)
        let late = baselineDescriptors(from: 17, to: 20)
        let cycles = outages()
        _ = daemon.stop()
        #expect(cycles >= 20, "\(cycles) cycles")
        #expect(early > 0 && early < Int.max && late == early, "baseline descriptors: \(early) in cycles 1–4, \(late) in cycles 17–20")
    }

    @Test func cameraControlsAreSetAndOutOfRangeOnesOnlyWarn() throws {
        // Unknown names and words are configuration errors (ConfigurationTests); what only the camera
        // knows — its range — is a warning at open, and capture goes on.
        let daemon = try camera(
            [:],
            arguments: [
                "--control", "focusAuto=off", "--control", "focus=120", "--control", "powerLineFrequency=50",
                "--control", "zoom=9999",
            ])
        let streaming = daemon.waitFor(timeout: itemWithin) { Self.payloads($0).contains("https://example.com/scannerd-demo") }
        _ = daemon.stop()
        #expect(streaming, "bad controls do not stop capture")
        let log = daemon.stderr
        #expect(log.contains("camera control 'zoom': 9999 is outside 100…500"), "\(log)")
        #expect(!log.contains("'focus'") && !log.contains("'focusAuto'") && !log.contains("'powerLineFrequency'"), "valid ones apply silently")
    }

    /// A still scene goes idle: identical frames, and a still desk with sensor noise, JPEG ringing
    /// and auto-exposure breathing (the footage generator's empty desk, dim), which is what a real
    /// camera sends (issue #14).
    @Test(arguments: ["identical", "noisy"]) func aStillSceneIsDecodedAtAThird(scene: String) throws {
        let scratch = try TemporaryDirectory("scannerd-idle")
        let socket = scratch.file("s.sock")
        var clip = Fixtures.path("clips/static")
        if scene == "noisy" {
            clip = try FootageClip.make("desk", seed: 2, seconds: 2) + ".mjpeg"
        }
        // The noisy desk at 1280×720, where its clutter makes new "lines" on every text pass.
        let size = scene == "noisy" ? ["--width", "1280", "--height", "720"] : []
        let daemon = try camera(["FAKECAM_FRAMES": clip], arguments: size, socket: socket)
        try #require(waitForSocket(socket))
        // After a second of a still scene the camera source leaves two frames in three undecoded
        // (`idleSkipped`, apart from `dropped`, which counts frames a busy scanner had no time for).
        // Polled: from the first skip on, over the next 60 frames about two thirds are skipped.
        func capture() throws -> JSONValue {
            JSONLines.object(try ScannerClientProbe(path: socket).ask(#"{"request":"stats"}"#))["capture"] ?? .null
        }
        func textPasses() throws -> Int {
            JSONLines.object(try ScannerClientProbe(path: socket).ask(#"{"request":"stats"}"#))["text"]?["passes"]?.int ?? -1
        }
        func poll(until done: (JSONValue) -> Bool) throws -> JSONValue {
            var stats = try capture()
            for _ in 0..<150 where !done(stats) {
                _ = daemon.waitFor(timeout: 0.2) { Self.names($0).contains("added") }
                stats = try capture()
            }
            return stats
        }
        let idle = try poll { ($0["idleSkipped"]?.int ?? 0) > 0 }
        let later = try poll { ($0["frames"]?.int ?? 0) >= (idle["frames"]?.int ?? 0) + 60 }
        // And the text thread rests: no pass over the next 60 frames, which start more than 2 s
        // (`TextTuning.Stage.pendingReadingWhileStill`) after the scene last changed (its first frame).
        let passes = try textPasses()
        _ = try poll { ($0["frames"]?.int ?? 0) >= (later["frames"]?.int ?? 0) + 60 }
        let passesAfter = try textPasses()
        let status = daemon.stop()
        #expect(passes == passesAfter, "text passes on a still scene: \(passes) → \(passesAfter)")
        #expect(status == 0)
        let frames = (later["frames"]?.int ?? 0) - (idle["frames"]?.int ?? 0)
        let skipped = (later["idleSkipped"]?.int ?? 0) - (idle["idleSkipped"]?.int ?? 0)
        #expect(frames >= 60, "\(idle) \(later)")
        #expect(skipped * 2 >= frames && skipped * 6 <= frames * 5, "about two frames in three: \(skipped) of \(frames)")
        #expect(!Self.names(daemon.output).contains("added"), "nothing in view")
    }

    /// docs/protocol.md "capture": an MJPEG camera's own JPEG, untouched; `unavailable` without a
    /// camera; `write-failed` when the file cannot be made.
    @Test func captureHandsOverTheCamerasJPEGAndNamesItsFailures() throws {
        let scratch = try TemporaryDirectory("scannerd-capture")
        let socket = scratch.file("s.sock")
        let daemon = try camera(["FAKECAM_FORMATS": "MJPG"], socket: socket)
        try #require(waitForSocket(socket))
        try #require(daemon.waitFor(timeout: 20) { Self.names($0).contains("available") })
        let probe = try ScannerClientProbe(path: socket)
        let reply = JSONLines.object(try probe.ask(#"{"request":"capture"}"#))
        let failed = JSONLines.object(try probe.ask(#"{"request":"capture","path":"\#(scratch.path)/no/such/dir/photo.jpg"}"#))
        #expect(daemon.stop() == 0)
        let photo = try #require(Data(base64Encoded: reply["jpeg"]?.string ?? ""), "\(reply)")
        let clip = try Data(contentsOf: URL(fileURLWithPath: Self.clip))
        #expect(photo.count > 1000 && clip.range(of: photo) != nil, "byte for byte one of the clip's frames (\(photo.count) bytes)")
        #expect(failed["error"]?["code"]?.string == "write-failed", "\(failed)")

        let missing = scratch.file("missing.sock")
        let nocamera = try Subprocess.Running(scannerd, ["run", "--device", "/dev/scannerd-no-such-camera", "--socket", missing])
        try #require(waitForSocket(missing))
        let unavailable = JSONLines.object(try ScannerClientProbe(path: missing).ask(#"{"request":"capture"}"#))
        #expect(nocamera.stop() == 0)
        #expect(unavailable["error"]?["code"]?.string == "unavailable", "\(unavailable)")
    }

    @Test func missingCameraIsReportedAndWaitedFor() throws {
        // The emulated camera answers elsewhere; the daemon asks for a path no real camera has.
        let daemon = try camera(["FAKECAM_DEVICE": "/dev/video5"], arguments: ["--device", "/dev/scannerd-no-such-camera"])
        let reported = daemon.waitFor(timeout: 10) { Self.names($0).contains("unavailable") }
        // A second of retrying (backoff 0.25 s doubling); the wait ends early if the daemon exits.
        daemon.waitFor(timeout: 1) { _ in false }
        let stillRunning = daemon.process.isRunning
        _ = daemon.stop()
        #expect(reported && stillRunning, "it waits for the camera instead of exiting")
        #expect(
            Self.events(daemon.output).compactMap { if case .unavailable(let reason) = $0 { reason } else { nil } }.first
                == "/dev/scannerd-no-such-camera: no such device")
        // The repeated open failure is logged once, not on every retry.
        #expect(daemon.stderr.components(separatedBy: "camera not available").count - 1 == 1, "\(daemon.stderr)")
    }

    @Test func devicesListsTheEmulatedCamera() throws {
        try #require(FileManager.default.fileExists(atPath: Self.library))
        let env = [
            "LD_PRELOAD": Self.library, "FAKECAM_FRAMES": Self.clip, "FAKECAM_FORMATS": "MJPG,YUYV", "FAKECAM_BY_ID": "usb-Fake_Camera-video-index0",
        ]
        let table = try Subprocess.run(scannerd, ["devices"], environment: env)
        #expect(table.status == 0)
        #expect(table.stdout.contains("/dev/video0") && table.stdout.contains("MJPG") && table.stdout.contains("640x480 @ 30"))
        let json = try Subprocess.run(scannerd, ["devices", "--json", "/dev/v4l/by-id/usb-Fake_Camera-video-index0"], environment: env)
        let cameras = try #require(JSONLines.object(json.stdout).array)
        #expect(cameras.count == 1, "the by-id link and /dev/video0 are one camera")
        #expect(cameras.first?["byId"]?.string == "/dev/v4l/by-id/usb-Fake_Camera-video-index0")
        let formats = cameras.first?["formats"]?.array
        #expect(formats?.compactMap { $0["fourcc"]?.string } == ["MJPG", "YUYV"])
        // A path no real camera has (the machine may have cameras of its own).
        let none = try Subprocess.run(scannerd, ["devices", "/dev/scannerd-no-such-camera"], environment: ["LD_PRELOAD": Self.library])
        #expect(none.status == 1 && none.stderr.contains("no cameras found"))
    }
}
