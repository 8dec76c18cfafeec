import Foundation
import InferenceRuntime
import ScannerCore

/// One symbol the network read, with the columns of the line it was read from.
public struct NetworkSymbol: Sendable, Equatable {
    public var text: String
    /// Columns of the line image (0 ..< its width).
    public var columns: Range<Int>
    /// The network's probability for the symbol among the characters scannerd reads, averaged over
    /// the steps it was read at (0…1).
    public var confidence: Double
}

/// What the network read in one line, symbol by symbol.
public struct NetworkReading: Sendable, Equatable {
    public var symbols: [NetworkSymbol]
    /// Width of the line image the columns refer to.
    public var width: Int
    public var text: String { symbols.map(\.text).joined() }
}

/// PaddleOCR's PP-OCRv6 small text-line recognizer (a convolutional and transformer encoder with a
/// CTC head) on OpenVINO (Sources/InferenceRuntime): it reads blurred small print that Tesseract
/// misreads (docs/recognition.md).
///
/// The model directory (`make models`, config/models/build-models.py) holds `text-recognizer.onnx`,
/// its classifier cut to the characters scannerd reads, and `alphabet.json`, those classes. The model
/// takes any width: a line is read at its own.
///
/// Not thread-safe: use one per thread. The runtime runs on one thread of its own per call.
public final class LineNetwork {
    /// Lines are read at this height (the model's input height).
    public static let lineHeight = 48
    /// Lines narrower than this are padded to it. PaddleOCR pads every line to at least 320 (its
    /// recognizer's 48×320 input); a camera's lines are mostly shorter (three in four of those read
    /// on the footage, 2026-11-26), and the cost grows with the width. Measured on the real receipts
    /// (`make score-real`, 2026-11-26): at 320, 258/298 read, 11 false, 0.85 s an image; at 32,
    /// 258/298, 12 false (an `@` read as `B` on a 338×450 photo), 0.78 s.
    static let minimumWidth = 64
    /// Wider lines are squeezed to it: the cost grows with the width, and no line a person reads at
    /// a glance in one frame is longer (a 48 px line of this width holds ~100 characters).
    static let maximumWidth = 2400
    /// Input widths are multiples of this. The runtime prepares itself for each new input width on
    /// its first run there, which then takes about three times as long as the next (50 against 15 ms
    /// on average over the footage's reads, release build, 2026-11-26): at 64 a camera's lines come in
    /// ~10–20 widths a clip, as many as at 32 with PaddleOCR's 320 minimum, for ~10 % more columns
    /// than the lines have.
    static let widthStep = 64
    /// Larger files are refused before they are read: the alphabet is ~130 KB, the model ~21 MB.
    static let maximumAlphabetBytes = 1 << 20
    static let maximumModelBytes = 64 << 20
    public static let modelName = "text-recognizer.onnx"

    public let directory: String
    /// The CTC classes: 0 is the blank. The model directory's alphabet is what is read: `make deps`
    /// keeps the Latin characters of PP-OCRv6's 18,709 (config/models/build-models.py).
    let alphabet: [String]
    private let model: NetworkModel

    /// Loads the alphabet and the model, so a missing or broken model directory is an error here, at
    /// start, and not on a line.
    public init(directory: String) throws(InferenceError) {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: directory, isDirectory: &isDirectory), isDirectory.boolValue else {
            throw .missing(path: directory)
        }
        self.directory = directory
        let alphabetPath = (directory as NSString).appendingPathComponent("alphabet.json")
        let data = try ModelFile.contents(of: alphabetPath, limit: Self.maximumAlphabetBytes)
        guard let alphabet = try? JSONDecoder().decode([String].self, from: data) else {
            throw .unusable(path: alphabetPath, reason: "not a JSON array of strings")
        }
        guard alphabet.count >= 2, alphabet.dropFirst().allSatisfy({ $0.count == 1 }) else {
            throw .unusable(path: alphabetPath, reason: "not a CTC alphabet (a blank, then one character per class)")
        }
        self.alphabet = alphabet
        let path = (directory as NSString).appendingPathComponent(Self.modelName)
        model = try NetworkModel(path: path, inputShape: [1, 3, Self.lineHeight, nil], maximumBytes: Self.maximumModelBytes)
        // The alphabet must name the recognizer's classes: one of another length is accepted by the
        // JSON checks above, and then no line would ever be read. One blank line read tells.
        do {
            _ = try read(GrayImage(width: Self.minimumWidth, height: Self.lineHeight, filledWith: 255))
        } catch .failed(let reason) {
            throw .unusable(path: alphabetPath, reason: "does not fit the recognizer (\(reason))")
        } catch {
            throw error
        }
    }

    /// Reads `line`: dark text on a light ground (or the reverse), `lineHeight` pixels high, as wide as
    /// it is (squeezed to `maximumWidth` when wider).
    public func read(_ line: GrayImage) throws(InferenceError) -> NetworkReading {
        guard line.height == Self.lineHeight else {
            throw .failed(reason: "a line must be \(Self.lineHeight) px high, not \(line.height)")
        }
        guard line.width > 0 else { throw .failed(reason: "an empty line") }
        let fitted =
            line.width > Self.maximumWidth
            ? line.rectified(
                Quad(
                    topLeft: Point(x: 0, y: 0), topRight: Point(x: Double(line.width), y: 0),
                    bottomRight: Point(x: Double(line.width), y: Double(line.height)), bottomLeft: Point(x: 0, y: Double(line.height))),
                height: Self.lineHeight, stretch: Double(Self.maximumWidth) / Double(line.width)) : line
        // The encoder steps every 8 columns; the width is rounded up to `widthStep` (padded as
        // PaddleOCR pads a batch).
        let width = max(Self.minimumWidth, (fitted.width + Self.widthStep - 1) / Self.widthStep * Self.widthStep)
        let input = Self.inputPlanes(fitted, width: width)
        let classes = alphabet
        let decoded: Result<NetworkReading, InferenceError> = try model.run(input, shape: [1, 3, Self.lineHeight, width]) {
            values, shape in
            guard shape.count == 3, shape[0] == 1, shape[2] == classes.count, shape[1] > 0 else {
                return .failure(.failed(reason: "the model's output \(shape) does not fit an alphabet of \(classes.count) classes"))
            }
            return .success(Self.decode(values, steps: shape[1], classes: classes, inputWidth: width))
        }
        var reading: NetworkReading
        switch decoded {
        case .success(let value): reading = value
        case .failure(let error): throw error
        }
        // Columns in the fitted line → columns in the line as handed over.
        let scale = Double(line.width) / Double(fitted.width)
        reading.symbols = reading.symbols.compactMap { symbol in
            let lower = Int((Double(symbol.columns.lowerBound) * scale).rounded(.down))
            let upper = min(line.width, Int((Double(symbol.columns.upperBound) * scale).rounded(.up)))
            guard lower < upper else { return nil }
            var symbol = symbol
            symbol.columns = lower..<upper
            return symbol
        }
        reading.width = line.width
        return reading
    }

    /// The network's input: three equal planes (it was trained on colour), each pixel v as v / 127.5 − 1,
    /// the line at the left and zeros (mid-gray) to the right, as PaddleOCR pads.
    static func inputPlanes(_ line: GrayImage, width: Int) -> [Float] {
        let height = line.height
        var plane = [Float](repeating: 0, count: height * width)
        for y in 0..<height {
            for x in 0..<min(width, line.width) {
                plane[y * width + x] = Float(line.pixels[y * line.stride + x]) / 127.5 - 1
            }
        }
        return plane + plane + plane
    }

    /// Greedy CTC decoding: the most probable class at each step, repeats merged, blanks dropped. A
    /// symbol's confidence is its share of the step's probabilities (its probability, for a softmax). Each symbol
    /// spans the columns of the steps it was read at (the steps are evenly spaced over the input's width).
    static func decode(
        _ probabilities: UnsafeBufferPointer<Float>, steps: Int, classes: [String], inputWidth: Int
    ) -> NetworkReading {
        let count = classes.count
        var symbols: [NetworkSymbol] = []
        var stepsOfLast = 0
        var previous = 0
        for step in 0..<steps {
            let row = step * count
            var best = 0
            var bestValue = -Float.infinity
            var total: Float = 0
            for index in 0..<count {
                let value = probabilities[row + index]
                total += value
                if value > bestValue {
                    best = index
                    bestValue = value
                }
            }
            let probability = total > 0 ? Double(bestValue / total) : 0
            let columns = (step * inputWidth / steps)..<((step + 1) * inputWidth / steps)
            if best != 0, best == previous, var last = symbols.popLast() {
                // The same symbol over one more step: widen it, average its probability.
                last.confidence = (last.confidence * Double(stepsOfLast) + probability) / Double(stepsOfLast + 1)
                last.columns = last.columns.lowerBound..<columns.upperBound
                symbols.append(last)
                stepsOfLast += 1
            } else if best != 0 {
                symbols.append(NetworkSymbol(text: classes[best], columns: columns, confidence: probability))
                stepsOfLast = 1
            }
            previous = best
        }
        return NetworkReading(symbols: symbols, width: inputWidth)
    }
}
