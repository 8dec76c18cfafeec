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
        /// The scene is still while no cell changes by more than this many levels from one sample to
        /// the next (after the overall change in exposure): a hand's tremor moves a card's edges by
        /// more.
        public var stillBelow = 4.0

        public init() {}
    }

    public let configuration: Configuration
    private var behind: [Double]?
    private var previous: [Double]?
    private var stillSince: Double?
    /// The share of the frame that differed from the scene behind at the last sample.
    public private(set) var changedShare = 0.0
    /// Which cells differed at the last sample (row-major, the thumbnail's layout): where something
    /// is held up (a document is one only there, not the desk's own papers).
    public private(set) var changed: [Bool] = []

    public init(configuration: Configuration = Configuration()) {
        self.configuration = configuration
    }

    /// Whether something is held up in the frame whose thumbnail is `thumbnail`, at `time` (s).
    public mutating func observe(_ thumbnail: [UInt8], time: Double) -> Bool {
        let cells = thumbnail.map(Double.init)
        defer { previous = cells }
        guard let behind, behind.count == cells.count, !cells.isEmpty else {
            // The first frame, or another size: the scene behind is this one.
            self.behind = cells
            stillSince = time
            changedShare = 0
            changed = [Bool](repeating: false, count: cells.count)
            return false
        }
        let moved = previous.map { Self.largestChange(from: $0, to: cells) } ?? 0
        if moved < configuration.stillBelow {
            stillSince = stillSince ?? time
        } else {
            stillSince = nil
        }
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
