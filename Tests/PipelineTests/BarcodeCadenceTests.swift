import Pipeline
import Testing

/// Which barcode scan each camera frame gets (issue #41).
@Suite(.timeLimit(.minutes(1))) struct BarcodeCadenceTests {
    @Test func aChangingSceneTakesTurns() {
        var cadence = BarcodeCadence(thoroughEvery: 3)
        let scans = (0..<7).map { _ in cadence.next(sceneChanged: true) }
        #expect(scans == [.thorough, .quick, .quick, .thorough, .quick, .quick, .thorough])
    }

    /// A scene that comes to rest after a quick scan gets one thorough scan, then reuses it; after a
    /// thorough one it reuses at once.
    @Test func aSceneAtRestIsLookedAtThoroughlyOnce() {
        var cadence = BarcodeCadence(thoroughEvery: 3)
        #expect([true, true].map { cadence.next(sceneChanged: $0) } == [.thorough, .quick])
        #expect((0..<3).map { _ in cadence.next(sceneChanged: false) } == [.thorough, .reuse, .reuse])
        // The scene changes again: the turns count from the thorough look.
        #expect((0..<3).map { _ in cadence.next(sceneChanged: true) } == [.quick, .quick, .thorough])
        #expect((0..<2).map { _ in cadence.next(sceneChanged: false) } == [.reuse, .reuse])
        // A short rest between changes: one thorough look each time it comes to rest after a quick scan.
        #expect([true, false, true, false].map { cadence.next(sceneChanged: $0) } == [.quick, .thorough, .quick, .thorough])
    }

    /// Every scan thorough (1, or nonsense below it): a scene at rest is reused from the first frame.
    @Test func everyScanThorough() {
        for every in [1, 0, -5] {
            var cadence = BarcodeCadence(thoroughEvery: every)
            #expect((0..<3).map { _ in cadence.next(sceneChanged: true) } == [.thorough, .thorough, .thorough])
            #expect(cadence.next(sceneChanged: false) == .reuse)
        }
    }

    /// Nothing scanned yet and nothing changed (the gate's first verdict): nothing to reuse but nothing
    /// new either; the first change gets the first, thorough, scan.
    @Test func restBeforeAnyScan() {
        var cadence = BarcodeCadence(thoroughEvery: 3)
        #expect(cadence.next(sceneChanged: false) == .reuse)
        #expect(cadence.next(sceneChanged: true) == .thorough)
    }
}
