import Capture
import ScannerCore
import Tracking

/// The one loop over a frame source, for every pipeline: each frame to `frame`, and what the source
/// itself says turned into events the same way everywhere — gone means everything it showed is gone
/// (`sourceSaid(.sourceUnavailable, removingAllAt: the last frame)`: `removed` events, then
/// `unavailable`); at its end, once `beforeEnd` has let the frames in flight finish, `removed` for
/// what is left, then `end`. `sourceSaid` makes each such change one step (`Pipeline` makes it
/// under its lock).
func runSource(
    _ source: FrameSource, frame: (Frame) -> Void, beforeEnd: () -> Void = {},
    sourceSaid: (_ event: ScannerEvent, _ removingAllAt: Int?) -> Void
) {
    var lastFrame = 0
    while true {
        switch source.next() {
        case .frame(let next):
            lastFrame = next.index
            frame(next)
        case .available:
            sourceSaid(.sourceAvailable, nil)
        case .unavailable(let reason):
            // The camera is gone: so is everything it was showing.
            sourceSaid(.sourceUnavailable(reason: reason), lastFrame)
        case .end:
            beforeEnd()
            sourceSaid(.end(frames: source.statistics.delivered), lastFrame)
            return
        }
    }
}
