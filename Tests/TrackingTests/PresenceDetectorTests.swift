import TestSupport
import Testing
import Tracking

/// Issue #43: whether something is held up, from thumbnails — the evidence guidance needs when no text
/// line is found (a card in a dark corner). A pure state machine: thumbnails and times in, a verdict out.
@Suite struct PresenceDetectorTests {
    /// A 32×32 thumbnail of a desk at `level` (a gentle gradient, noise of ±1 level), with a card of
    /// luma `card` over `cardCells` cells from the top-left of row 8, shifted `shift` cells across.
    static func frame(level: Double, card: Double? = nil, cardCells: Int = 120, shift: Int = 0, seed: Int, gain: Double = 1) -> [UInt8] {
        var random = SeededGenerator(seed: UInt64(seed))
        return (0..<1024).map { cell in
            let (row, column) = (cell / 32, cell % 32)
            var value = level * (0.85 + 0.3 * Double(column) / 32)
            let inCard = row >= 8 && row < 8 + cardCells / 12 && column >= 10 + shift && column < 22 + shift
            if let card, inCard { value = card }
            value = value * gain + Double(random.next() % 3) - 1
            return UInt8(max(0, min(255, value.rounded())))
        }
    }

    /// Where something is held up (issue #52: where the text stage looks closely): the card's cells,
    /// not a lone cell that changed (a speck, noise).
    @Test func theChangedRegionIsTheCardsCells() throws {
        var presence = PresenceDetector()
        _ = presence.observe(Self.frame(level: 120, seed: 1), time: 0)
        #expect(presence.changedRegion == nil, "the scene behind, nothing changed")
        var withCard = Self.frame(level: 120, card: 240, seed: 2)
        withCard[30 * 32 + 2] = 250  // one lone cell far from the card
        let held = presence.observe(withCard, time: 0.1)
        #expect(held)
        let region = try #require(presence.changedRegion)
        // Rows 8..<18 and columns 10..<22 of the 32×32 grid.
        #expect(abs(region.x - 10.0 / 32) < 1e-9 && abs(region.width - 12.0 / 32) < 1e-9, "\(region)")
        #expect(abs(region.y - 8.0 / 32) < 1e-9 && abs(region.height - 10.0 / 32) < 1e-9, "\(region)")
    }

    @Test func anEmptySceneNoiseAndFlickerIsNothing() {
        var presence = PresenceDetector()
        for (n, gain) in zip(0..<100, (0..<100).map { 1 + 0.04 * Double($0 % 7 - 3) / 3 }) {
            let held = presence.observe(Self.frame(level: 14, seed: n, gain: gain), time: Double(n) / 10)
            #expect(!held, "sample \(n)")
        }
        // The room's light halved at once (a cloud, the auto-exposure): every cell alike, nothing held up.
        let afterTheLightChanged = presence.observe(Self.frame(level: 14, seed: 100, gain: 0.5), time: 10.1)
        #expect(!afterTheLightChanged)
    }

    @Test func aCardInTheDarkIsSomethingHeldUpAsOneInTheLightIs() {
        for (desk, card) in [(14.0, 30.0), (120.0, 240.0), (120.0, 40.0)] {
            var presence = PresenceDetector()
            for n in 0..<10 { _ = presence.observe(Self.frame(level: desk, seed: n), time: Double(n) / 10) }
            // Held by a hand: it trembles a cell to and fro.
            for n in 10..<40 {
                let held = presence.observe(Self.frame(level: desk, card: card, shift: n % 2, seed: n), time: Double(n) / 10)
                #expect(held, "desk \(desk), card \(card), sample \(n): \(presence.changedShare)")
            }
            let takenAway = presence.observe(Self.frame(level: desk, seed: 40), time: 4.0)
            #expect(!takenAway, "taken away")
        }
        // Too small a patch (a fingertip, a passing shadow's edge) is not something held up.
        var presence = PresenceDetector()
        _ = presence.observe(Self.frame(level: 14, seed: 0), time: 0)
        let fingertip = presence.observe(Self.frame(level: 14, card: 30, cardCells: 24, seed: 1), time: 0.1)
        #expect(!fingertip)
    }

    /// A card laid on the desk and left there becomes part of the scene once still for `settleAfter`;
    /// one held in a hand never is.
    @Test func whatIsLaidDownAndLeftSettlesWhatIsHeldDoesNot() {
        let settle = PresenceDetector.Configuration().settleAfter
        var laid = PresenceDetector()
        var held = PresenceDetector()
        for n in 0..<5 {
            _ = laid.observe(Self.frame(level: 14, seed: n), time: Double(n) / 10)
            _ = held.observe(Self.frame(level: 14, seed: n), time: Double(n) / 10)
        }
        var laidSays: [Bool] = []
        var heldSays: [Bool] = []
        for n in 5..<(5 + Int(settle * 10) + 20) {
            let time = Double(n) / 10
            laidSays.append(laid.observe(Self.frame(level: 14, card: 30, seed: n), time: time))
            heldSays.append(held.observe(Self.frame(level: 14, card: 30, shift: n % 2, seed: n), time: time))
        }
        #expect(laidSays.prefix(Int(settle * 10) - 2).allSatisfy { $0 } && !laidSays.suffix(10).contains(true), "\(laidSays)")
        #expect(heldSays.allSatisfy { $0 })
    }

    /// A hand's slow sway, looked at every frame at 30 fps, is as much motion as looked at ten times a
    /// second: a card that moves 3 levels from one frame to the next moves 8 over a tenth of a
    /// second, and never settles into the desk (issue #55: one presence detector sees every frame,
    /// where the text stage's saw only its passes).
    @Test func aSwayingCardDoesNotSettleHoweverOftenItIsLookedAt() {
        // A flat desk at 100, a card at 150 over columns 10..<20 of rows 8..<20, its right edge's
        // column covered by `w` of the card as the hand sways (0 → 1 → 0 every 1.2 s).
        func frame(time: Double) -> [UInt8] {
            let phase = time.truncatingRemainder(dividingBy: 1.2) / 0.6
            let w = phase <= 1 ? phase : 2 - phase
            return (0..<1024).map { cell in
                let (row, column) = (cell / 32, cell % 32)
                guard row >= 8 && row < 20 else { return 100 }
                if column >= 10 && column < 20 { return 150 }
                return column == 20 ? UInt8((100 + 50 * w).rounded()) : 100
            }
        }
        let settle = PresenceDetector.Configuration().settleAfter
        for fps in [10.0, 30.0] {
            var presence = PresenceDetector()
            _ = presence.observe([UInt8](repeating: 100, count: 1024), time: 0)
            let samples = Int((settle + 2) * fps)
            let says = (1...samples).map { n in presence.observe(frame(time: Double(n) / fps), time: Double(n) / fps) }
            let notHeld = says.indices.filter { !says[$0] }.prefix(3).map { Double($0 + 1) / fps }
            #expect(notHeld.isEmpty, "at \(fps) fps: not held up at \(notHeld) s")
        }
    }

    /// A card that comes in between two stillness samples, in front of a desk that has been still
    /// for longer than `settleAfter`, is held up from its first frame, and is not taken for the
    /// desk: the frame that shows it ends the stillness, sample or not (a frame between samples had
    /// settled the card into the scene, and the empty desk was then "held up" for seconds after it
    /// left).
    @Test func aCardComingInBetweenSamplesInFrontOfASettledDeskIsHeldUp() {
        let settle = PresenceDetector.Configuration().settleAfter
        var presence = PresenceDetector()
        var n = 0
        let deskFrames = Int(settle * 30) * 2
        for _ in 0..<deskFrames {
            _ = presence.observe(Self.frame(level: 120, seed: n), time: Double(n) / 30)
            n += 1
        }
        // The card from a frame one after a sample (samples every third frame from 0), held 3 s.
        if n % 3 == 0 {
            _ = presence.observe(Self.frame(level: 120, seed: n), time: Double(n) / 30)
            n += 1
        }
        var held: [Bool] = []
        for _ in 0..<90 {
            held.append(presence.observe(Self.frame(level: 120, card: 240, shift: (n / 3) % 2, seed: n), time: Double(n) / 30))
            n += 1
        }
        #expect(held.allSatisfy { $0 }, "held up on \(held.count { $0 }) of \(held.count) frames")
        var empty: [Bool] = []
        for _ in 0..<30 {
            empty.append(presence.observe(Self.frame(level: 120, seed: n), time: Double(n) / 30))
            n += 1
        }
        #expect(!empty.dropFirst().contains(true), "the empty desk after the card: \(empty.count { $0 }) frames held up")
    }
}
