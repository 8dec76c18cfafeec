import ScannerCore
import TestTraits
import Testing
import TextRecognition

@testable import Recognition

/// A line whose text goes on out of sight: under a thumb, past the frame's edge, letters half
/// covered. What is typed up to such an end is a part of something, and a part is a wrong payload
/// ("lo@oldmill-studios.com" for "hello@oldmill-studios.com", seen on the footage).
@Suite(.offThePool(minutes: 2)) struct LineEndTests {
    let reader = LineReader()

    /// A 200 × 60 light ground with a line of eight dark 6 × 16 px "glyphs" from x = 60 to 150,
    /// and the quad the detector would give it (padded by a fifth of the glyph height).
    static let glyphs = (0..<8).map { PixelRect(x: 60 + $0 * 12, y: 20, width: 6, height: 16) }
    static let quad = Quad(x: 56.8, y: 16.8, width: 96.4, height: 22.4)

    func image(marks: [(PixelRect, UInt8)] = [], width: Int = 200) -> GrayImage {
        var pixels = [UInt8](repeating: 200, count: width * 60)
        for (rect, level) in Self.glyphs.map({ ($0, UInt8(40)) }) + marks {
            for y in rect.y..<(rect.y + rect.height) {
                for x in max(0, rect.x)..<min(width, rect.x + rect.width) { pixels[y * width + x] = level }
            }
        }
        return GrayImage(width: width, height: 60, pixels: pixels)
    }

    @Test func cleanGroundOnBothSidesIsNoCut() {
        #expect(reader.cutEnds(of: Self.quad, in: image()) == .none)
    }

    /// The detector network's quads reach about a glyph height past the text on every side (DB's
    /// unclipping); the ends are judged from the line's ink, as if the quad were the classical
    /// detector's. A phone's bezel a glyph before its lines is past where the probes look from the
    /// ink, but not from the wide quad (phone seeds 1 and 3 at 1280×720: e-mail and link never added).
    @Test func aWideQuadIsJudgedFromItsInk() {
        let wide = Quad(x: 47, y: 7, width: 116, height: 42)
        let narrowed = LineReader.inkQuad(of: wide, in: image())
        for (found, expected) in zip(narrowed.corners, Self.quad.corners) {
            #expect(abs(found.x - expected.x) <= 1.5 && abs(found.y - expected.y) <= 1.5, "\(narrowed) against \(Self.quad)")
        }
        let bezel = (PixelRect(x: 0, y: 0, width: 40, height: 60), UInt8(110))
        #expect(reader.cutEnds(of: wide, in: image(marks: [bezel])) == .none)
        // A quad with no ink in it is left as it is.
        let blank = Quad(x: 5, y: 45, width: 40, height: 10)
        #expect(LineReader.inkQuad(of: blank, in: image()) == blank)
    }

    /// A receipt's lines are close: the detector's quad of a short line takes in the glyphs of the
    /// longer lines above and below it. Those are not its text going on past its ends (a receipt's
    /// phone number, read right in every frame, was never added: its ends were taken as cut).
    @Test func longerNeighboursAboveAndBelowDoNotCutALine() {
        let width = 200
        var pixels = [UInt8](repeating: 200, count: width * 90)
        let own = (0..<8).map { PixelRect(x: 60 + $0 * 12, y: 37, width: 6, height: 16) }
        // Lines 22 px apart (1.4 glyph heights), running on 40 px past the short line's ends.
        let neighbours = [15, 59].flatMap { y in (0..<14).map { PixelRect(x: 20 + $0 * 12, y: y, width: 6, height: 16) } }
        for rect in own + neighbours {
            for y in rect.y..<(rect.y + rect.height) { for x in rect.x..<(rect.x + rect.width) { pixels[y * width + x] = 40 } }
        }
        let receipt = GrayImage(width: width, height: 90, pixels: pixels)
        // The network's quad: a glyph height past the text above and below, as DB unclips it.
        let wide = Quad(x: 50, y: 27, width: 112, height: 36)
        #expect(reader.cutEnds(of: wide, in: receipt) == .none)
        let narrowed = LineReader.inkQuad(of: wide, in: receipt)
        #expect(narrowed.topLeft.y > 30 && narrowed.bottomLeft.y < 60, "\(narrowed)")
        // A frame's line is read from its own rows (glyphs 37–53), padded by 0.3 of their height,
        // its ends where the detector put them.
        let read = LineReader.ownRowsQuad(of: wide, in: receipt)
        #expect(abs(read.topLeft.y - 32) < 2.5 && abs(read.bottomLeft.y - 58) < 2.5, "\(read)")
        #expect(read.topLeft.x == wide.topLeft.x && read.topRight.x == wide.topRight.x)
        // A quad with no ink is read as it is.
        let blank = Quad(x: 0, y: 0, width: 40, height: 14)
        #expect(LineReader.ownRowsQuad(of: blank, in: receipt) == blank)
    }

    /// A detector's degenerate quads (a point, a sliver, one past the image's edge) are no cut and
    /// no crash: the ink box is looked for before the ends are judged.
    @Test func degenerateQuadsAreNoCut() {
        for quad in [Quad(x: 70, y: 25, width: 0, height: 0), Quad(x: 60, y: 20, width: 90, height: 0.5)] {
            #expect(reader.cutEnds(of: quad, in: image()) == .none, "\(quad)")
        }
        // Reaching far past the image: narrowed to the glyphs inside it, whose ends are clean.
        #expect(reader.cutEnds(of: Quad(x: -300, y: -200, width: 800, height: 460), in: image()) == .none)
    }

    @Test func somethingOverTheGroundCutsTheLine() {
        // A thumb (skin is mid-gray) right before the first glyph, and one right after the last.
        let thumbBefore = (PixelRect(x: 20, y: 0, width: 35, height: 60), UInt8(140))
        #expect(reader.cutEnds(of: Self.quad, in: image(marks: [thumbBefore])) == LineReader.CutEnds(start: true, end: false))
        let thumbAfter = (PixelRect(x: 155, y: 0, width: 45, height: 60), UInt8(140))
        #expect(reader.cutEnds(of: Self.quad, in: image(marks: [thumbAfter])) == LineReader.CutEnds(start: false, end: true))
    }

    /// Ground lighter past an end than inside the line is no cut: blurred small print never shows its
    /// paper between dense glyphs, so the ground inside is darker than the clean paper past the line
    /// (a receipt's `WWW.…` held up at 1280×720 was taken as cut there, and its link never added).
    @Test func lighterGroundPastAnEndIsNoCut() {
        let glare = [(PixelRect(x: 0, y: 0, width: 55, height: 60), UInt8(255)), (PixelRect(x: 155, y: 0, width: 45, height: 60), UInt8(255))]
        #expect(reader.cutEnds(of: Self.quad, in: image(marks: glare)) == .none)
    }

    /// A thumb over the line's start that the line's quad takes in: the ground at that end is
    /// judged over one and a half line heights, not the half height the thumb fills (a poster's
    /// `hello@…` under a thumb was found as `o@oldmill-studios.com`, its start not cut, at 640×480).
    @Test func aThumbInsideTheLinesStartCutsIt() {
        let thumb = (PixelRect(x: 20, y: 0, width: 46, height: 60), UInt8(140))
        #expect(reader.cutEnds(of: Self.quad, in: image(marks: [thumb])) == LineReader.CutEnds(start: true, end: false))
    }

    /// Where the clear ground before and after what the network read begins (`LineReader.unreadEnds`),
    /// on a straightened line 48 px high: ground 230, glyphs 20 from x = 100 to 300, what was read
    /// from 100 to 300.
    @Test func clearGroundEndsAtAThumbOrTheRemainsOfALetter() {
        func line(_ marks: [(Range<Int>, rows: Range<Int>, level: UInt8)]) -> GrayImage {
            var pixels = [UInt8](repeating: 230, count: 400 * 48)
            let glyphs = stride(from: 100, to: 300, by: 20).map { ($0..<($0 + 10), rows: 10..<38, level: UInt8(20)) }
            for (columns, rows, level) in glyphs + marks {
                for y in rows { for x in columns { pixels[y * 400 + x] = level } }
            }
            return GrayImage(width: 400, height: 48, pixels: pixels)
        }
        #expect(LineReader.unreadEnds(of: line([]), before: 100, after: 300) == 0..<400)
        // A thumb (mid-gray) over the first 40 columns, and from 350 on.
        let thumbs = line([(0..<40, rows: 0..<48, level: 130), (350..<400, rows: 0..<48, level: 130)])
        #expect(LineReader.unreadEnds(of: thumbs, before: 100, after: 300) == 40..<350)
        // The lower half of a letter at 60–63; its own glyph's ink a few columns before the read
        // symbol's start counts as read.
        #expect(LineReader.unreadEnds(of: line([(60..<64, rows: 24..<38, level: 20)]), before: 100, after: 300) == 64..<400)
        #expect(LineReader.unreadEnds(of: line([(94..<100, rows: 10..<38, level: 20)]), before: 100, after: 300) == 0..<400)
    }

    @Test func theFramesEdgeCutsTheLine() {
        // The line's end is 4 px from the right edge: what follows is out of the frame.
        #expect(reader.cutEnds(of: Self.quad, in: image(width: 157)) == LineReader.CutEnds(start: false, end: true))
    }

    @Test func remainsOfGlyphsTheLineDidNotTakeInCutIt() {
        // The lower half of a letter just before the line (its top under a thumb's edge).
        let remains = (PixelRect(x: 48, y: 28, width: 4, height: 8), UInt8(40))
        let cut = reader.cutEnds(of: Self.quad, in: image(marks: [remains]))
        #expect(cut == LineReader.CutEnds(start: true, end: false))
    }

    /// The price of the rule is text with something right against it; an icon a word's gap away is fine.
    @Test func anIconAWordGapAwayIsNoCut() {
        let icon = (PixelRect(x: 22, y: 20, width: 16, height: 16), UInt8(40))
        #expect(reader.cutEnds(of: Self.quad, in: image(marks: [icon])) == .none)
    }

    /// Light ink on a dark ground that brightens across the line (glare on a phone screen): the ground
    /// past each end is compared with the ground at that end, not with the whole line's median, which
    /// the ink pulls up (seen: a dark-mode e-mail address whose start was taken for cut, ground 18 there,
    /// median 46). A thumb before it still cuts it.
    @Test func unevenGroundUnderLightInkIsNoCut() {
        func screen(thumb: Bool) -> GrayImage {
            var pixels = [UInt8](repeating: 0, count: 200 * 60)
            for y in 0..<60 {
                for x in 0..<200 {
                    var level = 10 + 60 * x / 200
                    if Self.glyphs.contains(where: { (($0.x)..<($0.x + $0.width)).contains(x) && (($0.y)..<($0.y + $0.height)).contains(y) }) {
                        level = 100
                    }
                    if thumb && (20..<55).contains(x) { level = 120 }
                    pixels[y * 200 + x] = UInt8(level)
                }
            }
            return GrayImage(width: 200, height: 60, pixels: pixels)
        }
        #expect(reader.cutEnds(of: Self.quad, in: screen(thumb: false)) == .none)
        #expect(reader.cutEnds(of: Self.quad, in: screen(thumb: true)) == LineReader.CutEnds(start: true, end: false))
    }

    /// What `ImageScanner` types from a line with a cut end: everything that reaches that end is
    /// marked (`scan` reports none of it; the pipeline lets it keep an item, not add one).
    @Test func typedTextReachingACutEndIsMarked() throws {
        let scanner = try ImageScanner(options: TextTests.contentOnly)
        func word(_ text: String, _ x: Int) -> RecognizedWord {
            RecognizedWord(text: text, box: PixelRect(x: x, y: 4, width: 100, height: 30), confidence: 0.9)
        }
        let words = [word("lo@oldmill-studios.com", 0), word("or", 110), word("+1", 220), word("512-555-0173", 260)]
        func marked(_ cut: LineReader.CutEnds) -> [String] {
            let line = RecognizedLine(words: words, box: PixelRect(x: 0, y: 4, width: 360, height: 30))
            let reading = LineReading(line: line, quad: Self.quad, width: 364, height: 40, cut: cut)
            return scanner.text.items(in: reading).map { "\($0.item.payload)\($0.reachesCutEnd ? " cut" : "")" }
        }
        #expect(marked(.none) == ["lo@oldmill-studios.com", "+15125550173"])
        #expect(marked(LineReader.CutEnds(start: true, end: false)) == ["lo@oldmill-studios.com cut", "+15125550173"])
        #expect(marked(LineReader.CutEnds(start: false, end: true)) == ["lo@oldmill-studios.com", "+15125550173 cut"])
        #expect(marked(LineReader.CutEnds(start: true, end: true)) == ["lo@oldmill-studios.com cut", "+15125550173 cut"])
    }

    /// Where glyphs cut a line (the detector split `…oldmill-sludios.com` at its hyphen, 640×480,
    /// poster seed 1), Tesseract reads their remains as a word of no letter or digit (`| Sludios.com`):
    /// closer to the item than half the line's height, they leave no room for a glyph of its own
    /// before it, and the item reaches the cut, as where the network reads nothing of them. A word
    /// before the item, or remains farther away, leave that room.
    @Test func remainsOfGlyphsAtACutEndAreNoEndOfTheItem() throws {
        let scanner = try ImageScanner(options: TextTests.contentOnly)
        func word(_ text: String, _ x: Int, _ width: Int) -> RecognizedWord {
            let step = width / text.unicodeScalars.count
            let symbols = text.unicodeScalars.enumerated().map { index, scalar in
                RecognizedSymbol(text: String(scalar), box: PixelRect(x: x + step * index, y: 4, width: step, height: 30), confidence: 0.9)
            }
            return RecognizedWord(text: text, box: PixelRect.union(symbols.map(\.box))!, confidence: 0.9, symbols: symbols)
        }
        func marked(_ words: [RecognizedWord], _ cut: LineReader.CutEnds) -> [String] {
            let line = RecognizedLine(words: words, box: PixelRect.union(words.map(\.box))!)
            let reading = LineReading(line: line, quad: Self.quad, width: line.box.x + line.box.width + 4, height: 40, cut: cut)
            return scanner.text.items(in: reading).map { "\($0.item.payload)\($0.reachesCutEnd ? " cut" : "")" }
        }
        let atStart = LineReader.CutEnds(start: true, end: false)
        let atEnd = LineReader.CutEnds(start: false, end: true)
        // Remains 10 px before the item, a quarter of the line's height.
        let before = [word("|", 0, 6), word("Sludios.com", 16, 198)]
        #expect(marked(before, atStart) == ["http://sludios.com cut"])
        #expect(marked(before, .none) == ["http://sludios.com"])
        // After the item, at a cut end.
        let after = [word("Sludios.com", 0, 198), word(",", 205, 6)]
        #expect(marked(after, atEnd) == ["http://sludios.com cut"])
        // A word before it, or remains farther away than half the line's height, leave room for a glyph.
        #expect(marked([word("at", 0, 30), word("Sludios.com", 40, 198)], atStart) == ["http://sludios.com"])
        #expect(marked([word("|", 0, 6), word("Sludios.com", 46, 198)], atStart) == ["http://sludios.com"])
    }
}
