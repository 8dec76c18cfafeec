import Foundation
import TestSupport
import Testing

/// Parses JSON lines into objects.
func jsonObjects(_ lines: [String]) throws -> [[String: Any]] {
    try lines.map { line in
        try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any], "not a JSON object: \(line)")
    }
}

/// `scannerd run` on replay sources.
@Suite struct RunCommandTests {
    let scannerd = Subprocess.executable("scannerd")

    @Test func demoClipStreamsAndFinishesCleanly() throws {
        let result = try Subprocess.run(scannerd, ["run", "--source", "demo", "--pace", "none", "--events-stdout", "--frame-events"])
        #expect(result.status == 0, "\(result.stderr)")
        let events = try jsonObjects(result.stdoutLines)
        #expect(events.first?["event"] as? String == "available")
        #expect(events.last?["event"] as? String == "end")
        #expect(events.map { $0["seq"] as? Int } == Array(1...events.count).map { $0 }, "seq counts every event")
        let frames = events.filter { $0["event"] as? String == "frame" }
        #expect(frames.map { $0["frame"] as? Int } == Array(0..<30).map { $0 })
        func payloads(_ frame: [String: Any]) -> [String] {
            (frame["items"] as? [[String: Any]] ?? []).compactMap { $0["payload"] as? String }
        }
        // The clip: empty, a QR code (frames 3–12), empty, a card with a phone number (17–26), empty.
        #expect(payloads(frames[0]).isEmpty && payloads(frames[14]).isEmpty && payloads(frames[29]).isEmpty)
        #expect((3...12).allSatisfy { payloads(frames[$0]) == ["https://example.com/scannerd-demo"] })
        #expect((17...26).allSatisfy { payloads(frames[$0]).contains("+14155550123") })
    }

    @Test func badSourceExitsTwoWithTheReason() throws {
        let result = try Subprocess.run(scannerd, ["run", "--source", "/nonexistent/clip.mjpeg", "--events-stdout"])
        #expect(result.status == 2)
        #expect(result.stderr.contains("/nonexistent/clip.mjpeg") && result.stderr.contains("no such file"))
    }

    @Test(arguments: [
        (["run"], "exactly one of"),
        (["run", "--source", "demo", "--device", "/dev/video0"], "exactly one of"),
        (["run", "--source", "demo", "--pace", "slow"], "slow"),
        (["run", "--source", "demo", "--fps", "0"], "fps"),
        (["run", "--device", "/dev/video0", "--formats", "H264"], "H264"),
        (["run", "--device", "/dev/video0", "--control", "focus"], "focus"),
    ])
    func badArguments(arguments: [String], mentions: String) throws {
        let result = try Subprocess.run(scannerd, arguments)
        #expect(result.status == 2)
        #expect(result.stderr.contains(mentions), "\(result.stderr)")
    }
}
