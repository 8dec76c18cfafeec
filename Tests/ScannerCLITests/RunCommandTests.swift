import DaemonConfiguration
import Foundation
import ScannerCore
import ScannerProtocol
import TestSupport
import TestTraits
import Testing

/// Event lines through the protocol's decoder (`EventLine`): each line must be an event.
func eventLines(_ lines: [String]) throws -> [EventLine] {
    try lines.map { try EventLine(decoding: $0) }
}

/// `scannerd run` on replay sources.
@Suite(.offThePool(minutes: 5)) struct RunCommandTests {
    let scannerd = Subprocess.executable("scannerd")

    /// "event payload@frame" for the item events, the name alone for the others.
    static func summary(_ events: [EventLine]) -> [String] {
        events.map { line in
            let event = line.event
            if case .guidance(let hint) = event { return "\(event.name) \(hint)" }
            guard let item = event.item else { return event.name }
            return "\(event.name) \(item.payload)@\(event.frame ?? -1)"
        }
    }

    @Test func demoClipGivesItsEventsAndFinishesCleanly() throws {
        let result = try Subprocess.run(scannerd, ["run", "--no-socket", "--source", "demo", "--pace", "none", "--events-stdout", "--fps", "30"])
        #expect(result.status == 0, "\(result.stderr)")
        let events = try eventLines(result.stdoutLines)
        #expect(events.dropFirst().map(\.seq) == Array(1..<events.count).map { $0 }, "seq counts every event after hello")
        // The 1-second clip: a QR code drifting left (frames 3–12), then a card (17–26). The QR code
        // moves 4 px a frame, so it is updated each time it has moved more than 2% of the width; the
        // clip ends before any grace period runs out, so everything is removed at the end.
        #expect(
            Self.summary(events) == [
                "hello", "available",
                "added https://example.com/scannerd-demo@3",
                "updated https://example.com/scannerd-demo@7",
                "updated https://example.com/scannerd-demo@11",
                // The card: OCR on every 3rd frame reads it first on 18; its confident reads are
                // confirmed on the next frame (a confirming pass, docs/pipeline.md).
                "added +14155550123@19",
                "added jane.doe@example.com@19",
                "removed https://example.com/scannerd-demo@29",
                "removed +14155550123@29",
                "removed jane.doe@example.com@29",
                "end",
            ])
        guard case .hello(let hello)? = events.first?.event else { throw ExpectedEvent("hello", result.stdoutLines.first) }
        #expect(hello.version == 1 && hello.items.isEmpty)
        #expect(hello.daemon == Release.version)
        // One id per item, the same in every event about it.
        let ids = events.compactMap { $0.event.item.map { "\($0.payload) \($0.id?.uuidString ?? "none")" } }
        #expect(Set(ids).count == 3)
    }

    /// The version is written once (`Release.version`): both commands say it, as `hello` does above
    /// and the Debian package does (Tests/system/check-deb.sh).
    /// Every setting the schema gives a command-line option (`SettingKey.flag`, spelled once there) is
    /// an option of `scannerd run` (issue #42): its help lists each, as itself, not only as the start of
    /// a longer one (`--socket` beside `--socket-mode`).
    @Test func everySettingsFlagIsAnOptionOfRun() throws {
        let help = try Subprocess.run(Subprocess.executable("scannerd"), ["run", "--help"])
        #expect(help.status == 0, "\(help.stderr)")
        let words = Set(help.stdout.split(whereSeparator: { !($0.isLetter || $0.isNumber || $0 == "-") }).map(String.init))
        let flags = SettingsSchema.keys.compactMap(\.flag)
        #expect(flags.count >= 30, "the schema's flags: \(flags)")
        let missing = flags.filter { !words.contains($0) }
        #expect(missing.isEmpty, "not options of scannerd run: \(missing)")
    }

    /// Each schema flag given to `scannerd run` reaches its own key (issue #42: `commandLineEntries`
    /// names each option's flag a second time, and a slip there trapped only when that flag was
    /// passed): `--check` prints where every key's value comes from. A flag with no sample here fails,
    /// so a new setting cannot be left out.
    @Test func everySettingsFlagIsRoutedToItsKey() throws {
        let samples: [String: [String]] = [
            "--device": ["/dev/video7"], "--source": ["demo"], "--formats": ["MJPG"], "--width": ["800"], "--height": ["600"],
            "--fps": ["15"], "--processing-width": ["480"], "--control": ["brightness=10"], "--pace": ["none"], "--loop": [],
            "--types": ["qr"], "--quality": ["fast"], "--roi": ["0,0,0.5,0.5"], "--single": [], "--region": ["GB"],
            "--languages": ["eng"], "--line-model": ["none"], "--no-socket": [], "--socket": ["/tmp/scannerd-check.sock"],
            "--socket-mode": ["0600"], "--socket-group": ["root"], "--max-clients": ["9"], "--max-clients-per-user": ["3"],
            "--allow-user": ["root"], "--allow-group": ["root"], "--control-user": ["root"], "--control-group": ["root"],
            "--http": ["127.0.0.1:8391"], "--http-token-file": ["/etc/hostname"], "--http-allowed-origin": ["http://kiosk.local"],
            "--mqtt": ["mqtt://127.0.0.1"], "--mqtt-topic": ["kiosk"], "--log-level": ["debug"], "--events-stdout": [],
        ]
        for key in SettingsSchema.keys {
            guard let flag = key.flag else { continue }
            guard let sample = samples[flag] else {
                Issue.record("\(flag) (\(key.name)): no sample value in this test")
                continue
            }
            let result = try Subprocess.run(scannerd, ["run", "--no-config", "--check", flag] + sample)
            #expect(result.status == 0, "\(flag): \(result.stderr)")
            let line = result.stdoutLines.first { $0.hasPrefix(key.name + " ") }
            #expect(line?.hasSuffix("(\(flag))") == true, "\(flag) should set \(key.name): \(line ?? "no such line")")
        }
    }

    @Test func bothCommandsSayTheReleaseVersion() throws {
        for command in [scannerd, Subprocess.executable("scanctl")] {
            let result = try Subprocess.run(command, ["--version"])
            #expect(result.status == 0 && result.stdoutLines == [Release.version], "\(command): \(result.stdoutLines) \(result.stderr)")
        }
    }

    /// Tests/Fixtures/clips/sequence at 30 fps (see generate.py): QR code entering at 10–11, held
    /// with ±1 px jitter 12–41, gone from 43; a flyer card out of focus 90–104, sharp 105–134, gone
    /// from 135. The card holds a phone number, an order number, a price and a date.
    @Test func sequenceClipGivesExactlyTheExpectedEvents() throws {
        let result = try Subprocess.run(
            scannerd, ["run", "--no-socket", "--source", "Tests/Fixtures/clips/sequence", "--pace", "none", "--events-stdout"])
        #expect(result.status == 0, "\(result.stderr)")
        let events = try eventLines(result.stdoutLines)
        #expect(
            Self.summary(events) == [
                "hello", "available",
                // QR: added on its first fully visible frame; jitter gives no updates; removed once the
                // 0.8 s grace period (24 frames) after its last sighting (41) has passed.
                "added https://example.com/clip@12",
                "removed https://example.com/clip@66",
                // The card out of focus: the person is told (issue #17), once three passes agree.
                "guidance blurry",
                // Phone: nothing while the card is blurred; OCR on every 3rd frame reads it first on 105,
                // and a confirming pass on the next frame (106) agrees: added. The order number, price
                // and date are never added. Text's grace
                // period is 0.8 s too, after the last OCR pass that saw it (132).
                "added +12125550187@106",
                // Sharp again, and a second after the hint: cleared.
                "guidance cleared",
                "removed +12125550187@157",
                "end",
            ])
        let item = try #require(
            events.compactMap { if case .removed(let item, _) = $0.event, item.contentType == .telephoneNumber { item } else { nil } }.first)
        #expect(item.firstFrame == 105 && item.lastFrame == 132)
        #expect(item.transcript == "(212) 555-0187")
        // The gates: Tesseract ran on a handful of the 65 OCR slots (blurred and blank frames are
        // skipped, a card held still is read once and the reading reused), zbar on a fraction of frames.
        let stats = result.stderr.split(whereSeparator: \.isWhitespace)
        func count(_ key: String) -> Int { stats.first { $0.hasPrefix(key + "=") }.flatMap { Int($0.dropFirst(key.count + 1)) } ?? -1 }
        #expect((2...6).contains(count("ocrPasses")), "\(result.stderr)")
        #expect(count("ocrSkippedBlurred") >= 5 && count("ocrSkippedUnchanged") > 0)
        #expect(count("barcodeScansReused") > count("barcodeScans"), "a static scene is not rescanned")
    }

    /// Issue #54: the models beside the binary damaged (a bad update) cost the networks, not the
    /// scanning: for each way a model directory breaks — a network missing, truncated, random bytes,
    /// a FIFO, the two networks swapped, an alphabet one class short — one error line, and the QR
    /// codes and the card's phone number still read (the classical detector and Tesseract). The
    /// binary is copied under a prefix of its own whose share/scannerd/models is damaged (named
    /// otherwise than `scannerd`, so that `Subprocess` leaves `scan` its installed models:
    /// `Subprocess.hermetic`).
    @Test func damagedModelsBesideTheBinaryCostTheNetworksNotTheScanning() throws {
        let prefix = try TemporaryDirectory("damaged-models")
        let bin = prefix.file("bin")
        let models = prefix.file("share/scannerd/models")
        try FileManager.default.createDirectory(atPath: bin, withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: scannerd, toPath: bin + "/scannerd-installed")
        let installed = bin + "/scannerd-installed"
        // The runtime's libraries, where the binary looks for them ($ORIGIN/../lib/scannerd).
        try FileManager.default.createDirectory(atPath: prefix.file("lib"), withIntermediateDirectories: true)
        let libraries = (((scannerd as NSString).deletingLastPathComponent as NSString).appendingPathComponent("../lib/scannerd") as NSString)
        try FileManager.default.createSymbolicLink(atPath: prefix.file("lib/scannerd"), withDestinationPath: libraries.resolvingSymlinksInPath)
        let real = Fixtures.packageRoot.appendingPathComponent(".build/models").path
        let (recognizer, detector) = ("text-recognizer.onnx", "text-detector.onnx")
        let alphabet = try JSONDecoder().decode([String].self, from: Data(contentsOf: URL(fileURLWithPath: real + "/alphabet.json")))
        // A damaged file replaces the link to the real one (never written through it).
        func replace(_ name: String, with data: Data) throws {
            try FileManager.default.removeItem(atPath: models + "/" + name)
            try data.write(to: URL(fileURLWithPath: models + "/" + name))
        }
        let damages: [(String, () throws -> Void)] = [
            ("random bytes", { for network in [recognizer, detector] { try replace(network, with: Data("damaged by an update".utf8)) } }),
            ("a network missing", { try FileManager.default.removeItem(atPath: models + "/" + recognizer) }),
            ("truncated", { try replace(recognizer, with: try Data(contentsOf: URL(fileURLWithPath: real + "/" + recognizer)).prefix(4096)) }),
            (
                "a FIFO",
                {
                    try FileManager.default.removeItem(atPath: models + "/" + recognizer)
                    #expect(mkfifo(models + "/" + recognizer, 0o600) == 0)
                }
            ),
            (
                "swapped",
                {
                    for (name, other) in [(recognizer, detector), (detector, recognizer)] {
                        try FileManager.default.removeItem(atPath: models + "/" + name)
                        try FileManager.default.createSymbolicLink(atPath: models + "/" + name, withDestinationPath: real + "/" + other)
                    }
                }
            ),
            ("an alphabet one class short", { try replace("alphabet.json", with: try JSONEncoder().encode(Array(alphabet.dropLast()))) }),
        ]
        for (damage, apply) in damages {
            // The real models, then the damage.
            try? FileManager.default.removeItem(atPath: models)
            try FileManager.default.createDirectory(atPath: models, withIntermediateDirectories: true)
            try FileManager.default.copyItem(atPath: real + "/alphabet.json", toPath: models + "/alphabet.json")
            for file in [recognizer, detector] {
                try FileManager.default.createSymbolicLink(atPath: models + "/" + file, withDestinationPath: real + "/" + file)
            }
            try apply()
            let result = try Subprocess.run(
                installed, ["run", "--no-config", "--no-socket", "--source", "Tests/Fixtures/clips/several", "--pace", "none", "--events-stdout"],
                timeout: 120)
            #expect(result.status == 0, "\(damage): \(result.stderr)")
            #expect(result.stderr.contains("the text networks did not load"), "\(damage): \(result.stderr)")
            let added = try eventLines(result.stdoutLines).compactMap { if case .added(let item, _) = $0.event { item.payload } else { nil } }
            #expect(added.filter { $0 == "https://example.com/twin" }.count == 2 && added.contains("+442079460958"), "\(damage): \(added)")
        }
        // `scan` the same: the QR code read, the text read by Tesseract, one line saying so.
        let still = try Subprocess.run(installed, ["scan", "--types", "qr,url", Fixtures.path("qr.png")], timeout: 60)
        #expect(still.status == 0 && still.stdout.contains("https://example.com/scannerd"), "\(still.status) \(still.stderr)")
        #expect(still.stderr.contains("reading text with Tesseract alone"), "\(still.stderr)")
        // Named by the operator, a damaged directory still stops the start.
        let named = try Subprocess.run(
            installed, ["run", "--no-config", "--no-socket", "--source", "Tests/Fixtures/clips/several", "--line-model", models])
        #expect(named.status == 2 && named.stderr.contains("alphabet.json"), "\(named.stderr)")
    }

    /// Tests/Fixtures/clips/several: two identical QR codes side by side and a card with a UK number,
    /// all in view for frames 5–34, then an empty scene.
    @Test func severalItemsAtOnceEachGetTheirOwnLife() throws {
        let result = try Subprocess.run(
            scannerd, ["run", "--no-socket", "--source", "Tests/Fixtures/clips/several", "--pace", "none", "--events-stdout"])
        #expect(result.status == 0, "\(result.stderr)")
        let events = try eventLines(result.stdoutLines)
        #expect(
            Self.summary(events) == [
                "hello", "available",
                "added https://example.com/twin@5", "added https://example.com/twin@5",
                // OCR on frame 6 (first read) and a confirming pass on 7.
                "added +442079460958@7",
                // Text after 0.8 s (24 frames) from its last OCR pass (33); barcodes after 0.8 s from
                // their last decode (33): the hand jitters a pixel, so every frame is scanned, and the
                // frames of one jitter position (34) do not decode (`scannerd scan` agrees). Until
                // issue #14 the gate took a pixel's jitter for no change and let frame 34 repeat 33.
                "removed https://example.com/twin@58", "removed https://example.com/twin@58",
                "removed +442079460958@58",
                "end",
            ])
        let twins = events.compactMap { if case .added(let item, _) = $0.event { item } else { nil } }
            .filter { $0.payload == "https://example.com/twin" }
        #expect(Set(twins.compactMap(\.id)).count == 2, "two identical codes are two items")
        let lefts = twins.map(\.bounds.topLeft.x).sorted()
        #expect(lefts.count == 2 && lefts[0] < 0.2 && lefts[1] > 0.5)
    }

    @Test func aReplayGivesTheSameEventsEveryRun() throws {
        func run() throws -> [String] {
            let result = try Subprocess.run(
                scannerd,
                ["run", "--no-socket", "--source", "Tests/Fixtures/clips/sequence", "--pace", "none", "--events-stdout", "--quality", "fast"])
            #expect(result.status == 0, "\(result.stderr)")
            return Self.summary(try eventLines(result.stdoutLines))
        }
        let first = try run()
        let second = try run()
        // Something happened (not two empty runs alike): the QR code came and went, and it ended.
        #expect(first.contains { $0.hasPrefix("added https://example.com/clip@") }, "\(first)")
        #expect(first.contains { $0.hasPrefix("removed https://example.com/clip@") })
        #expect(first.last == "end")
        #expect(first == second)
    }

    @Test func badSourceExitsTwoWithTheReason() throws {
        let result = try Subprocess.run(scannerd, ["run", "--no-socket", "--source", "/nonexistent/clip.mjpeg", "--events-stdout"])
        #expect(result.status == 2)
        #expect(result.stderr.contains("/nonexistent/clip.mjpeg") && result.stderr.contains("no such file"))
    }

    @Test(arguments: [
        (["run", "--no-socket", "--source", "demo", "--device", "/dev/video0"], "--source: give only one of 'camera.device' or 'camera.source'"),
        (["run", "--no-socket", "--source", "demo", "--pace", "slow"], "slow"),
        (["run", "--no-socket", "--source", "demo", "--fps", "0"], "fps"),
        (["run", "--device", "/dev/video0", "--formats", "H264"], "H264"),
        (["run", "--device", "/dev/video0", "--control", "focus"], "--control: camera.controls: invalid value '[focus]': expected name=value"),
        (["run", "--device", "/dev/video0", "--control", "sharpness=3"], "unknown camera control 'sharpness'"),
        (["run", "--no-config", "--source", "demo", "--width", "wide"], "--width: camera.width: invalid value 'wide'"),
        (
            ["run", "--config", "/nonexistent/scannerd.conf", "--source", "demo"],
            "/nonexistent/scannerd.conf: cannot read the configuration: no such file"
        ),
        (
            ["run", "--no-config", "--no-socket", "--source", "demo", "--line-model", "models"],
            "--line-model: recognition.line-model: invalid value 'models': expected auto, none or an absolute path"
        ),
        (
            ["run", "--no-config", "--no-socket", "--source", "demo", "--line-model", "/nonexistent/line-model"],
            "line model: /nonexistent/line-model: no such file or directory"
        ),
    ])
    func badArguments(arguments: [String], mentions: String) throws {
        let result = try Subprocess.run(scannerd, arguments)
        #expect(result.status == 2)
        #expect(result.stderr.contains(mentions), "\(result.stderr)")
    }
}

/// issue #17: guidance from a replay, deterministic with `--pace none`.
@Suite(.offThePool(minutes: 2)) struct GuidanceReplayTests {
    func hints(_ clip: String) throws -> [Guidance] {
        let run = try Subprocess.run(
            Subprocess.executable("scannerd"),
            ["run", "--no-config", "--no-socket", "--source", "Tests/Fixtures/clips/\(clip)", "--pace", "none", "--events-stdout"],
            timeout: 60)
        #expect(run.status == 0, "\(run.stderr)")
        return JSONLines.events(run.stdoutLines).compactMap { if case .guidance(let hint) = $0 { hint } else { nil } }
    }

    /// The dark clip: a card held up in a dark corner after half a second of the dark desk alone (issue
    /// #43: no line is found on it; it is the changed scene that says something is there).
    @Test func aDarkRoomIsTooDarkAndAnEmptySceneGetsNothing() throws {
        #expect(try hints("dark") == [.hint(.tooDark)])
        #expect(try hints("static").isEmpty)
        // The well-lit clip is never too dark (it has a blurred stretch, which is said and cleared).
        #expect(try !hints("sequence").contains(.hint(.tooDark)))
    }
}
