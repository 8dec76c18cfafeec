import COpenCVDNN
import Foundation
import ScannerCore

/// Why the line network could not be loaded or could not read a line: one line each, naming the file.
public enum LineNetworkError: Error, Equatable, CustomStringConvertible {
    /// The model directory, or a file it must hold, does not exist.
    case missing(path: String)
    /// A file is there but is not what it must be (too large, not JSON, not a model OpenCV loads).
    case unusable(path: String, reason: String)
    /// The line handed over cannot be read (wrong height, empty).
    case badLine(reason: String)
    /// OpenCV failed while reading a line.
    case failed(reason: String)

    public var description: String {
        switch self {
        case .missing(let path): "line model: \(path): no such file or directory (make line-model builds it)"
        case .unusable(let path, let reason): "line model: \(path): \(reason)"
        case .badLine(let reason): "line network: \(reason)"
        case .failed(let reason): "line network: \(reason)"
        }
    }
}

/// One symbol the network read, with the columns of the line it was read from.
public struct NetworkSymbol: Sendable, Equatable {
    public var text: String
    /// Columns of the line image (0 ..< its width).
    public var columns: Range<Int>
    /// The network's probability for the symbol, averaged over the steps it was read at (0…1).
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
/// CTC head) on OpenCV's DNN module: a second, independent recognizer for the lines that matter,
/// which reads blurred small print that Tesseract misreads (docs/recognition.md).
///
/// The model directory (`make line-model`, config/models/build-line-model.py) holds `alphabet.json`
/// and one model per input width, `rec-48xW.onnx`: Debian's OpenCV 4.6 needs a fixed input size, so
/// a line is padded to the next width. Each model is loaded when a line first needs it.
///
/// Not thread-safe: use one per thread. OpenCV runs on the calling thread only.
public final class LineNetwork {
    /// Lines are read at this height (the model's input height).
    public static let lineHeight = 48
    /// Larger files are refused before they are read: the alphabet is ~40 KB, a model ~21 MB.
    static let maximumAlphabetBytes = 1 << 20
    static let maximumModelBytes = 64 << 20

    public let directory: String
    /// The model widths present, ascending.
    public let widths: [Int]
    /// The CTC classes: 0 is the blank.
    let alphabet: [String]
    private var nets: [Int: OpaquePointer] = [:]

    /// Loads the alphabet and the narrowest model, and checks that the others are files of a model's
    /// size, so a missing or broken model directory is an error here, at start, and not on a line.
    public init(directory: String) throws(LineNetworkError) {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: directory, isDirectory: &isDirectory), isDirectory.boolValue else {
            throw .missing(path: directory)
        }
        self.directory = directory
        let alphabetPath = (directory as NSString).appendingPathComponent("alphabet.json")
        let data = try Self.contents(of: alphabetPath, limit: Self.maximumAlphabetBytes)
        guard let alphabet = try? JSONDecoder().decode([String].self, from: data) else {
            throw .unusable(path: alphabetPath, reason: "not a JSON array of strings")
        }
        guard alphabet.count >= 2, alphabet.dropFirst().allSatisfy({ $0.count == 1 }) else {
            throw .unusable(path: alphabetPath, reason: "not a CTC alphabet (a blank, then one character per class)")
        }
        self.alphabet = alphabet
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
        self.widths = names.compactMap(Self.width(ofModelNamed:)).sorted()
        guard let narrowest = widths.first else {
            throw .missing(path: (directory as NSString).appendingPathComponent("rec-\(Self.lineHeight)xW.onnx"))
        }
        for width in widths {
            try Self.checkFile(Self.path(of: width, in: directory), limit: Self.maximumModelBytes)
        }
        _ = try net(width: narrowest)
    }

    static func path(of width: Int, in directory: String) -> String {
        (directory as NSString).appendingPathComponent("rec-\(lineHeight)x\(width).onnx")
    }

    deinit {
        for net in nets.values { cdnn_free(net) }
    }

    /// `rec-48x320.onnx` → 320.
    static func width(ofModelNamed name: String) -> Int? {
        let prefix = "rec-\(lineHeight)x", suffix = ".onnx"
        guard name.hasPrefix(prefix), name.hasSuffix(suffix) else { return nil }
        guard let width = Int(name.dropFirst(prefix.count).dropLast(suffix.count)), (8...8192).contains(width) else { return nil }
        return width
    }

    static func contents(of path: String, limit: Int) throws(LineNetworkError) -> Data {
        try checkFile(path, limit: limit)
        guard let data = FileManager.default.contents(atPath: path) else { throw .unusable(path: path, reason: "cannot be read") }
        return data
    }

    /// A regular file (a symbolic link to one is fine) of at most `limit` bytes: checked before it is parsed.
    static func checkFile(_ path: String, limit: Int) throws(LineNetworkError) {
        let target = (path as NSString).resolvingSymlinksInPath
        guard let attributes = try? FileManager.default.attributesOfItem(atPath: target) else { throw .missing(path: path) }
        guard attributes[.type] as? FileAttributeType == .typeRegular else { throw .unusable(path: path, reason: "not a regular file") }
        let size = (attributes[.size] as? NSNumber)?.intValue ?? 0
        guard size <= limit else { throw .unusable(path: path, reason: "\(size) bytes, more than the \(limit) allowed") }
    }

    private func net(width: Int) throws(LineNetworkError) -> OpaquePointer {
        if let net = nets[width] { return net }
        let path = Self.path(of: width, in: directory)
        // Bounded before OpenCV parses it.
        try Self.checkFile(path, limit: Self.maximumModelBytes)
        var error = [CChar](repeating: 0, count: 512)
        guard let net = cdnn_load(path, &error, Int32(error.count)) else {
            throw .unusable(path: path, reason: Self.firstLine(error))
        }
        nets[width] = net
        return net
    }

    static func firstLine(_ buffer: [CChar]) -> String {
        let message = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        let line = message.split(whereSeparator: \.isNewline).first.map(String.init) ?? ""
        return line.isEmpty ? "OpenCV could not load it" : line
    }

    /// Reads `line`: dark text on a light ground (or the reverse), `lineHeight` pixels high, as wide as
    /// it is. A line is squeezed into a model narrower than it by up to `squeezeAllowed`, and a line
    /// wider than the widest model is squeezed to fit it.
    public func read(_ line: GrayImage) throws(LineNetworkError) -> NetworkReading {
        try read(line, modelWidth: nil)
    }

    /// `read(_:)` with the model of `modelWidth` (one of `widths`, at least the line's width), or
    /// the one `modelWidth(forLineWidth:)` picks: a test reads one line with every model.
    func read(_ line: GrayImage, modelWidth: Int?) throws(LineNetworkError) -> NetworkReading {
        guard line.height == Self.lineHeight else {
            throw .badLine(reason: "a line must be \(Self.lineHeight) px high, not \(line.height)")
        }
        guard !widths.isEmpty else { throw .badLine(reason: "no model width") }
        let width = if let modelWidth, widths.contains(modelWidth), modelWidth >= line.width { modelWidth }
            else { self.modelWidth(forLineWidth: line.width) }
        let fitted = line.width > width ? line.rectified(
            Quad(
                topLeft: Point(x: 0, y: 0), topRight: Point(x: Double(line.width), y: 0),
                bottomRight: Point(x: Double(line.width), y: Double(line.height)), bottomLeft: Point(x: 0, y: Double(line.height))),
            height: Self.lineHeight, stretch: Double(width) / Double(line.width)) : line
        let net = try net(width: width)
        let input = Self.inputPlanes(fitted, width: width)
        var output = Output()
        var error = [CChar](repeating: 0, count: 512)
        let status = input.withUnsafeBufferPointer { planes in
            withUnsafeMutablePointer(to: &output) { context in
                cdnn_forward(
                    net, planes.baseAddress, 1, 3, Int32(Self.lineHeight), Int32(width),
                    { context, values, count, shape, dims in
                        guard let context, let values, let shape else { return }
                        let output = context.assumingMemoryBound(to: Output.self)
                        output.pointee.shape = (0..<Int(dims)).map { Int(shape[$0]) }
                        output.pointee.values = Array(UnsafeBufferPointer(start: values, count: Int(count)))
                    }, context, &error, Int32(error.count))
            }
        }
        guard status == 0 else { throw .failed(reason: Self.firstLine(error)) }
        guard output.shape.count == 3, output.shape[0] == 1, output.shape[2] == alphabet.count, output.shape[1] > 0 else {
            throw .failed(reason: "the model's output \(output.shape) does not fit an alphabet of \(alphabet.count) classes")
        }
        var reading = Self.decode(output.values, steps: output.shape[1], classes: alphabet, inputWidth: width)
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

    /// A line may be squeezed to this fraction of its width to fit a narrower model. The network's
    /// cost grows with the model's width (one thread, in the daemon, 2026-11-24: ~80 ms at 320 px,
    /// ~160 ms at 640), and a line a little wider than a model was padded to the next: a card's
    /// e-mail line, 655 px at 48 px high, took the 960 px model. The network reads lines squeezed
    /// to 0.8 of their width as well as it reads them as they are (docs/recognition.md, PP-OCRv6 small).
    static let squeezeAllowed = 0.8

    /// The model a line `lineWidth` px wide is read with: the narrowest it fits once squeezed by
    /// at most `squeezeAllowed`, else the widest (squeezed to fit).
    func modelWidth(forLineWidth lineWidth: Int) -> Int {
        widths.first { Double($0) >= Double(lineWidth) * Self.squeezeAllowed } ?? widths.last!
    }

    private struct Output {
        var values: [Float] = []
        var shape: [Int] = []
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

    /// Greedy CTC decoding: the most probable class at each step, repeats merged, blanks dropped.
    /// Each symbol spans the columns of the steps it was read at (the network's steps are evenly spaced
    /// over the input's width).
    static func decode(_ probabilities: [Float], steps: Int, classes: [String], inputWidth: Int) -> NetworkReading {
        let count = classes.count
        var symbols: [NetworkSymbol] = []
        var stepsOfLast = 0
        var previous = 0
        for step in 0..<steps {
            let row = probabilities[(step * count)..<((step + 1) * count)]
            var best = 0
            var bestValue = -Float.infinity
            for (index, value) in zip(0..., row) where value > bestValue {
                best = index
                bestValue = value
            }
            let columns = (step * inputWidth / steps)..<((step + 1) * inputWidth / steps)
            if best != 0, best == previous, var last = symbols.popLast() {
                // The same symbol over one more step: widen it, average its probability.
                last.confidence = (last.confidence * Double(stepsOfLast) + Double(bestValue)) / Double(stepsOfLast + 1)
                last.columns = last.columns.lowerBound..<columns.upperBound
                symbols.append(last)
                stepsOfLast += 1
            } else if best != 0 {
                symbols.append(NetworkSymbol(text: classes[best], columns: columns, confidence: Double(bestValue)))
                stepsOfLast = 1
            }
            previous = best
        }
        return NetworkReading(symbols: symbols, width: inputWidth)
    }
}
