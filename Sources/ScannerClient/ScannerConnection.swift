import Foundation
import ScannerCore
import ScannerProtocol

/// A client connection to the daemon's Unix socket: blocking, line by line. For `scanctl`, scripts
/// and tests; the daemon side is `EventServer` (SwiftNIO).
/// Use it from one thread at a time (it is Sendable so it can be handed to the thread that reads).
public final class ScannerConnection: @unchecked Sendable {
    public enum Failure: Error, CustomStringConvertible, Equatable {
        case notRunning(path: String, reason: String)
        case permissionDenied(path: String)
        case closed
        case timeout
        /// The daemon refused the connection (access denied, too many clients).
        case refused(code: String, message: String)
        case io(String)

        public var description: String {
            switch self {
            case .notRunning(let path, let reason): "cannot connect to \(path): \(reason) (is scannerd running?)"
            case .permissionDenied(let path): "\(path): permission denied (is this user in the scannerd socket's group?)"
            case .closed: "the daemon closed the connection"
            case .timeout: "no answer from the daemon"
            case .refused(let code, let message): "refused (\(code)): \(message)"
            case .io(let message): message
            }
        }
    }

    private let fd: CInt
    private var buffer: [UInt8] = []
    public let path: String

    public init(path: String) throws(Failure) {
        self.path = path
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw .io("socket: \(String(cString: strerror(errno)))") }
        guard let address = UnixSocketAddress(path: path) else {
            close(fd)
            throw .notRunning(path: path, reason: "path too long")
        }
        let rc = address.withSockaddr { connect(fd, $0, $1) }
        if rc != 0 {
            let code = errno
            close(fd)
            if code == EACCES { throw .permissionDenied(path: path) }
            throw .notRunning(path: path, reason: String(cString: strerror(code)))
        }
        self.fd = fd
    }

    deinit { close(fd) }

    /// Reads the greeting: `hello`, or an error reply when the daemon refuses this client.
    @discardableResult
    public func readHello(timeout: Double = 5) throws(Failure) -> String {
        guard let line = try readLine(timeout: timeout) else { throw .closed }
        if let reply = ServerLine(line), reply.head.ok == false {
            throw .refused(code: reply.head.error?.code ?? "error", message: reply.head.error?.message ?? "")
        }
        return line
    }

    /// Sends one line (a newline is added).
    public func send(_ line: String) throws(Failure) {
        var bytes = Array((line + "\n").utf8)
        var sent = 0
        while sent < bytes.count {
            let n = bytes.withUnsafeMutableBytes { Glibc.send(fd, $0.baseAddress! + sent, $0.count - sent, Int32(MSG_NOSIGNAL)) }
            if n < 0 {
                if errno == EINTR { continue }
                throw .io("send: \(String(cString: strerror(errno)))")
            }
            sent += n
        }
    }

    /// Sends a request and returns the first reply (events that arrive meanwhile are passed to
    /// `onEvent`).
    public func request(_ request: Request, timeout: Double = 5, onEvent: (String) -> Void = { _ in }) throws(Failure) -> ServerLine {
        try self.request(line: request.line(), timeout: timeout, onEvent: onEvent)
    }

    /// The same for a request line as written (one the daemon should judge, values and all).
    public func request(line: String, timeout: Double = 5, onEvent: (String) -> Void = { _ in }) throws(Failure) -> ServerLine {
        try send(line)
        while true {
            guard let line = try readLine(timeout: timeout) else { throw .closed }
            if let reply = ServerLine(line), reply.isReply { return reply }
            onEvent(line)
        }
    }

    /// The next line, or nil when the daemon closed the connection (a last line it cut off is dropped).
    /// Waits at most `timeout` seconds (nil: forever).
    public func readLine(timeout: Double? = nil) throws(Failure) -> String? {
        while true {
            if let newline = buffer.firstIndex(of: UInt8(ascii: "\n")) {
                let line = String(decoding: buffer[..<newline], as: UTF8.self)
                buffer.removeSubrange(...newline)
                return line
            }
            var pfd = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            let rc = poll(&pfd, 1, timeout.map { Int32($0 * 1000) } ?? -1)
            if rc < 0 {
                if errno == EINTR { continue }
                throw .io("poll: \(String(cString: strerror(errno)))")
            }
            if rc == 0 { throw .timeout }
            var chunk = [UInt8](repeating: 0, count: 65536)
            let n = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress!, $0.count, 0) }
            if n < 0 {
                if errno == EINTR { continue }
                throw .io("recv: \(String(cString: strerror(errno)))")
            }
            if n == 0 {
                // Every line the daemon sends ends in a newline: bytes without one at the end of the
                // stream are a line cut off with the connection (a client that stopped reading is
                // closed mid-line, docs/protocol.md), not a line.
                buffer = []
                return nil
            }
            buffer.append(contentsOf: chunk[..<n])
        }
    }
}
