import Capture
import Dispatch
import Foundation
import Synchronization
import Tracking

@testable import Pipeline

/// A source that holds back its next frame until `release` once `hold` is set: a test acts between
/// two frames of a replay (a `set` while a card is in view).
final class HeldSource: FrameSource, @unchecked Sendable {
    let base: FrameSource
    let hold = Mutex(false)
    let release = DispatchSemaphore(value: 0)
    /// The index of the last frame handed out.
    let last = Mutex(-1)

    init(_ base: FrameSource) { self.base = base }

    func next() -> SourceEvent {
        if hold.withLock({ $0 }) { release.wait() }
        let event = base.next()
        if case .frame(let frame) = event { last.withLock { $0 = frame.index } }
        return event
    }

    func cancel() { base.cancel() }
    var statistics: SourceStatistics { base.statistics }
}

extension HeldSource {
    struct Timeout: Error, CustomStringConvertible {
        var description: String
    }

    /// Runs `pipeline` on this source to its end, each event to `observe` (with the lock held); the
    /// first time `observe` says so, the next frame is held back while `between` runs on the caller's
    /// thread.
    func run(_ pipeline: Pipeline, between: () throws -> Void, observe: @escaping @Sendable (ScannerEvent) -> Bool) throws {
        let held = DispatchSemaphore(value: 0)
        let done = DispatchSemaphore(value: 0)
        let once = Mutex(false)
        Thread.detachNewThread { [self] in
            pipeline.run(source: self) { event in
                guard observe(event),
                    once.withLock({
                        let first = !$0
                        $0 = true
                        return first
                    })
                else { return }
                self.hold.withLock { $0 = true }
                held.signal()
            }
            done.signal()
        }
        guard held.wait(timeout: .now() + 120) == .success else { throw Timeout(description: "what was waited for never came") }
        try between()
        hold.withLock { $0 = false }
        release.signal()
        guard done.wait(timeout: .now() + 120) == .success else { throw Timeout(description: "the replay did not end") }
    }
}
