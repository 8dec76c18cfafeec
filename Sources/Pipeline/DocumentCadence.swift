/// When the document stage looks. A pure state machine: the trackers' time in, what to do out — the
/// third cadence beside `TextCadence` and `BarcodeCadence`, the same for both pacings.
///
/// A pass runs at most every `interval` seconds of the trackers' clock: the detection costs ~15 ms at
/// the processing width (docs/benchmarks.md), and two passes in a row make an item. Every frame
/// (`--pace none`, tests): frames that come early are skipped. The camera's newest frame: the caller
/// sleeps until the pass is due and asks again, at that time at the earliest, with the newest frame by then.
public struct DocumentCadence: Sendable, Equatable {
    public enum Action: Sendable, Equatable {
        case pass
        /// No pass now; the next is due at `until` (seconds).
        case wait(until: Double)
    }

    /// Seconds between passes: ten a second, so a document is added two or three frames (at 30 fps)
    /// after it is first found.
    public static let interval = 0.1

    public let interval: Double
    /// When the last pass began.
    private var lastPass: Double?

    public init(interval: Double = Self.interval) {
        self.interval = interval
    }

    /// A pass now (taken as begun at `time`, the trackers' clock in seconds), or when the next is due.
    public mutating func next(time: Double) -> Action {
        // A frame's time from a replay's clock may fall a hair short of the interval, hence the tolerance.
        if let lastPass, time < lastPass + interval - 1e-6 { return .wait(until: lastPass + interval) }
        lastPass = time
        return .pass
    }
}
