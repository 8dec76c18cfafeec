import Foundation
import ScannerCore

/// The committed fixtures in `Tests/Fixtures` (made by `Tests/Fixtures/generate.py`).
public enum Fixtures {
    public static let directory: URL = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("Fixtures")

    public static func path(_ name: String) -> String { directory.appendingPathComponent(name).path }

    public static func data(_ name: String) throws -> Data { try Data(contentsOf: directory.appendingPathComponent(name)) }

    /// The package's root directory.
    public static let packageRoot: URL = directory.deletingLastPathComponent().deletingLastPathComponent()
}

extension Point {
    /// Whether both coordinates are within `tolerance` of `other`'s.
    public func isNear(_ other: Point, tolerance: Double) -> Bool {
        abs(x - other.x) <= tolerance && abs(y - other.y) <= tolerance
    }
}
