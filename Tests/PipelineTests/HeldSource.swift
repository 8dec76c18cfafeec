import Capture
import Dispatch
import Synchronization

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
