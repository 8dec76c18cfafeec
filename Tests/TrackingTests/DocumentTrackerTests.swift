import Foundation
import ScannerCore
import Testing
import Tracking

/// Issue #43: documents as items — added once confirmed, updated when they move, removed after
/// their grace period; a pure state machine (passes and times in, actions out).
@Suite struct DocumentTrackerTests {
    static func quad(_ x: Double, _ y: Double, _ w: Double = 0.4, _ h: Double = 0.3) -> (quad: Quad, score: Double) {
        (Quad(x: x, y: y, width: w, height: h), 0.9)
    }

    /// Deterministic ids: 1, 2, 3, … in the last bytes.
    static func ids() -> @Sendable () -> UUID {
        let counter = Counter()
        return { counter.next() }
    }

    final class Counter: @unchecked Sendable {
        private var n: UInt8 = 0
        private let lock = NSLock()
        func next() -> UUID {
            lock.lock()
            defer { lock.unlock() }
            n += 1
            return UUID(uuid: (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, n))
        }
    }

    func names(_ actions: [TrackerAction]) -> [String] { actions.map { "\($0.name) \($0.item.id.uuid.15)" } }

    @Test func confirmedThenMovedThenGone() {
        var tracker = DocumentTracker(makeID: Self.ids())
        // One pass is no document yet; the second, overlapping, is.
        #expect(tracker.update([Self.quad(0.2, 0.2)], frame: 0, time: 0).isEmpty)
        let added = tracker.update([Self.quad(0.21, 0.2)], frame: 3, time: 0.1)
        #expect(names(added) == ["added 1"])
        #expect(added.first?.item.item.kind == .document && added.first?.item.firstFrame == 0 && added.first?.item.lastFrame == 3)
        // Trembling within the move threshold says nothing; a real move is an update.
        #expect(tracker.update([Self.quad(0.215, 0.205)], frame: 6, time: 0.2).isEmpty)
        // A real move is an update once two passes agree on the new place.
        #expect(tracker.update([Self.quad(0.3, 0.25)], frame: 9, time: 0.3).isEmpty)
        let moved = tracker.update([Self.quad(0.305, 0.25)], frame: 12, time: 0.4)
        #expect(names(moved) == ["updated 1"] && moved.first?.item.item.bounds == Self.quad(0.305, 0.25).quad)
        // Missed for less than the grace period: still there; past it: removed.
        #expect(tracker.update([], frame: 15, time: 1.0).isEmpty && tracker.live.count == 1)
        let removed = tracker.update([], frame: 18, time: 1.3)
        #expect(names(removed) == ["removed 1"] && tracker.live.isEmpty)
        #expect(removed.first?.item.lastFrame == 12)
    }

    /// One pass's corners off where the others agree (a motion-blurred frame): nothing is told, and
    /// the document stays. A document entering is added where two passes agree, or one pass later.
    @Test func aPassThatTheNextDoesNotConfirmMovesNothing() {
        var tracker = DocumentTracker(makeID: Self.ids())
        _ = tracker.update([Self.quad(0.2, 0.2)], frame: 0, time: 0)
        #expect(names(tracker.update([Self.quad(0.2, 0.2)], frame: 3, time: 0.1)) == ["added 1"])
        #expect(tracker.update([Self.quad(0.24, 0.21)], frame: 6, time: 0.2).isEmpty, "off by 4 %, once")
        #expect(tracker.live.first?.item.bounds == Self.quad(0.2, 0.2).quad, "what clients were told, not the lone pass")
        #expect(tracker.update([Self.quad(0.2, 0.2)], frame: 9, time: 0.3).isEmpty, "back: nothing to tell")
        #expect(tracker.live.first?.item.bounds == Self.quad(0.2, 0.2).quad)
        #expect(tracker.update([Self.quad(0.26, 0.2)], frame: 12, time: 0.4).isEmpty)
        #expect(names(tracker.update([Self.quad(0.265, 0.2)], frame: 15, time: 0.5)) == ["updated 1"], "moved, and confirmed")
        var entering = DocumentTracker(makeID: Self.ids())
        _ = entering.update([Self.quad(0.1, 0.2)], frame: 0, time: 0)
        #expect(entering.update([Self.quad(0.2, 0.2)], frame: 3, time: 0.1).isEmpty, "still moving")
        #expect(names(entering.update([Self.quad(0.21, 0.2)], frame: 6, time: 0.2)) == ["added 1"])
        var hurried = DocumentTracker(makeID: Self.ids())
        _ = hurried.update([Self.quad(0.1, 0.2)], frame: 0, time: 0)
        _ = hurried.update([Self.quad(0.2, 0.2)], frame: 3, time: 0.1)
        let late = hurried.update([Self.quad(0.3, 0.2)], frame: 6, time: 0.2)
        #expect(names(late) == ["added 1"] && late.first?.item.item.bounds == Self.quad(0.3, 0.2).quad, "one pass later at most")
    }

    @Test func aLoneSightingIsForgottenAndTwoDocumentsAreTwoItems() {
        var tracker = DocumentTracker(makeID: Self.ids())
        _ = tracker.update([Self.quad(0.1, 0.1)], frame: 0, time: 0)
        // Not seen on the next pass: it starts over (a desk's edge and a shadow, once).
        #expect(tracker.update([], frame: 3, time: 0.1).isEmpty)
        #expect(tracker.update([Self.quad(0.1, 0.1)], frame: 6, time: 0.2).isEmpty)
        // Two apart, each confirmed: two items; each sighting continues one document only.
        let both = tracker.update([Self.quad(0.1, 0.1), Self.quad(0.55, 0.6)], frame: 9, time: 0.3)
        #expect(names(both) == ["added 2"])
        #expect(names(tracker.update([Self.quad(0.1, 0.1), Self.quad(0.55, 0.6)], frame: 12, time: 0.4)) == ["added 3"])
        #expect(tracker.live.count == 2)
        // A sighting that does not overlap enough is another document, not a jump of this one.
        _ = tracker.update([Self.quad(0.1, 0.1), Self.quad(0.55, 0.6)], frame: 15, time: 0.5)
        let far = tracker.update([Self.quad(0.35, 0.1), Self.quad(0.55, 0.6)], frame: 18, time: 0.6)
        #expect(far.isEmpty, "\(names(far))")
        let ended = tracker.removeAll()
        #expect(Set(names(ended)) == ["removed 2", "removed 3"] && tracker.live.isEmpty)
    }
}
