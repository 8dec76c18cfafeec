import Synchronization

/// At most `lines` log lines of one kind (`Key`: a message, say) in each window of `interval`
/// seconds; the rest are counted, and the count is said once when the window is over:
/// `configuration changed (37 more suppressed in the last 60 s)`. For lines a client can cause once
/// per request (`set`, a refused connection): a client repeating a request in a loop must not fill
/// the journal, and the operator still learns that it happened and how often.
///
/// Pure: the time comes in with each call, so every rule is a unit test. `LogRateLimiter` is the
/// same behind a lock, with a clock. A window starts at the first line of its kind after the last
/// window of that kind ended. At most `maximumKeys` kinds are followed one by one; lines of further
/// kinds share one window (`Summary.key` nil), so memory stays bounded whatever the keys are.
public struct LogRateLimit<Key: Hashable & Sendable>: Sendable {
    public let lines: Int
    /// Seconds.
    public let interval: Double
    public let maximumKeys: Int

    struct Window: Sendable, Equatable {
        var start: Double
        var logged: Int
        var suppressed: Int
    }

    /// nil: the window shared by the kinds beyond `maximumKeys`.
    private var windows: [Key?: Window] = [:]

    /// Lines of one kind held back in a window that is over.
    public struct Summary: Sendable, Equatable {
        /// nil: lines of the kinds beyond `maximumKeys`.
        public var key: Key?
        public var suppressed: Int
        /// From the window's start to when it was summed up.
        public var seconds: Double

        public init(key: Key?, suppressed: Int, seconds: Double) {
            self.key = key
            self.suppressed = suppressed
            self.seconds = seconds
        }

        /// `(K more suppressed in the last T s)`, to follow the kind's message.
        public var text: String { "(\(suppressed) more suppressed in the last \(Self.format(seconds)) s)" }

        static func format(_ seconds: Double) -> String {
            let whole = seconds.rounded()
            return abs(seconds - whole) < 0.05 || seconds >= 100 ? String(Int(whole)) : String((seconds * 10).rounded() / 10)
        }
    }

    public enum Decision: Sendable, Equatable {
        /// Log the line; say `summary` first, if any (this kind's lines held back in its last window).
        case log(summary: Summary?)
        /// Do not log it (counted: it is in the summary when the window is over).
        case suppress
    }

    /// - Parameters:
    ///   - lines: lines of one kind logged per window (at least 1).
    ///   - interval: the window, seconds.
    ///   - maximumKeys: kinds followed one by one (at least 1).
    public init(lines: Int, per interval: Double, maximumKeys: Int = 64) {
        self.lines = max(1, lines)
        self.interval = interval
        self.maximumKeys = max(1, maximumKeys)
    }

    /// A line of kind `key` at `now` (seconds, any monotonic origin): log it or not.
    public mutating func admit(_ key: Key, now: Double) -> Decision {
        let slot: Key? = windows[key] != nil || hasRoom(now: now) ? key : nil
        if var window = windows[slot], now - window.start < interval {
            if window.logged >= lines {
                window.suppressed += 1
                windows[slot] = window
                return .suppress
            }
            window.logged += 1
            windows[slot] = window
            return .log(summary: nil)
        }
        // A new window: the first line of its kind, or the kind's last window is over.
        let summary = windows[slot].flatMap { ended in
            ended.suppressed > 0 ? Summary(key: slot, suppressed: ended.suppressed, seconds: now - ended.start) : nil
        }
        windows[slot] = Window(start: now, logged: 1, suppressed: 0)
        return .log(summary: summary)
    }

    /// The windows over by `now` that held lines back, summed up (each once), and forgotten with
    /// the other windows that are over: a flood that stopped is said without waiting for its kind's
    /// next line.
    public mutating func expired(now: Double) -> [Summary] {
        var summaries: [Summary] = []
        for (key, window) in windows where now - window.start >= interval {
            if window.suppressed > 0 { summaries.append(Summary(key: key, suppressed: window.suppressed, seconds: now - window.start)) }
            windows[key] = nil
        }
        return summaries
    }

    /// Kinds followed now (the shared window included).
    public var count: Int { windows.count }

    /// Whether a new kind gets a window of its own: windows that are over and held nothing back are
    /// forgotten first.
    private mutating func hasRoom(now: Double) -> Bool {
        let own = windows.keys.filter { $0 != nil }.count
        guard own >= maximumKeys else { return true }
        for (key, window) in windows where key != nil && now - window.start >= interval && window.suppressed == 0 {
            windows[key] = nil
        }
        return windows.keys.filter { $0 != nil }.count < maximumKeys
    }
}

/// `LogRateLimit` for many threads (NIO's event loops, the request handler's tasks), with a clock.
///
/// Use: `switch limiter.admit(key)`: `.log(let summary)` → log `summary` (if any) then the line;
/// `.suppress` → nothing. Call `expired()` now and then (before each line is enough) and log what it
/// returns, so a flood that stopped is said too.
public final class LogRateLimiter<Key: Hashable & Sendable>: Sendable {
    private let state: Mutex<LogRateLimit<Key>>
    private let clock: @Sendable () -> Double

    /// - Parameter clock: seconds, monotonic (injected in tests).
    public init(
        lines: Int = 10, per interval: Double = 60, maximumKeys: Int = 64,
        clock: @escaping @Sendable () -> Double = { Double(Heartbeat.monotonicNanoseconds()) / 1e9 }
    ) {
        state = Mutex(LogRateLimit(lines: lines, per: interval, maximumKeys: maximumKeys))
        self.clock = clock
    }

    public func admit(_ key: Key) -> LogRateLimit<Key>.Decision {
        let now = clock()
        return state.withLock { $0.admit(key, now: now) }
    }

    public func expired() -> [LogRateLimit<Key>.Summary] {
        let now = clock()
        return state.withLock { $0.expired(now: now) }
    }
}
