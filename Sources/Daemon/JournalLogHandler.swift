import Foundation
import Logging
import ScannerCore
import Synchronization

/// The log level in force, shared by every logger so a reload can change it at once.
public final class LogLevelControl: Sendable {
    private let level: Mutex<Logger.Level>
    public init(_ level: Logger.Level) { self.level = Mutex(level) }
    public var current: Logger.Level {
        get { level.withLock { $0 } }
        set { level.withLock { $0 = newValue } }
    }
}

/// One line per log event on stderr, `message key=value …` with the keys sorted, so lines can be
/// grepped and parsed by key. Under systemd (stderr is the journal: `JOURNAL_STREAM` names it) each
/// line starts with its syslog priority, `<4>`, which journald turns into the entry's priority, and
/// no timestamp (the journal has its own); elsewhere it starts with an ISO 8601 time and the level.
public struct JournalLogHandler: LogHandler {
    public var metadata: Logger.Metadata = [:]
    private let control: LogLevelControl
    private let label: String
    private let journal: Bool
    private let write: @Sendable (String) -> Void

    public init(
        label: String, level: LogLevelControl, journal: Bool = JournalLogHandler.stderrIsJournal(),
        write: @escaping @Sendable (String) -> Void = { FileHandle.standardError.write(Data($0.utf8)) }
    ) {
        self.label = label
        self.control = level
        self.journal = journal
        self.write = write
    }

    public var logLevel: Logger.Level {
        get { control.current }
        set { control.current = newValue }
    }

    public subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    public func log(event: LogEvent) {
        let fields = metadata.merging(event.metadata ?? [:]) { $1 }
        write(Self.format(level: event.level, message: "\(event.message)", metadata: fields, journal: journal, date: Date()) + "\n")
    }

    public static func format(level: Logger.Level, message: String, metadata: Logger.Metadata, journal: Bool, date: Date) -> String {
        let pairs = metadata.sorted { $0.key < $1.key }.map { "\($0.key)=\(quoted("\($0.value)"))" }
        let body = ([message] + pairs).joined(separator: " ")
        if journal { return "<\(priority(level))>\(body)" }
        return "\(Timestamp.string(date)) \(level.rawValue) \(body)"
    }

    /// Values with spaces, quotes or `=` are quoted so every line splits back into its keys.
    public static func quoted(_ value: String) -> String {
        guard value.isEmpty || value.contains(where: { $0 == " " || $0 == "\"" || $0 == "=" || $0 == "\n" }) else { return value }
        return "\""
            + value.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"")
            .replacingOccurrences(of: "\n", with: "\\n") + "\""
    }

    /// syslog(3) priorities.
    static func priority(_ level: Logger.Level) -> Int {
        switch level {
        case .trace, .debug: 7
        case .info: 6
        case .notice: 5
        case .warning: 4
        case .error: 3
        case .critical: 2
        }
    }

    /// systemd sets JOURNAL_STREAM=dev:inode for the stream it connected; stderr is the journal when
    /// fd 2 is that stream (not, say, redirected by the command line to a file).
    public static func stderrIsJournal(environment: [String: String] = ProcessInfo.processInfo.environment) -> Bool {
        guard let value = environment["JOURNAL_STREAM"] else { return false }
        let parts = value.split(separator: ":").compactMap { UInt64($0) }
        var info = stat()
        guard parts.count == 2, fstat(2, &info) == 0 else { return false }
        return UInt64(info.st_dev) == parts[0] && UInt64(info.st_ino) == parts[1]
    }
}
