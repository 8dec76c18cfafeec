/// Lets a repeating error through once: the first occurrence is reported, repeats are counted, and
/// the count is reported when the error changes or clears (as ustreamer does for a camera that keeps
/// failing to open). Pure; the caller does the logging.
public struct RepeatFilter: Sendable, Equatable {
    public private(set) var current: String?
    public private(set) var repeats = 0

    public init() {}

    public enum Verdict: Equatable, Sendable {
        /// A new message: report it. `previousRepeats` > 0 means the one before repeated that often.
        case report(previousRepeats: Int)
        /// The same message again: stay quiet.
        case suppress
    }

    public mutating func record(_ message: String) -> Verdict {
        if message == current {
            repeats += 1
            return .suppress
        }
        let previous = repeats
        current = message
        repeats = 0
        return .report(previousRepeats: previous)
    }

    /// The condition is over; returns how often the last message repeated.
    public mutating func clear() -> Int {
        defer {
            current = nil
            repeats = 0
        }
        return repeats
    }
}
