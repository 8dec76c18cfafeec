import Logging
import ScannerCore

/// A log handler in front of another that lets each kind of line (its level and message; the
/// metadata may differ) through at most `lines` times per `interval` seconds and sums up the rest in
/// one line when the window is over: `configuration changed (37 more suppressed in the last 60 s)`
/// (`LogRateLimit`, ScannerCore). For loggers whose every line a client can cause once per request:
/// the request handler's (`set`, `pause`, `resume`, photo files).
public struct RateLimitedLogHandler: LogHandler {
    /// What makes two lines the same kind.
    public struct Kind: Hashable, Sendable {
        public var level: Logger.Level
        public var message: String
    }

    private var upstream: any LogHandler
    private let limiter: LogRateLimiter<Kind>

    /// - Parameter clock: seconds, monotonic (injected in tests).
    public init(
        upstream: any LogHandler, lines: Int, per interval: Double,
        clock: @escaping @Sendable () -> Double = { Double(Heartbeat.monotonicNanoseconds()) / 1e9 }
    ) {
        self.upstream = upstream
        limiter = LogRateLimiter(lines: lines, per: interval, clock: clock)
    }

    /// `logger` with its handler behind a rate limit (same label, level and metadata).
    public static func logger(
        _ logger: Logger, lines: Int, per interval: Double,
        clock: @escaping @Sendable () -> Double = { Double(Heartbeat.monotonicNanoseconds()) / 1e9 }
    ) -> Logger {
        let handler = RateLimitedLogHandler(upstream: logger.handler, lines: lines, per: interval, clock: clock)
        return Logger(label: logger.label) { _ in handler }
    }

    public func log(event: LogEvent) {
        // A flood that stopped is said at the next line of any kind.
        for summary in limiter.expired() { say(summary, like: event) }
        switch limiter.admit(Kind(level: event.level, message: "\(event.message)")) {
        case .suppress:
            return
        case .log(let summary):
            if let summary { say(summary, like: event) }
            upstream.log(event: event)
        }
    }

    /// The summary line: the kind's message and level, no metadata (it stood for many lines).
    private func say(_ summary: LogRateLimit<Kind>.Summary, like event: LogEvent) {
        var line = event
        line.level = summary.key?.level ?? .notice
        line.message = "\(summary.key?.message ?? "log lines") \(summary.text)"
        line.metadata = nil
        upstream.log(event: line)
    }

    public var logLevel: Logger.Level {
        get { upstream.logLevel }
        set { upstream.logLevel = newValue }
    }

    public var metadata: Logger.Metadata {
        get { upstream.metadata }
        set { upstream.metadata = newValue }
    }

    public var metadataProvider: Logger.MetadataProvider? {
        get { upstream.metadataProvider }
        set { upstream.metadataProvider = newValue }
    }

    public subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { upstream[metadataKey: key] }
        set { upstream[metadataKey: key] = newValue }
    }
}
