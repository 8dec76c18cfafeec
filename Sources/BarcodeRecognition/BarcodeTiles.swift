import ScannerCore

/// How a still with more codes than one read of zxing-cpp returns is read (issue #54): in tiles of
/// bounded size, at the image's own resolution and at each halving of it, coarsest first. Pure:
/// sizes in, looks out; readings in, readings out.
///
/// zxing-cpp returns at most 255 symbols a read (its `maxNumberOfSymbols` is a byte), and what zbar
/// then finds beyond them was read again by zxing-cpp one by one in squares of a fifth of the image:
/// the time grew as the square of the number of codes (2,401 codes: 25 s, docs/benchmarks.md, "Many
/// codes in one image"). A tile holds a bounded number of codes, so zxing-cpp reads them all and the
/// time grows as the area; and the reading can stop between looks at a budget.
/// - A code no larger than `tiling.overlap` lies whole in a tile at full resolution; a larger one
///   lies whole in a tile of a halving where it is that small again, or in the coarsest look, the
///   whole image reduced to one tile; one too long for any of them (a 1-D code of many modules) is
///   read by the whole read that comes before the tiles (`BarcodeRecognizer.recognizeStill`).
/// - A reading that touches a tile's edge inside the image is a code cut there: dropped (a 1-D
///   reader can decode a truncated Code 39 as a shorter valid one); the tile beside, or a coarser
///   look, holds it whole.
/// - The same code read by two looks (overlaps, halvings) is one: the same symbology and payload
///   where either's centre is inside the other (`BarcodeObservation.samePlace`), found through a
///   grid of `tiling.side` cells, so that thousands of readings merge in linear time.
public struct BarcodeTiles: Sendable, Equatable {
    public var tiling: Tiling

    public init(tiling: Tiling = Tiling(side: 1024, overlap: 384)) {
        self.tiling = tiling
    }

    /// One look: the image reduced `reduction` times (1: full resolution), and the part of that
    /// reduced image looked at.
    public struct Look: Sendable, Equatable {
        public var reduction: Int
        public var tile: PixelRect

        public init(reduction: Int, tile: PixelRect) {
            self.reduction = reduction
            self.tile = tile
        }
    }

    /// The looks at a `width` × `height` image, coarsest first: the image halved until it fits one
    /// tile, then the tiles of each larger halving, the image's own resolution last.
    public func looks(width: Int, height: Int) -> [Look] {
        var reductions = [1]
        while max(width, height) / reductions.last! > tiling.side { reductions.append(reductions.last! * 2) }
        return reductions.reversed().flatMap { reduction in
            let (w, h) = (Self.reduced(width, by: reduction), Self.reduced(height, by: reduction))
            return tiling.tiles(width: w, height: h).map { Look(reduction: reduction, tile: $0) }
        }
    }

    /// A side of the image reduced `reduction` times (as `GrayImage.scaled(by:)` rounds it).
    public static func reduced(_ side: Int, by reduction: Int) -> Int {
        max(1, Int((Double(side) / Double(reduction)).rounded()))
    }

    /// Within this many pixels of a tile's edge, a reading touches it.
    static let touching = 2.0

    /// `found` in `look`'s tile (in the pixels of the reduced image it is cut from, `width` ×
    /// `height`) in the image's pixels; none that touch an edge the tile shares with a neighbour.
    public static func placed(_ found: [BarcodeObservation], of look: Look, width: Int, height: Int) -> [BarcodeObservation] {
        let t = look.tile
        let (left, top, right, bottom) = (Double(t.x), Double(t.y), Double(t.x + t.width), Double(t.y + t.height))
        let scale = Double(look.reduction)
        return found.compactMap { observation in
            let box = observation.corners.boundingBox
            let cut =
                (t.x > 0 && box.minX <= left + touching) || (t.y > 0 && box.minY <= top + touching)
                || (t.x + t.width < width && box.maxX >= right - touching)
                || (t.y + t.height < height && box.maxY >= bottom - touching)
            guard !cut else { return nil }
            var placed = observation
            placed.corners = observation.corners.map { Point(x: $0.x * scale, y: $0.y * scale) }
            return placed
        }
    }

    /// The readings of every look as one list: a code read by several looks once (the first look's
    /// reading: the coarsest, which saw it whole with its quiet zone).
    public func merged(_ readings: [BarcodeObservation]) -> [BarcodeObservation] {
        // A duplicate's centre is within the code: in the same cell of a tile's side or a neighbour,
        // wherever codes are smaller than a tile (larger ones only the coarsest look reads whole).
        let cell = Double(max(1, tiling.side))
        struct Key: Hashable {
            var symbology: Symbology
            var payload: String
            var x: Int
            var y: Int
        }
        var kept: [BarcodeObservation] = []
        var grid: [Key: [Int]] = [:]
        for reading in readings {
            let centre = reading.corners.center
            guard centre.x.isFinite, centre.y.isFinite else { continue }
            let (cx, cy) = (Int((centre.x / cell).rounded(.down)), Int((centre.y / cell).rounded(.down)))
            let seen = (-1...1).contains { dy in
                (-1...1).contains { dx in
                    grid[Key(symbology: reading.symbology, payload: reading.payload, x: cx + dx, y: cy + dy)]?
                        .contains { kept[$0].samePlace(as: reading) } ?? false
                }
            }
            guard !seen else { continue }
            grid[Key(symbology: reading.symbology, payload: reading.payload, x: cx, y: cy), default: []].append(kept.count)
            kept.append(reading)
        }
        return kept
    }
}
