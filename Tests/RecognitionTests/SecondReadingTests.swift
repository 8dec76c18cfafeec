@testable import Recognition
import ScannerCore
import Testing

/// `scannerd scan` has one image and no frames to vote across: a line that says something typed is
/// read at five heights, and a typed payload needs most of the readings (`ImageScanner.agreed`).
@Suite struct SecondReadingTests {
    static let quad = Quad(x: 0, y: 0, width: 100, height: 10)

    func typed(_ payload: String, cut: Bool = false, confidence: Double = 0.9) -> LineItem {
        LineItem(
            item: RecognizedItem(kind: .text, contentType: .url, payload: payload, bounds: Self.quad, confidence: confidence),
            span: 0...1, reachesCutEnd: cut)
    }

    func plain(_ text: String) -> LineItem {
        LineItem(item: RecognizedItem(kind: .text, payload: text, bounds: Self.quad, confidence: 0.9), span: 0...1)
    }

    /// "tean" for "team" in one reading: the two readings that agree win, the misread is not reported.
    @Test func aMisreadInOneReadingIsOutvoted() {
        let right = "http://kestrel-labs.co.uk/team", wrong = "http://kestrel-labs.co.uk/tean"
        let agreed = ImageScanner.agreed([typed(wrong)], [[typed(right)], [typed(right)]])
        #expect(agreed.map(\.payload) == [right])
    }

    /// Three readings, three answers: none of them is reported.
    @Test func readingsThatAllDisagreeReportNothing() {
        let agreed = ImageScanner.agreed(
            [typed("http://oldmitt-studios.com/info")], [[typed("http://oldmili-studios.com/info")], [typed("http://oldmill-studios.com/info")]])
        #expect(agreed.isEmpty)
        #expect(ImageScanner.agreed([typed("http://example.com")], [[], []]).isEmpty)
    }

    /// Of five readings, two that agree on a misread are not enough (of three they were): the 640×480
    /// phone's "…/tean" came out of three readings alike and is now outvoted.
    @Test func ofFiveReadingsThreeMustAgree() {
        let right = "http://kestrel-labs.co.uk/team", wrong = "http://kestrel-labs.co.uk/tean"
        let teamn = "http://kestrel-labs.co.uk/teamn"
        // Two alike of five, the rest split: nothing.
        #expect(ImageScanner.agreed([typed(wrong)], [[typed(wrong)], [typed(right)], [typed(teamn)], [typed(right)]]).isEmpty)
        // Three alike of five: that one.
        #expect(ImageScanner.agreed([typed(wrong)], [[typed(wrong)], [typed(right)], [typed(right)], [typed(right)]]).map(\.payload) == [right])
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
        #expect(ImageScanner.agreed([typed(part, cut: true)], [[typed(part)], [typed(part, cut: true)]]).isEmpty)
        #expect(ImageScanner.agreed([typed(part)], [[typed(part)], [typed(part, cut: true)]]).map(\.payload) == [part])
    }

    /// Plain text stands as first read (it has its own confidence rule), and an agreed payload is
    /// reported once, however many readings give it.
    @Test func plainTextStandsAndAgreedPayloadsAreReportedOnce() {
        let url = "http://example.com"
        let agreed = ImageScanner.agreed([plain("Visit example.com"), typed(url)], [[typed(url)], [typed(url)]])
        #expect(agreed.map(\.payload) == ["Visit example.com", url])
        // With no second readings (the fast level) the first reading is all there is.
        #expect(ImageScanner.agreed([typed(url)], []).map(\.payload) == [url])
    }
}
