import Foundation

/// A stand-in for systemd's notification socket: a Unix datagram socket that records every message
/// (`READY=1`, `STATUS=…`, `WATCHDOG=1`) with the time it arrived. Pass `path` as NOTIFY_SOCKET.
public final class NotifyListener: @unchecked Sendable {
    public struct Message: Sendable {
        public var fields: [String]
        /// Seconds since the listener was created.
        public var time: Double
    }

    public let path: String
    private let fd: Int32
    private let lock = NSCondition()
    private var received: [Message] = []
    private let start = Date()

    public init() throws {
        path = NSTemporaryDirectory() + "notify-\(UUID().uuidString.prefix(8)).sock"
        fd = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue), 0)
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: Array(path.utf8) + [0]) }
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        guard fd >= 0, bound == 0 else { throw POSIXError(.EADDRINUSE) }
        var timeout = timeval(tv_sec: 0, tv_usec: 200_000)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        // The thread holds the listener weakly, so that dropping the last reference closes the socket
        // and removes its file (a strong capture kept every listener, its thread and its file forever).
        Thread.detachNewThread { [weak self] in
            var buffer = [UInt8](repeating: 0, count: 4096)
            while let listener = self { listener.receive(into: &buffer) }
        }
    }

    /// Waits up to the receive timeout for one message and records it. (The thread holds the
    /// listener only for this call, so the socket is never closed under it.)
    private func receive(into buffer: inout [UInt8]) {
        let n = recv(fd, &buffer, buffer.count, 0)
        guard n > 0 else { return }
        let text = String(decoding: buffer[0..<n], as: UTF8.self)
        lock.lock()
        received.append(Message(fields: text.split(separator: "\n").map(String.init), time: Date().timeIntervalSince(start)))
        lock.broadcast()
        lock.unlock()
    }

    public var messages: [Message] {
        lock.lock()
        defer { lock.unlock() }
        return received
    }

    /// Every field sent, in order, with its arrival time.
    public var fields: [(field: String, time: Double)] {
        messages.flatMap { m in m.fields.map { ($0, m.time) } }
    }

    public var now: Double { Date().timeIntervalSince(start) }

    /// Waits until some field satisfies `condition` (true) or `timeout` seconds pass (false).
    @discardableResult
    public func waitFor(timeout: Double, _ condition: (String) -> Bool) -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        lock.lock()
        defer { lock.unlock() }
        while !received.contains(where: { $0.fields.contains(where: condition) }) {
            if !lock.wait(until: deadline) { return received.contains(where: { $0.fields.contains(where: condition) }) }
        }
        return true
    }

    /// Waits until at least `count` fields that arrived after `since` satisfy `condition` (true), or
    /// `timeout` seconds pass (false).
    @discardableResult
    public func waitFor(count: Int, since: Double = 0, timeout: Double, _ condition: @escaping (String) -> Bool) -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        func enough() -> Bool {
            received.filter { $0.time > since }.flatMap(\.fields).filter(condition).count >= count
        }
        lock.lock()
        defer { lock.unlock() }
        while !enough() {
            if !lock.wait(until: deadline) { return enough() }
        }
        return true
    }

    deinit {
        close(fd)
        unlink(path)
    }
}
