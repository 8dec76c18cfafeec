import Foundation
import ImageDecoding
import InferenceRuntime
import ScannerCore
import TestSupport
import TestTraits
import Testing
import TextDetection
import TextRecognition

@testable import LineNetwork
@testable import Recognition

/// The line network (PP-OCRv6 small on OpenVINO, fetched by `make deps`): it reads lines, a broken model
/// directory is a clear error at load, and the pure parts (input planes, CTC decoding) do what PaddleOCR does.
@Suite(.offThePool(minutes: 3)) struct LineNetworkTests {
    /// Fetched by `make deps`, which `make test` runs first.
    static let modelDirectory = Fixtures.packageRoot.appendingPathComponent(".build/models").path

    static func network() throws -> LineNetwork {
        do {
            return try LineNetwork(directory: modelDirectory)
        } catch {
            Issue.record("\(error) — run `make deps` first")
            throw error
        }
    }

    /// Every line of the business-card fixture, found by the detector and read by the network alone.
    @Test func theNetworkReadsTheCardsLines() throws {
        let network = try Self.network()
        let image = try ImageDecoder().decodeFile(atPath: Fixtures.path("card-us.jpg")).image
        let recognizer = NetworkLineRecognizer(network)
        let texts = ClassicalLineDetector().lines(in: image).compactMap { recognizer.read($0.quad, in: image)?.line.text }
        for expected in ["(415) 555-0123", "+1 650 253 0000", "jane.doe@example.com", "acme-optics.com/contact"] {
            #expect(texts.contains { $0.contains(expected) }, "\(expected) in \(texts)")
        }
    }

    /// The model takes any width: a line is read at its own, and the same line stretched to 760 px
    /// (past the 640 px that fixed-width models once padded it to) says the same.
    @Test func aLineIsReadAtItsOwnWidth() throws {
        let network = try Self.network()
        let image = try ImageDecoder().decodeFile(atPath: Fixtures.path("card-us.jpg")).image
        let recognizer = NetworkLineRecognizer(network)
        let detector = ClassicalLineDetector()
        let quad = try #require(detector.lines(in: image).first { recognizer.read($0.quad, in: image)?.line.text.contains("@") == true }?.quad)
        let plain = image.rectified(quad, height: LineNetwork.lineHeight).normalizedForReading()
        let wide = image.rectified(quad, height: LineNetwork.lineHeight, stretch: 760 / Double(plain.width)).normalizedForReading()
        for line in [plain, wide] {
            let reading = try network.read(line)
            #expect(reading.text.contains("jane.doe@example.com"), "\(line.width) px: \(reading.text)")
            #expect(reading.width == line.width)
            #expect(reading.symbols.allSatisfy { $0.columns.upperBound <= line.width })
        }
    }

    /// Each symbol gets the columns it was read at: the boxes of a reading run left to right, inside
    /// the line, and the text's bytes each have one.
    @Test func aReadingPlacesItsSymbolsAlongTheLine() throws {
        let network = try Self.network()
        let image = try ImageDecoder().decodeFile(atPath: Fixtures.path("card-us.jpg")).image
        let recognizer = NetworkLineRecognizer(network)
        let detector = ClassicalLineDetector()
        let line = try #require(detector.lines(in: image).first { recognizer.read($0.quad, in: image)?.line.text.contains("@") == true })
        let reading = try #require(recognizer.read(line.quad, in: image))
        let boxes = reading.byteBoxes
        #expect(boxes.count == reading.line.text.utf8.count)
        #expect(zip(boxes, boxes.dropFirst()).allSatisfy { $0.x <= $1.x })
        #expect(boxes.allSatisfy { $0.x >= 0 && $0.x + $0.width <= reading.width })
    }

    /// Tesseract places each character too (its symbol iterator): every word of two or more characters
    /// is made of its symbols, whose boxes run left to right inside the word, so an item on the line
    /// is placed by its own characters as with the network.
    @Test func tesseractPlacesEachCharacterAlongTheLine() throws {
        let image = try ImageDecoder().decodeFile(atPath: Fixtures.path("card-us.jpg")).image
        let recognizer = TesseractLineRecognizer(try TextRecognizer())
        let line = try #require(
            ClassicalLineDetector().lines(in: image).first { recognizer.read($0.quad, in: image)?.line.text.contains("@") == true })
        let reading = try #require(recognizer.read(line.quad, in: image))
        for word in reading.line.words where word.text.count > 1 {
            #expect(word.symbols.map(\.text).joined() == word.text, "\(word.text)")
            #expect(Set(word.symbols.map(\.box.x)).count == word.symbols.count, "each character its own place in \(word.text)")
            #expect(word.symbols.allSatisfy { $0.box.x >= word.box.x && $0.box.x + $0.box.width <= word.box.x + word.box.width + 1 })
        }
        #expect(reading.byteBoxes.count == reading.line.text.utf8.count)
        #expect(zip(reading.byteBoxes, reading.byteBoxes.dropFirst()).allSatisfy { $0.x <= $1.x })
    }

    /// With a model, `scan` reads the card's typed items with the network.
    @Test func scanWithTheNetworkReadsTheCard() throws {
        let scanner = try ImageScanner(options: TextTests.contentOnly, lineModel: Self.modelDirectory)
        let image = try ImageDecoder().decodeFile(atPath: Fixtures.path("card-us.jpg")).image
        let payloads = Set(scanner.scan(image).map(\.payload))
        #expect(payloads.isSuperset(of: ["+14155550123", "+16502530000", "jane.doe@example.com"]), "\(payloads)")
    }

    @Test func aLineOfAnotherHeightIsRefused() throws {
        let network = try Self.network()
        #expect(throws: InferenceError.failed(reason: "a line must be 48 px high, not 36")) {
            try network.read(GrayImage(width: 200, height: 36, filledWith: 255))
        }
        // A line wider than `maximumWidth` is squeezed to it, not refused; its columns are the line's.
        let reading = try network.read(GrayImage(width: 3000, height: 48, filledWith: 255))
        #expect(reading.width == 3000)
    }

    // MARK: A model directory that is missing or broken

    @Test func aMissingDirectoryOrFileIsNamed() throws {
        let directory = try TemporaryDirectory()
        #expect(throws: InferenceError.missing(path: directory.path + "/none")) { try LineNetwork(directory: directory.path + "/none") }
        #expect(throws: InferenceError.missing(path: directory.path + "/alphabet.json")) { try LineNetwork(directory: directory.path) }
        try Data("[\"<blank>\", \"a\"]".utf8).write(to: URL(fileURLWithPath: directory.file("alphabet.json")))
        #expect(throws: InferenceError.missing(path: directory.path + "/text-recognizer.onnx")) { try LineNetwork(directory: directory.path) }
    }

    @Test func aBrokenAlphabetIsRefusedBeforeTheModel() throws {
        let directory = try TemporaryDirectory()
        let alphabet = URL(fileURLWithPath: directory.file("alphabet.json"))
        for (content, reason) in [
            ("{\"a\": 1}", "not a JSON array of strings"),
            ("[\"<blank>\", \"ab\"]", "not a CTC alphabet (a blank, then one character per class)"),
            ("[\"<blank>\"]", "not a CTC alphabet (a blank, then one character per class)"),
        ] {
            try Data(content.utf8).write(to: alphabet)
            #expect(throws: InferenceError.unusable(path: alphabet.path, reason: reason)) { try LineNetwork(directory: directory.path) }
        }
        // Too large is refused by its size, before it is read.
        try Data(repeating: 0x20, count: LineNetwork.maximumAlphabetBytes + 1).write(to: alphabet)
        #expect(throws: InferenceError.self) { try LineNetwork(directory: directory.path) }
        try FileManager.default.removeItem(at: alphabet)
        try FileManager.default.createDirectory(at: alphabet, withIntermediateDirectories: false)
        #expect(throws: InferenceError.unusable(path: alphabet.path, reason: "not a regular file")) { try LineNetwork(directory: directory.path) }
    }

    /// An alphabet the JSON checks accept but whose length is not the recognizer's classes (issue #54
    /// N5: text was then never read) is refused at load, named.
    @Test func anAlphabetThatDoesNotFitTheRecognizerIsRefusedAtLoad() throws {
        let directory = try TemporaryDirectory()
        let model = Self.modelDirectory + "/" + LineNetwork.modelName
        try FileManager.default.createSymbolicLink(atPath: directory.file(LineNetwork.modelName), withDestinationPath: model)
        let full = try JSONDecoder().decode([String].self, from: Data(contentsOf: URL(fileURLWithPath: Self.modelDirectory + "/alphabet.json")))
        let alphabet = URL(fileURLWithPath: directory.file("alphabet.json"))
        try JSONEncoder().encode(Array(full.dropLast())).write(to: alphabet)
        do {
            _ = try LineNetwork(directory: directory.path)
            Issue.record("an alphabet one class short was accepted")
        } catch {
            guard case .unusable(let path, let reason) = error else {
                Issue.record("\(error)")
                return
            }
            #expect(path == alphabet.path && reason.contains("does not fit the recognizer"), "\(reason)")
        }
        try JSONEncoder().encode(full).write(to: alphabet)
        #expect(throws: Never.self) { try LineNetwork(directory: directory.path) }
    }

    @Test func aModelTheRuntimeCannotLoadIsAnErrorNotACrash() throws {
        let directory = try TemporaryDirectory()
        try Data("[\"<blank>\", \"a\"]".utf8).write(to: URL(fileURLWithPath: directory.file("alphabet.json")))
        let model = URL(fileURLWithPath: directory.file("text-recognizer.onnx"))
        for bytes in [Data(), Data("not a model".utf8), Data((0..<4096).map { UInt8(truncatingIfNeeded: $0 &* 31) })] {
            try bytes.write(to: model)
            do {
                _ = try LineNetwork(directory: directory.path)
                Issue.record("loaded \(bytes.count) bytes of garbage")
            } catch {
                guard case .unusable(let path, let reason) = error else {
                    Issue.record("\(error)")
                    continue
                }
                #expect(path == model.path)
                #expect(!reason.isEmpty && !reason.contains("\n"))
            }
        }
    }

    // MARK: The pure parts

    /// Three planes of v / 127.5 − 1, the line at the left, zeros after it.
    @Test func theInputIsTheLineScaledToPlusMinusOneAndPaddedWithZeros() {
        let line = GrayImage(width: 2, height: 1, pixels: [0, 255])
        let planes = LineNetwork.inputPlanes(line, width: 4)
        #expect(planes == [-1, 1, 0, 0, -1, 1, 0, 0, -1, 1, 0, 0])
    }

    /// Greedy CTC: repeats merge, a blank between two equal symbols keeps both, each symbol spans its
    /// steps, and its confidence is its share of the step's probabilities.
    @Test func ctcDecodingMergesRepeatsAndSplitsAtBlanks() {
        let classes = ["<blank>", "a", "b", " "]
        // Steps: a a _ a b _ (6 steps over 12 columns: 2 columns each).
        let best = [1, 1, 0, 1, 2, 0]
        var probabilities = [Float]()
        for (step, index) in best.enumerated() {
            probabilities += (0..<classes.count).map { $0 == index ? (step == 1 ? 0.6 : 0.8) : 0.05 }
        }
        let reading = probabilities.withUnsafeBufferPointer {
            LineNetwork.decode($0, steps: best.count, classes: classes, inputWidth: 12)
        }
        #expect(reading.text == "aab")
        #expect(reading.symbols.map(\.columns) == [0..<4, 6..<8, 8..<10])
        #expect(abs(reading.symbols[0].confidence - (0.8 / 0.95 + 0.6 / 0.75) / 2) < 1e-6)
    }
}
