import Foundation

/// A directory of a test's own under the system's temporary directory, removed when the value goes.
/// Mode 0755, so that clients run as other users (setpriv) can reach a socket in it.
public final class TemporaryDirectory: @unchecked Sendable {
    public let path: String

    public init(_ prefix: String = "scannerd-test") throws {
        path = FileManager.default.temporaryDirectory.appendingPathComponent("\(prefix)-\(UUID().uuidString.prefix(8))").path
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o755])
    }

    deinit { try? FileManager.default.removeItem(atPath: path) }

    /// `name` inside it.
    public func file(_ name: String) -> String { path + "/" + name }

    /// Writes `text` to `name` and returns its path.
    public func write(_ name: String, _ text: String) throws -> String {
        let file = file(name)
        try Data(text.utf8).write(to: URL(fileURLWithPath: file))
        return file
    }
}

/// Waits until a daemon listens on the socket at `path`, at most `timeout` seconds. The file appears
/// when the socket is bound, a moment before it listens; a client connecting in that moment is
/// refused (a busy `make test` once caught it so), so the socket must also be listed as listening in
/// /proc/net/unix (flag `__SO_ACCEPTCON`).
public func waitForSocket(_ path: String, timeout: Double = 20) -> Bool {
    let deadline = Date().addingTimeInterval(timeout)
    while Date() < deadline {
        var info = stat()
        if lstat(path, &info) == 0 && info.st_mode & S_IFMT == S_IFSOCK && isListening(path) { return true }
        Thread.sleep(forTimeInterval: 0.05)
    }
    return false
}

/// Whether a Unix socket bound at `path` listens (/proc/net/unix: its flags hold 0x10000).
func isListening(_ path: String) -> Bool {
    guard let table = try? String(contentsOfFile: "/proc/net/unix", encoding: .utf8) else { return true }
    return table.split(separator: "\n").contains { line in
        let fields = line.split(separator: " ", omittingEmptySubsequences: true)
        guard fields.count >= 8, fields[7] == path, let flags = Int(fields[3], radix: 16) else { return false }
        return flags & 0x10000 != 0
    }
}
