import Foundation

/// A plain TCP client for what curl will not send: malformed requests, two Hosts, half a request,
/// connections that never say anything, WebSocket frames without a mask.
public final class RawConnection {
    public let fd: Int32

    public init(port: Int, receiveBuffer: Int32? = nil) throws {
        fd = try Self.stream(AF_INET, receiveBuffer: receiveBuffer)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        // Connected within 5 s or not at all: a server that stops accepting leaves connect() waiting
        // on SYN retries for minutes.
        let flags = fcntl(fd, F_GETFL)
        _ = fcntl(fd, F_SETFL, flags | O_NONBLOCK)
        let started = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        var poller = pollfd(fd: fd, events: Int16(POLLOUT), revents: 0)
        var error: Int32 = 0
        var length = socklen_t(MemoryLayout<Int32>.size)
        guard
            started == 0
                || (errno == EINPROGRESS && poll(&poller, 1, 5000) == 1 && getsockopt(fd, SOL_SOCKET, SO_ERROR, &error, &length) == 0 && error == 0)
        else {
            close(fd)
            throw POSIXError(.ETIMEDOUT)
        }
        _ = fcntl(fd, F_SETFL, flags)
    }

    /// A Unix-socket client (the daemon's socket).
    public init(unixPath: String, receiveBuffer: Int32? = nil) throws {
        fd = try Self.stream(AF_UNIX, receiveBuffer: receiveBuffer)
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let path = Array(unixPath.utf8)
        precondition(path.count < MemoryLayout.size(ofValue: address.sun_path))
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            for (i, byte) in path.enumerated() { raw[i] = byte }
        }
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        guard connected == 0 else {
            close(fd)
            throw POSIXError(.ECONNREFUSED)
        }
    }

    deinit { close(fd) }

    /// A stream socket of `domain`, with a small receive buffer when asked (a client that reads
    /// little fills up soon).
    private static func stream(_ domain: Int32, receiveBuffer: Int32?) throws -> Int32 {
        let fd = socket(domain, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw POSIXError(.EMFILE) }
        if var size = receiveBuffer { setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &size, socklen_t(MemoryLayout<Int32>.size)) }
        return fd
    }

    /// Sends what fits now, without waiting; false when nothing did (the peer stopped reading).
    @discardableResult
    public func trySend(_ bytes: [UInt8]) -> Bool {
        bytes.withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL | MSG_DONTWAIT)) } > 0
    }

    public func send(_ bytes: [UInt8]) { _ = bytes.withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) } }
    public func send(_ text: String) { send(Array(text.utf8)) }

    /// Whether a read ended with the server resetting the connection (RST), not closing it (FIN).
    public private(set) var wasReset = false

    /// What arrives within `seconds`, and whether the server closed the connection by then.
    public func read(for seconds: Double) -> (bytes: [UInt8], closed: Bool) {
        var out: [UInt8] = []
        let deadline = Date().addingTimeInterval(seconds)
        var buffer = [UInt8](repeating: 0, count: 65536)
        while Date() < deadline {
            var poller = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            let wait = Int32(max(1, deadline.timeIntervalSinceNow * 1000))
            guard poll(&poller, 1, wait) > 0 else { continue }
            let n = recv(fd, &buffer, buffer.count, 0)
            if n < 0, errno == ECONNRESET { wasReset = true }
            if n <= 0 { return (out, true) }
            out += buffer[0..<n]
        }
        return (out, false)
    }

    /// What arrives until `done` holds of it, the server closes, or `seconds` pass.
    public func read(within seconds: Double, until done: ([UInt8]) -> Bool) -> (bytes: [UInt8], closed: Bool) {
        var out: [UInt8] = []
        let deadline = Date().addingTimeInterval(seconds)
        var buffer = [UInt8](repeating: 0, count: 65536)
        while Date() < deadline, !done(out) {
            var poller = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            let wait = Int32(max(1, deadline.timeIntervalSinceNow * 1000))
            guard poll(&poller, 1, wait) > 0 else { continue }
            let n = recv(fd, &buffer, buffer.count, 0)
            if n <= 0 { return (out, true) }
            out += buffer[0..<n]
        }
        return (out, false)
    }

    /// Whether the server has closed it (without waiting).
    public var isClosedByServer: Bool {
        // POLLRDHUP (0x2000, Linux): the peer shut down its side, whatever is still unread.
        let peerClosed: Int16 = 0x2000
        var poller = pollfd(fd: fd, events: Int16(POLLIN) | peerClosed, revents: 0)
        guard poll(&poller, 1, 0) > 0 else { return false }
        return poller.revents & (peerClosed | Int16(POLLHUP)) != 0
    }

    /// Upgrades to a WebSocket on `/ws`; the response head's first line.
    public func upgradeToWebSocket(port: Int) -> String {
        send(
            "GET /ws HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                + "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n")
        var head: [UInt8] = []
        let deadline = Date().addingTimeInterval(10)
        var byte: UInt8 = 0
        while Date() < deadline, !head.ends(with: Array("\r\n\r\n".utf8)) {
            var poller = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            guard poll(&poller, 1, 100) > 0 else { continue }
            guard recv(fd, &byte, 1, 0) == 1 else { break }
            head.append(byte)
        }
        return String(decoding: head, as: UTF8.self).components(separatedBy: "\r\n").first ?? ""
    }

    /// A client frame: FIN, the opcode, the payload, masked unless told not to.
    public static func frame(_ payload: [UInt8], opcode: UInt8 = 1, masked: Bool = true) -> [UInt8] {
        precondition(payload.count < 126)
        var frame: [UInt8] = [0x80 | opcode, (masked ? 0x80 : 0) | UInt8(payload.count)]
        guard masked else { return frame + payload }
        let key: [UInt8] = [0x37, 0xFA, 0x21, 0x3D]
        frame += key
        frame += payload.enumerated().map { $0.element ^ key[$0.offset % 4] }
        return frame
    }

    /// The status code of the first close frame in what the server sent, if any.
    public static func closeCode(in bytes: [UInt8]) -> Int? {
        var index = 0
        while index + 2 <= bytes.count {
            let opcode = bytes[index] & 0x0F
            var length = Int(bytes[index + 1] & 0x7F)
            var start = index + 2
            if length == 126 {
                guard start + 2 <= bytes.count else { return nil }
                length = Int(bytes[start]) << 8 | Int(bytes[start + 1])
                start += 2
            } else if length == 127 {
                return nil
            }
            if opcode == 8 { return start + 2 <= bytes.count ? Int(bytes[start]) << 8 | Int(bytes[start + 1]) : 0 }
            index = start + length
        }
        return nil
    }
}

extension Array where Element == UInt8 {
    public func ends(with suffix: [UInt8]) -> Bool { count >= suffix.count && Array(self[(count - suffix.count)...]) == suffix }
    public var text: String { String(decoding: self, as: UTF8.self) }
}
