import Foundation
import InferenceRuntime
import ScannerCore

/// PaddleOCR's PP-OCRv6 small text detector (a DB network: a map of where text is, drawn shrunk)
/// on OpenVINO, and its post-processing (`ProbabilityMapLines`): an image in, line quads out.
///
/// The image is resized as RapidOCR resizes it for this network (its shorter side enlarged to at
/// least `shorterSideAtLeast`, its longer side at most `longerSideAtMost`, both rounded to a multiple
/// of 32: the network halves its input five times) and normalized as RapidOCR does (v / 127.5 − 1).
/// A compiled network serves one input size; the last few sizes are kept (a camera's frames are all
/// one size, and compiling takes ~0.2 s).
///
/// Not thread-safe: use one per thread.
public final class NetworkLineDetector {
    public static let modelName = "text-detector.onnx"
    static let maximumModelBytes = 64 << 20
    /// Compiled networks kept, one per input size.
    static let keptSizes = 4

    public let path: String
    /// RapidOCR's `limit_side_len` (type `min`) and `max_side_len` for PP-OCRv6 detection.
    public var shorterSideAtLeast: Int
    public var longerSideAtMost: Int
    public var postProcessing = ProbabilityMapLines()
    /// The last time the runtime failed on an image (`lines(in:)` found no lines there).
    public internal(set) var lastFailure: InferenceError?
    /// Images the runtime failed on.
    public internal(set) var failures = 0
    private var compiled: [(width: Int, height: Int, model: NetworkModel)] = []
    /// Whether the network for an input size is made with the one for its transpose (a camera's
    /// looks: `TextLooks` turns its windows portrait when a card is held upright, and that first
    /// network came on the frame the card did — the footage's phone, seed 3: made at frame 58, its
    /// number legible from 54 — instead of at the first look, on the empty desk).
    public var preparesTransposed = false

    /// Reads the network once, so a missing or broken model is an error here; it is compiled for each
    /// input size (and its transpose, `preparesTransposed`) when an image of that size first comes (a
    /// still image's own: a first compile for a size no image has would cost ~0.2 s for nothing).
    public init(directory: String, shorterSideAtLeast: Int = 736, longerSideAtMost: Int = 2000) throws(InferenceError) {
        path = (directory as NSString).appendingPathComponent(Self.modelName)
        self.shorterSideAtLeast = shorterSideAtLeast
        self.longerSideAtMost = longerSideAtMost
        try NetworkModel.check(path: path, maximumBytes: Self.maximumModelBytes)
    }

    /// The input sizes a network is compiled for, oldest first.
    var compiledSizes: [(width: Int, height: Int)] { compiled.map { ($0.width, $0.height) } }

    private func model(width: Int, height: Int) throws(InferenceError) -> NetworkModel {
        if let index = compiled.firstIndex(where: { $0.width == width && $0.height == height }) {
            let entry = compiled.remove(at: index)
            compiled.append(entry)
            return entry.model
        }
        let model = try NetworkModel(path: path, inputShape: [1, 3, height, width], maximumBytes: Self.maximumModelBytes)
        if preparesTransposed, width != height, !compiled.contains(where: { $0.width == height && $0.height == width }),
            let transposed = try? NetworkModel(path: path, inputShape: [1, 3, width, height], maximumBytes: Self.maximumModelBytes)
        {
            compiled.append((height, width, transposed))
        }
        compiled.append((width, height, model))
        while compiled.count > Self.keptSizes { compiled.removeFirst() }
        return model
    }

    /// The network's input size for an image: the shorter side enlarged to `shorterSideAtLeast` when
    /// below it, the longer side then at most `longerSideAtMost`, each side a multiple of 32, at least 32.
    public static func inputSize(width: Int, height: Int, shorterSideAtLeast: Int, longerSideAtMost: Int) -> (width: Int, height: Int) {
        var scale = Double(shorterSideAtLeast) / Double(min(width, height))
        scale = max(1, scale)
        scale = min(scale, Double(longerSideAtMost) / Double(max(width, height)))
        func rounded(_ side: Int) -> Int { max(32, Int((Double(side) * scale / 32).rounded()) * 32) }
        return (rounded(width), rounded(height))
    }

    /// Stills: an image the one look reduces is also looked at in tiles at its own resolution
    /// (`TiledLook`); nil (camera frames, whose looks the pipeline chooses): one look.
    public var tiles: TiledLook?

    /// The lines of `image`, in its pixel coordinates; of the tiles, those looked at before `deadline`.
    public func detect(_ image: GrayImage, until deadline: ContinuousClock.Instant? = nil) throws(InferenceError) -> [DetectedLine] {
        let whole = try look(image)
        let size = Self.inputSize(
            width: image.width, height: image.height, shorterSideAtLeast: shorterSideAtLeast, longerSideAtMost: longerSideAtMost)
        guard let tiles, tiles.applies(width: image.width, height: image.height, look: size) else { return whole }
        var found: [TiledLook.Found] = []
        for tile in tiles.tiles(width: image.width, height: image.height) {
            if deadline?.hasPassed == true { break }
            let part = image.cropped(to: tile)
            guard part.largestBlockContrastSpread() >= tiles.minimumSpread else { continue }
            for line in try look(part) {
                found.append(TiledLook.Found(line: line.offset(by: Double(tile.x), Double(tile.y)), tile: tile))
            }
        }
        return tiles.merged(found, whole: whole, width: image.width, height: image.height)
    }

    /// One look at the whole of `image`, at the network's input size for it.
    private func look(_ image: GrayImage) throws(InferenceError) -> [DetectedLine] {
        let size = Self.inputSize(
            width: image.width, height: image.height, shorterSideAtLeast: shorterSideAtLeast, longerSideAtMost: longerSideAtMost)
        let input = Self.inputPlanes(image, width: size.width, height: size.height)
        let model = try model(width: size.width, height: size.height)
        let post = postProcessing
        let candidates = try model.run(input, shape: [1, 3, size.height, size.width]) { map, shape in
            guard shape.count == 4, shape[2] == size.height, shape[3] == size.width else { return [ProbabilityMapLines.Candidate]?.none }
            return post.candidates(map, width: size.width, height: size.height)
        }
        guard let candidates else { throw .failed(reason: "the detector's output is not a map of its input's size") }
        let sx = Double(image.width) / Double(size.width)
        let sy = Double(image.height) / Double(size.height)
        let w = Double(image.width)
        let h = Double(image.height)
        return candidates.map { candidate in
            let quad = candidate.quad.map { Point(x: min(w, max(0, $0.x * sx)), y: min(h, max(0, $0.y * sy))) }
            return Self.line(quad, score: Double(candidate.score))
        }
    }

    /// The line at `quad` (image pixels, inside the image): the box DB draws (the shrunk map grown
    /// back, `ProbabilityMapLines.unclipRatio`) is the one it was trained on, around a line's ink, so
    /// its thickness is the text's height (where the image's edge cuts the box, the part in view).
    static func line(_ quad: Quad, score: Double) -> DetectedLine {
        DetectedLine(quad: quad, textHeight: quad.meanHeight, score: score)
    }

    /// The image resized (bilinear, pixel centres aligned, as OpenCV's resize) to `width` × `height`,
    /// as three planes of v / 127.5 − 1; a gray image gives each channel the same values.
    static func inputPlanes(_ image: GrayImage, width: Int, height: Int) -> [Float] {
        var planes = [Float](repeating: 0, count: 3 * width * height)
        let sx = Double(image.width) / Double(width)
        let sy = Double(image.height) / Double(height)
        image.pixels.withUnsafeBufferPointer { pixels in
            for y in 0..<height {
                let fy = max(0, min(Double(image.height - 1), (Double(y) + 0.5) * sy - 0.5))
                let y0 = Int(fy)
                let y1 = min(image.height - 1, y0 + 1)
                let wy = Float(fy - Double(y0))
                for x in 0..<width {
                    let fx = max(0, min(Double(image.width - 1), (Double(x) + 0.5) * sx - 0.5))
                    let x0 = Int(fx)
                    let x1 = min(image.width - 1, x0 + 1)
                    let wx = Float(fx - Double(x0))
                    let top = Float(pixels[y0 * image.stride + x0]) * (1 - wx) + Float(pixels[y0 * image.stride + x1]) * wx
                    let bottom = Float(pixels[y1 * image.stride + x0]) * (1 - wx) + Float(pixels[y1 * image.stride + x1]) * wx
                    let value = top * (1 - wy) + bottom * wy
                    let normalized = value / 127.5 - 1
                    for c in 0..<3 { planes[(c * height + y) * width + x] = normalized }
                }
            }
        }
        return planes
    }
}
