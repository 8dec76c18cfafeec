@testable import Recognition
import ScannerCore
import Testing
import TestTraits
import TextRecognition

/// `scannerd scan` has one image and no frames to vote across: a line that says something typed is
/// read at five heights, and a typed payload needs most of the readings (`ImageScanner.agreed`).
@Suite(.offThePool(minutes: 2)) struct SecondReadingTests {
    static let quad = Quad(x: 0, y: 0, width: 100, height: 10)

    func typed(
        _ payload: String, type: TextContentType = .url, span: ClosedRange<Double> = 0...1, cut: Bool = false, confidence: Double = 0.9
    ) -> LineItem {
        LineItem(
            item: RecognizedItem(kind: .text, contentType: type, payload: payload, bounds: Self.quad, confidence: confidence),
            span: span, reachesCutEnd: cut)
    }

    func plain(_ text: String) -> LineItem {
        LineItem(item: RecognizedItem(kind: .text, payload: text, bounds: Self.quad, confidence: 0.9), span: 0...1)
    }

    /// "tean" for "team" in one reading: the two readings that agree win, the misread is not reported.
    @Test func aMisreadInOneReadingIsOutvoted() {
        let right = "http://kestrel-labs.co.uk/team", wrong = "http://kestrel-labs.co.uk/tean"
        let agreed = ImageScanner.agreed(tesseract: [[typed(wrong)], [typed(right)], [typed(right)]])
        #expect(agreed.map(\.payload) == [right])
    }

    /// Three readings, three answers: none of them is reported.
    @Test func readingsThatAllDisagreeReportNothing() {
        let agreed = ImageScanner.agreed(tesseract: [
            [typed("http://oldmitt-studios.com/info")], [typed("http://oldmili-studios.com/info")], [typed("http://oldmill-studios.com/info")],
        ])
        #expect(agreed.isEmpty)
        #expect(ImageScanner.agreed(tesseract: [[typed("http://example.com")], [], []]).isEmpty)
    }

    /// Of five readings, two that agree on a misread are not enough (of three they were): the 640×480
    /// phone's "…/tean" came out of three readings alike and is now outvoted.
    @Test func ofFiveReadingsThreeMustAgree() {
        let right = "http://kestrel-labs.co.uk/team", wrong = "http://kestrel-labs.co.uk/tean"
        let teamn = "http://kestrel-labs.co.uk/teamn"
        // Two alike of five, the rest split: nothing.
        #expect(ImageScanner.agreed(tesseract: [[typed(wrong)], [typed(wrong)], [typed(right)], [typed(teamn)], [typed(right)]]).isEmpty)
        // Three alike of five: that one.
        #expect(ImageScanner.agreed(tesseract: [[typed(wrong)], [typed(wrong)], [typed(right)], [typed(right)], [typed(right)]]).map(\.payload) == [right])
    }

    /// The balanced and accurate levels read a typed line five times, `fast` once.
    @Test func theLevelsReadTypedLinesFiveTimesOrOnce() {
        #expect(QualitySettings(.balanced).secondReadingHeights.count == 4)
        #expect(QualitySettings(.accurate).secondReadingHeights.count == 4)
        #expect(QualitySettings(.fast).secondReadingHeights.isEmpty)
    }

    /// A typed read up to a cut end of its line is a part of something: it gives no vote.
    @Test func aReadUpToACutEndGivesNoVote() {
        let part = "lo@oldmill-studios.com"
        #expect(ImageScanner.agreed(tesseract: [[typed(part, cut: true)], [typed(part)], [typed(part, cut: true)]]).isEmpty)
        #expect(ImageScanner.agreed(tesseract: [[typed(part)], [typed(part)], [typed(part, cut: true)]]).map(\.payload) == [part])
    }

    /// Plain text stands as first read (it has its own confidence rule), and an agreed payload is
    /// reported once, however many readings give it.
    @Test func plainTextStandsAndAgreedPayloadsAreReportedOnce() {
        let url = "http://example.com"
        let agreed = ImageScanner.agreed(tesseract: [[plain("Visit example.com"), typed(url)], [typed(url)], [typed(url)]])
        #expect(agreed.map(\.payload) == ["Visit example.com", url])
        // With no second readings (the fast level) the first reading is all there is.
        #expect(ImageScanner.agreed(tesseract: [[typed(url)]]).map(\.payload) == [url])
    }

    // MARK: The line network's readings beside Tesseract's

    static let phone = "+15125550173", misread = "+15425550173"
    func phone(_ payload: String, _ span: ClosedRange<Double> = 0.2...0.9, confidence: Double = 0.9) -> LineItem {
        typed(payload, type: .telephoneNumber, span: span, confidence: confidence)
    }

    /// Blurred small print Tesseract misreads every time differently (`Wei. 542.555 9173`): two network
    /// readings of three that agree are enough.
    @Test func twoNetworkReadingsOfThreeAreEnoughWhereTesseractSaysNothing() {
        let tesseract: [[LineItem]] = [[phone(Self.misread)], [], [], [], []]
        #expect(ImageScanner.agreed(tesseract: tesseract, network: [[phone(Self.phone)], [phone(Self.phone)], []]).map(\.payload) == [Self.phone])
        #expect(ImageScanner.agreed(tesseract: tesseract, network: [[phone(Self.phone)], [], []]).isEmpty)
    }

    /// Most readings of each recognizer give a different payload at the same place: neither is
    /// reported, unless every network reading gives its payload, each sure of it (then it overrules).
    @Test func theRecognizersDisagreeingReportNothing() {
        let tesseract = Array(repeating: [phone(Self.misread)], count: 3) + [[], []]
        let unsure = [[phone(Self.phone, confidence: 0.97)], [phone(Self.phone, confidence: 0.8)], [phone(Self.phone, confidence: 0.99)]]
        #expect(ImageScanner.agreed(tesseract: tesseract, network: unsure).isEmpty)
        let twoOfThree = [[phone(Self.phone, confidence: 0.99)], [phone(Self.phone, confidence: 0.99)], []]
        #expect(ImageScanner.agreed(tesseract: tesseract, network: twoOfThree).isEmpty)
        // Tesseract's three of five alone, or with the network split: reported.
        #expect(ImageScanner.agreed(tesseract: tesseract).map(\.payload) == [Self.misread])
        #expect(ImageScanner.agreed(tesseract: tesseract, network: [[phone(Self.phone)], [], []]).map(\.payload) == [Self.misread])
    }

    /// Where the two recognizers' majorities contradicted each other on the footage's scan frames, the
    /// network was right every time (12 of 12: `lindgvist@` for `lindqvist@`, `kestre-labs` for
    /// `kestrel-labs`, `9173` for `0173`, each by Tesseract): all of its readings, each sure, overrule.
    @Test func theNetworkSureInEveryReadingOverrulesTesseract() {
        let tesseract = Array(repeating: [phone(Self.misread, confidence: 0.85)], count: 5)
        let sure = Array(repeating: [phone(Self.phone, confidence: 0.97)], count: 3)
        #expect(ImageScanner.agreed(tesseract: tesseract, network: sure).map(\.payload) == [Self.phone])
    }

    /// Not where the network's payload is a part of Tesseract's (it drops the start of a line split
    /// at a thumb, `o@oldmill-studios.com`, confidently), nor where it may be a part of something.
    @Test func theNetworkDoesNotOverruleWithAPart() {
        let whole = typed("hello@oldmill-studios.com", type: .emailAddress)
        let part = typed("o@oldmill-studios.com", type: .emailAddress, confidence: 0.99)
        #expect(ImageScanner.agreed(tesseract: Array(repeating: [whole], count: 5), network: Array(repeating: [part], count: 3)).isEmpty)
        var inWord = typed("http://labs.co.uk/team", span: 0.3...1, confidence: 0.99)
        inWord.withinWord = true
        let tesseract = Array(repeating: [typed("http://kestre-labs.co.uk/team")], count: 5)
        #expect(ImageScanner.agreed(tesseract: tesseract, network: Array(repeating: [inWord], count: 3)).isEmpty)
    }

    /// Opposition is by the same type at the same place: a line with a phone number and an e-mail
    /// address, or with two phone numbers, keeps each recognizer's items elsewhere on it.
    @Test func onlyTheSameTypeAtTheSamePlaceOpposes() {
        let mail = typed("info@example.com", type: .emailAddress, span: 0.5...0.7)
        let left = phone(Self.misread, 0...0.45)
        let tesseract = Array(repeating: [left], count: 3) + [[], []]
        let network = Array(repeating: [mail, phone(Self.phone, 0.75...1)], count: 2) + [[]]
        #expect(ImageScanner.agreed(tesseract: tesseract, network: network).map(\.payload) == [Self.misread, "info@example.com", Self.phone])
    }

    /// The network's readings follow its cut-end rule too: a part of something gives no vote.
    @Test func aNetworkReadUpToACutEndGivesNoVote() {
        let part = typed("lo@oldmill-studios.com", type: .emailAddress, cut: true)
        #expect(ImageScanner.agreed(tesseract: [[], [], [], [], []], network: [[part], [part], [part]]).isEmpty)
    }

    /// Where Tesseract read a typed item up to a cut end, the network reads the same place with
    /// nothing of the remains of glyphs before it (Tesseract's `| Sludios.com`, the network's sure
    /// `sludios.com`, its first glyph past its own cut rule): that place is cut for the network too.
    /// Elsewhere on the line the network still reads.
    @Test func aPlaceTesseractReadUpToACutEndIsCutForTheNetwork() {
        let part = typed("http://sludios.com", span: 0...0.5, cut: true)
        let sure = typed("http://sludios.com", span: 0.05...0.5, confidence: 0.97)
        let phone = typed("+15125550173", type: .telephoneNumber, span: 0.6...1, confidence: 0.97)
        let tesseract = Array(repeating: [part], count: 5)
        #expect(ImageScanner.agreed(tesseract: tesseract, network: Array(repeating: [sure], count: 3)).isEmpty)
        #expect(ImageScanner.agreed(tesseract: tesseract, network: Array(repeating: [sure, phone], count: 3)).map(\.payload) == ["+15125550173"])
        // Without Tesseract's part, the network's sure reading stands.
        #expect(ImageScanner.agreed(tesseract: Array(repeating: [], count: 5), network: Array(repeating: [sure], count: 3)).map(\.payload) == ["http://sludios.com"])
    }

    /// A reading of `text` as one word whose bytes lie 10 px apart from `start`, on a line 400 px long
    /// whose start is cut; with per-byte boxes (the network's) or without (Tesseract's).
    func cutReading(_ text: String, from start: Int, byteBoxes: Bool) -> LineReader.Reading {
        let boxes = (0..<text.utf8.count).map { PixelRect(x: start + 10 * $0, y: 0, width: 10, height: 48) }
        let word = RecognizedWord(text: text, box: PixelRect.union(boxes)!, confidence: 0.9)
        return LineReader.Reading(
            line: RecognizedLine(words: [word], box: word.box), quad: Self.quad, width: 400,
            cut: LineReader.CutEnds(start: true, end: false), byteBoxes: byteBoxes ? boxes : nil)
    }

    /// The network reads past an icon before a phone number (the phone screen's, which Tesseract
    /// reads as `x]`): where the per-symbol boxes leave room for a glyph before the cut start, the
    /// number does not reach it; right at the start it does. Tesseract's words have no such boxes:
    /// the line's first word reaches a cut start wherever it begins.
    @Test func aNetworkItemReachesACutEndOnlyWithNoRoomForAGlyphBeforeIt() throws {
        let scanner = try ImageScanner(options: TextTests.contentOnly)
        let number = "+441134960639"
        func reachesCut(from start: Int, byteBoxes: Bool) -> [Bool] {
            scanner.items(in: cutReading(number, from: start, byteBoxes: byteBoxes))
                .filter { $0.item.contentType == .telephoneNumber }.map(\.reachesCutEnd)
        }
        #expect(reachesCut(from: 48, byteBoxes: true) == [false])
        #expect(reachesCut(from: 8, byteBoxes: true) == [true])
        #expect(reachesCut(from: 48, byteBoxes: false) == [true])
    }

    /// Room for a glyph counts from clear ground (`Reading.clear`), not from the quad's end: the
    /// network reads nothing of a thumb's edge the quad took in (640×480 poster seed 4:
    /// `ill-studios.com/info` read past the thumb over `oldm`, its first glyph half a line height
    /// and more in). A cut end only: an end that is not cut is where the text stops.
    @Test func roomForAGlyphCountsFromClearGround() throws {
        let scanner = try ImageScanner(options: TextTests.contentOnly)
        let number = "+441134960639"
        func reachesCut(clearFrom: Int, cut: Bool = true) -> [Bool] {
            var reading = cutReading(number, from: 48, byteBoxes: true)
            reading.clear = clearFrom..<400
            if !cut { reading.cut = .none }
            return scanner.items(in: reading).filter { $0.item.contentType == .telephoneNumber }.map(\.reachesCutEnd)
        }
        #expect(reachesCut(clearFrom: 0) == [false])
        #expect(reachesCut(clearFrom: 40) == [true])
        #expect(reachesCut(clearFrom: 40, cut: false) == [false])
    }

    /// Which first readings are read again: typed ones, and ones with the marks of a misread typed item.
    @Test func linesThatMayHoldAMisreadTypedItemAreReadAgain() {
        for text in ["Wei. 542.555 9173", "anery wndayist@narthgate-optics.com", "www.oldmil-studios com/info", "Tel 5125550",
            "WW. NOTTAQALe-OPtics com", "WWW Nortagale-optics", "HTTP oldmill"] {
            #expect(ImageScanner.mayBeTyped(text), "\(text)")
        }
        for text in ["Thank you for shopping.", "Austin TX 78704", "Sat 6 Dec, 10-16", "", "Comet coffee, common room"] {
            #expect(!ImageScanner.mayBeTyped(text), "\(text)")
        }
        // Without the digits rule (the live pipeline's network check): addresses and links only.
        #expect(!ImageScanner.mayBeTyped("Tel 5125550", digits: false))
        #expect(ImageScanner.mayBeTyped("WW. NOTTAQALe-OPtics com", digits: false))
    }

    /// `fast` reads a line once, with Tesseract only; the other levels use the network where there is one.
    @Test func onlyTheSlowerLevelsReadWithTheNetwork() {
        #expect(QualitySettings(.balanced).networkStretches == [1, 1.25, 0.8])
        #expect(QualitySettings(.fast).networkStretches.isEmpty)
    }
}
