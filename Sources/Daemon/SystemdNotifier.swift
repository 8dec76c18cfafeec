import Foundation
import ScannerCore
import Synchronization

/// Tells systemd about the daemon's state (`sd_notify(3)`): one datagram of `KEY=value` lines to the
/// socket named by `NOTIFY_SOCKET`. Written here rather than linking libsystemd for one sendto(): the
/// protocol is documented as stable for exactly this (sd_notify(3), "Notes"), and a daemon started
/// without systemd simply has no NOTIFY_SOCKET and sends nothing.
public final class SystemdNotifier: Sendable {
    /// The socket path; `@…` is Linux's abstract namespace. nil: not started by systemd.
    public let socketPath: String?
    /// systemd's `WatchdogSec=` (from `WATCHDOG_USEC`, if meant for this process), or nil.
    public let watchdogTimeout: Duration?
    private let descriptor: Mutex<Int32>

    public init(environment: [String: String] = ProcessInfo.processInfo.environment) {
        let path = environment["NOTIFY_SOCKET"].flatMap { $0.isEmpty ? nil : $0 }
        socketPath = path
        // WATCHDOG_PID, when set, names the process the watchdog is for (not a child we started).
        let forUs = environment["WATCHDOG_PID"].map { Int32($0) == getpid() } ?? true
        if forUs, let usec = environment["WATCHDOG_USEC"].flatMap(Int64.init), usec > 0 {
            watchdogTimeout = .microseconds(usec)
        } else {
            watchdogTimeout = nil
        }
        descriptor = Mutex(path == nil ? -1 : socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0))
    }

    deinit {
        descriptor.withLock { if $0 >= 0 { close($0) } }
    }

    public var isEnabled: Bool { socketPath != nil }

    /// Sends `fields` (`READY=1`, `STATUS=…`) as one message. Returns false if it could not be sent.
    @discardableResult
    public func notify(_ fields: [String]) -> Bool {
        guard let socketPath else { return false }
        let message = fields.map { $0.replacingOccurrences(of: "\n", with: " ") }.joined(separator: "\n")
        return descriptor.withLock { fd -> Bool in
            guard fd >= 0 else { return false }
            guard let address = UnixSocketAddress(path: socketPath) else { return false }
            let bytes = Array(message.utf8)
            let sent = address.withSockaddr { sendto(fd, bytes, bytes.count, Int32(MSG_NOSIGNAL), $0, $1) }
            return sent == bytes.count
        }
    }
}

/// When to ping the watchdog: only while the heartbeat is recent. Checked every quarter of the
/// timeout; a beat must be younger than half of it, so a live daemon pings at least twice per timeout
/// and a stuck one stops within half of it.
public struct WatchdogPolicy: Sendable, Equatable {
    public var timeout: Duration

    public init(timeout: Duration) { self.timeout = timeout }

    public var checkInterval: Duration { timeout / 4 }

    public func shouldPing(heartbeatAge: Duration) -> Bool { heartbeatAge < timeout / 2 }
}
