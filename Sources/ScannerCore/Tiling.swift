/// Square tiles over an image, each reaching `overlap` pixels into its neighbours: a thing no larger
/// than the overlap lies whole in at least one tile. The text detector's tiles (`TiledLook`) and the
/// barcode reader's (`BarcodeTiles`) are cut by this one rule.
public struct Tiling: Sendable, Equatable {
    /// A tile's side, in the image's pixels.
    public var side: Int
    /// How far each tile reaches into its neighbour.
    public var overlap: Int

    public init(side: Int, overlap: Int) {
        self.side = side
        self.overlap = overlap
    }

    /// The tiles of a `width` × `height` image, row by row, `side` × `side` (or the image's side where
    /// it is smaller), the last in a row or column flush with the image's edge; one tile (the whole
    /// image) when it fits in one.
    public func tiles(width: Int, height: Int) -> [PixelRect] {
        func starts(_ length: Int) -> [Int] {
            guard length > side else { return [0] }
            let step = max(1, side - overlap)
            var starts = Array(Swift.stride(from: 0, to: length - side, by: step))
            starts.append(length - side)
            return starts
        }
        let (w, h) = (min(side, width), min(side, height))
        return starts(height).flatMap { y in starts(width).map { x in PixelRect(x: x, y: y, width: w, height: h) } }
    }
}

extension ContinuousClock.Instant {
    /// Whether this deadline has passed: the one test of `scan`'s time limit, wherever it is checked
    /// between steps (barcode tiles, zbar's places, the text detector's tiles, text lines).
    public var hasPassed: Bool { ContinuousClock.now >= self }
}
