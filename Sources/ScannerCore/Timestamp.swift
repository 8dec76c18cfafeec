import Foundation

/// Times as the protocol and the log print them: ISO 8601 in UTC with milliseconds
/// (`2026-11-22T21:52:06.608Z`).
public enum Timestamp {
    /// A value type that formats without locks or allocation of a formatter: 0.18 µs a call, against
    /// 63 µs for a new `ISO8601DateFormatter` (which the event hub used to make for every event,
    /// under its lock; measured 2026-11-22, release, the 2-core VM).
    private static let style = Date.ISO8601FormatStyle(includingFractionalSeconds: true)

    public static func string(_ date: Date) -> String { style.format(date) }
}
