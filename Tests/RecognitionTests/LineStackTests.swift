import ScannerCore
import Testing

@testable import Recognition

/// `LineStack`: a line's frames registered to the first and averaged.
@Suite(.timeLimit(.minutes(1))) struct LineStackTests {
    /// Where the line lies in the scene's first frame.
    static let quad = Quad(x: 40, y: 30, width: 160, height: 14)

    /// A scene of glyph-like dark blocks on a light ground along `quad`, moved by (dx, dy) pixels, with
    /// sensor noise of ±`noise` levels (seeded: the same arguments, the same frame).
    func frame(dx: Int = 0, dy: Int = 0, noise: Int = 0, seed: UInt64 = 1, inverted: Bool = false) -> GrayImage {
        var image = GrayImage(width: 260, height: 90, filledWith: 215)
        var state = seed &* 0x9E37_79B9_7F4A_7C15 | 1
        func random(_ bound: Int) -> Int {
            state ^= state << 13
            state ^= state >> 7
            state ^= state << 17
            return Int(state % UInt64(bound))
        }
        // Glyphs: blocks 2–5 px wide, 4–10 px high, with 1–3 px gaps, the same in every frame.
        var glyphs = Glyphs(seed: 7)
        var x = 44
        while x < 196 {
            let (w, h, gap) = glyphs.next()
            for y in (41 - h)..<41 { for xx in x..<min(196, x + w) { image.pixels[(y + dy) * image.width + xx + dx] = 40 } }
            x += w + gap
        }
        for i in image.pixels.indices {
            let value = Int(image.pixels[i]) + (noise > 0 ? random(2 * noise + 1) - noise : 0)
            image.pixels[i] = UInt8(max(0, min(255, inverted ? 255 - value : value)))
        }
        return image
    }

    struct Glyphs {
        var state: UInt64
        init(seed: UInt64) { state = seed }
        mutating func next() -> (Int, Int, Int) {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            let r = Int(state >> 33)
            return (2 + r % 4, 4 + (r / 4) % 7, 1 + (r / 28) % 3)
        }
    }

    func moved(_ quad: Quad, _ dx: Double, _ dy: Double) -> Quad {
        let d = Point(x: dx, y: dy)
        return Quad(topLeft: quad.topLeft + d, topRight: quad.topRight + d, bottomRight: quad.bottomRight + d, bottomLeft: quad.bottomLeft + d)
    }

    func straighten(_ image: GrayImage) -> (Quad) -> GrayImage { { image.rectified($0, height: 48) } }

    func meanDifference(_ a: GrayImage, _ b: GrayImage) -> Double {
        Double(zip(a.pixels, b.pixels).reduce(0) { $0 + abs(Int($1.0) - Int($1.1)) }) / Double(a.pixels.count)
    }

    /// Five noisy frames of a line held by a shaking hand, each found by the detector a pixel off:
    /// their average, registered by the line's pixels, is much closer to the clean line than one frame.
    @Test func theAverageOfAShakenLinesFramesIsCloserToTheLineThanOneFrame() throws {
        let moves = [(0, 0), (3, 1), (-2, 2), (1, -2), (4, -1)]
        // The detector's error on each frame, beside the hand's move.
        let detectorError = [(0.0, 0.0), (-1.0, 1.0), (1.0, 0.0), (0.0, -1.0), (1.0, 1.0)]
        var stack = LineStack()
        for (index, (move, error)) in zip(moves, detectorError).enumerated() {
            let image = frame(dx: move.0, dy: move.1, noise: 40, seed: UInt64(index + 1))
            stack.add(moved(Self.quad, Double(move.0) + error.0, Double(move.1) + error.1), in: image, straighten: straighten(image))
        }
        #expect(stack.strips.count == 5)
        let clean = frame().rectified(Self.quad, height: 48)
        let average = try #require(stack.average)
        let single = meanDifference(stack.strips[0], clean)
        #expect(meanDifference(average, clean) < 0.6 * single, "average \(meanDifference(average, clean)), one frame \(single)")
    }

    /// A line that came closer (its quad a fifth longer) or a frame of something else where the line
    /// was (the match fails) starts the stack again; it keeps the newest `depth` strips.
    @Test func theStackStartsAgainWhenTheLineChangesAndKeepsTheNewestFrames() {
        let image = frame(noise: 10)
        var stack = LineStack()
        for _ in 0..<(stack.configuration.depth + 3) { stack.add(Self.quad, in: image, straighten: straighten(image)) }
        #expect(stack.strips.count == stack.configuration.depth)
        let longer = Quad(x: 40, y: 30, width: 195, height: 14)
        stack.add(longer, in: image, straighten: straighten(image))
        #expect(stack.strips.count == 1, "a fifth longer")
        stack.add(longer, in: image, straighten: straighten(image))
        #expect(stack.strips.count == 2)
        let other = frame(noise: 10, inverted: true)
        stack.add(longer, in: other, straighten: straighten(other))
        #expect(stack.strips.count == 1, "something else")
        // A quad over a whole card is no line of small print: not stacked (its registration would
        // cost seconds a frame), and its stack is emptied.
        let card = Quad(x: 10, y: 5, width: 240, height: LineStack.Configuration().maximumHeight + 1)
        stack.add(card, in: image, straighten: straighten(image))
        #expect(stack.strips.isEmpty && stack.average == nil)
    }
}
