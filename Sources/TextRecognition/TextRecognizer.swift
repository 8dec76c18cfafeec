import CTesseract
import Foundation  // FileManager, strdup, getenv
import ScannerCore

/// A word read by Tesseract, in the pixel coordinates of the image it was given.
public struct RecognizedWord: Sendable, Equatable {
    public var text: String
    public var box: PixelRect
    /// 0…1 (Tesseract reports 0…100). The word's, not its weakest character's: on the footage the
    /// least certain character of a wrong read scored 0.90–0.94 like the right ones, the word 0.28–0.56
    /// against mostly above 0.7 (issue #13).
    public var confidence: Double
    /// Its characters in order, each with its box and confidence, whose texts make up `text`; empty
    /// from a recognizer that places words only (every byte then lies in the word's box, as where
    /// the symbols' texts do not make up the word's: `LineReading`).
    public var symbols: [RecognizedSymbol]

    public init(text: String, box: PixelRect, confidence: Double, symbols: [RecognizedSymbol] = []) {
        self.text = text
        self.box = box
        self.confidence = confidence
        self.symbols = symbols
    }
}

/// One character of a word as the recognizer placed it (one or more Unicode scalars: `text`).
public struct RecognizedSymbol: Sendable, Equatable {
    public var text: String
    public var box: PixelRect
    /// 0…1.
    public var confidence: Double

    public init(text: String, box: PixelRect, confidence: Double) {
        self.text = text
        self.box = box
        self.confidence = confidence
    }
}

/// A line of words. `text` is the words joined by single spaces, so a character range of `text`
/// maps back to the words (and boxes) it covers.
public struct RecognizedLine: Sendable, Equatable {
    public var words: [RecognizedWord]
    public var box: PixelRect

    public init(words: [RecognizedWord], box: PixelRect) {
        self.words = words
        self.box = box
    }

    public var text: String { words.map(\.text).joined(separator: " ") }

    public var confidence: Double {
        words.isEmpty ? 0 : words.map(\.confidence).reduce(0, +) / Double(words.count)
    }
}

/// Tesseract's page segmentation modes that make sense for a scanner.
public enum PageSegmentation: Int32, Sendable {
    /// Find as much text as possible in no particular order: cards, flyers, screens (PSM 11).
    case sparseText = 11
    /// Exactly one line, already found and straightened (PSM 7): what a text-line detector hands over.
    case singleLine = 7
}

/// Tesseract's LSTM engine behind its C API, initialised once and reused.
///
/// Initialisation loads the language model (~100 ms for `eng`), so one recognizer lives as long as
/// its thread. A `TessBaseAPI` is not thread-safe: use one recognizer per thread.
public final class TextRecognizer {
    private let api: OpaquePointer
    public let languages: [String]

    /// Tesseract's dictionaries "correct" what it reads towards English words, which turns
    /// `O` into `0` in words and digits into letters in codes, URLs and e-mail addresses. We read
    /// codes and identifiers more than prose, so the legacy engine's word lists are not loaded.
    ///
    /// The LSTM engine's own dictionaries (punctuation, words, numbers: 3.7 MB) are a different
    /// `Dict` that these variables do not reach; they stay loaded and guide its beam search.
    /// `lstm_use_matrix=0` would skip them. Measured 2026-11-22 on every text fixture: the same text
    /// read, but line confidences 0.04–0.09 lower (0.96 → 0.92 typical), which would push noisy camera
    /// lines under the quality levels' confidence floors. Without a fixture where the dictionary
    /// misreads, that is a cost with no measured gain, so they stay.
    static let initVariables: [(String, String)] = [
        ("load_system_dawg", "0"),
        ("load_freq_dawg", "0"),
        // Tesseract logs warnings such as "Invalid resolution" to stderr; keep the daemon's output clean.
        ("debug_file", "/dev/null"),
    ]

    /// Limits Tesseract to the calling thread (see the shim for why). On every call that recognizes:
    /// libgomp keeps the limit per thread, and a limit set on the thread that made the recognizer
    /// does not reach the pipeline's text thread. Found 2026-11-22: in the daemon, each line's LSTM
    /// ran on four OpenMP threads on two cores, their workers spinning between regions; a line took
    /// 50–100 ms instead of the 10–15 ms it takes alone (docs/benchmarks.md).
    private static func keepToThisThread() { _ = ctess_limit_openmp_to_one_thread() }

    /// The calling thread's OpenMP nesting limit (0: Tesseract runs on the calling thread alone);
    /// nil when Tesseract was built without OpenMP.
    static func openMPLevelsOnThisThread() -> Int? {
        let levels = ctess_openmp_max_active_levels()
        return levels < 0 ? nil : Int(levels)
    }

    /// - Parameters:
    ///   - languages: Tesseract language codes, e.g. `["eng"]` or `["eng", "deu"]`.
    ///   - dataPath: the `tessdata` directory; nil uses `TESSDATA_PREFIX` or the system default.
    public init(languages: [String] = ["eng"], dataPath: String? = nil) throws(ScannerError) {
        Self.keepToThisThread()
        guard !languages.isEmpty, languages.allSatisfy({ !$0.isEmpty && !$0.contains("+") && !$0.contains("/") }) else {
            throw .invalidArgument(
                name: "languages", value: languages.joined(separator: "+"), reason: "expected language codes such as eng")
        }
        // Check the model files first: Tesseract would print its own complaints to stderr instead.
        let directory = Self.tessdataDirectory(dataPath)
        let available = Self.installedLanguages(in: directory)
        for language in languages where !available.contains(language) {
            throw .invalidArgument(
                name: "languages", value: language,
                reason: "no \(language).traineddata in \(directory) (install tesseract-ocr-\(language); installed: "
                    + (available.isEmpty ? "none" : available.sorted().joined(separator: ", ")) + ")")
        }
        guard let api = TessBaseAPICreate() else {
            throw .libraryFailure(library: "tesseract", reason: "TessBaseAPICreate failed")
        }
        let names = Self.initVariables.map { strdup($0.0) }
        let values = Self.initVariables.map { strdup($0.1) }
        defer { (names + values).forEach { free($0) } }
        var namePointers = names.map { UnsafeMutablePointer<CChar>($0) }
        var valuePointers = values.map { UnsafeMutablePointer<CChar>($0) }
        let rc = TessBaseAPIInit4(
            api, directory, languages.joined(separator: "+"), OEM_LSTM_ONLY, nil, 0,
            &namePointers, &valuePointers, Self.initVariables.count, 0)
        guard rc == 0 else {
            // Not yet owned by `self`, so deinit will not run for it: free it here.
            TessBaseAPIDelete(api)
            throw .libraryFailure(
                library: "tesseract", reason: "cannot load language data '\(languages.joined(separator: "+"))' from \(directory)")
        }
        self.api = api
        self.languages = languages
    }

    /// Where Tesseract looks for `*.traineddata`: the given path, `TESSDATA_PREFIX`, or Debian's default.
    static func tessdataDirectory(_ explicit: String?) -> String {
        if let explicit { return explicit }
        if let prefix = getenv("TESSDATA_PREFIX") { return String(cString: prefix) }
        return "/usr/share/tesseract-ocr/5/tessdata"
    }

    static func installedLanguages(in directory: String) -> Set<String> {
        guard let entries = try? FileManager.default.contentsOfDirectory(atPath: directory) else { return [] }
        return Set(entries.filter { $0.hasSuffix(".traineddata") }.map { String($0.dropLast(".traineddata".count)) })
    }

    deinit {
        TessBaseAPIEnd(api)
        TessBaseAPIDelete(api)
    }

    /// The text, box and confidence of the element at `level` the iterator is at; nil for an empty one.
    private static func element(_ iterator: OpaquePointer, _ page: OpaquePointer?, _ level: TessPageIteratorLevel) -> RecognizedSymbol? {
        guard let cText = TessResultIteratorGetUTF8Text(iterator, level) else { return nil }
        let text = String(cString: cText)
        TessDeleteText(cText)
        let trimmed = text.trimmingWhitespace()
        guard !trimmed.isEmpty else { return nil }
        var left: Int32 = 0
        var top: Int32 = 0
        var right: Int32 = 0
        var bottom: Int32 = 0
        guard TessPageIteratorBoundingBox(page, level, &left, &top, &right, &bottom) != 0 else { return nil }
        let confidence = min(max(Double(TessResultIteratorConfidence(iterator, level)) / 100, 0), 1)
        return RecognizedSymbol(
            text: trimmed, box: PixelRect(x: Int(left), y: Int(top), width: Int(right - left), height: Int(bottom - top)),
            confidence: confidence)
    }

    /// Reads the text in `image` and returns its lines in Tesseract's reading order.
    public func recognize(_ image: GrayImage, segmentation: PageSegmentation = .sparseText) -> [RecognizedLine] {
        Self.keepToThisThread()
        TessBaseAPISetPageSegMode(api, TessPageSegMode(rawValue: UInt32(segmentation.rawValue)))
        image.pixels.withUnsafeBufferPointer { pixels in
            TessBaseAPISetImage(api, pixels.baseAddress, Int32(image.width), Int32(image.height), 1, Int32(image.stride))
        }
        // Camera frames carry no resolution; without one Tesseract guesses 70 dpi and warns. 300 dpi is
        // its reference resolution, which keeps its size heuristics neutral.
        TessBaseAPISetSourceResolution(api, 300)
        defer { TessBaseAPIClear(api) }
        guard TessBaseAPIRecognize(api, nil) == 0, let iterator = TessBaseAPIGetIterator(api) else { return [] }
        defer { TessResultIteratorDelete(iterator) }
        let page = TessResultIteratorGetPageIterator(iterator)

        // Symbol by symbol (the LSTM engine places each character it emits), grouped into words and
        // lines where the iterator says one begins.
        var lines: [RecognizedLine] = []
        var current: [RecognizedWord] = []
        var word: RecognizedSymbol?
        var symbols: [RecognizedSymbol] = []
        func finishWord() {
            defer { (word, symbols) = (nil, []) }
            guard let found = word else { return }
            current.append(RecognizedWord(text: found.text, box: found.box, confidence: found.confidence, symbols: symbols))
        }
        func finishLine() {
            finishWord()
            guard let box = PixelRect.union(current.map(\.box)) else { return }
            lines.append(RecognizedLine(words: current, box: box))
            current = []
        }
        repeat {
            if TessPageIteratorIsAtBeginningOf(page, RIL_TEXTLINE) != 0 { finishLine() }
            if TessPageIteratorIsAtBeginningOf(page, RIL_WORD) != 0 {
                finishWord()
                word = Self.element(iterator, page, RIL_WORD)
            }
            if word != nil, let symbol = Self.element(iterator, page, RIL_SYMBOL) { symbols.append(symbol) }
        } while TessResultIteratorNext(iterator, RIL_SYMBOL) != 0
        finishLine()
        return lines
    }
}

extension String {
    func trimmingWhitespace() -> String {
        var scalars = Substring(self)
        while let first = scalars.first, first.isWhitespace { scalars.removeFirst() }
        while let last = scalars.last, last.isWhitespace { scalars.removeLast() }
        return String(scalars)
    }
}
