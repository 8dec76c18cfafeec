import ImageDecoding
import Pipeline
import ScannerCore
import TestSupport
import TestTraits
import Testing

/// A box blur of radius `r` (a defocused or moving camera).
func blurred(_ image: GrayImage, radius r: Int) -> GrayImage {
    var out = [UInt8](repeating: 0, count: image.width * image.height)
    for y in 0..<image.height {
        for x in 0..<image.width {
            var total = 0
            var n = 0
            for dy in -r...r {
                for dx in -r...r {
                    let xx = min(max(x + dx, 0), image.width - 1)
                    let yy = min(max(y + dy, 0), image.height - 1)
                    total += Int(image[xx, yy])
                    n += 1
                }
            }
            out[y * image.width + x] = UInt8(total / n)
        }
    }
    return GrayImage(width: image.width, height: image.height, pixels: out)
}

@Suite(.offThePool(minutes: 2)) struct FrameMetricsTests {
    func card() throws -> GrayImage {
        try ImageDecoder().decodeFile(atPath: Fixtures.path("bench-640x480.jpg")).image
    }

    /// Measured on the bench card: sharp ≈ 1500, box-blurred (7×7) ≈ 18. Sensor noise alone scores
    /// high (the noisy blank wall ≈ 94): blank frames are the contrast gate's job, not this one's.
    @Test func sharpTextPassesBlurDoesNot() throws {
        let sharp = try card()
        let threshold = SequenceConfiguration(options: .init()).minimumSharpness
        let s = FrameMetrics.sharpness(sharp)
        let b = FrameMetrics.sharpness(blurred(sharp, radius: 3))
        #expect(s > threshold * 10, "sharp card: \(s)")
        #expect(b < threshold, "blurred card: \(b)")
    }
}
