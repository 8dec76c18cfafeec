import Foundation
import ImageDecoding
import ScannerCore
import TestSupport
import Testing

@testable import BarcodeRecognition

/// A large still's barcodes read in tiles (issue #54): the looks, what a tile's edge cuts, the
/// readings of several looks made one.
@Suite struct BarcodeTilesTests {
    let tiles = BarcodeTiles(tiling: Tiling(side: 1024, overlap: 384))

    func qr(_ payload: String, x: Double, y: Double, side: Double = 100) -> BarcodeObservation {
        BarcodeObservation(
            symbology: .qr, payload: payload,
            corners: Quad(
                topLeft: Point(x: x, y: y), topRight: Point(x: x + side, y: y), bottomRight: Point(x: x + side, y: y + side),
                bottomLeft: Point(x: x, y: y + side)), quality: 1)
    }

    @Test func theLooksGoFromTheWholeImageReducedToTheTilesAtFullResolution() {
        let looks = tiles.looks(width: 6860, height: 4000)
        #expect(looks.first == BarcodeTiles.Look(reduction: 8, tile: PixelRect(x: 0, y: 0, width: 858, height: 500)), "the coarsest: one tile")
        #expect(looks.map(\.reduction) == looks.map(\.reduction).sorted(by: >), "coarsest first")
        #expect(Set(looks.map(\.reduction)) == [1, 2, 4, 8])
        for reduction in [1, 2, 4] {
            let (w, h) = (BarcodeTiles.reduced(6860, by: reduction), BarcodeTiles.reduced(4000, by: reduction))
            let level = looks.filter { $0.reduction == reduction }.map(\.tile)
            #expect(level.allSatisfy { $0.width == 1024 && $0.height == min(1024, h) && $0.x + $0.width <= w && $0.y + $0.height <= h })
            #expect(PixelRect.union(level) == PixelRect(x: 0, y: 0, width: w, height: h), "every pixel of the level")
        }
    }

    @Test func aReadingCutByAnEdgeBetweenTilesIsDroppedNotOneAtTheImagesEdge() {
        let look = BarcodeTiles.Look(reduction: 2, tile: PixelRect(x: 640, y: 0, width: 1024, height: 1024))
        let found = [
            qr("inside", x: 900, y: 300), qr("cut-left", x: 641, y: 300), qr("cut-right", x: 1600, y: 300),
            qr("at-the-top", x: 900, y: 0),
        ]
        let placed = BarcodeTiles.placed(found, of: look, width: 3000, height: 1024)
        #expect(placed.map(\.payload) == ["inside", "at-the-top"], "the top is the image's edge, not a neighbour's")
        #expect(placed[0].corners.topLeft == Point(x: 1800, y: 600), "in the image's pixels")
    }

    @Test func aCodeReadByTwoLooksIsOneAndTwoCodesAlikeAreTwo() {
        let readings = [
            qr("a", x: 1000, y: 1000), qr("a", x: 1003, y: 998),  // one code, two tiles
            qr("a", x: 3000, y: 1000),  // the same payload printed elsewhere
            qr("b", x: 1001, y: 1001),  // another code at a's place: not a's duplicate
            qr("a", x: 1020, y: 1015, side: 60),  // a's half-size reading from a coarser look
        ]
        let merged = tiles.merged(readings)
        #expect(merged.map(\.payload) == ["a", "a", "b"])
        #expect(merged[1].corners.topLeft.x == 3000)
        // Across a cell's border, as in the middle of it.
        let border = tiles.merged([qr("c", x: 970, y: 970), qr("c", x: 980, y: 975)])
        #expect(border.count == 1)
    }

    /// More codes than one read of zxing-cpp returns (255): every one read, each at its place.
    @Test func aSheetOfMoreCodesThanOneReadReturnsIsReadWhole() throws {
        let code = try ImageDecoder().decodeFile(atPath: Fixtures.path("qr.pgm")).image
        let (n, cell) = (18, code.width + 8)
        let sheet = CodeSheet.sheet(of: code, n: n)
        let recognizer = try BarcodeRecognizer(symbologies: [.qr])
        recognizer.zbarLooks = false  // zxing-cpp alone: before tiles, it stopped at 255
        recognizer.tiles = tiles
        let reading = recognizer.recognizeStill(sheet)
        #expect(reading.complete)
        #expect(reading.found.count == n * n, "\(reading.found.count) of \(n * n)")
        let cells = Set(reading.found.map { Int($0.corners.center.y) / cell * n + Int($0.corners.center.x) / cell })
        #expect(cells.count == n * n, "one in every cell")
        // Past its deadline before the first tile: what the whole read found, and it says so.
        let late = recognizer.recognizeStill(sheet, until: .now - .seconds(1))
        #expect(!late.complete && late.found.count == ZXingReader.maximumSymbols)
    }

    @Test func aPlaceIndexFindsWhatSharesACellAndNotWhatIsFar() {
        var index = PlaceIndex(cell: 100, width: 1000, height: 1000)
        let near = qr("x", x: 150, y: 150).corners
        index.insert(0, at: near)
        index.insert(1, at: qr("y", x: 800, y: 800).corners)
        index.insert(2, at: qr("huge", x: 0, y: 0, side: 1e9).corners)  // clamped to the image
        #expect(index.near(qr("q", x: 180, y: 160, side: 10).corners) == [0, 2])
        #expect(index.near(qr("q", x: 180, y: 160, side: 10).corners, margin: 700) == [0, 1, 2])
        #expect(PlaceIndex(cell: 100, width: 1000, height: 1000).near(qr("nan", x: .nan, y: 0).corners).isEmpty)
    }
}
