import ScannerCore
import TestTraits
import Testing
import TextRecognition

@testable import Recognition

/// `scannerd scan` has one image and no frames to vote across: a line that says something typed is
/// read by every recognizer of the fusion, and a typed payload needs most of the readings (`ReadingFusion.agreed`).
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
        let right = "http://kestrel-labs.co.uk/team"
        let wrong = "http://kestrel-labs.co.uk/tean"
        let agreed = ReadingFusion.agreed([[typed(wrong)], [typed(right)], [typed(right)]])
        #expect(agreed.map(\.payload) == [right])
    }

    /// Three readings, three answers: none of them is reported.
    @Test func readingsThatAllDisagreeReportNothing() {
        let agreed = ReadingFusion.agreed([
            [typed("http://oldmitt-studios.com/info")], [typed("http://oldmili-studios.com/info")], [typed("http://oldmill-studios.com/info")],
        ])
        #expect(agreed.isEmpty)
        #expect(ReadingFusion.agreed([[typed("http://example.com")], [], []]).isEmpty)
    }

    /// Of five readings, two that agree on a misread are not enough (of three they were): the 640×480
    /// phone's "…/tean" came out of three readings alike and is now outvoted.
    @Test func ofFiveReadingsThreeMustAgree() {
        let right = "http://kestrel-labs.co.uk/team"
        let wrong = "http://kestrel-labs.co.uk/tean"
        let teamn = "http://kestrel-labs.co.uk/teamn"
        // Two alike of five, the rest split: nothing.
        #expect(ReadingFusion.agreed([[typed(wrong)], [typed(wrong)], [typed(right)], [typed(teamn)], [typed(right)]]).isEmpty)
        // Three alike of five: that one.
        #expect(ReadingFusion.agreed([[typed(wrong)], [typed(wrong)], [typed(right)], [typed(right)], [typed(right)]]).map(\.payload) == [right])
    }

    /// A tracking number's check digit is the evidence a second reading would be: the first reading's
    /// stands against readings that make nothing of the line, not against one that reads another
    /// number that passes its check digit at the same place (which of the two is the misread?).
    @Test func aPayloadItsCheckDigitConfirmsNeedsNoMajority() {
        let ups = typed("1Z999AA10123456784", type: .shipmentTrackingNumber, span: 0.2...0.9)
        #expect(ReadingFusion.agreed([[ups], [], [], [], []]).map(\.payload) == ["1Z999AA10123456784"])
        // Only the first reading's: a later reading's alone is outvoted as before.
        #expect(ReadingFusion.agreed([[], [ups], [], [], []]).isEmpty)
        let other = typed("1Z999AA10123456791", type: .shipmentTrackingNumber, span: 0.2...0.9)
        #expect(ReadingFusion.agreed([[ups], [other], [], [], []]).isEmpty)
        // Types without a check digit still need most readings.
        #expect(ReadingFusion.agreed([[typed("http://example.com")], [], []]).isEmpty)
    }

    /// The balanced and accurate levels read a typed line five times, `fast` once.
    @Test func theLevelsReadTypedLinesFiveTimesOrOnce() {
        #expect(QualitySettings(.balanced).secondReadingHeights.count == 4)
        #expect(QualitySettings(.accurate).secondReadingHeights.count == 4)
        #expect(QualitySettings(.fast).secondReadingHeights.isEmpty)
    }

    /// A typed read up to a cut end of its line votes like any other in a still image (the real
    /// receipts: shadows and folds read as cuts cost more right items than the rule kept out).
    @Test func aReadUpToACutEndVotesInAStill() {
        let part = "lo@oldmill-studios.com"
        #expect(ReadingFusion.agreed([[typed(part, cut: true)], [typed(part)], [typed("x@example.com")]]).map(\.payload) == [part])
        #expect(ReadingFusion.agreed([[typed(part, cut: true)]]).map(\.payload) == [part])
    }

    /// Plain text stands as first read (it has its own confidence rule), and an agreed payload is
    /// reported once, however many readings give it.
    @Test func plainTextStandsAndAgreedPayloadsAreReportedOnce() {
        let url = "http://example.com"
        let agreed = ReadingFusion.agreed([[plain("Visit example.com"), typed(url)], [typed(url)], [typed(url)]])
        #expect(agreed.map(\.payload) == ["Visit example.com", url])
        // With no second readings (the fast level) the first reading is all there is.
        #expect(ReadingFusion.agreed([[typed(url)]]).map(\.payload) == [url])
    }

    // MARK: A still image read by the line network (issue #40)

    static let phone = "+15125550173"
    func phone(_ payload: String, _ span: ClosedRange<Double> = 0.2...0.9, cut: Bool = false) -> LineItem {
        typed(payload, type: .telephoneNumber, span: span, cut: cut)
    }

    /// The network's one reading stands: its plain text and each typed payload, once.
    @Test func theNetworksReadingStandsAndEachPayloadOnce() {
        let items = ReadingFusion.agreed([[plain("Tel. 512 555 0173"), phone(Self.phone), phone(Self.phone, 0.5...0.9)]])
        #expect(items.map(\.payload) == ["Tel. 512 555 0173", Self.phone])
    }

    /// `text` as one word whose characters lie 10 px apart from `start`, 48 px high, the character at
    /// `weak` at `weakness`, the others at 0.95.
    static func word(_ text: String, from start: Int = 0, weakAt weak: Int? = nil, weakness: Double = 0.42) -> RecognizedWord {
        let symbols = text.unicodeScalars.enumerated().map { index, scalar in
            RecognizedSymbol(
                text: String(scalar), box: PixelRect(x: start + 10 * index, y: 0, width: 10, height: 48), confidence: index == weak ? weakness : 0.95)
        }
        return RecognizedWord(text: text, box: PixelRect.union(symbols.map(\.box))!, confidence: 0.9, symbols: symbols)
    }

    /// A reading of `text` as one word whose characters lie 10 px apart from `start`, on a line 400 px
    /// long whose start is cut.
    func cutReading(_ text: String, from start: Int) -> LineReading {
        let word = Self.word(text, from: start)
        return LineReading(
            line: RecognizedLine(words: [word], box: word.box), quad: Self.quad, width: 400, height: 48,
            cut: LineReader.CutEnds(start: true, end: false))
    }

    /// A reading has one box and one confidence for each byte of its text, whatever its words carry:
    /// a word whose symbols do not make up its text (a recognizer's slip) is placed by its own box.
    @Test func everyByteOfAReadingHasOneBox() {
        var word = Self.word("Tel.512.555.0173", from: 20)
        word.symbols.removeLast(3)
        let other = Self.word("or", from: 200)
        let reading = LineReading(
            line: RecognizedLine(words: [word, other], box: PixelRect.union([word.box, other.box])!), quad: Self.quad, width: 240, height: 48)
        #expect(reading.byteBoxes.count == reading.line.text.utf8.count && reading.byteConfidences.count == reading.byteBoxes.count)
        #expect(reading.byteBoxes.prefix(word.text.utf8.count).allSatisfy { $0 == word.box })
        #expect(reading.byteBoxes.suffix(2) == other.symbols.map(\.box)[...])
    }

    /// A recognizer reads past an icon before a phone number (the phone screen's, which Tesseract
    /// reads as `x]` and the network as nothing): where its characters' boxes leave room for a glyph
    /// before the cut start, the number does not reach it; right at the start it does.
    @Test func anItemReachesACutEndOnlyWithNoRoomForAGlyphBeforeIt() throws {
        let scanner = try ImageScanner(options: TextTests.contentOnly)
        let number = "+441134960639"
        func reachesCut(from start: Int) -> [Bool] {
            scanner.text.items(in: cutReading(number, from: start)).filter { $0.item.contentType == .telephoneNumber }.map(\.reachesCutEnd)
        }
        #expect(reachesCut(from: 48) == [false])
        #expect(reachesCut(from: 8) == [true])
        let atStart = scanner.text.items(in: cutReading(number, from: 8)).filter { $0.item.contentType == .telephoneNumber }
        #expect(atStart.map(\.reachesCutStart) == [true], "the cut is the line's start")
    }

    /// Room for a glyph counts from clear ground (`LineReading.clear`), not from the quad's end: the
    /// network reads nothing of a thumb's edge the quad took in (640×480 poster seed 4:
    /// `ill-studios.com/info` read past the thumb over `oldm`, its first glyph half a line height
    /// and more in). A cut end only: an end that is not cut is where the text stops.
    @Test func roomForAGlyphCountsFromClearGround() throws {
        let scanner = try ImageScanner(options: TextTests.contentOnly)
        let number = "+441134960639"
        func reachesCut(clearFrom: Int, cut: Bool = true) -> [Bool] {
            var reading = cutReading(number, from: 48)
            reading.clear = clearFrom..<400
            if !cut { reading.cut = .none }
            return scanner.text.items(in: reading).filter { $0.item.contentType == .telephoneNumber }.map(\.reachesCutEnd)
        }
        #expect(reachesCut(clearFrom: 0) == [false])
        #expect(reachesCut(clearFrom: 40) == [true])
        #expect(reachesCut(clearFrom: 40, cut: false) == [false])
    }

    /// Which first readings are read again: typed ones, and ones with the marks of a misread typed item.
    @Test func linesThatMayHoldAMisreadTypedItemAreReadAgain() {
        for text in [
            "Wei. 542.555 9173", "anery wndayist@narthgate-optics.com", "www.oldmil-studios com/info", "Tel 5125550",
            "WW. NOTTAQALe-OPtics com", "WWW Nortagale-optics", "HTTP oldmill",
        ] {
            #expect(ReadingFusion.mayBeTyped(text), "\(text)")
        }
        for text in ["Thank you for shopping.", "Austin TX 78704", "Sat 6 Dec, 10-16", "", "Comet coffee, common room"] {
            #expect(!ReadingFusion.mayBeTyped(text), "\(text)")
        }
    }

    /// `fast` reads a line once, with Tesseract only; the other levels read with the network where there is one.
    @Test func onlyTheSlowerLevelsReadWithTheNetwork() {
        #expect(QualitySettings(.balanced).readsWithNetwork && QualitySettings(.accurate).readsWithNetwork)
        #expect(!QualitySettings(.fast).readsWithNetwork)
    }

    // MARK: The fusion policy with fake recognizers

    /// A recognizer that reads every line as `text` and counts its reads.
    final class FakeRecognizer: LineRecognizer {
        let text: String
        var reads = 0
        init(_ text: String) { self.text = text }
        func straightened(_ quad: Quad, in image: GrayImage) -> GrayImage { image.rectified(quad, height: 8) }
        func read(_ straight: GrayImage, of quad: Quad, in image: GrayImage) -> LineReading? {
            reads += 1
            let word = RecognizedWord(text: text, box: PixelRect(x: 0, y: 0, width: 100, height: 10), confidence: 0.9)
            return LineReading(line: RecognizedLine(words: [word], box: word.box), quad: quad, width: 100, height: 8)
        }
    }

    static let image = GrayImage(width: 120, height: 20, filledWith: 255)

    /// In a still, a link or an address with a character the recognizer was unsure of is not
    /// reported; a phone number is, whatever its weakest digit; a camera frame's reading is voted on
    /// instead. A recognizer that places words only gives each character its word's confidence.
    @Test func aLinkWithAnUnsureCharacterIsNotReported() throws {
        let scanner = try ImageScanner(options: TextTests.contentOnly)
        func reading(_ text: String, weakAt weak: Int?, symbols: Bool = true) -> LineReading {
            var word = Self.word(text, weakAt: weak, weakness: TextReader.minimumWebSymbolConfidence - 0.1)
            if !symbols { word.symbols = [] }
            return LineReading(line: RecognizedLine(words: [word], box: word.box), quad: Self.quad, width: word.box.width, height: 48)
        }
        let typed = { (r: LineReading) in scanner.text.items(in: r, still: true).compactMap { $0.item.contentType == nil ? nil : $0.item.payload } }
        #expect(typed(reading("tedolicteedbuck.com", weakAt: nil)) == ["http://tedolicteedbuck.com"])
        #expect(typed(reading("tedolicteedbuck.com", weakAt: 3)).isEmpty)
        #expect(typed(reading("jo@tedolicteedbuck.com", weakAt: 5)).isEmpty)
        #expect(typed(reading("Tel.512.555.0173", weakAt: 6)) == ["+15125550173"])
        #expect(typed(reading("tedolicteedbuck.com", weakAt: 3, symbols: false)) == ["http://tedolicteedbuck.com"])
        // A frame's reading is voted on with the frames after it: not left out.
        #expect(scanner.text.items(in: reading("tedolicteedbuck.com", weakAt: 3)).map(\.item.payload).contains("http://tedolicteedbuck.com"))
    }

    /// A frame's typed item is as sure as its least sure character (a phone number's too): in the
    /// vote over frames such a read contests but does not support. A sure reading keeps its words'
    /// confidence, and so does a reading that places words only.
    @Test func aFramesItemIsAsSureAsItsLeastSureCharacter() throws {
        let scanner = try ImageScanner(options: TextTests.contentOnly)
        func confidence(_ text: String, weakAt weak: Int?, symbols: Bool = true) -> Double? {
            var word = Self.word(text, weakAt: weak, weakness: 0.42)
            if !symbols { word.symbols = [] }
            let reading = LineReading(line: RecognizedLine(words: [word], box: word.box), quad: Self.quad, width: word.box.width, height: 48)
            return scanner.text.items(in: reading).first { $0.item.contentType != nil }?.item.confidence
        }
        #expect(confidence("www.deltaveb.be", weakAt: 10) == 0.42)
        #expect(confidence("Tel.512.555.0173", weakAt: 6) == 0.42)
        #expect(confidence("www.deltaweb.be", weakAt: nil) == 0.9)
        #expect(confidence("www.deltaveb.be", weakAt: 10, symbols: false) == 0.9)
        // Outside the item: the line's other characters do not count.
        #expect(confidence("Tel.512.555.0173", weakAt: 1) == 0.9)
    }

    /// A still's line is read by the first recognizer; only when that reading may say something
    /// typed do the others read it, and a payload most of them give is reported. A frame gets the
    /// first recognizer's reading alone.
    @Test func theFusionReadsAgainOnlyWhatMayBeTypedAndKeepsWhatMostSay() throws {
        let scanner = try ImageScanner(options: TextTests.contentOnly)
        let right = FakeRecognizer("Web: example.com")
        let wrong = FakeRecognizer("Web: exarnple.com")
        let again = FakeRecognizer("Web: example.com")
        let fusion = ReadingFusion([right, wrong, again])
        #expect(fusion.still(Self.quad, in: Self.image, items: { scanner.text.items(in: $0, still: true) }).map(\.payload) == ["http://example.com"])
        #expect([right.reads, wrong.reads, again.reads] == [1, 1, 1])
        let outvoted = ReadingFusion([wrong, right, FakeRecognizer("Web: exampie.com")])
        let typed = { (reading: LineReading) in scanner.text.items(in: reading, still: true) }
        #expect(outvoted.still(Self.quad, in: Self.image, items: typed).isEmpty, "three readings, three payloads")

        let plainFirst = FakeRecognizer("Thank you")
        let other = FakeRecognizer("Web: example.com")
        let plain = ReadingFusion([plainFirst, other])
        #expect(plain.still(Self.quad, in: Self.image, items: { scanner.text.items(in: $0, still: true) }).isEmpty)
        #expect(other.reads == 0, "plain text is not read again")

        let frameReader = FakeRecognizer("Web: exarnple.com")
        let unused = FakeRecognizer("Web: example.com")
        #expect(ReadingFusion([frameReader, unused]).frame(Self.quad, in: Self.image)?.line.text == "Web: exarnple.com")
        #expect(unused.reads == 0)
    }

    /// One recognizer (the network's case): its one reading is the majority.
    @Test func aSingleRecognizersReadingStands() throws {
        let scanner = try ImageScanner(options: TextTests.contentOnly)
        let only = ReadingFusion([FakeRecognizer("Web: example.com")])
        #expect(only.still(Self.quad, in: Self.image, items: { scanner.text.items(in: $0, still: true) }).map(\.payload) == ["http://example.com"])
    }
}
