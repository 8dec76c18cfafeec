/// Why a request or a connection was refused: the `error.code` of a reply (docs/protocol.md). The
/// server says these and nothing else; clients compare against them.
public enum ErrorCode: String, Sendable, Codable, CaseIterable {
    /// The line is not one JSON object, or has no `request`.
    case malformed
    /// A field has the wrong type or value.
    case badArgument = "bad-argument"
    /// The `request` names nothing the server does.
    case unknownRequest = "unknown-request"
    /// A line over the server's limit (it closes the connection after saying so).
    case lineTooLong = "line-too-long"
    /// This user may not connect, change settings, or write files.
    case accessDenied = "access-denied"
    /// The server or this user holds as many connections as allowed.
    case tooManyClients = "too-many-clients"
    /// A `set` the daemon cannot apply as asked.
    case refused
    /// No frame to capture (no camera, or it is gone).
    case unavailable
    /// `capture` with a `path` that exists, without `overwrite`.
    case exists
    /// `capture` could not write its file.
    case writeFailed = "write-failed"
}
