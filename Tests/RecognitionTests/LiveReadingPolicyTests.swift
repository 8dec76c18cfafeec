import ScannerCore
import Testing

@testable import Recognition

/// The live-reading policy (issue #52, item 5): what one live read of a line says, before the line's
/// schedule weighs it. Pure: a read and what the line said in, a verdict out.
@Suite struct LiveReadingPolicyTests {
    /// A typed read up to a cut end of its line (a thumb over "he" of "hello@…") keeps an item the
    /// tracker has added, and adds none.
    @Test func aReadUpToACutEndKeepsAnItemButAddsNone() {
        let quad = Quad(x: 0, y: 0, width: 100, height: 10)
        func read(_ payload: String, cut: Bool) -> LineItem {
            LineItem(
                item: RecognizedItem(kind: .text, contentType: .emailAddress, payload: payload, bounds: quad, confidence: 0.9),
                span: 0...1, reachesCutEnd: cut)
        }
        let reads = [read("lo@oldmill-studios.com", cut: true), read("hello@oldmill-studios.com", cut: true), read("jo@example.com", cut: false)]
        let believed: Set<String> = ["emailAddress hello@oldmill-studios.com"]
        #expect(LiveReadingPolicy.admitted(reads, believed: believed).map(\.item.payload) == ["hello@oldmill-studios.com", "jo@example.com"])
        #expect(LiveReadingPolicy.admitted(reads, believed: nil).map(\.item.payload) == ["jo@example.com"])
    }

    /// A phone number cut only at its line's end is admitted: the number plan validated it whole,
    /// and a number with digits cut off is none. Cut at its start, where the cut may hide what makes
    /// the digits no phone number (`Order #`), it is not; nor a link cut at its end.
    @Test func aPhoneNumberCutOnlyAtItsLinesEndIsAdmitted() {
        let quad = Quad(x: 0, y: 0, width: 100, height: 10)
        func read(_ type: TextContentType, _ payload: String, start: Bool = false, end: Bool = false) -> LineItem {
            LineItem(
                item: RecognizedItem(kind: .text, contentType: type, payload: payload, bounds: quad, confidence: 0.9),
                span: 0...1, reachesCutEnd: end, reachesCutStart: start)
        }
        let reads = [
            read(.telephoneNumber, "+12145709999", end: true), read(.telephoneNumber, "+15125550147", start: true),
            read(.telephoneNumber, "+16173181141", start: true, end: true), read(.url, "http://example.com/i", end: true),
        ]
        #expect(LiveReadingPolicy.admitted(reads, believed: nil).map(\.item.payload) == ["+12145709999"])
        #expect(reads.map(\.reachesCutEnd) == [true, true, true, true], "a cut at either end is a cut end")
    }

    /// A read whose typed items were all left out for reaching a cut end, where the line said an
    /// item of their type before (a tilted link found as `…/i` and `nfo`), reads a part of it; not
    /// when something typed is left, nor where the line said nothing of that type or said it
    /// elsewhere along the line.
    @Test func aReadLeftWithOnlyACutPartOfWhatTheLineSaidReadsAPart() {
        let quad = Quad(x: 0, y: 0, width: 100, height: 10)
        func read(_ type: TextContentType?, _ payload: String, span: ClosedRange<Double> = 0.1...1, cut: Bool = false) -> LineItem {
            LineItem(
                item: RecognizedItem(kind: .text, contentType: type, payload: payload, bounds: quad, confidence: 0.9),
                span: span, reachesCutEnd: cut)
        }
        let link = read(.url, "http://oldmill-studios.com/info", span: 0.1...0.95)
        let part = read(.url, "http://oldmill-studios.com/i", cut: true)
        let plain = read(nil, "oldmill-studios.com/i")
        #expect(LiveReadingPolicy.readsAPart([plain, part], admitted: [plain], of: [link]))
        #expect(!LiveReadingPolicy.readsAPart([part], admitted: [], of: []), "the line said nothing before")
        #expect(!LiveReadingPolicy.readsAPart([part], admitted: [], of: [read(.emailAddress, "info@oldmill-studios.com")]), "another type")
        #expect(!LiveReadingPolicy.readsAPart([part], admitted: [], of: [read(.url, "http://example.com", span: 0...0.05)]), "elsewhere on the line")
        #expect(!LiveReadingPolicy.readsAPart([read(.url, "http://oldmill-studios.com/i")], admitted: [], of: [link]), "not cut: no part")
        let phone = read(.telephoneNumber, "+15125550173", span: 0...0.3)
        #expect(!LiveReadingPolicy.readsAPart([part, phone], admitted: [phone], of: [link]), "something typed is left")
    }

    /// A read is no evidence either way when it is garbage (clutter, text too blurred), or when it
    /// may be a misread of the typed thing the line said (a phone number read with a letter for a
    /// digit); a read that may be typed, of a line that said nothing typed, is kept in doubt, and a
    /// confident plain read counts.
    @Test func garbageAndMisreadsOfWhatTheLineSaidAreNoEvidence() {
        let quad = Quad(x: 0, y: 0, width: 100, height: 10)
        let phone = LineItem(
            item: RecognizedItem(kind: .text, contentType: .telephoneNumber, payload: "+15125550173", bounds: quad, confidence: 0.9),
            span: 0...1)
        let clutter = LiveReadingPolicy.judge(([], 0.3, "x ="), earlier: [], believed: nil)
        #expect(clutter.unconfident && clutter.doubt == nil && clutter.items.isEmpty)
        let misread = LiveReadingPolicy.judge(([], 0.9, "+1 512 555 O173"), earlier: [phone], believed: nil)
        #expect(misread.unconfident && misread.doubt == "1512555O173")
        let inDoubt = LiveReadingPolicy.judge(([], 0.9, "+1 512 555 O173"), earlier: [], believed: nil)
        #expect(!inDoubt.unconfident && inDoubt.doubt == "1512555O173")
        let plain = LiveReadingPolicy.judge(([], 0.9, "Opening hours"), earlier: [phone], believed: nil)
        #expect(!plain.unconfident && plain.doubt == nil && plain.confidence == 0.9)
        let typed = LiveReadingPolicy.judge(([phone], 0.9, "+1 512 555 0173"), earlier: [], believed: nil)
        #expect(!typed.unconfident && typed.keys == ["telephoneNumber +15125550173"])
        let nothing = LiveReadingPolicy.judge(nil, earlier: [phone], believed: nil)
        #expect(nothing.unconfident && nothing.confidence == 0)
    }

    /// Two reads in doubt say the same when their letters and digits are the same: a phone screen's
    /// `Last seen 12:41 · 23 Nov 2026` read with `-`, `·` or neither agrees, so the line is settled
    /// (`LineSchedule`: reads in doubt agree when their doubts are equal) instead of read on every
    /// pass; a digit read differently still disagrees.
    @Test func readsInDoubtAgreeOnTheirLettersAndDigits() {
        let reads = ["Last seen 12:41 - 23 Nov 2026", "Last seen 12:41 ·23 Nov 2026", "Last seen 12:41·23 Nov 2026"]
        let doubts = reads.map { LiveReadingPolicy.judge(([], 0.95, $0), earlier: [], believed: nil).doubt }
        #expect(doubts.allSatisfy { $0 != nil } && Set(doubts).count == 1, "\(doubts)")
        let misread = LiveReadingPolicy.judge(([], 0.95, "Last seen 12:47 - 23 Nov 2026"), earlier: [], believed: nil).doubt
        #expect(misread != nil && misread != doubts[0])
    }
}
