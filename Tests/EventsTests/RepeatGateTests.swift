import Foundation
import ScannerCore
import ScannerProtocol
import Testing
import Tracking

@testable import Events

/// issue #17: a subscriber's `repeat` rule, without threads or a daemon: item events and times in.
@Suite struct RepeatGateTests {
    static func item(_ payload: String, id: UUID = UUID(), symbology: Symbology = .qr) -> TrackedItem {
        TrackedItem(
            id: id,
            item: RecognizedItem(
                kind: .barcode, symbology: symbology, payload: payload, bounds: Quad(x: 0, y: 0, width: 0.1, height: 0.1), confidence: 1),
            firstFrame: 0, lastFrame: 0)
    }

    /// A card shown, taken away, shown again: each showing is a new item with a new id.
    func showings(_ gate: inout RepeatGate, _ times: [Double], payload: String = "A") -> [Bool] {
        times.map { t in
            let shown = Self.item(payload)
            let added = gate.admits(.added(shown), at: t)
            let updated = gate.admits(.updated(shown), at: t + 0.5)
            let removed = gate.admits(.removed(shown), at: t + 1)
            // What a subscriber hears of one item is all or nothing.
            #expect(added == updated && added == removed)
            return added
        }
    }

    @Test func alwaysTellsEveryShowing() {
        var gate = RepeatGate(policy: .always)
        #expect(showings(&gate, [0, 2, 4]) == [true, true, true])
    }

    @Test func oncePerSessionTellsTheFirstOnlyAndCountsWhatTheHelloHad() {
        var gate = RepeatGate(policy: .oncePerSession)
        #expect(showings(&gate, [0, 100, 10_000]) == [true, false, false])
        #expect(showings(&gate, [0], payload: "B") == [true])
        // Another symbology with the same payload is another thing.
        let other = gate.admits(.added(Self.item("A", symbology: .datamatrix)), at: 1)
        #expect(other)
        var seeded = RepeatGate(policy: .oncePerSession, present: [Self.item("C")])
        #expect(showings(&seeded, [5], payload: "C") == [false])
    }

    @Test func afterTellsAShowingOnlyOnceTheThingHasBeenGoneThatLong() {
        var gate = RepeatGate(policy: .after(seconds: 10))
        // Removed at 1; back at 5 (gone 4 s): held back, and its removal at 6 restarts the wait;
        // back at 12 (gone 6 s): held back; at 30 (gone 17 s): told.
        #expect(showings(&gate, [0, 5, 12, 30]) == [true, false, false, true])
    }

    /// Two identical codes side by side are two items: with `after`, the second is not a return.
    @Test func aSecondCopyInViewIsNotAReturn() {
        var gate = RepeatGate(policy: .after(seconds: 10))
        let left = Self.item("A")
        let right = Self.item("A")
        let first = gate.admits(.added(left), at: 0)
        let second = gate.admits(.added(right), at: 0.1)
        #expect(first && second)
    }

    @Test func theMemoryIsBounded() {
        var gate = RepeatGate(policy: .oncePerSession)
        for n in 0...RepeatGate.memory { _ = gate.admits(.added(Self.item("P\(n)")), at: Double(n)) }
        // The oldest payload was forgotten: it is told again; a recent one is not.
        let oldest = gate.admits(.added(Self.item("P0")), at: 1e6)
        let recent = gate.admits(.added(Self.item("P\(RepeatGate.memory)")), at: 1e6)
        #expect(oldest && !recent)
    }
}
