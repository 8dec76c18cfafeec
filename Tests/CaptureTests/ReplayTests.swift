import Foundation
import ImageDecoding
import Logging
import ScannerCore
import TestSupport
import TestTraits
import Testing

@testable import Capture

@Suite(.offThePool(minutes: 2)) struct ReplayTests {
    let logger = Logger(label: "test")

    func drain(_ source: FrameSource, limit: Int = 1000) -> (frames: [Frame], events: [String]) {
        var frames: [Frame] = []
        var events: [String] = []
        for _ in 0..<limit {
            switch source.next() {
            case .frame(let frame):
                frames.append(frame)
                events.append("frame")
            case .available: events.append("available")
            case .unavailable(let reason): events.append("unavailable \(reason)")
            case .end:
                events.append("end")
                return (frames, events)
            }
        }
        return (frames, events)
    }

    @Test func demoClipWithoutPacingGivesEveryFrameInOrderThenEnds() throws {
        let source = try ReplaySource(path: "demo", configuration: .init(pace: .none), logger: logger)
        let (frames, events) = drain(source)
        #expect(source.frameCount == 30)
        #expect(frames.map(\.index) == Array(0..<30))
        #expect(events.first == "available" && events.last == "end")
        #expect(frames.allSatisfy { $0.image.width == 640 && $0.decoded.sourceWidth == 640 })
        #expect(source.statistics.delivered == 30 && source.statistics.dropped == 0)
    }

    @Test func processingWidthReducesWhileDecoding() throws {
        let source = try ReplaySource(path: "demo", configuration: .init(pace: .none, processingWidth: 320), logger: logger)
        guard case .available = source.next(), case .frame(let frame) = source.next() else {
            Issue.record("expected a frame")
            return
        }
        #expect(frame.image.width == 320 && frame.decoded.sourceWidth == 640)
    }

    @Test func loopKeepsCountingFrames() throws {
        let source = try ReplaySource(path: "demo", configuration: .init(pace: .none, loop: true), logger: logger)
        let (frames, _) = drain(source, limit: 70)
        #expect(frames.count == 69)
        #expect(frames.last?.index == 68)
    }

    @Test func realtimePacingDropsWhatTheConsumerMisses() throws {
        // A consumer that takes 100 ms per frame of a 30 fps clip sees about every third frame.
        let source = try ReplaySource(path: "demo", configuration: .init(fps: 30, pace: .realtime), logger: logger)
        _ = source.next()
        var indices: [Int] = []
        while case .frame(let frame) = source.next() {
            indices.append(frame.index)
            Thread.sleep(forTimeInterval: 0.1)
        }
        #expect(indices == indices.sorted() && Set(indices).count == indices.count, "in order, no repeats")
        #expect(indices.count < 20, "frames were dropped: \(indices)")
        #expect(source.statistics.dropped > 0)
    }

    @Test func directoryOfImagesIsSortedByName() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("replay-\(UUID())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        for (name, fixture) in [("b.png", "ean8.png"), ("a.png", "qr.png"), ("c.jpg", "flyer.jpg"), ("notes.txt", "not-an-image.txt")] {
            try FileManager.default.copyItem(atPath: Fixtures.path(fixture), toPath: directory.appendingPathComponent(name).path)
        }
        let source = try ReplaySource(path: directory.path, configuration: .init(pace: .none, processingWidth: nil), logger: logger)
        let (frames, _) = drain(source)
        #expect(frames.map(\.decoded.sourceWidth) == [360, 482, 1000], "a.png (qr), b.png (ean8), c.jpg (flyer)")
    }

    @Test func corruptFramesInAStreamAreSkippedAndCounted() throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("corrupt-\(UUID()).mjpeg")
        defer { try? FileManager.default.removeItem(at: file) }
        let good = try Fixtures.data("bench-640x480.jpg")
        var broken = good
        broken.replaceSubrange(1000..<5000, with: Data(repeating: 0x00, count: 4000))  // markers intact, data not
        try (good + broken + good).write(to: file)
        let source = try ReplaySource(path: file.path, configuration: .init(pace: .none), logger: logger)
        let (frames, _) = drain(source)
        #expect(source.frameCount == 3)
        #expect(frames.map(\.index) == [0, 2])
        #expect(source.statistics.corrupt == 1)
    }

    @Test(arguments: [
        ("/nonexistent/clip.mjpeg", "no such file"),
        ("Tests/Fixtures/not-an-image.txt", "holds no JPEG frames"),
        ("Tests", "holds no .jpg"),
    ])
    func badSourcesAreRefusedWithTheReason(path: String, reason: String) {
        let full = path.hasPrefix("/") ? path : Fixtures.packageRoot.appendingPathComponent(path).path
        #expect {
            try ReplaySource(path: full, configuration: .init(), logger: logger)
        } throws: { error in
            "\(error)".contains(reason) && "\(error)".contains(full)
        }
    }

    @Test func mjpegStreamSplitting() throws {
        let a = try Fixtures.data("bench-640x480.jpg")
        let b = try Fixtures.data("card-us.jpg")
        let ranges = MJPEGStream.frames(in: Data([1, 2, 3]) + a + b + b.prefix(500))
        #expect(ranges.count == 2, "leading garbage skipped, truncated tail dropped")
        #expect(ranges.first?.count == a.count && ranges.last?.count == b.count)
    }
}

@Suite(.offThePool(minutes: 2)) struct FrameDecoderTests {
    /// A 4×2 YUYV frame: luma 10, 20, 30, 40 / 50, 60, 70, 80, chroma 128, rows padded to 12 bytes.
    let yuyv: [UInt8] = [
        10, 128, 20, 128, 30, 128, 40, 128, 0xEE, 0xEE, 0xEE, 0xEE,
        50, 128, 60, 128, 70, 128, 80, 128, 0xEE, 0xEE, 0xEE, 0xEE,
    ]

    @Test func yuyvGivesTheLumaPlane() throws {
        let decoded = try yuyv.withUnsafeBytes {
            try FrameDecoder().decode($0, format: .yuyv, width: 4, height: 2, bytesPerLine: 12, targetWidth: nil)
        }
        #expect(decoded.image.pixels == [10, 20, 30, 40, 50, 60, 70, 80])
    }

    @Test func yuyvDecimatesToTheProcessingWidth() throws {
        let decoded = try yuyv.withUnsafeBytes {
            try FrameDecoder().decode($0, format: .yuyv, width: 4, height: 2, bytesPerLine: 12, targetWidth: 2)
        }
        #expect(decoded.image.width == 2 && decoded.image.height == 1)
        #expect(decoded.image.pixels == [10, 30])
        #expect(decoded.sourceWidth == 4)
    }

    @Test func greyAsIsAndShortFramesRefused() throws {
        let grey: [UInt8] = [1, 2, 3, 4, 5, 6]
        let decoded = try grey.withUnsafeBytes {
            try FrameDecoder().decode($0, format: .grey, width: 3, height: 2, bytesPerLine: 3, targetWidth: nil)
        }
        #expect(decoded.image.pixels == grey)
        #expect(throws: ScannerError.self) {
            try grey.withUnsafeBytes { try FrameDecoder().decode($0, format: .yuyv, width: 3, height: 2, bytesPerLine: 6, targetWidth: nil) }
        }
    }

    @Test func mjpegIsDecodedLenientlyAndScaled() throws {
        let jpeg = try Fixtures.data("bench-1280x720.jpg")
        let decoded = try jpeg.withUnsafeBytes {
            try FrameDecoder().decode($0, format: .mjpeg, width: 1280, height: 720, bytesPerLine: 0, targetWidth: 640)
        }
        #expect(decoded.image.width == 640 && decoded.sourceWidth == 1280)
    }
}

/// While the scene is still, a source decodes one frame in three; the first changed frame ends it.
@Suite(.offThePool(minutes: 2)) struct IdleThinningTests {
    @Test func idleDecodesOneFrameInThreeAndStopsAtOnce() {
        var thinning = IdleThinning()
        var busy: [Bool] = []
        var idle: [Bool] = []
        for _ in 0..<6 { busy.append(thinning.skips(idle: false)) }
        for _ in 0..<6 { idle.append(thinning.skips(idle: true)) }
        #expect(busy == [false, false, false, false, false, false])
        #expect(idle == [true, true, false, true, true, false])
        _ = thinning.skips(idle: true)
        let afterIdling = thinning.skips(idle: false)
        let idlingAgain = thinning.skips(idle: true)
        #expect(!afterIdling, "the first frame after idling is decoded")
        #expect(idlingAgain, "and idling starts over")
    }
}
