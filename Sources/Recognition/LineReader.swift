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
    public var readingHeight = LineReader.standardHeight
    public var sharpening = 0.0
    /// Detection works on at most this width (it needs a glyph ≥ 7 px high, not every pixel; a
    /// 1280 px still would cost 4× the time and split strokes into more pieces).
    public static let standardDetectionWidth = 960
    public var detectionWidth = LineReader.standardDetectionWidth

    /// At 960 px a cap height of 8 px in a 1280 px frame is 6 px: glyphs from 5 px up are kept, or
    /// the capitals and ascenders of small print would be all that is left of it.
    public var detector = TextLineDetector(configuration: {
        var configuration = TextLineDetector.Configuration()
        configuration.minimumGlyphHeight = 5
        return configuration
    }())

    public init(readingHeight: Int = LineReader.standardHeight, sharpening: Double = 0) {
        self.readingHeight = readingHeight
        self.sharpening = sharpening
    }

    /// The lines of `image` in its pixel coordinates.
    /// The lines of `image` in its pixel coordinates, inside the image (a line's padding can reach
    /// past an edge, and an item's bounds must not leave the region that was scanned).
    public func lines(in image: GrayImage) -> [TextLineDetector.Line] {
        let factor = image.width > detectionWidth ? Double(detectionWidth) / Double(image.width) : 1
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
        var straight = image.rectified(quad, height: readingHeight).normalizedForReading()
        if sharpening > 0 { straight = straight.sharpened(amount: sharpening) }
        let words = recognizer.recognize(straight, segmentation: .singleLine).flatMap(\.words)
        guard let box = PixelRect.union(words.map(\.box)) else { return nil }
        return Reading(line: RecognizedLine(words: words, box: box), quad: quad, width: straight.width)
    }

    /// The part of the line's quad that the words of `reading` between columns `box` cover.
    public static func quad(of box: PixelRect, in reading: Reading) -> Quad {
        let q = reading.quad
        let s0 = max(0, min(1, Double(box.x) / Double(reading.width)))
        let s1 = max(s0, min(1, Double(box.x + box.width) / Double(reading.width)))
        func along(_ a: Point, _ b: Point, _ s: Double) -> Point { Point(x: a.x + (b.x - a.x) * s, y: a.y + (b.y - a.y) * s) }
        return Quad(
            topLeft: along(q.topLeft, q.topRight, s0), topRight: along(q.topLeft, q.topRight, s1),
            bottomRight: along(q.bottomLeft, q.bottomRight, s1), bottomLeft: along(q.bottomLeft, q.bottomRight, s0))
    }
}
