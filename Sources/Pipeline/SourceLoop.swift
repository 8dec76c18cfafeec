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
/// (`removeAll`'s `removed` events, then `unavailable`). `locked` runs each such change as one step
/// (the live pipeline takes its tracker's lock there). Returns at the source's end, with the index
/// of the last frame; the caller then ends what is left (`finishRun`).
func runSource(
    _ source: FrameSource, frame: (Frame) -> Void, removeAll: @escaping () -> [TrackerAction],
    locked: (() -> Void) -> Void = { $0() }, emit: @escaping (ScannerEvent) -> Void
) -> Int {
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
            return lastFrame
        }
    }
}

/// The end of a run: `removed` for what is left, then `end`.
func finishRun(
    _ source: FrameSource, lastFrame: Int, removeAll: () -> [TrackerAction], emit: (ScannerEvent) -> Void
) {
    for action in removeAll() { emit(.item(action, frame: lastFrame)) }
    emit(.end(frames: source.statistics.delivered))
}
