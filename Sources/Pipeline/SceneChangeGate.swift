/// Whether a frame shows something new since the frame a stage last read, told from 32×32
/// thumbnails (`FrameMetrics.thumbnail`: box means over the processing image).
///
/// A camera looking at a still scene never sends the same pixels twice: sensor noise and JPEG
/// ringing change every pixel, and auto-exposure breathes a few percent over the whole frame. The
/// old rule (mean absolute thumbnail difference below one level) read all of that as change, and on
/// a still desk both recognizers ran on every frame (85% of a core through the emulated camera).
/// Here:
/// - **exposure** is matched first: the reference is scaled by the median ratio of the two
///   thumbnails (brightness scales the same in gamma-encoded levels as in light, `(k·x)^γ = k^γ·x^γ`);
/// - **noise** sets its own bar: a cell counts as changed when it differs from the scaled
///   reference by more than `cellThreshold` levels and more than `noiseFactor` × the median
///   difference of all cells (most cells of a still scene differ by noise alone);
/// - **one cell is no scene**: a glint or a speck of noise changes a cell; a card, a hand or a phone
///   coming in changes many. At least `minimumChangedCells` must change;
/// - **most of the view changed is a change**: when the median cell differs beyond the floor, that
///   is no noise but a card held close over most of the frame.
///
/// Measured on the footage (2026-11-22, 10 empty-desk clips with noise and flicker, 5 at 1280×720
/// and 5 at 640×480, dim ones among them): no desk frame is a change at 8 levels; at 5 levels 7 of
/// the 10 clips wake up now and then (so 8 leaves a margin). A card, phone, label, poster or receipt
/// coming in is a change 9–15 frames before any item on it is in view.
///
/// Pure: thumbnails in, a verdict out; the stage decides when the reference moves (`rebase(on:)`).
public struct SceneChangeGate: Sendable {
    public struct Configuration: Sendable, Equatable {
        /// A cell changed by at most this many gray levels (after exposure is matched) has not changed.
        public var cellThreshold = 8
        /// Nor one within this multiple of the frame's noise (the median cell difference).
        public var noiseFactor = 6.0
        /// Fewer changed cells than this are no change of scene.
        public var minimumChangedCells = 2

        public init() {}
    }

    public let configuration: Configuration
    /// The thumbnail of the frame last read; nil before the first.
    public private(set) var reference: [UInt8]?

    public init(configuration: Configuration = Configuration()) {
        self.configuration = configuration
    }

    /// The frame with `thumbnail` shows nothing new since the reference (false before the first frame).
    public func isUnchanged(_ thumbnail: [UInt8]) -> Bool {
        guard let reference else { return false }
        return Self.changedCells(from: reference, to: thumbnail, configuration) < configuration.minimumChangedCells
    }

    /// The frame with `thumbnail` was read: later frames are compared with it.
    public mutating func rebase(on thumbnail: [UInt8]) {
        reference = thumbnail
    }

    /// The cells of `current` that differ from `reference` beyond exposure and noise (all of them
    /// when the thumbnails do not match in size).
    public static func changedCells(from reference: [UInt8], to current: [UInt8], _ configuration: Configuration) -> Int {
        guard reference.count == current.count, !reference.isEmpty else { return max(reference.count, current.count) }
        let gain = exposureGain(from: reference, to: current)
        var residuals = [Int](repeating: 0, count: current.count)
        var histogram = [Int](repeating: 0, count: 256)
        for i in current.indices {
            let expected = min(255, Double(reference[i]) * gain)
            let residual = min(255, Int(abs(Double(current[i]) - expected).rounded()))
            residuals[i] = residual
            histogram[residual] += 1
        }
        let noise = Double(median(of: histogram, count: current.count))
        // Most of the frame beyond the floor is no noise (box means of ~200 pixels each: that would
        // take noise of ~170 levels a pixel) but something covering most of the view, a card held
        // close: every cell counts.
        if noise > Double(configuration.cellThreshold) { return current.count }
        let threshold = max(Double(configuration.cellThreshold), configuration.noiseFactor * noise)
        return residuals.count { Double($0) > threshold }
    }

    /// The median ratio current / reference over cells bright enough for a ratio to mean something
    /// (16 levels and up); 1 when fewer than an eighth of the cells are.
    static func exposureGain(from reference: [UInt8], to current: [UInt8]) -> Double {
        var ratios: [Double] = []
        ratios.reserveCapacity(reference.count)
        for i in reference.indices where reference[i] >= 16 {
            ratios.append(Double(current[i]) / Double(reference[i]))
        }
        guard ratios.count * 8 >= reference.count else { return 1 }
        ratios.sort()
        return ratios[ratios.count / 2]
    }

    static func median(of histogram: [Int], count: Int) -> Int {
        var seen = 0
        for (level, n) in histogram.enumerated() {
            seen += n
            if seen * 2 >= count { return level }
        }
        return histogram.count - 1
    }
}
