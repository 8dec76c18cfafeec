/// Which barcode scan a camera frame gets. A pure state machine: whether the scene changed in, the
/// scan out (issue #41).
///
/// A quick scan (zxing-cpp, upright codes dark on light) costs half a thorough one (zxing-cpp also
/// tries 1-D codes turned by 90° and light-on-dark codes, and zbar looks for what it missed), so
/// scans of a changing scene take turns: every `thoroughEvery`-th is thorough, the first one too (a
/// camera's first frame, or what comes after a reset, gets a complete look). A scene that comes to
/// rest after a quick scan gets one thorough scan, so that a code held still is looked at in every
/// way once; after that its frames reuse the last result until the scene changes.
public struct BarcodeCadence: Sendable, Equatable {
    public enum Scan: Sendable, Equatable {
        case quick
        case thorough
        /// Nothing new to look at: the last result stands for the frame.
        case reuse
    }

    public let thoroughEvery: Int
    /// Scans since the last thorough one; nil before the first scan.
    private var scansSinceThorough: Int?
    /// Whether the scene has not changed since the last verdict (its rest was dealt with).
    private var resting = false

    public init(thoroughEvery: Int) {
        self.thoroughEvery = max(1, thoroughEvery)
    }

    public mutating func next(sceneChanged: Bool) -> Scan {
        if !sceneChanged {
            defer { resting = true }
            // Come to rest after a quick scan: one thorough look; otherwise the last result stands.
            guard !resting, let since = scansSinceThorough, since > 0 else { return .reuse }
            scansSinceThorough = 0
            return .thorough
        }
        resting = false
        if let since = scansSinceThorough, since + 1 < thoroughEvery {
            scansSinceThorough = since + 1
            return .quick
        }
        scansSinceThorough = 0
        return .thorough
    }
}
