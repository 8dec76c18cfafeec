import ScannerCore

/// Where a full-resolution barcode scan found codes that the reduced processing image does not
/// show: those places are scanned again at full resolution on every barcode scan, not only on the
/// every-n-th full-resolution one. A pure state machine: scan results in, the areas to scan out.
///
/// Why: an EAN-13 of 1.6 px per module at 1280 px is 0.8 px at 640 and is read only at full
/// resolution, every fourth scan at `balanced` (`SequenceConfiguration.barcodeDetailEvery`). At
/// realtime on 2 cores the barcode thread scans every 3–10 frames, so the label's EAN-13 was read
/// once in 20–40 frames and added 27–76 frames after it became legible (generated footage, seeds
/// 1–3). A spot around it costs a crop of the frame, not the whole frame.
public struct DetailSpots: Sendable, Equatable {
    public struct Spot: Sendable, Equatable {
        /// The area to scan (normalized, within the frame).
        public var area: NormalizedRect
        /// The code's symbology: the spot follows codes of it (another code in the crop is reported,
        /// not followed).
        public var symbology: Symbology?
        /// Spot scans in a row that found nothing in it.
        public var misses: Int
    }

    public private(set) var spots: [Spot] = []

    /// A spot is dropped after this many scans in a row found nothing in it (the code left). Motion
    /// blur hides a code for several scans; a spot costs a crop, so it is kept that long.
    public var maximumMisses = 6
    /// At most this many spots (each is a crop scanned on every scan).
    public var maximumSpots = 4
    /// A spot reaches this many times the code's length past each of its sides: room for the hand
    /// to move between two scans.
    public var margin = 0.5

    public init() {}

    /// After a full-resolution scan: a spot around each code in `detail` that `reduced` (the
    /// last scan of the reduced image) did not find. A spot before it in which this scan found
    /// nothing counts a miss, as in a spot scan: one blurred frame does not forget a code (it did,
    /// and the label's EAN-13 went unseen past the grace period and was removed while in view).
    public mutating func afterDetailScan(_ detail: [RecognizedItem], reduced: [RecognizedItem]) {
        let small = detail.filter { code in
            !reduced.contains { $0.symbology == code.symbology && $0.payload == code.payload }
        }
        var next = small.map { Spot(area: area(around: $0.bounds), symbology: $0.symbology, misses: 0) }
        for spot in spots where !small.contains(where: { spot.area.contains($0.bounds.center) }) && spot.misses + 1 < maximumMisses {
            next.append(Spot(area: spot.area, symbology: spot.symbology, misses: spot.misses + 1))
        }
        spots = Array(next.prefix(maximumSpots))
    }

    /// After the spots were scanned: `found[i]` is what spot `i` gave. A spot that found its code
    /// moves to be centred on it; one that did not counts a miss.
    public mutating func afterSpotScan(_ found: [[RecognizedItem]]) {
        var next: [Spot] = []
        for (spot, codes) in zip(spots, found) {
            let own = codes.filter { $0.symbology == spot.symbology }
            if own.isEmpty {
                guard spot.misses + 1 < maximumMisses else { continue }
                next.append(Spot(area: spot.area, symbology: spot.symbology, misses: spot.misses + 1))
            } else {
                for code in own where !next.contains(where: { $0.area.contains(code.bounds.center) }) {
                    next.append(Spot(area: area(around: code.bounds), symbology: code.symbology, misses: 0))
                }
            }
        }
        spots = Array(next.prefix(maximumSpots))
    }

    /// The code's bounding box grown by `margin` times its length on every side, clipped to the frame.
    func area(around bounds: Quad) -> NormalizedRect {
        let box = bounds.boundingBox
        let grow = margin * bounds.boxLength
        let x0 = max(0, box.minX - grow), y0 = max(0, box.minY - grow)
        let x1 = min(1, box.maxX + grow), y1 = min(1, box.maxY + grow)
        return NormalizedRect(x: x0, y: y0, width: max(0, x1 - x0), height: max(0, y1 - y0))
    }
}
