import ScannerCore

/// Whether something is held up in front of the camera (issue #43), from each frame's thumbnail
/// (`FrameMetrics.thumbnail`: 32×32 cells of mean luma) — for guidance when no text line can be found
/// yet: a card in a dark corner is too faint for the line detector, but it plainly changed the scene.
///
/// A pure state machine: thumbnails and times in, a verdict out. It keeps the scene behind (the first
/// frame, and then any scene that stays still for `settleAfter`) and compares each frame with it cell
/// by cell, after taking out the frame's overall change in exposure (the median of the cells' ratios:
/// auto-exposure and flicker change every cell alike, a card only its own). A cell differs when it is
/// `relativeChange` brighter or darker than the scene's, relatively — so a white card at 8 % exposure
/// (luma ~30 on a desk of ~15) differs as a white card on a lit desk does — and by `minimumLevels` at
/// least. Something is held up when `heldUpShare` of the cells differ.
public struct PresenceDetector: Sendable {
    public struct Configuration: Sendable, Equatable {
        public var relativeChange = 0.35
        public var minimumLevels = 3.0
        public var heldUpShare = 0.04
        /// A scene that stays still this long (s) is the new scene behind: a card laid on the desk
        /// becomes part of it. A card held in a hand is never that still (`stillBelow`).
        public var settleAfter = 5.0
        /// The scene is still while no cell changes by more than this many levels over `stillOver`
        /// (after the overall change in exposure): a hand's tremor moves a card's edges by more.
        public var stillBelow = 4.0
        /// Seconds between the samples compared for stillness, whatever the rate frames come at: a
        /// tremor moves a card less from one frame to the next at 30 fps than over a tenth of a
        /// second, and a card must not settle into the desk sooner because more frames are looked
        /// at. A tenth of a second: the spacing of the text passes at `balanced` (every third frame
        /// at 30 fps) and of the document passes (`DocumentCadence.interval`), whose samples this
        /// rule was measured on.
        public var stillOver = 0.1

        public init() {}
    }

    public let configuration: Configuration
    private var behind: [Double]?
    /// The last sample compared for stillness, and its time.
    private var previous: (cells: [Double], time: Double)?
    private var stillSince: Double?
    /// The share of the frame that differed from the scene behind at the last frame observed.
    public private(set) var changedShare = 0.0
    /// Which cells differed at the last frame observed (row-major, the thumbnail's layout): where something
    /// is held up (a document is one only there, not the desk's own papers).
    public private(set) var changed: [Bool] = []

    public init(configuration: Configuration = Configuration()) {
        self.configuration = configuration
    }

    /// Where the last frame observed differed from the scene behind (normalized): the smallest
    /// rectangle holding every changed cell that has a changed neighbour (a lone cell is noise or a
    /// speck); nil when there is none. Where text may be held up (`TextLooks`).
    public var changedRegion: NormalizedRect? {
        let side = Int(Double(changed.count).squareRoot())
        guard side > 0, side * side == changed.count else { return nil }
        var x0 = side
        var y0 = side
        var x1 = -1
        var y1 = -1
        for y in 0..<side {
            for x in 0..<side where changed[y * side + x] {
                let neighbour = (max(0, y - 1)...min(side - 1, y + 1)).contains { ny in
                    (max(0, x - 1)...min(side - 1, x + 1)).contains { nx in (nx != x || ny != y) && changed[ny * side + nx] }
                }
                guard neighbour else { continue }
                x0 = min(x0, x)
                y0 = min(y0, y)
                x1 = max(x1, x)
                y1 = max(y1, y)
            }
        }
        guard x1 >= x0 else { return nil }
        let cell = 1 / Double(side)
        return NormalizedRect(x: Double(x0) * cell, y: Double(y0) * cell, width: Double(x1 - x0 + 1) * cell, height: Double(y1 - y0 + 1) * cell)
    }

    /// Whether something is held up in the frame whose thumbnail is `thumbnail`, at `time` (s).
    public mutating func observe(_ thumbnail: [UInt8], time: Double) -> Bool {
        let cells = thumbnail.map(Double.init)
        guard let behind, behind.count == cells.count, !cells.isEmpty else {
            // The first frame, or another size: the scene behind is this one.
            self.behind = cells
            previous = (cells, time)
            stillSince = time
            changedShare = 0
            changed = [Bool](repeating: false, count: cells.count)
            return false
        }
        // Any frame that moved from the last sample ends the stillness (a card coming in between two
        // samples must not be settled into the scene); only a sample, `stillOver` after the last one,
        // may start it (a frame's time from a replay's clock may fall a hair short, hence the tolerance).
        let sample = previous.map { time - $0.time >= configuration.stillOver - 1e-6 || $0.cells.count != cells.count } ?? true
        let moved = previous.map { $0.cells.count == cells.count ? Self.largestChange(from: $0.cells, to: cells) : 0 } ?? 0
        if moved >= configuration.stillBelow {
            stillSince = nil
        } else if sample {
            stillSince = stillSince ?? time
        }
        if sample { previous = (cells, time) }
        if let since = stillSince, time - since >= configuration.settleAfter {
            self.behind = cells
            changedShare = 0
            changed = [Bool](repeating: false, count: cells.count)
            return false
        }
        let gain = Self.exposureChange(from: behind, to: cells)
        let brighter = 1 + configuration.relativeChange
        changed = zip(behind, cells).map { before, now in
            let expected = before * gain
            let ratio = (now + 1) / (expected + 1)
            return abs(now - expected) >= configuration.minimumLevels && (ratio > brighter || ratio < 1 / brighter)
        }
        changedShare = Double(changed.count { $0 }) / Double(cells.count)
        return changedShare >= configuration.heldUpShare
    }

    /// The frame's overall change in exposure from `before` to `now`: the median of the cells'
    /// ratios (plus one level, so black cells count).
    static func exposureChange(from before: [Double], to now: [Double]) -> Double {
        let ratios = zip(before, now).map { ($1 + 1) / ($0 + 1) }.sorted()
        return ratios.isEmpty ? 1 : ratios[ratios.count / 2]
    }

    /// The largest change of one cell from `before` to `now`, the overall change in exposure aside.
    static func largestChange(from before: [Double], to now: [Double]) -> Double {
        let gain = exposureChange(from: before, to: now)
        return zip(before, now).map { abs($1 - $0 * gain) }.max() ?? 0
    }
}
