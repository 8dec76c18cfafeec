import ScannerCore
import Testing
import Tracking

/// issue #17: guidance for the person at the kiosk, as a pure state machine: samples in, changes out.
@Suite struct GuidanceAdvisorTests {
    static func sample(
        _ time: Double, text: Bool = true, brightness: Double = 120, saturated: Double = 0, sharpness: Double = 500, motion: Double = 1,
        glyph: Double? = 20, held: Bool = false
    ) -> GuidanceSample {
        GuidanceSample(
            time: time, textInView: text, brightness: brightness, saturated: saturated, sharpness: sharpness, motion: motion,
            largestTextHeight: glyph, somethingHeldUp: held)
    }

    @Test func eachConditionHasItsHintAndLightComesFirst() {
        #expect(GuidanceAdvisor.hint(for: Self.sample(0)) == nil)
        #expect(GuidanceAdvisor.hint(for: Self.sample(0, brightness: 30, held: true)) == .tooDark)
        #expect(GuidanceAdvisor.hint(for: Self.sample(0, brightness: 230, saturated: 0.5)) == .tooBright)
        #expect(GuidanceAdvisor.hint(for: Self.sample(0, saturated: 0.2)) == .glare)
        #expect(GuidanceAdvisor.hint(for: Self.sample(0, motion: 30)) == .holdStill)
        #expect(GuidanceAdvisor.hint(for: Self.sample(0, sharpness: 10)) == .blurry)
        #expect(GuidanceAdvisor.hint(for: Self.sample(0, glyph: 5)) == .moveCloser)
        #expect(GuidanceAdvisor.hint(for: Self.sample(0, brightness: 30, sharpness: 10, motion: 30, held: true)) == .tooDark)
        // White paper in daylight (a bright frame, a little blown out) needs nothing.
        #expect(GuidanceAdvisor.hint(for: Self.sample(0, brightness: 210, saturated: 0.07)) == nil)
    }

    /// Issue #43: something held up with no line found on it (a card in a dark corner) gets the hints
    /// that need no text; lines found in the dark with nothing held up are the noise's, and get none.
    @Test func somethingHeldUpGetsTheLightsAndMotionsHintsAndDarkLinesAloneNothing() {
        #expect(GuidanceAdvisor.hint(for: Self.sample(0, text: false, brightness: 15, held: true)) == .tooDark)
        #expect(GuidanceAdvisor.hint(for: Self.sample(0, text: false, brightness: 230, saturated: 0.5, held: true)) == .tooBright)
        #expect(GuidanceAdvisor.hint(for: Self.sample(0, text: false, motion: 30, held: true)) == .holdStill)
        for quiet in [
            Self.sample(0, text: false, sharpness: 10, held: true), Self.sample(0, text: false, saturated: 0.2, held: true),
            Self.sample(0, text: false, glyph: 5, held: true), Self.sample(0, text: false, held: true),
        ] {
            #expect(GuidanceAdvisor.hint(for: quiet) == nil, "blur, glare and size need text to judge")
        }
        #expect(GuidanceAdvisor.hint(for: Self.sample(0, brightness: 15)) == nil, "lines in the dark, nothing held up")
        #expect(GuidanceAdvisor.hint(for: Self.sample(0, brightness: 15, held: true)) == .tooDark)
    }

    @Test func nothingInViewMeansNoGuidanceHoweverDark() {
        var advisor = GuidanceAdvisor()
        let changes = (0..<30).compactMap { advisor.observe(Self.sample(Double($0) / 10, text: false, brightness: 5, sharpness: 1)) }
        #expect(changes.isEmpty)
    }

    @Test func aHintHoldsForThreeSamplesAndChangesAtMostOnceASecond() {
        var advisor = GuidanceAdvisor()
        var said: [(Double, Guidance)] = []
        func feed(_ samples: [GuidanceSample]) { for s in samples { if let change = advisor.observe(s) { said.append((s.time, change)) } } }
        // One dark frame among bright ones is noise.
        feed([Self.sample(0.0), Self.sample(0.1, brightness: 20, held: true), Self.sample(0.2), Self.sample(0.3)])
        #expect(said.isEmpty)
        // Dark for good: told on the third dark sample.
        feed((4..<8).map { Self.sample(Double($0) / 10, brightness: 20, held: true) })
        #expect(said.map(\.1) == [.hint(.tooDark)] && said.first?.0 == 0.6)
        // The light comes back at once: cleared, but not before a second has passed since.
        feed((8..<20).map { Self.sample(Double($0) / 10) })
        #expect(said.map(\.1) == [.hint(.tooDark), .cleared])
        #expect(said.last.map { $0.0 >= 1.6 } == true, "\(said)")
    }

    @Test func resetSaysWhetherAHintWasShowing() {
        var advisor = GuidanceAdvisor()
        let nothingShowing = advisor.reset()
        #expect(!nothingShowing)
        for t in 0..<3 { _ = advisor.observe(Self.sample(Double(t), brightness: 10, held: true)) }
        #expect(advisor.current == .tooDark)
        let showing = advisor.reset()
        #expect(showing && advisor.current == nil)
    }
}
