import ScannerCore
import Testing

@testable import Recognition

/// `RegionStack`: a held-up region's frames registered to the newest and averaged.
@Suite(.timeLimit(.minutes(1))) struct RegionStackTests {
    /// The region that changed: a "card" of glyph-like rows.
    static let region = PixelRect(x: 60, y: 40, width: 200, height: 120)

    /// A frame: rows of glyph-like dark blocks on a light card over a mid-gray desk, the card moved by
    /// (dx, dy) pixels (fractions by averaging the card drawn at the pixels either side), with sensor
    /// noise of ±`noise` levels (seeded: the same arguments, the same frame).
    func frame(dx: Double = 0, dy: Double = 0, noise: Int = 0, seed: UInt64 = 1) -> GrayImage {
        let card = Self.card()
        let (ix, iy) = (Int(dx.rounded(.down)), Int(dy.rounded(.down)))
        let (fx, fy) = (dx - Double(ix), dy - Double(iy))
        var image = GrayImage(width: 320, height: 200, filledWith: 128)
        var state = seed &* 0x9E37_79B9_7F4A_7C15 | 1
        func random(_ bound: Int) -> Int {
            state ^= state << 13
            state ^= state >> 7
            state ^= state << 17
            return Int(state % UInt64(bound))
        }
        for y in 0..<image.height {
            for x in 0..<image.width {
                // The card's value at (x, y) - (dx, dy), bilinear between its pixels.
                func at(_ cx: Int, _ cy: Int) -> Double {
                    guard (0..<card.width).contains(cx), (0..<card.height).contains(cy) else { return 128 }
                    return Double(card.pixels[cy * card.width + cx])
                }
                let (cx, cy) = (x - 50 - ix, y - 30 - iy)
                let value =
                    at(cx, cy) * (1 - fx) * (1 - fy) + at(cx - 1, cy) * fx * (1 - fy) + at(cx, cy - 1) * (1 - fx) * fy + at(cx - 1, cy - 1) * fx * fy
                let noisy = Int(value.rounded()) + (noise > 0 ? random(2 * noise + 1) - noise : 0)
                image.pixels[y * image.width + x] = UInt8(max(0, min(255, noisy)))
            }
        }
        return image
    }

    /// The card (220×140): rows of blocks 2–5 px wide and 4–9 px high, the same in every frame.
    static func card() -> GrayImage {
        var card = GrayImage(width: 220, height: 140, filledWith: 220)
        var state: UInt64 = 7
        for top in stride(from: 12, to: 124, by: 16) {
            var x = 10
            while x < 205 {
                state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
                let r = Int(state >> 33)
                let (w, h, gap) = (2 + r % 4, 4 + (r / 4) % 6, 1 + (r / 24) % 3)
                for y in (top + 9 - h)..<(top + 9) { for xx in x..<min(205, x + w) { card.pixels[y * card.width + xx] = 40 } }
                x += w + gap
            }
        }
        return card
    }

    func meanDifference(_ a: GrayImage, _ b: GrayImage, in r: PixelRect) -> Double {
        var sum = 0
        for y in r.y..<(r.y + r.height) {
            for x in r.x..<(r.x + r.width) { sum += abs(Int(a.pixels[y * a.width + x]) - Int(b.pixels[y * b.width + x])) }
        }
        return Double(sum) / Double(r.width * r.height)
    }

    /// Eight noisy frames of a card held by a shaking hand (moves of a few pixels and fractions of
    /// one): the region averaged is much closer to the clean newest frame than the newest alone, and
    /// the frame outside the region is the newest's, untouched.
    @Test func eightFramesOfAShakenCardAverageCloserToTheCardThanOne() {
        let moves: [(Double, Double)] = [(3.5, -2), (-4, 1.25), (2, 3), (-1.5, -3.5), (5, 0.5), (0.75, 2.5), (-2.25, -1), (0, 0)]
        let frames = moves.enumerated().map { frame(dx: $1.0, dy: $1.1, noise: 40, seed: UInt64($0 + 1)) }
        let (stacked, count) = RegionStack.stacked(frames, region: Self.region)
        #expect(count == 8)
        let clean = frame()
        let one = meanDifference(frames[7], clean, in: Self.region)
        let averaged = meanDifference(stacked, clean, in: Self.region)
        #expect(averaged < 0.6 * one, "averaged \(averaged), one frame \(one)")
        let outside = PixelRect(x: 0, y: 0, width: 320, height: 30)
        #expect(meanDifference(stacked, frames[7], in: outside) == 0)
    }

    /// A frame of something else (a hand passing: noise everywhere) ends the stack: it and the frames
    /// before it are left out, the frames after it averaged; a frame moved beyond `maximumShift` too.
    @Test func aFrameThatMatchesNowhereEndsTheStack() {
        var frames = (0..<8).map { frame(dx: Double($0 % 3), dy: 0, noise: 20, seed: UInt64($0 + 1)) }
        frames[3] = GrayImage(width: 320, height: 200, pixels: (0..<(320 * 200)).map { UInt8(($0 &* 2_654_435_761) >> 24 & 0xFF) })
        #expect(RegionStack.stacked(frames, region: Self.region).count == 4)
        var far = (0..<4).map { frame(dx: 0, dy: 0, noise: 20, seed: UInt64($0 + 1)) }
        far[1] = frame(dx: 20, dy: 0, noise: 20, seed: 9)
        #expect(RegionStack.stacked(far, region: Self.region).count == 2)
    }

    /// One frame, a region too small to register, or frames of another size: the newest as it is.
    @Test func withNothingToAverageTheNewestFrameIsReturned() {
        let newest = frame(noise: 10)
        #expect(RegionStack.stacked([newest], region: Self.region) == (newest, 1))
        let two = [frame(noise: 10, seed: 2), newest]
        #expect(RegionStack.stacked(two, region: PixelRect(x: 10, y: 10, width: 8, height: 8)) == (newest, 1))
        #expect(RegionStack.stacked([GrayImage(width: 100, height: 100, filledWith: 9), newest], region: Self.region) == (newest, 1))
        var one = RegionStack.Configuration()
        one.depth = 1
        #expect(RegionStack.stacked(two, region: Self.region, configuration: one) == (newest, 1))
    }
}
