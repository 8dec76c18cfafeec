import Foundation
import ImageDecoding
import Pipeline
import ScannerCore
import TestSupport
import TestTraits
import Testing

/// A still camera never sends the same pixels twice; the gate must tell that from something coming
/// into view (issue #14).
@Suite(.offThePool(minutes: 2)) struct SceneChangeGateTests {
    /// The bench card (640×480) as the still scene.
    func scene() throws -> GrayImage {
        try ImageDecoder().decodeFile(atPath: Fixtures.path("bench-640x480.jpg")).image
    }

    /// `image` as a camera sends it again: every pixel scaled by `exposure` (auto-exposure breathing)
    /// plus Gaussian sensor noise of `sigma` levels.
    func shot(_ image: GrayImage, exposure: Double = 1, sigma: Double, seed: UInt64) -> GrayImage {
        var generator = Noise(seed: seed)
        var out = image
        for i in out.pixels.indices {
            out.pixels[i] = UInt8(clamping: Int((Double(image.pixels[i]) * exposure + generator.gaussian() * sigma).rounded()))
        }
        return out
    }

    func gate(readFirst image: GrayImage) -> SceneChangeGate {
        var gate = SceneChangeGate()
        gate.rebase(on: FrameMetrics.thumbnail(image))
        return gate
    }

    @Test func theFirstFrameIsAChange() throws {
        #expect(!SceneChangeGate().isUnchanged(FrameMetrics.thumbnail(try scene())))
    }

    /// Noise of 8 levels per pixel (a dim webcam's gain) on every frame of a still scene: no frame
    /// of thirty is a change.
    @Test func sensorNoiseAloneIsNoChange() throws {
        let still = try scene()
        let gate = gate(readFirst: shot(still, sigma: 8, seed: 1))
        for seed in 2...31 {
            let thumbnail = FrameMetrics.thumbnail(shot(still, sigma: 8, seed: UInt64(seed)))
            let cells = SceneChangeGate.changedCells(from: gate.reference!, to: thumbnail, gate.configuration)
            #expect(gate.isUnchanged(thumbnail) == (cells < 2), "the gate's verdict is its count")
            #expect(cells < 2, "frame \(seed): \(cells) cells changed")
        }
    }

    /// Auto-exposure drifting 10% either way, with noise: no change. (The mean thumbnail difference
    /// the gate replaced was 5–10 levels here, five to ten times its threshold.)
    @Test func exposureDriftIsNoChange() throws {
        let still = try scene()
        let gate = gate(readFirst: shot(still, sigma: 4, seed: 1))
        for (k, exposure) in [0.9, 0.95, 1.05, 1.1].enumerated() {
            let thumbnail = FrameMetrics.thumbnail(shot(still, exposure: exposure, sigma: 4, seed: UInt64(10 + k)))
            let unchanged = gate.isUnchanged(thumbnail)
            #expect(unchanged, "exposure \(exposure)")
        }
    }

    /// A card's edge coming in from the left, a tenth of the frame wide, is a change on its first frame.
    @Test func aCardComingInIsAChangeOnItsFirstFrame() throws {
        let still = try scene()
        let gate = gate(readFirst: shot(still, sigma: 6, seed: 1))
        var entering = shot(still, sigma: 6, seed: 2)
        for y in 100..<380 {
            for x in 0..<64 { entering.pixels[y * entering.stride + x] = (x / 6 + y / 9) % 3 == 0 ? 40 : 235 }
        }
        let card = gate.isUnchanged(FrameMetrics.thumbnail(entering))
        #expect(!card)
        // And the scene moved by 40 px (the camera knocked) is a change too.
        let moved = still.cropped(to: PixelRect(x: 40, y: 0, width: still.width - 40, height: still.height)).scaled(by: 1)
        let knocked = gate.isUnchanged(FrameMetrics.thumbnail(moved))
        #expect(!knocked)
    }

    /// A card held close, over most of the view, is a change: its cells are no noise, however many.
    @Test func aCardOverMostOfTheViewIsAChange() throws {
        let still = try scene()
        let gate = gate(readFirst: shot(still, sigma: 4, seed: 1))
        var close = shot(still, sigma: 4, seed: 2)
        for y in 0..<still.height {
            for x in 0..<(still.width * 9 / 10) { close.pixels[y * close.stride + x] = (x / 8 + y / 12) % 4 == 0 ? 60 : 200 }
        }
        let unchanged = gate.isUnchanged(FrameMetrics.thumbnail(close))
        #expect(!unchanged)
    }

    /// One cell 30 levels darker (a fly, a speck of shadow) is no scene change; two such cells are.
    @Test func oneChangedCellIsNotAScene() throws {
        let still = try scene()
        let gate = gate(readFirst: still)
        let cellW = still.width / 32
        let cellH = still.height / 32
        func darker(_ cells: [(Int, Int)]) -> [UInt8] {
            var image = still
            for (cx, cy) in cells {
                for y in (cy * cellH)..<((cy + 1) * cellH) {
                    for x in (cx * cellW)..<((cx + 1) * cellW) {
                        image.pixels[y * image.stride + x] = UInt8(max(0, Int(image.pixels[y * image.stride + x]) - 30))
                    }
                }
            }
            return FrameMetrics.thumbnail(image)
        }
        let one = gate.isUnchanged(darker([(7, 5)]))
        let two = gate.isUnchanged(darker([(7, 5), (20, 12)]))
        #expect(one)
        #expect(!two)
    }

    /// A frame as noisy as the threshold itself raises the bar with it: the median cell difference
    /// times `noiseFactor` decides, not the fixed floor.
    @Test func theBarRisesWithTheNoise() {
        let reference = [UInt8](repeating: 100, count: 1024)
        var current = reference
        // Every cell off by a few levels (noise), one in four by 18: above the 8-level floor, below
        // 6 × the noise; with a factor of 2 those cells count.
        for i in current.indices { current[i] = i % 2 == 0 ? 103 : 97 }
        for i in stride(from: 0, to: current.count, by: 4) { current[i] = 118 }
        var configuration = SceneChangeGate.Configuration()
        #expect(SceneChangeGate.changedCells(from: reference, to: current, configuration) == 0)
        configuration.noiseFactor = 2
        #expect(SceneChangeGate.changedCells(from: reference, to: current, configuration) == 256)
    }
}

/// Seeded Gaussian noise (Box–Muller over a 64-bit LCG).
struct Noise {
    var state: UInt64
    init(seed: UInt64) { state = seed &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407 }
    mutating func uniform() -> Double {
        state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
        return (Double(state >> 11) + 0.5) / Double(1 << 53)
    }
    mutating func gaussian() -> Double {
        (-2 * log(uniform())).squareRoot() * cos(2 * .pi * uniform())
    }
}
