import Pipeline
import Testing

/// The document stage's cadence: at most a pass per interval, in either pacing.
struct DocumentCadenceTests {
    /// Every frame at 30 fps: a pass on the first frame and then on each frame an interval after the
    /// last pass (a replay's frame times fall a hair short of it, and still count); the others skipped.
    @Test func everyFrameGetsAPassEachInterval() {
        var cadence = DocumentCadence(interval: 0.1)
        let passes = (0..<12).filter { cadence.next(time: Double($0) / 30) == .pass }
        #expect(passes == [0, 3, 6, 9])
    }

    /// The newest frame: an early frame is told when the pass is due, and the pass that follows counts
    /// the next interval from itself; a caller late by more than an interval passes at once.
    @Test func anEarlyFrameIsToldWhenThePassIsDue() {
        var cadence = DocumentCadence(interval: 0.1)
        #expect(cadence.next(time: 1.0) == .pass)
        #expect(cadence.next(time: 1.03) == .wait(until: 1.1))
        #expect(cadence.next(time: 1.1) == .pass)
        guard case .wait(let until) = cadence.next(time: 1.15) else {
            Issue.record("a frame 0.05 s after a pass is not told to wait")
            return
        }
        #expect(abs(until - 1.2) < 1e-9)
        #expect(cadence.next(time: 1.5) == .pass)
        #expect(cadence.next(time: 1.55) == .wait(until: 1.6))
    }
}
