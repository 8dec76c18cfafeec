import Foundation

/// The files the configuration names — the configuration itself, `http.token-file`,
/// `mqtt.password-file`, `mqtt.ca-file` — read (or checked) one way: a regular file only, of at most
/// a given size, and never waiting. Opened `O_NONBLOCK`: opening a FIFO with no writer would block
/// the start (or a reload) for ever; a device has no end; a file far larger than expected would
/// exhaust memory. `O_NOCTTY`: a terminal named by mistake must not become the daemon's.
public enum RegularFile {
    public enum Failure: Error, Sendable, Equatable, CustomStringConvertible {
        /// `open` or `read` failed: its errno.
        case system(Int32)
        case directory
        /// A FIFO, a socket, a device.
        case notRegular
        /// `size` nil: it grew past the limit while being read.
        case tooLarge(size: Int?, limit: Int)

        public var description: String {
            switch self {
            case .system(let code): code == ENOENT ? "no such file" : String(cString: strerror(code))
            case .directory: "is a directory"
            case .notRegular: "not a regular file"
            case .tooLarge(let size?, let limit): "too large (\(size) bytes; at most \(Self.bytes(limit)))"
            case .tooLarge(nil, let limit): "too large (more than \(Self.bytes(limit)))"
            }
        }

        static func bytes(_ count: Int) -> String {
            if count >= 1 << 20, count % (1 << 20) == 0 { return "\(count >> 20) MiB" }
            if count >= 1 << 10, count % (1 << 10) == 0 { return "\(count >> 10) KiB" }
            return "\(count) bytes"
        }
    }

    /// The whole file, if it is a regular file of at most `limit` bytes (checked with `fstat` before
    /// reading, and again while reading: it may grow meanwhile).
    public static func read(_ path: String, limit: Int) throws(Failure) -> [UInt8] {
        let fd = try open(path, limit: limit)
        defer { close(fd) }
        var bytes = [UInt8](repeating: 0, count: limit + 1)
        var count = 0
        while count <= limit {
            let n = bytes.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress! + count, limit + 1 - count) }
            if n < 0 && errno == EINTR { continue }
            // A regular file never says EAGAIN, even opened O_NONBLOCK.
            guard n >= 0 else { throw .system(errno) }
            if n == 0 { break }
            count += n
        }
        guard count <= limit else { throw .tooLarge(size: nil, limit: limit) }
        return Array(bytes[..<count])
    }

    /// Checks, without reading, that `path` is a regular file of at most `limit` bytes: for a file a
    /// library opens itself (libmosquitto's `fopen` of `mqtt.ca-file` would wait on a FIFO).
    public static func check(_ path: String, limit: Int) throws(Failure) {
        close(try open(path, limit: limit))
    }

    /// The descriptor of a regular file of at most `limit` bytes; the caller closes it.
    private static func open(_ path: String, limit: Int) throws(Failure) -> Int32 {
        let fd = Glibc.open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC)
        guard fd >= 0 else { throw .system(errno) }
        var info = stat()
        guard fstat(fd, &info) == 0 else {
            let code = errno
            close(fd)
            throw .system(code)
        }
        let kind = info.st_mode & S_IFMT
        guard kind == S_IFREG else {
            close(fd)
            throw kind == S_IFDIR ? Failure.directory : Failure.notRegular
        }
        guard info.st_size <= limit else {
            close(fd)
            throw .tooLarge(size: Int(info.st_size), limit: limit)
        }
        return fd
    }
}
