import InferenceRuntime
import ScannerCore

/// Where the lines of text are in an image: the seam between finding lines and reading them
/// (issue #40). A conformance is one way of finding them; swapping the detector is choosing another.
///
/// Lines come back in the image's pixel coordinates (`DetectedLine`: corners, text height, score).
public protocol LineDetector: AnyObject {
    func lines(in image: GrayImage) -> [DetectedLine]
    /// The lines found before `deadline` passed, where the detector looks in parts (a large still's
    /// tiles) and may stop between them; a detector that looks once looks whole.
    func lines(in image: GrayImage, until deadline: ContinuousClock.Instant?) -> [DetectedLine]
    /// Images it failed on (its runtime's error), and the last error: those images gave no lines.
    var failures: Int { get }
    var lastFailure: InferenceError? { get }
    /// The size it looks at an image of `width` × `height` in, where it reduces every image to one
    /// size (what it finds then depends on a line's height at that size: the live pipeline chooses
    /// what part of a frame to give it, `TextLooks`); nil: it looks at any image at its own scale.
    func inputSize(width: Int, height: Int) -> (width: Int, height: Int)?
}

extension LineDetector {
    /// A detector that cannot fail.
    public var failures: Int { 0 }
    public var lastFailure: InferenceError? { nil }
    public func inputSize(width: Int, height: Int) -> (width: Int, height: Int)? { nil }
    public func lines(in image: GrayImage, until deadline: ContinuousClock.Instant?) -> [DetectedLine] { lines(in: image) }
}

/// The classical detector (`TextLineDetector`: local-mean ink masks, glyph components chained into
/// lines) on the image reduced to at most `detectionWidth` pixels wide. It does not grade its lines
/// (score 1).
public final class ClassicalLineDetector: LineDetector, Sendable {
    /// Detection works on at most this width (it needs glyphs a few pixels high, not every pixel;
    /// measured against detection at 1280 px with 6–7 px glyphs: the same lines found, 67–71 of 84
    /// read right either way).
    static let detectionWidth = 960

    /// At 960 px a cap height of 8 px in a 1280 px frame is 6 px: glyphs from 5 px up are kept, or
    /// the capitals and ascenders of small print would be all that is left of it.
    let detector = TextLineDetector(
        configuration: {
            var configuration = TextLineDetector.Configuration()
            configuration.minimumGlyphHeight = 5
            return configuration
        }())

    /// Lines built from fewer glyph candidates than this are dropped, however long; nil: kept when
    /// long enough for letters run together (`TextLineDetector`), as a still's reading wants them.
    let minimumGlyphs: Int?

    /// - Parameter minimumGlyphs: where lines of one or two glyph candidates are not worth reading
    ///   (camera frames: `TextReader.liveMinimumGlyphs`); nil keeps them.
    public init(minimumGlyphs: Int? = nil) {
        self.minimumGlyphs = minimumGlyphs
    }

    public func lines(in image: GrayImage) -> [DetectedLine] {
        let factor = image.width > Self.detectionWidth ? Double(Self.detectionWidth) / Double(image.width) : 1
        let found = detector.detect(factor == 1 ? image : image.scaled(by: factor))
        let w = Double(image.width)
        let h = Double(image.height)
        return found.filter { $0.glyphs >= minimumGlyphs ?? 0 }.map { line in
            DetectedLine(
                quad: line.quad.map { Point(x: min(w, max(0, $0.x / factor)), y: min(h, max(0, $0.y / factor))) },
                textHeight: line.textHeight / factor)
        }
    }
}

extension NetworkLineDetector: LineDetector {
    public func inputSize(width: Int, height: Int) -> (width: Int, height: Int)? {
        Self.inputSize(width: width, height: height, shorterSideAtLeast: shorterSideAtLeast, longerSideAtMost: longerSideAtMost)
    }

    /// The network's lines; none when the runtime failed on this image (`lastFailure` says why).
    public func lines(in image: GrayImage) -> [DetectedLine] { lines(in: image, until: nil) }

    public func lines(in image: GrayImage, until deadline: ContinuousClock.Instant?) -> [DetectedLine] {
        do {
            return try detect(image, until: deadline)
        } catch {
            lastFailure = error
            failures += 1
            return []
        }
    }
}
