import Foundation

/// Which text networks (`make deps` → .build/models; docs/recognition.md) scannerd reads with:
/// `scannerd scan`'s `--line-model`, the daemon's `recognition.line-model`.
public enum LineModelChoice: Sendable, Equatable {
    /// The models beside the binary (`besideExecutable`), if they are there; else Tesseract alone.
    case installed
    /// Tesseract alone.
    case none
    /// The models in this directory; a directory that holds none is an error at start.
    case directory(String)

    /// Where the models are for a binary at `executable`: `../share/scannerd/models` from its directory.
    /// `make install` puts them there (PREFIX/bin → PREFIX/share), and `make deps` links the build's
    /// (.build/TRIPLE/{debug,release} → .build/TRIPLE/share/scannerd/models → .build/models), so the
    /// binary in .build and an installed one both find theirs without a flag.
    public static func besideExecutable(_ executable: String) -> String {
        let binDirectory = ((executable as NSString).resolvingSymlinksInPath as NSString).deletingLastPathComponent
        return
            (((binDirectory as NSString).deletingLastPathComponent as NSString)
            .appendingPathComponent("share/scannerd/models") as NSString).standardizingPath
    }

    /// The running binary's models directory (`besideExecutable`).
    public static var installedDirectory: String {
        besideExecutable(Bundle.main.executablePath ?? CommandLine.arguments.first ?? "")
    }

    /// The directory to load the models from; nil: Tesseract alone.
    public var directory: String? {
        switch self {
        case .installed:
            FileManager.default.fileExists(atPath: (Self.installedDirectory as NSString).appendingPathComponent("alphabet.json"))
                ? Self.installedDirectory : nil
        case .none: nil
        case .directory(let path): path
        }
    }
}
