import LineNetwork
import ScannerCore
import TextRecognition

/// Reads one line of text: the seam between finding a line (`LineDetector`) and reading it (issue #40).
/// A conformance is one recognizer; swapping the model is writing or choosing another conformance.
/// `ReadingFusion` decides which recognizers read a line and what the line says from their readings.
///
/// Conformances own a library handle that is not thread-safe: one per thread.
public protocol LineRecognizer: AnyObject {
    /// The line at `quad` of `image` (pixel coordinates, top-left first, clockwise) straightened as
    /// this recognizer reads it, before anything else is done to it: what `LineStack` averages over
    /// frames.
    func straightened(_ quad: Quad, in image: GrayImage) -> GrayImage

    /// Reads `straight` as one line: `quad` of `image` straightened (`straightened`), or the average
    /// of that line's strips over several frames (`LineStack`). `quad` and `image` say where the line
    /// lies (its cut ends, where along it an item is). Nil when nothing was read.
    func read(_ straight: GrayImage, of quad: Quad, in image: GrayImage) -> LineReading?

    /// Lines whose reading failed in the recognizer's library (read as nothing), since it was made.
    var failures: Int { get }
}

extension LineRecognizer {
    /// A recognizer whose library cannot fail on a line (Tesseract returns what it reads).
    public var failures: Int { 0 }

    /// Reads `quad` of `image` as one line; nil when nothing was read.
    public func read(_ quad: Quad, in image: GrayImage) -> LineReading? {
        read(straightened(quad, in: image), of: quad, in: image)
    }
}

/// Tesseract's LSTM in single-line mode, on the line straightened to `reader.readingHeight` and
/// stretched to full contrast, dark on light.
public final class TesseractLineRecognizer: LineRecognizer {
    let recognizer: TextRecognizer
    let reader: LineReader

    /// `recognizer` may be shared by several readers at other heights (one thread).
    public init(_ recognizer: TextRecognizer, readingHeight: Int = LineReader.standardHeight) {
        self.recognizer = recognizer
        self.reader = LineReader(readingHeight: readingHeight)
    }

    public func straightened(_ quad: Quad, in image: GrayImage) -> GrayImage {
        image.rectified(quad, height: reader.readingHeight)
    }

    public func read(_ straight: GrayImage, of quad: Quad, in image: GrayImage) -> LineReading? {
        // Sharpening (unsharp mask, amount 0.5-2) was measured on the footage: no change beyond
        // noise; nor bicubic or Lanczos sampling (docs/recognition.md).
        let straight = straight.normalizedForReading()
        let words = recognizer.recognize(straight, segmentation: .singleLine).flatMap(\.words)
        guard let box = PixelRect.union(words.map(\.box)) else { return nil }
        var reading = LineReading(
            line: RecognizedLine(words: words, box: box), quad: quad, width: straight.width, height: straight.height,
            cut: reader.cutEnds(of: quad, in: image))
        reading.findClearGround(in: straight)
        return reading
    }
}

/// A line network (PP-OCRv6's recognizer, `LineNetwork`) on the line as it is, straightened to the
/// network's height: PaddleOCR crops and scales, no more, and so was the network trained.
public final class NetworkLineRecognizer: LineRecognizer {
    let network: LineNetwork
    private let reader = LineReader()
    public private(set) var failures = 0

    public init(_ network: LineNetwork) {
        self.network = network
    }

    public func straightened(_ quad: Quad, in image: GrayImage) -> GrayImage {
        image.rectified(quad, height: LineNetwork.lineHeight)
    }

    public func read(_ plain: GrayImage, of quad: Quad, in image: GrayImage) -> LineReading? {
        // The network was loaded whole and the line is its height: an error here is the runtime failing
        // on one line, which then has no reading.
        guard let read = try? network.read(plain) else {
            failures += 1
            return nil
        }
        let cut = reader.cutEnds(of: quad, in: image)
        guard var reading = LineReader.reading(read, quad: quad, cut: cut) else { return nil }
        // The ends are judged on the line stretched to full contrast, dark on light.
        if cut.start || cut.end { reading.findClearGround(in: plain.normalizedForReading()) }
        return reading
    }
}
