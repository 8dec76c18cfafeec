/// Errors a user can act on. Each says what was wrong and where.
public enum ScannerError: Error, Sendable, Equatable, CustomStringConvertible {
    /// A command-line or configuration value that cannot be used.
    case invalidArgument(name: String, value: String, reason: String)
    /// An image file that could not be read or decoded.
    case unreadableImage(path: String, reason: String)
    /// A C library failed to initialise (e.g. Tesseract without its language data).
    case libraryFailure(library: String, reason: String)

    public var description: String {
        switch self {
        case .invalidArgument(let name, let value, let reason): "invalid \(name) '\(value)': \(reason)"
        case .unreadableImage(let path, let reason): "\(path): \(reason)"
        case .libraryFailure(let library, let reason): "\(library): \(reason)"
        }
    }
}
