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
    /// Pauses or resumes recognition (`pause` / `resume`). Pausing removes every item (`removed`
    /// events, then `recognition(paused: true)`), and frames are ignored until recognition resumes
    /// (`recognition(paused: false)`); what is still in view is then added again. Saying what already
    /// holds changes nothing and emits nothing. Callable from any thread, while `run` runs.
    func setPaused(_ paused: Bool)
}

/// The pause rule both pipelines follow, with the pipeline's own lock held: inputs in, events out.
/// It holds the guidance advisor too, because pausing silences guidance: no hint while paused, and
/// the one showing is cleared.
struct PauseState {
    private(set) var paused = false
    private var advisor = GuidanceAdvisor()
    /// The last frame that reached the tracker: the `frame` of the `removed` events a pause causes.
    var lastFrame = 0
    /// Set while `run` runs.
    var emit: (@Sendable (ScannerEvent) -> Void)?

    /// Goes to `paused`; `removeAll` is called (and its actions emitted) only when pausing.
    mutating func set(_ paused: Bool, removeAll: () -> [TrackerAction]) {
        guard paused != self.paused else { return }
        // Whatever the person was told no longer applies.
        if paused, advisor.reset() { emit?(.guidance(.cleared)) }
        self.paused = paused
        if paused { for action in removeAll() { emit?(.item(action, frame: lastFrame)) } }
        emit?(.recognition(paused: paused))
    }

    /// What clients are to be told about guidance after `sample` (`GuidanceAdvisor`); nothing while paused.
    mutating func guidance(after sample: GuidanceSample) -> GuidanceAdvisor.Change? {
        paused ? nil : advisor.observe(sample)
    }
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
