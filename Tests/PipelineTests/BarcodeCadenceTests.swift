import Pipeline
import ScannerCore
import Testing

/// Which barcode scan each camera frame gets (issue #41).
@Suite(.timeLimit(.minutes(1))) struct BarcodeCadenceTests {
    @Test func aChangingSceneTakesTurns() {
        var cadence = BarcodeCadence(thoroughEvery: 3)
        let scans = (0..<7).map { _ in cadence.next(sceneChanged: true, heldUp: nil, time: 0) }
        #expect(scans == [.thorough, .quick, .quick, .thorough, .quick, .quick, .thorough])
    }

    /// A scene that comes to rest after a quick scan gets one thorough scan, then reuses it; after a
    /// thorough one it reuses at once.
    @Test func aSceneAtRestIsLookedAtThoroughlyOnce() {
        var cadence = BarcodeCadence(thoroughEvery: 3)
        #expect([true, true].map { cadence.next(sceneChanged: $0, heldUp: nil, time: 0) } == [.thorough, .quick])
        #expect((0..<3).map { _ in cadence.next(sceneChanged: false, heldUp: nil, time: 0) } == [.thorough, .reuse, .reuse])
        // The scene changes again: the turns count from the thorough look.
        #expect((0..<3).map { _ in cadence.next(sceneChanged: true, heldUp: nil, time: 0) } == [.quick, .quick, .thorough])
        #expect((0..<2).map { _ in cadence.next(sceneChanged: false, heldUp: nil, time: 0) } == [.reuse, .reuse])
        // A short rest between changes: one thorough look each time it comes to rest after a quick scan.
        #expect([true, false, true, false].map { cadence.next(sceneChanged: $0, heldUp: nil, time: 0) } == [.quick, .thorough, .quick, .thorough])
    }

    /// Every scan thorough (1, or nonsense below it): a scene at rest is reused from the first frame.
    @Test func everyScanThorough() {
        for every in [1, 0, -5] {
            var cadence = BarcodeCadence(thoroughEvery: every)
            #expect((0..<3).map { _ in cadence.next(sceneChanged: true, heldUp: nil, time: 0) } == [.thorough, .thorough, .thorough])
            #expect(cadence.next(sceneChanged: false, heldUp: nil, time: 0) == .reuse)
        }
    }

    /// Nothing scanned yet and nothing changed (the gate's first verdict): nothing to reuse but nothing
    /// new either; the first change gets the first, thorough, scan.
    @Test func restBeforeAnyScan() {
        var cadence = BarcodeCadence(thoroughEvery: 3)
        #expect(cadence.next(sceneChanged: false, heldUp: nil, time: 0) == .reuse)
        #expect(cadence.next(sceneChanged: true, heldUp: nil, time: 0) == .thorough)
    }

    /// A card held still that holds no code (issue #52): the gate sees its jitter as change on every
    /// frame; once it has been still for `restingScanEvery` and a thorough scan then found nothing,
    /// it is scanned only every `restingScanEvery`; when it moves, or a scan finds something, every
    /// changed frame is scanned again.
    @Test func aStillCardWithoutCodesIsScannedEveryRestingInterval() {
        let card = NormalizedRect(x: 0.3, y: 0.3, width: 0.4, height: 0.3)
        var camera = HeldUp()
        // Held still for half a second: every frame scanned (a code coming to rest is read as it comes).
        #expect(!camera.scans(15, card, found: false).contains(.reuse))
        // The next thorough scan finds nothing: the rest begins, one scan each half second.
        let resting = camera.scans(45, card, found: false)
        #expect(resting.prefix(3).contains(.thorough))
        let scanned = resting.filter { $0 != .reuse }.count
        #expect(scanned >= 3 && scanned <= 5, "\(resting)")
        // A hand's jitter is not a move; a move is: every changed frame is scanned again.
        let jittered = NormalizedRect(x: card.x + 0.03, y: card.y - 0.02, width: card.width, height: card.height)
        #expect(camera.scans(10, jittered, found: false).filter { $0 != .reuse }.count <= 2)
        let moved = NormalizedRect(x: card.x + 0.2, y: card.y, width: card.width, height: card.height)
        #expect(!camera.scans(10, moved, found: false).contains(.reuse))
        // Still again with a code in it: found on every scan, never rested on.
        #expect(!camera.scans(45, moved, found: true).contains(.reuse))
    }

    /// A label held still whose codes were found: once it has rested and a thorough scan found codes,
    /// the frames between whole scans (every `restingScanEvery`) are scanned around its codes; a code
    /// not found there ends it (every frame scanned whole again), and so does a move.
    @Test func aStillLabelWithCodesIsScannedAroundThemBetweenWholeScans() {
        let label = NormalizedRect(x: 0.2, y: 0.2, width: 0.5, height: 0.4)
        var camera = HeldUp()
        // Coming to rest: every frame scanned whole.
        #expect(camera.scans(15, label).allSatisfy { $0 == .quick || $0 == .thorough })
        // Rested: around the codes on most frames, a whole scan every half second, never a reuse.
        let resting = camera.scans(60, label)
        #expect(!resting.contains(.reuse))
        #expect(resting.filter { $0 == .around }.count >= 45, "\(resting)")
        let whole = resting.filter { $0 == .quick || $0 == .thorough }.count
        #expect(whole >= 3 && whole <= 7, "\(resting)")
        // Nothing found around the codes, or one of them lost: the next frame is scanned whole.
        for lost in [(foundAnything: false, lostAny: true), (foundAnything: true, lostAny: true)] {
            _ = camera.scans(20, label)
            var scan = BarcodeCadence.Scan.reuse
            while scan != .around {
                scan = camera.next(label)
                if scan != .around { camera.cadence.scanned(foundAnything: true) }
            }
            camera.cadence.scanned(foundAnything: lost.foundAnything, lostAny: lost.lostAny)
            #expect(camera.scans(1, label) != [.around])
        }
        // A move ends the rest: every changed frame scanned whole.
        let moved = NormalizedRect(x: label.x + 0.2, y: label.y, width: label.width, height: label.height)
        #expect(camera.scans(14, moved).allSatisfy { $0 == .quick || $0 == .thorough })
        // An unchanged frame is never scanned around: the last result stands.
        _ = camera.scans(40, moved)
        #expect(camera.cadence.next(sceneChanged: false, heldUp: moved, time: camera.time) != .around)
    }

    /// Nothing held up and a scene the gate sees change (light, noise) rests the same way; a card
    /// coming in ends the rest at once.
    @Test func theDeskRestsAndACardComingInEndsIt() {
        var camera = HeldUp()
        let desk = camera.scans(60, nil, found: false)
        #expect(desk.suffix(30).filter { $0 != .reuse }.count <= 2)
        #expect(camera.scans(1, NormalizedRect(x: 0.1, y: 0.1, width: 0.3, height: 0.3), found: false) != [.reuse])
    }
}

/// A camera's changed frames, 1/30 s apart, handed to a cadence that scans twice a second at rest.
private struct HeldUp {
    var cadence = BarcodeCadence(thoroughEvery: 3, restingScanEvery: 0.5)
    var time = 0.0

    /// The scan of the next frame, with `region` held up.
    mutating func next(_ region: NormalizedRect?) -> BarcodeCadence.Scan {
        time += 1.0 / 30
        return cadence.next(sceneChanged: true, heldUp: region, time: time)
    }

    /// The scans of `frames` frames with `region` held up, each scan finding something or not.
    mutating func scans(_ frames: Int, _ region: NormalizedRect?, found: Bool = true) -> [BarcodeCadence.Scan] {
        (0..<frames).map { _ in
            let scan = next(region)
            if scan != .reuse { cadence.scanned(foundAnything: found) }
            return scan
        }
    }
}
