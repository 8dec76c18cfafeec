import ScannerCore
import TextDetection

/// The one fusion policy for text (issue #40): which line recognizers read a line, and what the line
/// says from their readings. `ImageScanner.scan` (a still image: its readings are all the evidence
/// there is) and the live pipeline (a camera frame: `ItemTracker` votes over frames) both read
/// through it.
///
/// Every line is read by the first recognizer. In a still image, a line whose first reading may say
/// something typed (`mayBeTyped`) is read by the others too, and each typed payload most of the
/// readings give is kept (`agreed`); a frame gets the first recognizer's reading alone, as the
/// frames after it are the other readings. Which recognizers, in which order, is chosen where the
/// scanner is made (`TextReader.init`): PP-OCRv6's recognizer alone where its model is installed,
/// else Tesseract at five heights (docs/recognition.md says why, measured on the real development
/// receipts).
public final class ReadingFusion {
    public let recognizers: [any LineRecognizer]

    /// - Parameter recognizers: the first reads every line; at least one.
    public init(_ recognizers: [any LineRecognizer]) {
        precondition(!recognizers.isEmpty, "a fusion needs a recognizer")
        self.recognizers = recognizers
    }

    /// What the line at `quad` of `image` says in a still image, typed by `items`.
    public func still(_ quad: Quad, in image: GrayImage, items: (LineReading) -> [LineItem]) -> [RecognizedItem] {
        guard let reading = recognizers[0].read(quad, in: image) else { return [] }
        let first = items(reading)
        // Only a line that may say something typed is read again: most lines are plain text.
        guard recognizers.count > 1, first.contains(where: { $0.item.contentType != nil }) || Self.mayBeTyped(reading.line.text) else {
            return Self.agreed([first])
        }
        return Self.agreed([first] + recognizers.dropFirst().map { $0.read(quad, in: image).map(items) ?? [] })
    }

    /// A camera frame's reading of the line at `quad`: the first recognizer's, of `stacked` when given
    /// (the line over several frames, `LineStack`), else of the frame's line.
    /// A frame's line is read from its own rows (`LineReader.ownRowsQuad`), not the detector's quad,
    /// which on small print takes in the lines above and below.
    public func frame(_ quad: Quad, in image: GrayImage, stacked: GrayImage? = nil) -> LineReading? {
        let own = LineReader.ownRowsQuad(of: quad, in: image)
        guard let stacked else { return recognizers[0].read(own, in: image) }
        return recognizers[0].read(stacked, of: own, in: image)
    }

    /// A frame's line at `quad` straightened as the first recognizer reads it (`frame`; `LineStack`'s strips).
    public func straightened(_ quad: Quad, in image: GrayImage) -> GrayImage {
        recognizers[0].straightened(LineReader.ownRowsQuad(of: quad, in: image), in: image)
    }

    /// What one line says from `readings` of it (the first recognizer's first): the first reading's
    /// plain text, and each typed payload that more than half of the readings give, once. A typed
    /// item that reaches a cut end of its line (`LineItem.reachesCutEnd`) votes like any other here:
    /// on the development receipts (`make score-real`, 2026-11-25) leaving those out, as the footage
    /// had chosen (a thumb over a card), lost eight right items (a shadow at a receipt's edge, a
    /// fold, read as a cut) for one false one kept out (`ebook.com` of `facebook.com`): 249 of 297
    /// with 10 false against 257 with 12, of which one a link the annotators had not transcribed.
    /// The live pipeline keeps the rule (`LiveReadingPolicy.admitted`): there the next frames show the rest.
    ///
    /// Measured, Tesseract at five heights (36, then `QualitySettings.secondReadingHeights`), on the
    /// footage (docs/recognition.md): three of five read 78 of the 90 middle-frame items, none wrong.
    /// PP-OCRv6 alone (one reading, which then is the majority), on the development receipts
    /// (`make score-real`, 381 real photos, 2026-11-25): 229 of 279 phone numbers, URLs and e-mail
    /// addresses with 37 false items in 0.98 s an image; with Tesseract's five readings and the
    /// network's three, and the rule between them the generated footage had chosen, 221 with 35 in
    /// 1.96 s. The network misreads alike at every width, and Tesseract misreads real print more
    /// often than the network: where the two disagreed, Tesseract's majority kept the network's
    /// right reading out (`647-318-1144` for a receipt's `617-318-1141`).
    static func agreed(_ readings: [[LineItem]]) -> [RecognizedItem] {
        var votes: [String: (count: Int, item: LineItem)] = [:]
        for reading in readings {
            var seen = Set<String>()
            for candidate in reading where candidate.item.contentType != nil {
                guard seen.insert(candidate.item.payload).inserted else { continue }
                let vote = votes[candidate.item.payload, default: (0, candidate)]
                votes[candidate.item.payload] = (vote.count + 1, vote.item)
            }
        }
        var agreed = (readings.first ?? []).filter { $0.item.contentType == nil }.map(\.item)
        // A payload its own check digit confirms (a tracking number) stands on the first reading's
        // word, unless another reading gives a different confirmed payload of its type at the same
        // place: the label fixture's `1Z 999 AA1 01 2345 6784`, read right by the network and as
        // `AAl1` by Tesseract at every height, was outvoted by readings that carry no evidence.
        let first = Set((readings.first ?? []).map(\.item.payload))
        func confirmedByItsCheckDigit(_ candidate: LineItem) -> Bool {
            guard let type = candidate.item.contentType, type.carriesCheckDigit, first.contains(candidate.item.payload) else { return false }
            return !votes.values.contains { other in
                other.item.item.contentType == type && other.item.item.payload != candidate.item.payload && other.item.span.overlaps(candidate.span)
            }
        }
        // Along the line (the votes' order is a dictionary's).
        let most = votes.values.filter { $0.count * 2 > readings.count || confirmedByItsCheckDigit($0.item) }.map(\.item)
        for candidate in most.sorted(by: { ($0.span.lowerBound, $0.item.payload) < ($1.span.lowerBound, $1.item.payload) }) {
            agreed.append(candidate.item)
        }
        return agreed
    }

    /// Whether a line's first reading, typed as nothing, may still hold a misread phone number, URL or
    /// e-mail address, so that it is read again (`agreed`): an `@`, six digits, `.`, `/` or `:`
    /// between two letters or digits (`Wei. 542.555 9173`, `anery wndayist@narthgate-optics.com`),
    /// or a word `www`, `com` or `http(s)` (`WW. NOTTAQALe-OPtics com` for a card's
    /// `www.northgate-optics.com`, read so by Tesseract on most passes at 640×480).
    public static func mayBeTyped(_ text: String) -> Bool {
        if text.contains("@") || text.filter(\.isNumber).count >= 6 { return true }
        let words = text.lowercased().split { !$0.isLetter }
        if words.contains(where: { ["www", "com", "http", "https"].contains($0) }) { return true }
        let characters = Array(text)
        return characters.indices.dropFirst().dropLast().contains { i in
            ".:/".contains(characters[i]) && (characters[i - 1].isLetter || characters[i - 1].isNumber)
                && (characters[i + 1].isLetter || characters[i + 1].isNumber)
        }
    }
}

/// A line detector and the recognizers that read its lines, in `ReadingFusion`'s order.
public struct TextReaders {
    public var detector: any LineDetector
    public var recognizers: [any LineRecognizer]

    public init(detector: any LineDetector, recognizers: [any LineRecognizer]) {
        self.detector = detector
        self.recognizers = recognizers
    }
}
