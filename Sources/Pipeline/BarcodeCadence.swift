import ScannerCore

/// Which barcode scan a camera frame gets. A pure state machine: whether the scene changed, what is
/// held up and the time in, the scan out; what the scan found back in (issue #41, #52).
///
/// A quick scan (zxing-cpp, upright codes dark on light) costs half a thorough one (zxing-cpp also
/// tries 1-D codes turned by 90° and light-on-dark codes, and zbar looks for what it missed), so
/// scans of a changing scene take turns: every `thoroughEvery`-th is thorough, the first one too (a
/// camera's first frame, or what comes after a reset, gets a complete look). A scene that comes to
/// rest after a quick scan gets one thorough scan, so that a code held still is looked at in every
/// way once; after that its frames reuse the last result until the scene changes.
///
/// A card held still is never a still scene to the gate (a hand's jitter changes some of the
/// thumbnail's cells on every frame), so it was scanned on every frame, ~40 ms each at 1280×720 on
/// a CPU without AVX-512, for nothing when it holds no code. Once what is held up has stayed where
/// it is (`FrameLook.heldStill`) for `restingScanEvery` and a thorough scan after that, and every
/// scan since, found nothing, it is scanned again only every `restingScanEvery` seconds, until it
/// moves or a scan finds something. The wait before resting keeps a code that is only readable once
/// the card has stopped from resting on the blurred scans of its coming in (the footage's label and
/// sheet, unpaced: their codes added 9–13 frames late without it).
///
/// A label held still whose codes were found is scanned on every frame too, and for its codes' sake:
/// their corners follow the hand. Once it has rested as above and a thorough scan found codes, the
/// frames between two whole, thorough, scans (`restingScanEvery` apart) are scanned only around the
/// codes the last scan found (`around`); any of them not found there again ends the rest, and so
/// does a move.
public struct BarcodeCadence: Sendable {
    public enum Scan: Sendable, Equatable {
        case quick
        case thorough
        /// Nothing new to look at: the last result stands for the frame.
        case reuse
        /// Only around the codes the last scan found: each one's neighbourhood, thoroughly.
        case around
    }

    /// What the scans of a held-up region at rest found.
    private enum Settled {
        case empty
        case codes
    }

    public let thoroughEvery: Int
    /// A held-up region still this long (s) and found empty by a thorough scan is scanned again at
    /// most this often; found to hold codes, it is scanned whole at most this often and around its
    /// codes in between.
    public let restingScanEvery: Double
    /// `restingScanEvery` of the live pipeline: a still card without a code costs two scans a second
    /// instead of one a frame (the footage at realtime, 21 clips: 43.0 → 39.1 ms of CPU a frame, the
    /// same items found; docs/benchmarks.md, 2026-11-29).
    public static let liveRestingScanEvery = 0.5
    /// Scans since the last thorough one; nil before the first scan.
    private var scansSinceThorough: Int?
    /// Whether the scene has not changed since the last verdict (its rest was dealt with).
    private var resting = false
    /// What was held up when it last moved (`FrameLook.heldStill`; nil inside: nothing held up),
    /// and when.
    private var heldUp: (region: NormalizedRect?, since: Double)?
    /// What a thorough scan since `heldUp` last moved found, where every scan after it agreed (found
    /// nothing, or found codes); nil when there was none or a scan since disagreed.
    private var settled: Settled?
    /// When the last scan of the whole frame was asked for, and whether it was thorough.
    private var lastScan = -Double.infinity
    private var lastScanThorough = false
    /// Whether the scan `next` last asked for was `around`.
    private var lastScanAround = false

    public init(thoroughEvery: Int, restingScanEvery: Double = BarcodeCadence.liveRestingScanEvery) {
        self.thoroughEvery = max(1, thoroughEvery)
        self.restingScanEvery = max(0, restingScanEvery)
    }

    /// The scan for a frame at `time` (seconds) with `heldUp` held up in it.
    public mutating func next(sceneChanged: Bool, heldUp region: NormalizedRect?, time: Double) -> Scan {
        if !(heldUp.map { FrameLook.heldStill(from: $0.region, to: region) } ?? false) {
            heldUp = (region, time)
            settled = nil
        }
        let scan = scan(sceneChanged: sceneChanged, time: time)
        if scan != .reuse {
            lastScanAround = scan == .around
        }
        if scan == .quick || scan == .thorough {
            lastScan = time
            lastScanThorough = scan == .thorough
        }
        return scan
    }

    /// What the scan `next` last asked for found: anything at all, or nothing; and, for a scan
    /// `around` the codes found before, whether any of them was not found again (a sheet starting to
    /// move: its codes found again only by a whole scan half a second later, far from where they
    /// were, became second items).
    public mutating func scanned(foundAnything: Bool, lostAny: Bool = false) {
        if lastScanAround {
            if !foundAnything || lostAny { settled = nil }
        } else if lastScanThorough, let heldUp, lastScan - heldUp.since >= restingScanEvery {
            settled = foundAnything ? .codes : .empty
        } else if settled == (foundAnything ? .empty : .codes) {
            settled = nil
        }
    }

    private mutating func scan(sceneChanged: Bool, time: Double) -> Scan {
        if !sceneChanged {
            defer { resting = true }
            // Come to rest after a quick scan: one thorough look; otherwise the last result stands.
            guard !resting, let since = scansSinceThorough, since > 0 else { return .reuse }
            scansSinceThorough = 0
            return .thorough
        }
        resting = false
        if let settled, time - lastScan < restingScanEvery { return settled == .empty ? .reuse : .around }
        // The whole scans of a label at rest are thorough: a code only they read (zbar's) would
        // otherwise drop out of the scans around the codes until a thorough one came round.
        if settled == .codes {
            scansSinceThorough = 0
            return .thorough
        }
        if let since = scansSinceThorough, since + 1 < thoroughEvery {
            scansSinceThorough = since + 1
            return .quick
        }
        scansSinceThorough = 0
        return .thorough
    }
}
