import Foundation

/// Which line network model (`make line-model`; docs/recognition.md) reads typed lines beside
/// Tesseract: `scannerd scan`'s `--line-model`, the daemon's `recognition.line-model`.
public enum LineModelChoice: Sendable, Equatable {
    /// The installed model, if there is one (`installedDirectories`); else Tesseract alone.
    case installed
    /// Tesseract alone.
    case none
    /// The model in this directory; a directory that holds none is an error at start.
    case directory(String)

    /// Where `make install` puts the model (`PREFIX=/usr/local`, and a package's `/usr`).
    public static let installedDirectories = ["/usr/local/share/scannerd/line-model", "/usr/share/scannerd/line-model"]

    /// The directory to load the model from; nil: Tesseract alone.
    public var directory: String? {
        switch self {
        case .installed:
            Self.installedDirectories.first { FileManager.default.fileExists(atPath: ($0 as NSString).appendingPathComponent("alphabet.json")) }
        case .none: nil
        case .directory(let path): path
        }
    }
}
