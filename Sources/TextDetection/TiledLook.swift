import ScannerCore

/// How a still image larger than the detector's one look is looked at in tiles at its own
/// resolution, and how the tiles' lines become the image's (issue #52, item 3). Pure: sizes in,
/// tiles out; lines in, lines out.
///
/// The detector's one look reduces a large page (a flat-bed A4 scan, a 12-megapixel photo) to
/// `NetworkLineDetector.longerSideAtMost`, and small print is lost there twice: it is smaller than the
/// network finds, and the network weighs its whole input (PP-OCRv6's neck rescales its channels by
/// their means over the image), so a little print on a large blank page fades even at full size —
/// a card's 14 px capitals on an A4 page at 300 dpi give no line at all, the same card on half the
/// page gives every line (docs/recognition.md). A tile is a camera frame's worth of page.
///
/// - Tiles are `side` × `side` (or the image's side where it is smaller: one compiled network
///   serves them all), `overlap` apart from their neighbours' edges, the last in a row or column
///   flush with the image's edge.
/// - A line of a tile that touches an edge the tile shares with a neighbour is a piece: pieces that
///   meet (across a vertical edge: a line longer than the overlap) are joined into one line; a
///   piece cut by a horizontal edge is dropped when another tile holds the line whole.
/// - Lines seen whole by two tiles (in the overlap) are one.
/// - A line taller than half the overlap may be cut by every tile it crosses: such lines come from
///   the whole image's look (large print is what that look sees well), the smaller ones from the
///   tiles.
public struct TiledLook: Sendable, Equatable {
    /// A tile's side, in the image's pixels (a multiple of 32: the network halves its input five times).
    public var side: Int
    /// How far each tile reaches into its neighbour.
    public var overlap: Int

    /// Tiles are looked at only when the whole image's look is smaller than this share of the image
    /// (on either side): where it reduces less, the tiles found the same lines at twice the time
    /// (12-megapixel photos decoded at half size, 1512 × 2016, looked at 0.99; docs/benchmarks.md).
    public var largestReduction: Double
    /// A tile whose `GrayImage.largestBlockContrastSpread` is below this holds no print: not looked at
    /// (most of a flat-bed page around a receipt). The caller's rule (`QualitySettings.minimumContrastForText`).
    public var minimumSpread: Int

    public init(side: Int = 1280, overlap: Int = 256, largestReduction: Double = 0.75, minimumSpread: Int) {
        self.side = side
        self.overlap = overlap
        self.largestReduction = largestReduction
        self.minimumSpread = minimumSpread
    }

    /// Whether an image of `width` × `height`, looked at whole at `look`'s size, is also looked at in tiles.
    public func applies(width: Int, height: Int, look: (width: Int, height: Int)) -> Bool {
        Double(look.width) < largestReduction * Double(width) || Double(look.height) < largestReduction * Double(height)
    }

    /// The tiles of a `width` × `height` image, row by row (`Tiling`); one tile (the whole image)
    /// when it fits in one.
    public func tiles(width: Int, height: Int) -> [PixelRect] {
        Tiling(side: side, overlap: overlap).tiles(width: width, height: height)
    }

    /// A line in a tile, in the image's pixels.
    public struct Found: Sendable, Equatable {
        public var line: DetectedLine
        public var tile: PixelRect

        public init(line: DetectedLine, tile: PixelRect) {
            self.line = line
            self.tile = tile
        }
    }

    /// Within this many pixels of a tile's edge, a line touches it (the detector's quads are grown
    /// past the ink and clamped to the tile).
    static let touching = 2.0

    /// The image's lines: the tiles' lines (`found`, image pixels) joined and de-duplicated, and the
    /// whole image's lines (`whole`) taller than half the overlap.
    public func merged(_ found: [Found], whole: [DetectedLine], width: Int, height: Int) -> [DetectedLine] {
        let tall = Double(overlap) / 2
        struct Piece {
            var line: DetectedLine
            var tile: PixelRect
            var cutAcross: Bool
        }
        var pieces: [Piece] = []
        for item in found where Self.extent(item.line.quad).height < tall {
            let box = item.line.quad.boundingBox
            let t = item.tile
            let top = t.y > 0 && box.minY <= Double(t.y) + Self.touching
            let bottom = t.y + t.height < height && box.maxY >= Double(t.y + t.height) - Self.touching
            pieces.append(Piece(line: item.line, tile: t, cutAcross: top || bottom))
        }
        // A line cut by a tile's top or bottom lies whole (it is shorter than the overlap) in the
        // tile above or below: that tile's is kept.
        let across = pieces.filter(\.cutAcross)
        pieces.removeAll { $0.cutAcross }
        for piece in across where !pieces.contains(where: { $0.tile != piece.tile && Self.sameLine($0.line.quad, piece.line.quad) }) {
            pieces.append(piece)
        }
        // Join what two tiles saw of one line: the line seen whole twice, or a long line's pieces from
        // tiles side by side. Lines of one tile are never joined (lines of small print close together
        // overlap as much as that).
        var groups: [[Piece]] = []
        for piece in pieces {
            let meeting = groups.indices.filter { index in
                !groups[index].contains { $0.tile == piece.tile }
                    && groups[index].contains { Self.sameLine($0.line.quad, piece.line.quad) }
            }
            let group = meeting.flatMap { groups[$0] } + [piece]
            for index in meeting.reversed() { groups.remove(at: index) }
            groups.append(group)
        }
        var lines = groups.map { Self.joined($0.map(\.line)) }
        lines += whole.filter { Self.extent($0.quad).height >= tall }
        return lines
    }

    /// Two quads from two tiles are parts of one line when their boxes overlap sideways and share
    /// most of their height (the same line seen by two tiles differs by a pixel or two; the next line
    /// of small print shares a third).
    static func sameLine(_ a: Quad, _ b: Quad) -> Bool {
        let p = a.boundingBox
        let q = b.boundingBox
        let shared = min(p.maxY, q.maxY) - max(p.minY, q.minY)
        let across = min(p.maxX, q.maxX) - max(p.minX, q.minX)
        return across > 0 && shared >= 0.7 * min(p.maxY - p.minY, q.maxY - q.minY)
    }

    static func extent(_ quad: Quad) -> (width: Double, height: Double) {
        let box = quad.boundingBox
        return (box.maxX - box.minX, box.maxY - box.minY)
    }

    /// One line from its pieces: the smallest rectangle around them all.
    static func joined(_ pieces: [DetectedLine]) -> DetectedLine {
        guard pieces.count > 1, let rectangle = ProbabilityMapLines.Rectangle(pieces.flatMap(\.quad.corners)) else { return pieces[0] }
        // The pieces' corners are corners, not pixel centres: no half pixel to add on each side.
        var exact = rectangle
        exact.length -= 1
        exact.thickness -= 1
        return NetworkLineDetector.line(exact.quad, score: pieces.map(\.score).max()!)
    }
}
