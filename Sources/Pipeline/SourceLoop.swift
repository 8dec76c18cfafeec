import Capture
import ScannerCore
import Tracking

/// A pipeline the daemon runs: frames from a source in, `ScannerEvent`s out.
public protocol ScannerPipeline: AnyObject, Sendable {
    /// Runs until the source ends or is cancelled; `emit` is called in order.
    func run(source: FrameSource, heartbeat: Heartbeat?, emit: @escaping @Sendable (ScannerEvent) -> Void)
    /// Applies `configuration` from the next frame. Callable from any thread.
    func reconfigure(_ configuration: SequenceConfiguration)
    /// Live per-stage figures (`stats`).
    var metrics: PipelineMetrics { get }
    /// The stages' counters, read after `run` returns.
    var statistics: SequenceStatistics { get }
}

/// The one loop over a frame source, for every pipeline: each frame to `frame`, and what the source
/// itself says turned into events the same way everywhere — gone means everything it showed is gone
/// (`removeAll`'s `removed` events, then `unavailable`); at its end, once `beforeEnd` has let the
/// frames in flight finish, `removed` for what is left, then `end`. `locked` runs each such change
/// as one step (the live pipeline takes its tracker's lock there).
func runSource(
    _ source: FrameSource, frame: (Frame) -> Void, removeAll: @escaping () -> [TrackerAction],
    locked: (() -> Void) -> Void = { $0() }, beforeEnd: () -> Void = {}, emit: @escaping (ScannerEvent) -> Void
) {
    var lastFrame = 0
    while true {
        switch source.next() {
        case .frame(let next):
            lastFrame = next.index
            frame(next)
        case .available:
            locked { emit(.sourceAvailable) }
        case .unavailable(let reason):
            // The camera is gone: so is everything it was showing.
            locked {
                for action in removeAll() { emit(.item(action, frame: lastFrame)) }
                emit(.sourceUnavailable(reason: reason))
            }
        case .end:
            beforeEnd()
            locked {
                for action in removeAll() { emit(.item(action, frame: lastFrame)) }
                emit(.end(frames: source.statistics.delivered))
            }
            return
        }
    }
}
