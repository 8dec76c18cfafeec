import SystemPackage

/// Why a frame source cannot deliver. Each case names the device and the reason.
public enum CaptureError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The device node does not exist (not plugged in, or a wrong path).
    case deviceNotFound(path: String)
    /// The node exists but is no streaming video capture device.
    case notACaptureDevice(path: String, reason: String)
    /// An ioctl failed; `request` names it (`VIDIOC_DQBUF`).
    case ioctl(path: String, request: String, errno: Errno)
    /// A system call other than ioctl failed.
    case system(path: String, call: String, errno: Errno)
    /// The device went away while streaming (ENODEV / EIO / POLLERR).
    case disconnected(path: String, reason: String)
    /// No frame within the poll time-out.
    case timeout(path: String, milliseconds: Int)
    /// None of the device's formats is one scannerd can use.
    case noUsableFormat(path: String, offered: [String])
    /// A replay file or directory that cannot be used.
    case badSource(path: String, reason: String)

    public var description: String {
        switch self {
        case .deviceNotFound(let path): "\(path): no such device"
        case .notACaptureDevice(let path, let reason): "\(path): not a video capture device (\(reason))"
        case .ioctl(let path, let request, let errno): "\(path): \(request) failed: \(errno.description) (\(errno.rawValue))"
        case .system(let path, let call, let errno): "\(path): \(call) failed: \(errno.description) (\(errno.rawValue))"
        case .disconnected(let path, let reason): "\(path): disconnected (\(reason))"
        case .timeout(let path, let ms): "\(path): no frame for \(ms) ms"
        case .noUsableFormat(let path, let offered):
            "\(path): offers no MJPG, YUYV or GREY format (offers \(offered.joined(separator: ", ")))"
        case .badSource(let path, let reason): "\(path): \(reason)"
        }
    }
}
