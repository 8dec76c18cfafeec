import Capture
import ImageDecoding
import InferenceRuntime
import Logging
import Recognition
import ScannerCore
import Synchronization
import TestSupport
import TestTraits
import Testing
import TextDetection
import TextRecognition
import Tracking

@testable import Pipeline

/// The text seams (issue #40): a fake `LineDetector` and a fake `LineRecognizer` drive the
/// deterministic pipeline in-process, through `SequenceConfiguration.textReaders`. Swapping the
/// detector or the recognizer is one conformance; the gates, the schedule and the tracker do the rest.
@Suite(.offThePool(minutes: 2)) struct FakeReadersTests {
    /// Finds the lines it is told to, in every image.
    final class FakeDetector: LineDetector, @unchecked Sendable {
        var quads: [Quad]
        /// How many times it was asked.
        var looks = 0
        init(_ quads: [Quad]) { self.quads = quads }
        func lines(in image: GrayImage) -> [DetectedLine] {
            looks += 1
            return quads.map { DetectedLine(quad: $0, textHeight: $0.meanHeight) }
        }
    }

    /// Reads every line as the next of `texts` (the last one from then on), and counts its reads; with
    /// `failing`, every read fails in its "library" (nothing read, a failure counted).
    final class FakeRecognizer: LineRecognizer, @unchecked Sendable {
        var texts: [String]
        var reads = 0
        var failing = false
        var failures = 0
        init(_ texts: [String]) { self.texts = texts }
        func straightened(_ quad: Quad, in image: GrayImage) -> GrayImage { image.rectified(quad, height: 8) }
        func read(_ straight: GrayImage, of quad: Quad, in image: GrayImage) -> LineReading? {
            let text = texts[min(reads, texts.count - 1)]
            reads += 1
            if failing {
                failures += 1
                return nil
            }
            let word = RecognizedWord(text: text, box: PixelRect(x: 4, y: 4, width: 300, height: 28), confidence: 0.95)
            return LineReading(line: RecognizedLine(words: [word], box: word.box), quad: quad, width: 320, height: 36)
        }
    }

    /// The card photo, for the gates: it is sharp and has contrast, so passes read.
    func card() throws -> GrayImage { try ImageDecoder().decodeFile(atPath: Fixtures.path("card-us.jpg"), targetWidth: 640).image }

    func frame(_ index: Int, _ image: GrayImage) -> Frame {
        Frame(index: index, decoded: DecodedImage(image: image, sourceWidth: image.width, sourceHeight: image.height), format: nil)
    }

    func handler(_ detector: FakeDetector, _ recognizer: FakeRecognizer, logger: Logger? = nil) throws -> Pipeline {
        var options = ScanOptions(quality: .balanced)
        options.types = try RecognitionTypes(parsing: "contentTypes")
        var configuration = SequenceConfiguration(options: options)
        // One detector and recognizer for every stage the handler builds: the test reads their counts.
        nonisolated(unsafe) let readers = TextReaders(detector: detector, recognizers: [recognizer])
        configuration.textReaders = { readers }
        return try Pipeline(configuration: configuration, pacing: .everyFrame(fps: 30), logger: logger)
    }

    /// The messages a logger was given, with their metadata.
    final class Lines: Sendable {
        let all = Mutex<[String]>([])
    }

    struct Recorded: LogHandler {
        let lines: Lines
        var metadata: Logger.Metadata = [:]
        var logLevel: Logger.Level
        subscript(metadataKey key: String) -> Logger.Metadata.Value? {
            get { metadata[key] }
            set { metadata[key] = newValue }
        }
        func log(event: LogEvent) {
            let fields = (event.metadata ?? [:]).sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }
            lines.all.withLock { $0.append(([event.message.description] + fields).joined(separator: " ")) }
        }
    }

    /// At `trace` level the text stage says what each pass looked at and read, so why an item came
    /// or did not can be followed on a real clip; at `debug` and above it says nothing of the text.
    @Test func eachReadIsToldAtTraceLevelOnly() throws {
        let image = try card()
        let line = Quad(x: 100, y: 200, width: 300, height: 30)
        for level in [Logger.Level.trace, .debug] {
            let lines = Lines()
            let recorded = Recorded(lines: lines, logLevel: level)
            let handler = try handler(FakeDetector([line]), FakeRecognizer(["Call 206 555 0188"]), logger: Logger(label: "t") { _ in recorded })
            for index in 0..<4 { _ = handler.process(frame(index, image), time: Double(index) / 30) }
            let told = lines.all.withLock { $0 }
            if level == .trace {
                #expect(
                    told.contains { $0.hasPrefix("text read ") && $0.contains("text=Call 206 555 0188") && $0.contains("+12065550188") }, "\(told)")
                #expect(told.contains { $0.hasPrefix("text pass ") }, "\(told)")
            } else {
                #expect(!told.contains { $0.hasPrefix("text ") }, "\(told)")
            }
        }
    }

    /// What the fakes say is what the pipeline reports: a phone number the card does not show is
    /// added on its second agreeing read, at the fake line's place, and nothing else is.
    @Test func aFakeRecognizersPhoneNumberIsAddedWhereTheFakeLineIs() throws {
        let image = try card()
        let line = Quad(x: 100, y: 200, width: 300, height: 30)
        let recognizer = FakeRecognizer(["Call 206 555 0188"])
        let handler = try handler(FakeDetector([line]), recognizer)
        var actions: [TrackerAction] = []
        for index in 0..<12 { actions += handler.process(frame(index, image), time: Double(index) / 30) }
        let added = actions.filter { $0.name == "added" }.map(\.item.item)
        #expect(added.map(\.payload) == ["+12065550188"], "\(added.map(\.payload))")
        #expect(recognizer.reads >= 2)
        let bounds = try #require(added.first?.bounds)
        #expect(line.contains(Point(x: bounds.center.x * Double(image.width), y: bounds.center.y * Double(image.height))))
    }

    /// A reading that changes (the fake reads a misread first, then the right number on every read
    /// after) is voted on by the tracker: the misread made once is never added.
    @Test func aMisreadOnceIsOutvoted() throws {
        let image = try card()
        let recognizer = FakeRecognizer(["Call 206 555 0183", "Call 206 555 0188"])
        let handler = try handler(FakeDetector([Quad(x: 100, y: 200, width: 300, height: 30)]), recognizer)
        var added: [String] = []
        for index in 0..<15 {
            added += handler.process(frame(index, image), time: Double(index) / 30).filter { $0.name == "added" }.map(\.item.item.payload)
        }
        #expect(added == ["+12065550188"])
    }

    /// A recognizer failing on every line (issue #54): nothing is added, and every failure is counted
    /// where an operator looks (`stats`' `text.readFailures`, `/metrics`).
    @Test func aFailingRecognizerIsCounted() throws {
        let recognizer = FakeRecognizer(["Call 206 555 0188"])
        recognizer.failing = true
        let handler = try handler(FakeDetector([Quad(x: 100, y: 200, width: 300, height: 30)]), recognizer)
        let image = try card()
        var actions: [TrackerAction] = []
        for index in 0..<12 { actions += handler.process(frame(index, image), time: Double(index) / 30) }
        #expect(actions.isEmpty && recognizer.failures > 0)
        #expect(handler.metrics.figures(.reading).failures == recognizer.failures, "\(recognizer.failures)")
    }

    /// No line found, nothing read: the detector is the only way into the recognizer.
    @Test func withoutLinesNothingIsRead() throws {
        let recognizer = FakeRecognizer(["Call 206 555 0188"])
        let handler = try handler(FakeDetector([]), recognizer)
        let image = try card()
        var actions: [TrackerAction] = []
        for index in 0..<9 { actions += handler.process(frame(index, image), time: Double(index) / 30) }
        #expect(actions.isEmpty && recognizer.reads == 0)
    }

    /// Guidance's "text in view" ends with a frame that shows none: a blank frame right after the
    /// card (a cut, or the card gone) is not a blurred card (the demo clip at realtime was told
    /// `blurry` on its blank frames, within a second of the card's last lines).
    @Test func aBlankFrameAfterTheCardIsNoTextInView() throws {
        var options = ScanOptions(quality: .balanced)
        options.types = try RecognitionTypes(parsing: "contentTypes")
        var configuration = SequenceConfiguration(options: options)
        nonisolated(unsafe) let readers = TextReaders(
            detector: FakeDetector([Quad(x: 100, y: 200, width: 300, height: 30)]), recognizers: [FakeRecognizer(["Jane Doe"])])
        configuration.textReaders = { readers }
        let stage = try TextStage(configuration: configuration)
        let card = try card()
        var looker = FrameLooker()
        _ = stage.read(card, look: looker.look(at: card, time: 0), time: 0)
        #expect(stage.guidanceSample?.textInView == true, "the card's lines are seen")
        let blank = GrayImage(width: card.width, height: card.height, pixels: [UInt8](repeating: 128, count: card.width * card.height))
        _ = stage.read(blank, look: looker.look(at: blank, time: 0.2), time: 0.2)
        #expect(stage.guidanceSample?.textInView == false)
    }

    /// A detector whose runtime fails finds no lines; the pipeline counts the frames and keeps the
    /// last error for its statistics (the log line at its end), so a failing runtime is not silent.
    @Test func detectionFailuresAreCounted() throws {
        final class FailingDetector: LineDetector, @unchecked Sendable {
            var failures = 0
            var lastFailure: InferenceError?
            func lines(in image: GrayImage) -> [DetectedLine] {
                failures += 1
                lastFailure = .failed(reason: "the device is gone")
                return []
            }
        }
        var options = ScanOptions(quality: .balanced)
        options.types = try RecognitionTypes(parsing: "contentTypes")
        var configuration = SequenceConfiguration(options: options)
        let detector = FailingDetector()
        nonisolated(unsafe) let readers = TextReaders(detector: detector, recognizers: [FakeRecognizer(["+1 212 555 0187"])])
        configuration.textReaders = { readers }
        let handler = try Pipeline(configuration: configuration, pacing: .everyFrame(fps: 30))
        let image = try card()
        for index in 0..<9 { _ = handler.process(frame(index, image), time: Double(index) / 30) }
        #expect(detector.failures > 0)
        #expect(handler.statistics.ocrDetectionFailures == detector.failures)
        #expect(handler.statistics.ocrLastDetectionFailure?.contains("the device is gone") == true)
    }
}
