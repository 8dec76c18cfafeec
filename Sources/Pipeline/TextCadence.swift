/// When the text stage reads. A pure state machine: a frame (its index, the trackers' time) and
/// whether the last pass left a line awaiting its confirming read in, what to do out (issue #42).
///
/// Passes are rationed by the quality level (`SequenceConfiguration.ocrEveryFrames`); between two
/// regular passes, one short confirming pass reads only the lines a pass left awaiting the read
/// that would confirm them (`TextStage.awaitsConfirmation`), so an item is not added a whole pass
/// interval late. The same rule counts in two clocks:
///
/// - `frames`: every frame is seen (a replay at `--pace none`, tests). Frames whose index is a
///   multiple of the interval get the regular pass, the frame after one the confirming pass: every
///   decision a function of the frame index, so a replay gives the same events on every run.
/// - `seconds`: the camera's newest frame, whenever the text thread is free. At most one regular
///   pass per interval; a frame that comes early waits (`wait`: the caller sleeps until the pass is
///   due, asks again, and gets `pass` on the newest frame by then). A pass that leaves lines awaiting
///   their confirming read is followed by the confirming pass, early or late (one, not two in a
///   row), and the caller gives it the frame that came right after the pass's own
///   (`confirmsNext`, `Mailbox.takeFollowing`), as a replay does: a regular pass of a look and six
///   reads takes ~8 frame times (1280×720, bf16), and confirmed on the newest frame after it — or,
///   the pass being late, on the next regular pass — a phone number was added that much later than
///   in a replay (docs/benchmarks.md).
public struct TextCadence: Sendable, Equatable {
    public enum Clock: Sendable, Equatable {
        /// A regular pass on each frame whose index is a multiple of this.
        case frames(every: Int)
        /// At most one regular pass per this many seconds.
        case seconds(Double)
    }

    public enum Action: Sendable, Equatable {
        case pass
        /// Read only the lines awaiting their confirming read.
        case confirmingPass
        /// No pass for this frame. The next regular pass is due at `until`: a frame index
        /// (`frames`) or a time in seconds (`seconds`).
        case wait(until: Double)
    }

    public var clock: Clock
    /// When the last regular pass began (`seconds`).
    private var lastPass = -Double.infinity
    /// The last pass (`seconds`) was a regular one: its confirming pass may follow.
    private var lastWasRegular = false
    /// `wait` was said (`seconds`): the caller waited, and the next call is the pass.
    private var waited = false

    public init(_ clock: Clock) {
        self.clock = clock
    }

    /// The quality level's cadence in either clock: the `frames` interval, or the same number of
    /// frame times at 30 fps.
    public init(everyFrames: Int, realTime: Bool) {
        let every = max(1, everyFrames)
        self.init(realTime ? .seconds(Double(every) / 30) : .frames(every: every))
    }

    /// - Parameters:
    ///   - frame: the frame's index (`frames`).
    ///   - time: the trackers' clock, seconds (`seconds`).
    ///   - awaitsConfirmation: the last pass left a line awaiting its confirming read.
    public mutating func next(frame: Int, time: Double, awaitsConfirmation: Bool) -> Action {
        switch clock {
        case .frames(let every):
            let every = max(1, every)
            let phase = frame % every
            if phase == 0 { return .pass }
            if phase == 1 && awaitsConfirmation { return .confirmingPass }
            return .wait(until: Double(frame - phase + every))
        case .seconds(let interval):
            if confirmsNext(awaitsConfirmation: awaitsConfirmation) {
                lastWasRegular = false
                return .confirmingPass
            }
            let early = time < lastPass + interval && !waited
            waited = false
            if early {
                waited = true
                return .wait(until: lastPass + interval)
            }
            lastWasRegular = true
            lastPass = time
            return .pass
        }
    }

    /// Whether the next call (the last pass having left lines awaiting their confirming read or not)
    /// is the confirming pass, whatever the frame, so that the caller can give it the frame after
    /// the last pass's (`seconds`; in `frames` the frame's index decides).
    public func confirmsNext(awaitsConfirmation: Bool) -> Bool {
        guard case .seconds = clock else { return false }
        return awaitsConfirmation && lastWasRegular
    }
}
