import Foundation
import Synchronization

/// A flag a source's thread polls, set from any thread, plus a sleep that wakes early when it is set.
final class CancellationFlag: Sendable {
    private let flag = Atomic<Bool>(false)

    var isCancelled: Bool { flag.load(ordering: .acquiring) }

    func cancel() { flag.store(true, ordering: .releasing) }

    /// Sleeps `seconds` in short slices; returns false if cancelled meanwhile.
    @discardableResult
    func sleep(seconds: Double) -> Bool {
        let deadline = ContinuousClock.now + .seconds(seconds)
        while ContinuousClock.now < deadline {
            if isCancelled { return false }
            let left = deadline - ContinuousClock.now
            Thread.sleep(forTimeInterval: min(0.05, Double(left.components.seconds) + Double(left.components.attoseconds) / 1e18))
        }
        return !isCancelled
    }
}
