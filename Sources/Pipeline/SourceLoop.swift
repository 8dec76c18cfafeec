import Capture
import ScannerCore
import Tracking

/// The one loop over a frame source, for every pipeline: each frame to `frame`, and what the source
/// itself says turned into events the same way everywhere — gone means everything it showed is gone
/// (`removeAll`'s `removed` events, then `unavailable`); at its end, once `beforeEnd` has let the
/// frames in flight finish, `removed` for what is left, then `end`. `locked` runs each such change
/// as one step (`Pipeline` takes its tracker's lock there).
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
