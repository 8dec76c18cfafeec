import BarcodeRecognition
import ContentTypes
import LineNetwork
import PayloadParsing
import ScannerCore
import TextDetection
import TextRecognition

/// A line of text found in an image: its corners (pixel coordinates, top-left first, clockwise) and
/// how many glyph candidates it was built from (a line of many is more likely to say something).
public struct TextLine: Sendable, Equatable {
    public var quad: Quad
    public var glyphs: Int
}

/// What to scan for and how: VisionKit's scanner configuration for one image.
public struct ScanOptions: Sendable, Equatable {
    public var types: RecognitionTypes
    public var quality: QualityLevel
    /// Only this part of the image is scanned; bounds are still reported in whole-image coordinates.
    public var regionOfInterest: NormalizedRect
    /// Region for phone numbers written without a country code (ISO 3166, e.g. "US").
    public var phoneRegion: String
    /// Tesseract languages.
    public var languages: [String]

    public init(
        types: RecognitionTypes = .all, quality: QualityLevel = .balanced, regionOfInterest: NormalizedRect = .full,
        phoneRegion: String = "US", languages: [String] = ["eng"]
    ) {
        self.types = types
        self.quality = quality
        self.regionOfInterest = regionOfInterest
        self.phoneRegion = phoneRegion
        self.languages = languages
    }
}

/// Runs every requested recognizer over one gray image and turns what they find into
/// `RecognizedItem`s with normalized whole-image bounds: Vision's `VNImageRequestHandler` for Linux,
/// and what the live pipeline calls per frame.
///
/// Owns a zbar scanner and a Tesseract instance (initialised once, reused): not thread-safe, use one
/// per thread.
public final class ImageScanner {
    /// Which `LineDetector` finds the lines.
    public enum LineDetection: Sendable {
        /// `ClassicalLineDetector`.
        case classical
        /// `NetworkLineDetector` (PP-OCRv6's detector), from the line model's directory.
        case network
    }

    public let options: ScanOptions
    public let settings: QualitySettings
    private let barcodes: BarcodeRecognizer
    private let text: TextRecognizer?
    private let content: ContentDetector
    private let lineReader = LineReader()
    /// Where the lines are (`LineDetector`): the detector network for still images when the model
    /// directory holds it, else the classical detector.
    private let lineDetector: any LineDetector
    private let secondReaders: [LineReader]
    /// The recognizer that reads every line of a still image (`QualitySettings.readsWithNetwork`);
    /// nil: Tesseract alone.
    private let network: LineNetwork?

    /// - Parameter live: the scanner sees a camera's frames one after another, so work that can be
    ///   spread over frames is (`QualitySettings.liveDataMatrixTiles`).
    /// - Parameter lineModel: the line network's model directory (`make line-model`); typed lines are
    ///   then read by it as well as by Tesseract (`ImageScanner.agreed`). Nil: Tesseract alone.
    /// - Parameter lineDetection: which detector finds the lines; `.network` needs `lineModel`
    ///   (without it, the classical detector).
    /// - Parameter zxingFirst: barcodes zxing-cpp reads are read by it alone
    ///   (`BarcodeRecognizer.zxingFirst`: a camera frame at full resolution).
    public init(
        options: ScanOptions, tessdataPath: String? = nil, lineModel: String? = nil, lineDetection: LineDetection = .classical,
        live: Bool = false, zxingFirst: Bool = false
    ) throws(ScannerError) {
        if let problem = options.regionOfInterest.validationProblem {
            throw .invalidArgument(name: "roi", value: options.regionOfInterest.description, reason: problem)
        }
        self.options = options
        self.settings = QualitySettings(options.quality)
        self.secondReaders = settings.secondReadingHeights.map { LineReader(readingHeight: $0) }
        self.barcodes = try BarcodeRecognizer(
            symbologies: options.types.symbologies, testInverted: settings.testInvertedBarcodes,
            scanDensity: settings.barcodeScanDensity, zxingFirst: zxingFirst)
        if live {
            barcodes.dataMatrixTilesPerScan = settings.liveDataMatrixTiles
            barcodes.zxingFallbackEvery = settings.liveZXingFallbackEvery
        }
        self.content = try ContentDetector(contentTypes: options.types.contentTypes, defaultRegion: options.phoneRegion)
        self.text = options.types.wantsText ? try TextRecognizer(languages: options.languages, dataPath: tessdataPath) : nil
        if let lineModel, options.types.wantsText, settings.readsWithNetwork {
            do {
                self.network = try LineNetwork(directory: lineModel)
            } catch {
                throw .libraryFailure(library: "OpenVINO", reason: error.description)
            }
        } else {
            self.network = nil
        }
        if let lineModel, options.types.wantsText, lineDetection == .network {
            do {
                self.lineDetector = try NetworkLineDetector(directory: lineModel)
            } catch {
                throw .libraryFailure(library: "OpenVINO", reason: error.description)
            }
        } else {
            self.lineDetector = ClassicalLineDetector()
        }
    }

    /// Every recognized item in `image`, in reading order (top to bottom, then left to right).
    public func scan(_ image: GrayImage) -> [RecognizedItem] {
        scan(image, within: options.regionOfInterest)
    }

    /// Scans only `area` (normalized, e.g. the part of a frame that changed) — intersected with the
    /// configured region of interest by the caller. Bounds are still whole-image coordinates.
    public func scan(_ image: GrayImage, within area: NormalizedRect) -> [RecognizedItem] {
        let roi = area.pixelRect(width: image.width, height: image.height)
        let region = image.cropped(to: roi)
        // Pixel coordinates in `region` → normalized coordinates in `image`.
        let toImage = { (p: Point) in
            Point(x: (p.x + Double(roi.x)) / Double(image.width), y: (p.y + Double(roi.y)) / Double(image.height))
        }

        var items: [RecognizedItem] = barcodes.recognize(region).map { observation in
            RecognizedItem(
                kind: .barcode, symbology: observation.symbology, payload: observation.payload,
                bounds: observation.corners.map(toImage), confidence: Self.confidence(of: observation), details: Self.details(of: observation))
        }
        if let text, region.contrastSpread() >= settings.minimumContrastForText {
            let read = readText(in: region, with: text).map { item in
                var item = item
                item.bounds = item.bounds.map(toImage)
                return item
            }
            items += Self.text(read, outside: items.map(\.bounds))
        }
        return items.sorted(by: RecognizedItem.readingOrder)
    }

    /// A barcode's confidence: 1, or 0.5 for a 1-D reading zbar alone made that zxing-cpp did not
    /// confirm (`BarcodeObservation.uncorroborated`): the tracker lets such reads contest a reading,
    /// not support one.
    static func confidence(of observation: BarcodeObservation) -> Double {
        observation.uncorroborated ? uncorroboratedConfidence : 1
    }

    public static let uncorroboratedConfidence = 0.5

    /// What the decoder said beside the payload, and what the payload means (`PayloadParser`).
    static func details(of observation: BarcodeObservation) -> PayloadDetails {
        PayloadDetails(
            symbologyIdentifier: observation.symbologyIdentifier, payloadBase64: observation.payloadBase64,
            parsed: PayloadParser.parse(observation.payload, symbology: observation.symbology, symbologyIdentifier: observation.symbologyIdentifier))
    }

    /// The text items whose centre lies outside every barcode: digits printed under an EAN/UPC symbol
    /// are the barcode, not a phone number.
    static func text(_ items: [RecognizedItem], outside barcodes: [Quad]) -> [RecognizedItem] {
        items.filter { item in !barcodes.contains { $0.contains(item.bounds.center) } }
    }

    /// Text items in `region`'s pixel coordinates: each detected line read on its own, by the line
    /// network when there is one (`networkItems`), else by Tesseract (`agreed`: a line whose first
    /// reading may say something typed is read four more times).
    private func readText(in region: GrayImage, with recognizer: TextRecognizer) -> [RecognizedItem] {
        lineDetector.lines(in: region).flatMap { line in
            if let network {
                return lineReader.read(line.quad, in: region, with: network).map { Self.networkItems(items(in: $0)) } ?? []
            }
            guard let reading = lineReader.read(line.quad, in: region, with: recognizer) else { return [RecognizedItem]() }
            let first = items(in: reading)
            // Only a line that may say something typed is read again: most lines are plain text.
            guard first.contains(where: { $0.item.contentType != nil }) || Self.mayBeTyped(reading.line.text) else {
                return first.map(\.item)
            }
            let others = secondReaders.map { reader in reader.read(line.quad, in: region, with: recognizer).map(items(in:)) ?? [] }
            return Self.agreed(tesseract: [first] + others)
        }
    }

    /// What one line says in a still image read once by the line network (issue #40): its plain text,
    /// and each typed payload once, unless it reaches a cut end of its line (a part of something,
    /// typed, is a wrong payload).
    ///
    /// Measured on the development receipts (`make score-real`, 381 real photos, 2026-11-25): this read
    /// 229 of 279 phone numbers, URLs and e-mail addresses with 37 false items in 0.98 s an image; the network's three
    /// readings (1, 1.25, 0.8 of the line's width) with Tesseract's five and the rule between them
    /// that the generated footage had chosen (docs/recognition.md), 221 with 35 in 1.96 s. The network misreads alike at every stretch, and Tesseract misreads real print
    /// more often than the network: where the two disagreed, Tesseract's majority kept the network's
    /// right reading out (`647-318-1144` for a receipt's `617-318-1141`).
    static func networkItems(_ reading: [LineItem]) -> [RecognizedItem] {
        var reported = Set<String>()
        return reading.compactMap { candidate in
            guard candidate.item.contentType != nil else { return candidate.item }
            guard !candidate.reachesCutEnd, reported.insert(candidate.item.payload).inserted else { return nil }
            return candidate.item
        }
    }

    /// What one line says in a single image, from several readings of it by Tesseract (the first at
    /// the standard height, the others at `QualitySettings.secondReadingHeights`): the first reading's
    /// plain text, and each typed payload that most readings give. One image is all the evidence there
    /// is, so a typed item that reaches a cut end of its line (a part of something, typed, is a wrong
    /// payload) gives no vote. Measured on the footage (docs/recognition.md): three of five read 78 of
    /// the 90 middle-frame items, none wrong.
    static func agreed(tesseract: [[LineItem]]) -> [RecognizedItem] {
        var votes: [String: (count: Int, item: LineItem)] = [:]
        for reading in tesseract {
            var seen = Set<String>()
            for candidate in reading where candidate.item.contentType != nil && !candidate.reachesCutEnd {
                guard seen.insert(candidate.item.payload).inserted else { continue }
                let vote = votes[candidate.item.payload, default: (0, candidate)]
                votes[candidate.item.payload] = (vote.count + 1, vote.item)
            }
        }
        var agreed = (tesseract.first ?? []).filter { $0.item.contentType == nil }.map(\.item)
        // Along the line (the votes' order is a dictionary's).
        let most = votes.values.filter { $0.count * 2 > tesseract.count }.map(\.item)
        for candidate in most.sorted(by: { ($0.span.lowerBound, $0.item.payload) < ($1.span.lowerBound, $1.item.payload) }) {
            agreed.append(candidate.item)
        }
        return agreed
    }

    /// Whether a line's first reading, typed as nothing, may still hold a misread phone number, URL or
    /// e-mail address, so that it is read again (`agreed`): an `@`, six digits, `.`, `/` or `:`
    /// between two letters or digits (`Wei. 542.555 9173`, `anery wndayist@narthgate-optics.com`),
    /// or a word `www`, `com` or `http(s)` (`WW. NOTTAQALe-OPtics com` for a card's
    /// `www.northgate-optics.com`, read so on most passes at 640×480).
    /// `digits`: six digits count (a misread phone number).
    static func mayBeTyped(_ text: String, digits: Bool = true) -> Bool {
        if text.contains("@") || digits && text.filter(\.isNumber).count >= 6 { return true }
        let words = text.lowercased().split { !$0.isLetter }
        if words.contains(where: { ["www", "com", "http", "https"].contains($0) }) { return true }
        let characters = Array(text)
        return characters.indices.dropFirst().dropLast().contains { i in
            ".:/".contains(characters[i]) && (characters[i - 1].isLetter || characters[i - 1].isNumber)
                && (characters[i + 1].isLetter || characters[i + 1].isNumber)
        }
    }

    /// The text lines in `image` within the region of interest, in `image`'s pixel coordinates
    /// (none when no text type is wanted or the region has no contrast to read).
    /// - Parameter evenFaint: look even where the contrast is below what is read at all
    ///   (`QualitySettings.minimumContrastForText`): a card in a dark room, for guidance.
    public func textLines(in image: GrayImage, evenFaint: Bool = false) -> [TextLine] {
        guard text != nil else { return [] }
        let roi = options.regionOfInterest.pixelRect(width: image.width, height: image.height)
        let region = image.cropped(to: roi)
        guard evenFaint || region.contrastSpread() >= settings.minimumContrastForText else { return [] }
        return lineDetector.lines(in: region).map { line in
            TextLine(quad: line.quad.map { Point(x: $0.x + Double(roi.x), y: $0.y + Double(roi.y)) }, glyphs: line.glyphs)
        }
    }

    /// A coarse picture of the line at `quad`, to tell whether it changed (`LineReader.signature`).
    public func lineSignature(_ quad: Quad, in image: GrayImage) -> [Double] {
        lineReader.signature(of: quad, in: image)
    }

    /// What the line at `quad` (pixel coordinates of `image`) says; nil when nothing was read.
    /// `confidence` is the line's mean word confidence (a line of clutter reads as low-confidence
    /// garbage, pass after pass).
    /// `mayHoldAddress`: the text may hold a misread e-mail address or link (`mayBeTyped(_:digits:)`
    /// without its digits rule: a receipt has many lines of six digits).
    public func readLine(_ quad: Quad, in image: GrayImage) -> (items: [LineItem], confidence: Double, mayHoldAddress: Bool)? {
        guard let text, let reading = lineReader.read(quad, in: image, with: text) else { return nil }
        return (items(in: reading), reading.line.confidence, Self.mayBeTyped(reading.line.text, digits: false))
    }

    /// What the line network reads at `quad` (pixel coordinates of `image`), at its own width
    /// (stretch 1); nil without a network, or when it read nothing. About 250 ms a line on this
    /// machine (docs/recognition.md): a check for the lines that need one, not a reader for every line.
    public func networkItems(_ quad: Quad, in image: GrayImage) -> [LineItem]? {
        guard let network else { return nil }
        return lineReader.read(quad, in: image, with: network).map(items(in:))
    }

    /// Whether a line model was loaded (`init(lineModel:)`; not at quality `fast`).
    public var hasLineNetwork: Bool { network != nil }

    /// What one line says: the line as plain text (when wanted and confident), and every phone
    /// number, URL and e-mail address in it with the part of the line it covers.
    func items(in reading: LineReader.Reading) -> [LineItem] {
        let line = reading.line
        let lineText = line.text
        var items: [LineItem] = []
        func add(_ item: RecognizedItem, _ box: PixelRect, reachesCutEnd: Bool = false, withinWord: Bool = false) {
            let span = LineReader.span(of: box, in: reading)
            var item = item
            item.bounds = LineReader.quad(span, on: reading.quad)
            items.append(LineItem(item: item, span: span, reachesCutEnd: reachesCutEnd, withinWord: withinWord))
        }
        // Plain text has no validation of its own: demand confidence and a few real characters
        // (noise and texture come out as one- or two-letter "words").
        if options.types.plainText, line.confidence >= settings.minimumLineConfidence,
            lineText.filter({ $0.isLetter || $0.isNumber }).count >= 3
        {
            add(RecognizedItem(kind: .text, payload: lineText, bounds: reading.quad, confidence: line.confidence), line.box)
        }
        for match in content.matches(in: lineText) {
            let words = Self.words(of: line, covering: match.utf8Range)
            guard !words.isEmpty else { continue }
            let box: PixelRect
            // What reaches a cut end of the line may go on out of sight (`LineReader.cutEnds`).
            let reachesCutEnd: Bool
            let range = match.utf8Range.clamped(to: 0..<lineText.utf8.count)
            if let bytes = reading.byteBoxes, bytes.count == lineText.utf8.count, let exact = PixelRect.union(bytes[range]) {
                // Per symbol where the reading says where each one lies. The network reads past what
                // is no glyph to it (an icon, the remains of a letter), so an item reaches an end when
                // there is no room for a glyph and the gap before it between them: less than half the
                // line's height (the line's padding is a fifth of it; an icon and its gap are more
                // than one height).
                // Room counts from clear ground (`Reading.clear`): a thumb's edge the quad took in
                // is no room (640×480 poster seed 4: `ill-studios.com/info` read past the edge of a
                // thumb over `oldm`, its first glyph 0.5–1.2 line heights in).
                let room = LineNetwork.lineHeight / 2
                let clear = reading.clear ?? 0..<reading.width
                box = exact
                reachesCutEnd = reading.cut.start && exact.x - clear.lowerBound < room
                    || reading.cut.end && exact.x + exact.width > clear.upperBound - room
            } else if let union = PixelRect.union(words.map(\.box)) {
                // Where glyphs cut the line (its text goes on), words of no letter or digit between
                // the item and that end, closer to it than a glyph's height (a word space is about a
                // third of it), are what Tesseract made of their remains: the detector split
                // `…oldmill-sludios.com` at the hyphen (640×480, poster seed 1) and the piece read
                // `| Sludios.com`, the link http://sludios.com. Not where a thumb, a bezel or the
                // frame's edge cuts it: a phone's edge right before an address reads `|` too.
                let before = Array(line.words.prefix { $0 != words.first }), after = Array(line.words.reversed().prefix { $0 != words.last })
                /// `others` (the nearest last) are such remains.
                func remains(_ others: [RecognizedWord], gap: (RecognizedWord) -> Int) -> Bool {
                    guard let nearest = others.last else { return false }
                    return gap(nearest) < union.height && !others.contains { $0.text.contains { $0.isLetter || $0.isNumber } }
                }
                box = union
                reachesCutEnd = reading.cut.start
                    && (words.first == line.words.first
                        || reading.cut.startAtText && remains(before) { union.x - $0.box.x - $0.box.width })
                    || reading.cut.end
                        && (words.last == line.words.last
                            || reading.cut.endAtText && remains(after) { $0.box.x - union.x - union.width })
            } else {
                continue
            }
            add(RecognizedItem(
                kind: .text, contentType: match.contentType, payload: match.payload, transcript: match.transcript,
                bounds: reading.quad, confidence: words.map(\.confidence).reduce(0, +) / Double(words.count)), box,
                reachesCutEnd: reachesCutEnd,
                withinWord: match.contentType != .telephoneNumber && LineItem.isWithinWord(range, of: lineText))
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
