import ContentTypes
import ScannerCore
import TextDetection
import TextRecognition

/// Text in an image the way a person reads a camera frame: find the lines first (`TextLineDetector`),
/// then read each line on its own — straightened, scaled to a standard height, stretched to full
/// contrast, dark on light — with Tesseract in single-line mode, and type what each line says.
///
/// Why not Tesseract's own layout analysis: on camera frames (uneven light, noise, JPEG blocking,
/// perspective) PSM 11 and PSM 3 miss lines a person reads at a glance; given the line, Tesseract
/// reads it (issue #13, docs/recognition.md). Typing per line also means a URL is never joined to
/// the next line, nor cut where the line does not end.
public struct LineReader: Sendable {
    /// Height lines are straightened to (the line's box, padding included).
    public static let standardHeight = 48
    public let readingHeight: Int
    /// Detection works on at most this width (it needs glyphs a few pixels high, not every pixel;
    /// measured against detection at 1280 px with 6–7 px glyphs: the same lines found, 67–71 of 84
    /// read right either way).
    static let detectionWidth = 960

    /// At 960 px a cap height of 8 px in a 1280 px frame is 6 px: glyphs from 5 px up are kept, or
    /// the capitals and ascenders of small print would be all that is left of it.
    let detector = TextLineDetector(configuration: {
        var configuration = TextLineDetector.Configuration()
        configuration.minimumGlyphHeight = 5
        return configuration
    }())

    public init(readingHeight: Int = LineReader.standardHeight) {
        self.readingHeight = readingHeight
    }

    /// The lines of `image` in its pixel coordinates, inside the image (a line's padding can reach
    /// past an edge, and an item's bounds must not leave the region that was scanned).
    public func lines(in image: GrayImage) -> [TextLineDetector.Line] {
        let factor = image.width > Self.detectionWidth ? Double(Self.detectionWidth) / Double(image.width) : 1
        let found = detector.detect(factor == 1 ? image : image.scaled(by: factor))
        let w = Double(image.width), h = Double(image.height)
        return found.map { line in
            var line = line
            line.quad = line.quad.map { Point(x: min(w, max(0, $0.x / factor)), y: min(h, max(0, $0.y / factor))) }
            line.height /= factor
            return line
        }
    }

    /// One line read: its text as words, and where each word lies along the line (0…1 from its left end).
    public struct Reading: Sendable {
        public var line: RecognizedLine
        public var quad: Quad
        /// Width of the straightened image the word boxes refer to.
        public var width: Int
    }

    /// Reads `quad` of `image` as one line; nil when nothing was read.
    public func read(_ quad: Quad, in image: GrayImage, with recognizer: TextRecognizer) -> Reading? {
        // Sharpening (unsharp mask, amount 0.5-2) and heights of 32-48 px were measured on the
        // footage: no change beyond noise (docs/recognition.md).
        let straight = image.rectified(quad, height: readingHeight).normalizedForReading()
        let words = recognizer.recognize(straight, segmentation: .singleLine).flatMap(\.words)
        guard let box = PixelRect.union(words.map(\.box)) else { return nil }
        return Reading(line: RecognizedLine(words: words, box: box), quad: quad, width: straight.width)
    }

    /// A coarse picture of the line at `quad` for telling whether it changed since it was read:
    /// 3 × 16 cell means of the straightened line, normalized to zero mean and unit spread (so a
    /// change of exposure is no change). Cell means, not samples, so hand jitter of a pixel or two
    /// changes little.
    public func signature(of quad: Quad, in image: GrayImage) -> [Double] {
        let rows = 3, columns = 16, cell = 6
        let small = image.rectified(quad, height: rows * cell)
        guard small.width >= columns else { return [] }
        var means = [Double](repeating: 0, count: rows * columns)
        var counts = [Int](repeating: 0, count: rows * columns)
        for y in 0..<small.height {
            for x in 0..<small.width {
                let i = (y / cell) * columns + min(columns - 1, x * columns / small.width)
                means[i] += Double(small.pixels[y * small.stride + x])
                counts[i] += 1
            }
        }
        for i in means.indices { means[i] /= Double(max(1, counts[i])) }
        let mean = means.reduce(0, +) / Double(means.count)
        let spread = max(4, (means.map { ($0 - mean) * ($0 - mean) }.reduce(0, +) / Double(means.count)).squareRoot())
        return means.map { ($0 - mean) / spread }
    }

    /// Where the columns of `box` (in the straightened line `reading` was read from) lie along the
    /// line, as fractions of its length.
    public static func span(of box: PixelRect, in reading: Reading) -> ClosedRange<Double> {
        let s0 = max(0, min(1, Double(box.x) / Double(reading.width)))
        let s1 = max(s0, min(1, Double(box.x + box.width) / Double(reading.width)))
        return s0...s1
    }

    /// The part of `quad` (a line, top-left first, clockwise) between fractions `span` of its length.
    public static func quad(_ span: ClosedRange<Double>, on quad: Quad) -> Quad {
        func along(_ a: Point, _ b: Point, _ s: Double) -> Point { Point(x: a.x + (b.x - a.x) * s, y: a.y + (b.y - a.y) * s) }
        let s0 = span.lowerBound, s1 = span.upperBound
        return Quad(
            topLeft: along(quad.topLeft, quad.topRight, s0), topRight: along(quad.topLeft, quad.topRight, s1),
            bottomRight: along(quad.bottomLeft, quad.bottomRight, s1), bottomLeft: along(quad.bottomLeft, quad.bottomRight, s0))
    }
}

/// An item read from a line, with where along the line it lies: when the line is found again
/// elsewhere (the card moved) and not read again, the item is placed on the line's new quad.
public struct LineItem: Sendable, Equatable {
    /// Bounds in the pixel coordinates of the image the line was read in.
    public var item: RecognizedItem
    public var span: ClosedRange<Double>

    /// The item placed on `line`, the quad its line has now.
    public func placed(on line: Quad) -> RecognizedItem {
        var item = item
        item.bounds = LineReader.quad(span, on: line)
        return item
    }
}
