#if canImport(Glibc)
    import Glibc
#endif

/// A Unix-domain socket address (`sockaddr_un`) for a path, built in one place for the server's
/// stale-socket check, the client and the systemd notifier. A path starting with `@` names Linux's
/// abstract namespace (as `NOTIFY_SOCKET` may).
public struct UnixSocketAddress {
    private var address = sockaddr_un()
    /// The address's length: the family, the path and, for a path in the file system, its NUL.
    public let length: socklen_t

    /// Nil when `path` is empty or does not fit `sun_path` (108 bytes with its NUL on Linux).
    public init?(path: String) {
        var bytes = Array(path.utf8)
        guard !bytes.isEmpty else { return nil }
        let abstract = bytes[0] == UInt8(ascii: "@")
        if abstract { bytes[0] = 0 }
        guard bytes.count < MemoryLayout.size(ofValue: address.sun_path) else { return nil }
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            raw.copyBytes(from: bytes)
            if !abstract { raw[bytes.count] = 0 }
        }
        length = socklen_t(MemoryLayout<sa_family_t>.size + bytes.count + (abstract ? 0 : 1))
    }

    /// Calls `body` with the address as the `sockaddr` pointer and length that `connect`, `bind` and
    /// `sendto` take.
    public func withSockaddr<T>(_ body: (UnsafePointer<sockaddr>, socklen_t) throws -> T) rethrows -> T {
        try withUnsafePointer(to: address) { pointer in
            try pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { try body($0, length) }
        }
    }
}
