import Foundation
import ImageDecoding
import Recognition
import ScannerCore
import TestSupport
import TestTraits
import Testing

@testable import TextDetection

@Suite(.offThePool(minutes: 2)) struct TextLineDetectorTests {
    func image(_ name: String, width: Int? = nil) throws -> GrayImage {
        try ImageDecoder().decodeFile(atPath: Fixtures.path(name), targetWidth: width).image
    }

    /// A line's quad holds this pixel point.
    func found(_ lines: [TextLineDetector.GlyphLine], at point: Point) -> TextLineDetector.GlyphLine? {
        lines.first { $0.quad.contains(point) }
    }

    @Test func theLinesOfABusinessCardAreFound() throws {
        // card-us.jpg (1280x720, decoded at 640): the phone, fax, e-mail and URL lines, known from
        // what the recognizer reads there.
        let card = try image("card-us.jpg", width: 640)
        let lines = TextLineDetector().detect(card)
        #expect(lines.count >= 5, "\(lines.count) lines")
        let read = try ImageScanner(options: ScanOptions()).scan(card).filter { $0.kind == .text }
        #expect(read.count >= 4)
        for item in read {
            let center = Point(x: item.bounds.center.x * Double(card.width), y: item.bounds.center.y * Double(card.height))
            #expect(found(lines, at: center) != nil, "no line at \(item.payload) \(center): \(lines.map { $0.quad })")
        }
    }

    @Test func lightOnDarkIsFoundLikeDarkOnLight() throws {
        let card = try image("card-us.jpg", width: 640)
        var inverted = card
        inverted.pixels = card.pixels.map { 255 - $0 }
        let normal = TextLineDetector().detect(card)
        let negative = TextLineDetector().detect(inverted)
        #expect(abs(normal.count - negative.count) <= 1, "\(normal.count) vs \(negative.count)")
    }

    @Test func tiltedLinesKeepTheirAngle() throws {
        // A synthetic line of glyph-like blocks rising 20°.
        var canvas = GrayImage(width: 400, height: 200, filledWith: 230)
        let angle = 20.0 * .pi / 180
        for k in 0..<12 {
            let cx = 60.0 + Double(k) * 22 * cos(angle)
            let cy = 150.0 - Double(k) * 22 * sin(angle)
            // A glyph-like ring: a 3-px stroke around an 11x19 box.
            for dy in -9...9 {
                for dx in -5...5 where abs(dx) >= 3 || abs(dy) >= 7 {
                    let x = Int(cx) + dx
                    let y = Int(cy) + dy
                    canvas.pixels[y * canvas.width + x] = 30
                }
            }
        }
        let lines = TextLineDetector().detect(canvas)
        try #require(lines.count == 1, "\(lines)")
        #expect(abs(abs(lines[0].angle) - angle) < 0.08, "angle \(lines[0].angle)")
    }

    /// On a tilted line, letters run together into one component per word whose box is far taller
    /// than the letters: the quad follows the ink, not the boxes (seen: "oldmill-studios.com/info"
    /// tilted 11° got a quad three times its height and the network read "oldmil-s").
    @Test func aTiltedLineOfRunTogetherLettersIsAsTallAsItsLetters() throws {
        let angle = 15.0 * .pi / 180
        let thickness = 14.0
        // Three words of run-together "letters" (3-px uprights every 7 px), 10 px apart, rising 15°.
        let canvas = Self.runTogetherWords([110, 110, 110], gap: 10, angle: angle, thickness: thickness, period: 7, stroke: 3, left: 30)
        let lines = TextLineDetector().detect(canvas)
        try #require(lines.count == 1, "\(lines)")
        // Each word's box is 14·cos 15° + 110·sin 15° ≈ 42 px tall; the letters, 14 (and the padding).
        #expect(abs(abs(lines[0].angle) - angle) < 0.05, "angle \(lines[0].angle)")
        #expect(lines[0].quad.meanHeight < 2.5 * thickness, "height \(lines[0].quad.meanHeight)")
        #expect(abs(lines[0].textHeight - thickness) < 3, "text height \(lines[0].textHeight)")
    }

    /// Words of a tilted line whose letters ran together are joined by their letters' height, not
    /// their boxes' (seen: `Questions? (415) 555-0169` tilted 12° found without its first word, the
    /// number's start then taken for cut; a card's e-mail address split in two).
    @Test func tiltedWordsOfRunTogetherLettersAreOneLine() throws {
        let angle = 12.0 * .pi / 180
        let thickness = 12.0
        // A long word, a word gap of 7 px, a one-letter word, another gap, a long word.
        let canvas = Self.runTogetherWords([150, 5, 120], gap: 7, angle: angle, thickness: thickness, period: 6, stroke: 2.5, left: 20)
        let detector = TextLineDetector()
        let lines = detector.detect(canvas)
        #expect(lines.count == 1, "\(lines.map { ($0.quad.topLeft, $0.quad.topRight, $0.glyphs) })")
        // What joins them: each word's letter height is its letters' (12 px), not its box's (the
        // long word's is 12·cos 12° + 150·sin 12° ≈ 43 px, and a one-letter word beside it is 14).
        let words = detector.components(detector.inkMasks(canvas).dark, image: canvas, polarity: 0)
        try #require(words.count == 3, "\(words.map { ($0.width, $0.height) })")
        for word in words {
            #expect(abs(Double(word.letterHeight) - thickness) <= 3, "box \(word.width)×\(word.height), letters \(word.letterHeight)")
        }
    }

    /// Words of run-together "letters" on a 480 × 240 light ground, rising at `angle` from (`left`,
    /// 200): uprights `stroke` px wide every `period` px, joined by 2-px strokes at the top and bottom
    /// of their `thickness`; `gap` px between words.
    static func runTogetherWords(
        _ lengths: [Double], gap: Double, angle: Double, thickness: Double, period: Double, stroke: Double, left: Double
    ) -> GrayImage {
        var canvas = GrayImage(width: 480, height: 240, filledWith: 230)
        var start = 0.0
        for length in lengths {
            for s in stride(from: 0.0, to: length, by: 0.5) {
                for t in stride(from: 0.0, to: thickness, by: 0.5) {
                    guard s.truncatingRemainder(dividingBy: period) < stroke || t < 2 || t >= thickness - 2 else { continue }
                    let u = start + s
                    let x = Int(left + u * cos(angle) + t * sin(angle))
                    let y = Int(200 - u * sin(angle) + t * cos(angle) - thickness)
                    canvas.pixels[y * canvas.width + x] = 30
                }
            }
            start += length + gap
        }
        return canvas
    }

    /// A glyph that reaches past its neighbour to a nearer-centred one, and loses it to that
    /// neighbour, links to the neighbour instead (seen: "avery.lindqvist@…" at 1280×720 cut in two at
    /// the dot: "ry" reached past the tall "l" to the short "i", whose centre is level with it, and
    /// the "l" kept the "i").
    @Test func aGlyphThatLosesItsNeighbourLinksToTheOneBetween() throws {
        var canvas = GrayImage(width: 400, height: 200, filledWith: 230)
        func block(_ x: Int, _ top: Int, _ width: Int, _ height: Int, ring: Bool = true) {
            for y in top..<(top + height) {
                for dx in 0..<width where !ring || dx < 2 || dx >= width - 2 || y < top + 2 || y >= top + height - 2 {
                    canvas.pixels[y * canvas.width + x + dx] = 30
                }
            }
        }
        // "ave", "ry" (x-height and a descender), a tall thin "l", a short "i", then "ndqvist".
        for x in [89, 99, 110] { block(x, 117, 9, 12) }
        block(121, 117, 17, 16)
        block(142, 113, 3, 16, ring: false)
        block(146, 118, 3, 11, ring: false)
        for x in [151, 162, 173, 184, 195, 206] { block(x, 117, 9, 12) }
        let lines = TextLineDetector().detect(canvas)
        #expect(lines.count == 1, "\(lines.map { ($0.quad.topLeft, $0.quad.topRight, $0.glyphs) })")
    }

    @Test func aBlankNoisyWallHasNoLines() throws {
        var generator = SeededGenerator(seed: 7)
        var wall = GrayImage(width: 640, height: 480, filledWith: 0)
        for i in wall.pixels.indices {
            let y = i / 640
            wall.pixels[i] = UInt8(clamping: 90 + y / 8 + Int.random(in: -8...8, using: &generator))
        }
        #expect(TextLineDetector().detect(wall).isEmpty)
    }
}
