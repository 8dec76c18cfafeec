import Foundation
import ScannerCore

/// What one image may cost before it is decoded (docs/security.md). A compressed file can declare
/// any size — 74 bytes of PNG claim 65535×65535 pixels, 4.3 GB — so the size is read from the
/// header and checked first, and the file's own bytes are bounded before they are read.
public struct ImageLimits: Sendable, Equatable {
    /// Pixels (width × height) an image may declare. 50 megapixels: the largest phone photos
    /// (8160×6120) fit; a decoded one costs at most 200 MB in Leptonica's 32-bit form.
    public var maximumPixels: Int
    /// Bytes a file may hold.
    public var maximumBytes: Int

    public static let `default` = ImageLimits(maximumPixels: 50_000_000, maximumBytes: 64 << 20)

    public init(maximumPixels: Int, maximumBytes: Int) {
        self.maximumPixels = maximumPixels
        self.maximumBytes = maximumBytes
    }

    /// Why an image of this size is refused, or nil.
    public func problem(width: Int, height: Int) -> String? {
        guard width > 0, height > 0 else { return "the header declares no pixels (\(width)×\(height))" }
        guard width.multipliedReportingOverflow(by: height).partialValue <= maximumPixels, width <= maximumPixels, height <= maximumPixels else {
            return "image too large (\(width)×\(height); at most \(Self.megapixels(maximumPixels)) megapixels)"
        }
        return nil
    }

    static func megapixels(_ pixels: Int) -> String {
        let value = Double(pixels) / 1_000_000
        return value == value.rounded() ? String(Int(value)) : String(format: "%.1f", value)
    }
}

/// Reading an image file within the limits: a regular file only (a FIFO would block, a device has
/// no end), never more than the byte limit, opened by its raw path (a file name need not be UTF-8).
public enum ImageFile {
    /// - Parameter path: the path's bytes, as the command line or the directory listing gave them.
    public static func read(rawPath path: [UInt8], limits: ImageLimits) throws(ScannerError) -> Data {
        let name = String(decoding: path, as: UTF8.self)
        func unreadable(_ reason: String) -> ScannerError { .unreadableImage(path: name, reason: reason) }
        guard !path.isEmpty, !path.contains(0) else { throw unreadable("not a file name") }
        let fd = (path + [0]).withUnsafeBufferPointer { bytes in
            bytes.withMemoryRebound(to: CChar.self) { open($0.baseAddress!, O_RDONLY | O_NONBLOCK | O_CLOEXEC) }
        }
        guard fd >= 0 else { throw unreadable(describe(errno)) }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0 else { throw unreadable(describe(errno)) }
        switch info.st_mode & S_IFMT {
        case S_IFREG: break
        case S_IFDIR: throw unreadable("is a directory")
        default: throw unreadable("not a regular file")
        }
        guard info.st_size <= limits.maximumBytes else {
            throw unreadable("file too large (\(info.st_size) bytes; at most \(limits.maximumBytes >> 20) MiB)")
        }
        guard info.st_size > 0 else { throw unreadable("empty file") }
        var bytes = [UInt8](repeating: 0, count: Int(info.st_size) + 1)
        var count = 0
        while count < bytes.count {
            let n = bytes.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress! + count, $0.count - count) }
            if n < 0 && errno == EINTR { continue }
            guard n >= 0 else { throw unreadable(describe(errno)) }
            if n == 0 { break }
            count += n
        }
        // One byte more than stat said means it grew while being read: not the file that was checked.
        guard count <= Int(info.st_size) else { throw unreadable("the file changed while being read") }
        return Data(bytes[..<count])
    }

    static func describe(_ code: Int32) -> String {
        switch code {
        case ENOENT: "no such file"
        case EACCES, EPERM: "permission denied"
        default: String(cString: strerror(code))
        }
    }
}
