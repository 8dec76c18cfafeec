import Foundation
import ScannerProtocol

/// Writes a `capture` photo to the path a client named, without ever destroying anything that is not
/// the daemon's own (docs/security.md).
///
/// - The bytes go to a new file in the same directory (`O_CREAT|O_EXCL|O_NOFOLLOW`, mode 0640), so a
///   link planted under that name cannot redirect the write.
/// - Without `overwrite` the file is put in place with `linkat`, which fails when the name exists:
///   the same no-replace guarantee as `renameat2(RENAME_NOREPLACE)`, on every filesystem that has
///   hard links.
/// - With `overwrite` an existing entry is replaced (`renameat`) only when it is a regular file owned
///   by the daemon's user; a socket (the daemon's own), a device, a FIFO, a link or a directory never.
///   `rename` replaces the name, never what a link points to.
enum PhotoFile {
    enum Failure: Error, Equatable, CustomStringConvertible {
        /// Something is already there and `overwrite` was not asked for.
        case exists(path: String)
        /// Something is there that may not be replaced.
        case notReplaceable(path: String, reason: String)
        case failed(path: String, reason: String)

        var description: String {
            switch self {
            case .exists(let path): "\(path): exists; send \"overwrite\": true to replace a file of the daemon's"
            case .notReplaceable(let path, let reason): "\(path): \(reason); not replaced"
            case .failed(let path, let reason): "\(path): \(reason)"
            }
        }

        var code: ErrorCode {
            if case .exists = self { .exists } else { .writeFailed }
        }
    }

    static let mode: mode_t = 0o640

    static func write(_ bytes: Data, to path: String, overwrite: Bool) throws(Failure) {
        let url = URL(fileURLWithPath: path)
        let name = url.lastPathComponent
        let directoryPath = url.deletingLastPathComponent().path
        guard !name.isEmpty, name != "/", name != ".", name != ".." else { throw .failed(path: path, reason: "not a file name") }
        let directory = open(directoryPath, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard directory >= 0 else { throw .failed(path: path, reason: "directory: \(errorText())") }
        defer { close(directory) }

        let temporary = ".\(name).scannerd-\(UInt32.random(in: 0...UInt32.max))"
        let fd = openat(directory, temporary, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode)
        guard fd >= 0 else { throw .failed(path: path, reason: errorText()) }
        defer { unlinkat(directory, temporary, 0) }  // after a link or a rename: nothing left there, ENOENT
        try fill(fd, with: bytes, path: path)

        if linkat(directory, temporary, directory, name, 0) == 0 { return }
        guard errno == EEXIST else { throw .failed(path: path, reason: errorText()) }
        guard overwrite else { throw .exists(path: path) }
        var info = stat()
        guard fstatat(directory, name, &info, AT_SYMLINK_NOFOLLOW) == 0 else { throw .failed(path: path, reason: errorText()) }
        guard info.st_mode & S_IFMT == S_IFREG else { throw .notReplaceable(path: path, reason: "is \(kind(info.st_mode))") }
        guard info.st_uid == geteuid() else { throw .notReplaceable(path: path, reason: "belongs to another user (uid \(info.st_uid))") }
        guard renameat(directory, temporary, directory, name) == 0 else { throw .failed(path: path, reason: errorText()) }
    }

    /// Writes everything, makes it durable, and closes `fd`.
    private static func fill(_ fd: CInt, with bytes: Data, path: String) throws(Failure) {
        defer { close(fd) }
        // The umask may have taken bits away: 0640 exactly.
        fchmod(fd, mode)
        try writeAll(bytes, to: fd, path: path)
        guard fsync(fd) == 0 else { throw .failed(path: path, reason: errorText()) }
    }

    private static func writeAll(_ bytes: Data, to fd: CInt, path: String) throws(Failure) {
        let result: Int32 = bytes.withUnsafeBytes { raw in
            var offset = 0
            while offset < raw.count {
                let n = Glibc.write(fd, raw.baseAddress! + offset, raw.count - offset)
                if n < 0 {
                    if errno == EINTR { continue }
                    return errno
                }
                offset += n
            }
            return 0
        }
        if result != 0 { throw .failed(path: path, reason: String(cString: strerror(result))) }
    }

    private static func kind(_ mode: mode_t) -> String {
        switch mode & S_IFMT {
        case S_IFDIR: "a directory"
        case S_IFLNK: "a symbolic link"
        case S_IFSOCK: "a socket"
        case S_IFIFO: "a FIFO"
        case S_IFCHR, S_IFBLK: "a device"
        default: "not a regular file"
        }
    }

    private static func errorText() -> String { String(cString: strerror(errno)) }
}
