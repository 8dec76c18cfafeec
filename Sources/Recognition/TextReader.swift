import ContentTypes
import LineNetwork
import ScannerCore
import TextDetection
import TextRecognition

/// The text half of recognition for one set of options: where the lines are (the line detector,
/// and the faint detector guidance looks with), who reads them (`ReadingFusion`) and what they say
/// (the content types). `ImageScanner` reads a still with one beside its barcodes; the live text
/// stage holds one of its own (issue #55: stages hold their recognizers).
///
/// Not thread-safe: use one per thread.
public final class TextReader {
    /// Which `LineDetector` finds the lines.
    public enum LineDetection: Sendable {
        /// `ClassicalLineDetector`.
        case classical
        /// `NetworkLineDetector` (PP-OCRv6's detector), from the line model's directory: at a still
        /// image's size (RapidOCR's: the shorter side at least 736 px; a large one also in tiles at its
        /// own resolution, `TiledLook`), or, `live`, at a camera
        /// frame's (`QualitySettings.liveDetectionSide`; nil there: the classical detector).
        case network
    }

    public let options: ScanOptions
    public let settings: QualitySettings
    private let content: ContentDetector
    private let lineReader = LineReader()
    /// Where the lines are (`LineDetector`): the detector network when the model directory holds
    /// it, else the classical detector.
    let lineDetector: any LineDetector
    /// Where the lines are when the contrast is below what is read (`textLines(in:evenFaint:)`).
    let faintDetector: any LineDetector
    /// Who reads each line and what a line says from their readings; nil when no text is wanted.
    let fusion: ReadingFusion?

    /// - Parameter live: the reader sees a camera's frames (`QualitySettings.liveDetectionSide`), not
    ///   still images (their own size, and large ones also in tiles: `TiledLook`).
    /// - Parameter lineModel: the text networks' model directory (`make deps`); lines are then read by
    ///   PP-OCRv6's recognizer (`QualitySettings.readsWithNetwork`). Nil: by Tesseract.
    /// - Parameter lineDetection: which detector finds the lines; `.network` needs `lineModel`
    ///   (without it, the classical detector).
    public convenience init(
        options: ScanOptions, tessdataPath: String? = nil, lineModel: String? = nil, lineDetection: LineDetection = .classical,
        live: Bool = false
    ) throws(ScannerError) {
        let settings = QualitySettings(options.quality)
        var detector: any LineDetector = ClassicalLineDetector(minimumGlyphs: live ? Self.liveMinimumGlyphs : nil)
        var recognizers: [any LineRecognizer] = []
        if options.types.wantsText {
            if let lineModel, settings.readsWithNetwork {
                do {
                    recognizers = [NetworkLineRecognizer(try LineNetwork(directory: lineModel))]
                } catch {
                    throw .libraryFailure(library: "OpenVINO", reason: "line model: \(error)")
                }
            }
            if let lineModel, lineDetection == .network {
                do {
                    if !live {
                        let still = try NetworkLineDetector(directory: lineModel)
                        still.tiles = TiledLook(minimumSpread: settings.minimumContrastForText)
                        detector = still
                    } else if let side = settings.liveDetectionSide {
                        // Every look's input is `side` on its longer side, enlarged or reduced: a window
                        // `TextLooks` sized for a scale is looked at that scale, and every look of a
                        // frame has one input size, so one compiled network.
                        let live = try NetworkLineDetector(directory: lineModel, shorterSideAtLeast: side, longerSideAtMost: side)
                        live.preparesTransposed = true
                        detector = live
                    }
                } catch {
                    throw .libraryFailure(library: "OpenVINO", reason: "\(error)")
                }
            }
            if recognizers.isEmpty {
                let text = try TextRecognizer(languages: options.languages, dataPath: tessdataPath)
                recognizers = ([LineReader.standardHeight] + settings.secondReadingHeights).map { TesseractLineRecognizer(text, readingHeight: $0) }
            }
        }
        try self.init(options: options, lineDetector: detector, recognizers: recognizers)
    }

    /// A reader that finds lines with `lineDetector` and reads them with `recognizers` (through
    /// `ReadingFusion`; none: no text is read): any conformance, a test's fake included.
    /// `faintDetector` looks where the contrast is below what is read, for guidance: the classical
    /// detector, which sees no text in a camera's noise (`textLines(in:evenFaint:)`).
    public init(
        options: ScanOptions, lineDetector: any LineDetector, recognizers: [any LineRecognizer],
        faintDetector: any LineDetector = ClassicalLineDetector(minimumGlyphs: TextReader.liveMinimumGlyphs)
    ) throws(ScannerError) {
        try options.validate()
        self.options = options
        self.settings = QualitySettings(options.quality)
        self.content = try ContentDetector(contentTypes: options.types.contentTypes, defaultRegion: options.phoneRegion)
        self.lineDetector = lineDetector
        self.faintDetector = faintDetector
        self.fusion = options.types.wantsText && !recognizers.isEmpty ? ReadingFusion(recognizers) : nil
    }

    /// A reader for `options` that reads with this one's line detectors and recognizers: a change of
    /// types or of the region of interest loads no network again (issue #54). For the same quality
    /// and languages (the readers are chosen by them); one thread uses both, one after the other.
    public func reading(_ options: ScanOptions) throws(ScannerError) -> TextReader {
        precondition(options.quality == self.options.quality && options.languages == self.options.languages)
        return try TextReader(options: options, lineDetector: lineDetector, recognizers: fusion?.recognizers ?? [], faintDetector: faintDetector)
    }

    /// The text lines in `image` within the region of interest, in `image`'s pixel coordinates
    /// (none when no text type is wanted or the region has no contrast to read).
    /// - Parameter evenFaint: look even where the contrast is below what is read at all
    ///   (`QualitySettings.minimumContrastForText`): a card in a dark room, for guidance. The
    ///   faint detector looks then (`faintDetector`, the classical one): with no contrast gate before it,
    ///   the detector network sees text in a camera's noise on an empty scene (the sequence clip's
    ///   empty gray frames: a region of mean probability ~0.6 over half the frame, 2026-11-26), and
    ///   the person was told the empty scene was blurry.
    /// - Parameter window: look only there (pixels of `image`, inside the region of interest: the
    ///   live pipeline's `TextLooks`); nil: the region of interest.
    public func textLines(in image: GrayImage, within window: PixelRect? = nil, evenFaint: Bool = false) -> [DetectedLine] {
        guard fusion != nil else { return [] }
        let roi = window ?? options.regionOfInterest.pixelRect(width: image.width, height: image.height)
        let region = image.cropped(to: roi)
        guard evenFaint || region.contrastSpread() >= settings.minimumContrastForText else { return [] }
        return (evenFaint ? faintDetector.lines(in: region) : lineDetector.lines(in: region)).map {
            $0.offset(by: Double(roi.x), Double(roi.y))
        }
    }

    /// In a camera's frames, a line of one or two glyphs says nothing a client asked for (a phone
    /// number, address or link has many characters, and even blurred together they leave more
    /// pieces) and is the costliest to read: a rule line or an edge straightened to the reading
    /// height is a long strip that took Tesseract 100–200 ms to read as nothing. Measured on the
    /// footage (2026-11-22, five clips): 75 such reads, a fifth of the reading time, none typed. The
    /// classical detector counts its glyph candidates (`ClassicalLineDetector(minimumGlyphs:)`); every
    /// line's length is counted in glyphs too (`DetectedLine.glyphEstimate`).
    public static let liveMinimumGlyphs = 3

    /// The size the line detector looks at `area` in (`LineDetector.inputSize`); nil when it looks
    /// at any image at its own scale, or no text is wanted.
    public func detectionInput(for area: PixelRect) -> (width: Int, height: Int)? {
        fusion == nil ? nil : lineDetector.inputSize(width: area.width, height: area.height)
    }

    /// Lines the recognizers failed to read in their library (read as nothing).
    public var readFailures: Int { fusion?.recognizers.reduce(0) { $0 + $1.failures } ?? 0 }

    /// Images the line detector failed on (they gave no lines), and why it last did.
    public var detectionFailures: (count: Int, last: String?) {
        (lineDetector.failures, lineDetector.lastFailure.map { "\($0)" })
    }

    /// The line at `quad` of `image` straightened as it is read (`LineStack`'s strips); nil when no
    /// text is read.
    public func straightenedLine(_ quad: Quad, in image: GrayImage) -> GrayImage? {
        fusion?.straightened(quad, in: image)
    }

    /// A coarse picture of the line at `quad`, to tell whether it changed (`LineReader.signature`).
    public func lineSignature(_ quad: Quad, in image: GrayImage) -> [Double] {
        lineReader.signature(of: quad, in: image)
    }

    /// What the line at `quad` (pixel coordinates of `image`) says in a camera frame
    /// (`ReadingFusion.frame`), or `stacked`, the line over several frames (`LineStack`); nil when
    /// nothing was read. `confidence` is the line's mean word confidence (a line of clutter reads as
    /// low-confidence garbage, pass after pass); `text` what was read.
    public func readLine(_ quad: Quad, in image: GrayImage, stacked: GrayImage? = nil) -> (items: [LineItem], confidence: Double, text: String)? {
        guard let reading = fusion?.frame(quad, in: image, stacked: stacked) else { return nil }
        return (items(in: reading), reading.line.confidence, reading.line.text)
    }

    /// A line says something only with at least this many letters and digits: noise and texture
    /// come out as one- or two-letter "words" (Tesseract) or one or two symbols (the network).
    public static let minimumCharacters = 3

    /// A URL or e-mail address in a still image is reported only when the recognizer gave each of its
    /// characters at least this confidence (`LineReading.byteConfidences`; a frame's are voted on
    /// instead, `items(in:still:)`). On the
    /// development photos (`make score-real`, docs/benchmarks.md) the links and addresses read with a
    /// character under 0.5 were 4 misreadings (`tedolicteedbuck.com`, `aicrosoftsture.co`) and one
    /// right link; none of the 224 phone numbers read was false, whatever their weakest character.
    public static let minimumWebSymbolConfidence = 0.5

    /// The letters and digits of `text`.
    public static func characters(_ text: String) -> Int {
        text.count { $0.isLetter || $0.isNumber }
    }

    /// What one line says: the line as plain text (when wanted and confident), and every phone
    /// number, URL and e-mail address in it with the part of the line it covers.
    /// `still`: the reading is of a still image, all the evidence there is, and a link or address
    /// with an unsure character is left out (`minimumWebSymbolConfidence`). A frame's reading is
    /// voted on with the frames after it (`ItemTracker`): left out there, the right but unsure reads
    /// of a card's link let a confident misreading win the vote (`SmallPrintTests`:
    /// `northgare-optics.com` added).
    func items(in reading: LineReading, still: Bool = false) -> [LineItem] {
        let line = reading.line
        let lineText = line.text
        var items: [LineItem] = []
        func add(_ item: RecognizedItem, _ box: PixelRect, reachesCutStart: Bool = false, reachesCutEnd: Bool = false) {
            let span = LineReader.span(of: box, in: reading)
            var item = item
            item.bounds = LineReader.quad(span, on: reading.quad)
            items.append(LineItem(item: item, span: span, reachesCutEnd: reachesCutEnd, reachesCutStart: reachesCutStart))
        }
        // Plain text has no validation of its own: demand confidence and a few real characters
        // (noise and texture come out as one- or two-letter "words").
        if options.types.plainText, line.confidence >= settings.minimumLineConfidence,
            Self.characters(lineText) >= Self.minimumCharacters
        {
            add(RecognizedItem(kind: .text, payload: lineText, bounds: reading.quad, confidence: line.confidence), line.box)
        }
        for match in content.matches(in: lineText) {
            let words = Self.words(of: line, covering: match.utf8Range)
            let range = match.utf8Range.clamped(to: 0..<lineText.utf8.count)
            guard !words.isEmpty, let box = PixelRect.union(reading.byteBoxes[range]) else { continue }
            // What reaches a cut end of the line may go on out of sight (`LineReader.cutEnds`). Per
            // symbol: a recognizer reads past what is no glyph to it (an icon, the remains of a
            // letter: nothing, or `|`), so an item reaches an end when there is no room for a glyph
            // and the gap before it between them: less than half the line's height (the line's
            // padding is a fifth of it; an icon and its gap are more than one height).
            // Room counts from clear ground (`LineReading.clear`): a thumb's edge the quad took in
            // is no room (640×480 poster seed 4: `ill-studios.com/info` read past the edge of a
            // thumb over `oldm`, its first glyph 0.5–1.2 line heights in), nor the remains of letters
            // Tesseract reads as a word of their own (the detector split `…oldmill-sludios.com` at the
            // hyphen, 640×480, poster seed 1, and the piece read `| Sludios.com`).
            let room = reading.height / 2
            let clear = reading.clear ?? 0..<reading.width
            let reachesCutStart = reading.cut.start && box.x - clear.lowerBound < room
            let reachesCutEnd = reading.cut.end && box.x + box.width > clear.upperBound - room
            // The recognizer's confidence in the least sure character of the item.
            let weakest = reading.byteConfidences[range].min()
            // A link or an address with a character the recognizer was unsure of is more often a
            // misreading than not (`minimumWebSymbolConfidence`); a phone number is validated whole.
            if still, match.contentType == .url || match.contentType == .emailAddress, let weakest, weakest < Self.minimumWebSymbolConfidence {
                continue
            }
            // A frame's item is as sure as its least sure character: in the vote over frames
            // (`TextEvidence`) a read below the vote's confidence contests a reading but does not
            // support one. Small print misread one character off reads so on frame after frame (the
            // same pixels), each read as a whole with confidence (`www.deltaveb.be` at 0.82–0.85),
            // but the character it misread is often unsure (0.44, 0.53); the right reads of the
            // development receipts held up were so less often (docs/benchmarks.md).
            let mean = words.map(\.confidence).reduce(0, +) / Double(words.count)
            add(
                RecognizedItem(
                    kind: .text, contentType: match.contentType, payload: match.payload, transcript: match.transcript,
                    bounds: reading.quad, confidence: still ? mean : min(mean, weakest ?? mean),
                    details: match.parsed.map { PayloadDetails(parsed: $0) }), box,
                reachesCutStart: reachesCutStart, reachesCutEnd: reachesCutEnd)
        }
        return items
    }

    /// The words of `line` whose bytes overlap `range` of `line.text` (words joined by one space).
    public static func words(of line: RecognizedLine, covering range: Range<Int>) -> [RecognizedWord] {
        var offset = 0
        var covered: [RecognizedWord] = []
        for word in line.words {
            let wordRange = offset..<(offset + word.text.utf8.count)
            if wordRange.overlaps(range) { covered.append(word) }
            offset = wordRange.upperBound + 1
        }
        return covered
    }
}
