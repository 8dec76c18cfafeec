import ScannerCore
import Testing

@testable import TextDetection

/// A large still looked at in tiles (issue #52, item 3): which tiles, and how their lines become the
/// image's, as a pure unit.
@Suite(.timeLimit(.minutes(1))) struct TiledLookTests {
    let look = TiledLook(side: 1280, overlap: 256, minimumSpread: 48)

    func line(_ x: Double, _ y: Double, _ width: Double, _ height: Double) -> DetectedLine {
        let quad = Quad(
            topLeft: Point(x: x, y: y), topRight: Point(x: x + width, y: y),
            bottomRight: Point(x: x + width, y: y + height), bottomLeft: Point(x: x, y: y + height))
        return NetworkLineDetector.line(quad, score: 0.8)
    }

    /// Every pixel in a tile, every tile one size, neighbours overlapping by at least the overlap,
    /// the last flush with the edge; an image no larger than a tile is one tile.
    @Test func tilesCoverTheImageOverlappingAndOfOneSize() {
        let tiles = look.tiles(width: 2480, height: 3508)
        #expect(Set(tiles.map { "\($0.width)x\($0.height)" }) == ["1280x1280"])
        let xs = Array(Set(tiles.map(\.x))).sorted()
        let ys = Array(Set(tiles.map(\.y))).sorted()
        #expect(xs.first == 0 && xs.last! + 1280 == 2480 && ys.first == 0 && ys.last! + 1280 == 3508)
        #expect(zip(xs, xs.dropFirst()).allSatisfy { $1 - $0 <= 1280 - 256 } && zip(ys, ys.dropFirst()).allSatisfy { $1 - $0 <= 1280 - 256 })
        #expect(tiles.count == xs.count * ys.count)
        #expect(look.tiles(width: 1000, height: 700) == [PixelRect(x: 0, y: 0, width: 1000, height: 700)])
        #expect(look.tiles(width: 900, height: 3000).allSatisfy { $0.width == 900 && $0.height == 1280 })
    }

    /// Tiles only where the whole look reduces the image past `largestReduction`.
    @Test func tilesOnlyWhereTheWholeLookLosesResolution() {
        #expect(look.applies(width: 2480, height: 3508, look: (1408, 2000)))
        #expect(!look.applies(width: 1512, height: 2016, look: (1504, 2000)))
        #expect(!look.applies(width: 1280, height: 720, look: (1280, 736)))
    }

    /// A line longer than the overlap crossing two tiles' shared edge: each tile has a piece cut at
    /// its edge; the image has one line from the first piece's start to the second's end.
    @Test func piecesOfALongLineAcrossTwoTilesAreJoined() throws {
        let left = PixelRect(x: 0, y: 0, width: 1280, height: 1280)
        let right = PixelRect(x: 1024, y: 0, width: 1280, height: 1280)
        let found = [
            TiledLook.Found(line: line(900, 500, 380, 20), tile: left),  // cut at x = 1280
            TiledLook.Found(line: line(1024, 501, 500, 19), tile: right),  // cut at x = 1024
        ]
        let lines = look.merged(found, whole: [], width: 2304, height: 1280)
        try #require(lines.count == 1, "\(lines)")
        let box = lines[0].quad.boundingBox
        #expect(abs(box.minX - 900) < 1 && abs(box.maxX - 1524) < 1 && abs(box.minY - 500) < 1 && abs(box.maxY - 520) < 1, "\(box)")
    }

    /// A line in the overlap is seen whole by both tiles: one line. Lines of small print close
    /// together in one tile, their boxes overlapping, stay apart.
    @Test func aLineSeenTwiceIsOneAndCloseLinesOfOneTileStayApart() {
        let left = PixelRect(x: 0, y: 0, width: 1280, height: 1280)
        let right = PixelRect(x: 1024, y: 0, width: 1280, height: 1280)
        let found = [
            TiledLook.Found(line: line(1100, 300, 120, 20), tile: left),
            TiledLook.Found(line: line(1101, 301, 119, 20), tile: right),
            TiledLook.Found(line: line(100, 600, 300, 24), tile: left),
            TiledLook.Found(line: line(100, 616, 300, 24), tile: left),  // the next line, 16 px down
        ]
        let lines = look.merged(found, whole: [], width: 2304, height: 1280)
        #expect(lines.count == 3, "\(lines.map(\.quad.boundingBox))")
    }

    /// A line cut by a tile's bottom edge lies whole in the tile below: that one is kept; a line cut
    /// there with nothing below it (the tile below did not look: blank) is kept as it is.
    @Test func aLineCutByATilesBottomIsTakenFromTheTileBelow() {
        let top = PixelRect(x: 0, y: 0, width: 1280, height: 1280)
        let below = PixelRect(x: 0, y: 1024, width: 1280, height: 1280)
        let cut = TiledLook.Found(line: line(200, 1265, 400, 15), tile: top)
        let whole = TiledLook.Found(line: line(200, 1265, 400, 22), tile: below)
        let lines = look.merged([cut, whole], whole: [], width: 1280, height: 2304)
        #expect(lines.map(\.quad) == [whole.line.quad])
        #expect(look.merged([cut], whole: [], width: 1280, height: 2304).map(\.quad) == [cut.line.quad])
    }

    /// Lines taller than half the overlap come from the whole image's look, the others from the tiles.
    @Test func largePrintComesFromTheWholeLookSmallPrintFromTheTiles() {
        let tile = PixelRect(x: 0, y: 0, width: 1280, height: 1280)
        let headline = line(100, 100, 900, 200)
        let small = line(100, 400, 300, 20)
        let lines = look.merged(
            [TiledLook.Found(line: line(100, 100, 900, 190), tile: tile), TiledLook.Found(line: small, tile: tile)],
            whole: [headline, line(100, 395, 310, 30)], width: 2000, height: 2000)
        #expect(Set(lines.map { $0.quad.boundingBox.minY }) == [100, 400] && lines.count == 2, "\(lines.map(\.quad.boundingBox))")
        #expect(lines.contains { $0.quad == headline.quad } && lines.contains { $0.quad == small.quad })
    }
}
