import Foundation
import ScannerCore
import TestSupport
import Testing

@testable import DocumentDetection

/// Issue #43: a found quadrilateral's sides fitted again to the image's edges — the detector's lines
/// are whole degrees at 320 px — onto the paper's own edge, not a border printed just inside it.
@Suite struct QuadRefinerTests {
    let card = [Point(x: 180, y: 80), Point(x: 470, y: 100), Point(x: 455, y: 280), Point(x: 160, y: 262)]

    /// The card of `EdgeQuadDetectorTests.scene`, with a dark border printed `inset` px inside its
    /// edge (3 px wide) when asked: a shipping label's.
    func scene(border inset: Double? = nil, thumb: Bool = false) -> GrayImage {
        var image = EdgeQuadDetectorTests.scene(card: card, thumb: thumb)
        guard let inset else { return image }
        let center = Quad(topLeft: card[0], topRight: card[1], bottomRight: card[2], bottomLeft: card[3]).center
        func shrunk(by d: Double) -> [Point] {
            // Each corner moved toward the centre so that the sides move in by about `d`.
            card.map { c in
                let v = Point(x: center.x - c.x, y: center.y - c.y)
                let length = (v.x * v.x + v.y * v.y).squareRoot()
                return Point(x: c.x + v.x / length * d * 1.3, y: c.y + v.y / length * d * 1.3)
            }
        }
        let outer = shrunk(by: inset)
        let inner = shrunk(by: inset + 3)
        for y in 0..<image.height {
            for x in 0..<image.width {
                let p = Point(x: Double(x), y: Double(y))
                if EdgeQuadDetectorTests.inside(outer, p), !EdgeQuadDetectorTests.inside(inner, p) { image.pixels[y * image.width + x] = 20 }
            }
        }
        return image
    }

    func quad(_ c: [Point]) -> Quad { Quad(topLeft: c[0], topRight: c[1], bottomRight: c[2], bottomLeft: c[3]) }

    func largestError(_ q: Quad) -> Double { zip(q.corners, card).map { $0.distance(to: $1) }.max() ?? .infinity }

    /// The corners a detector at a quarter of the resolution might give: each a few pixels off.
    var rough: Quad { quad([Point(x: 183, y: 77), Point(x: 466, y: 103), Point(x: 458, y: 276), Point(x: 157, y: 265)]) }

    @Test func cornersAFewPixelsOffComeToTheEdges() {
        let image = scene()
        #expect(largestError(rough) > 4)
        let refined = QuadRefiner.refine(rough, in: image)
        #expect(largestError(refined) < 1.5, "\(refined)")
    }

    @Test func theOutlineIsThePapersEdgeNotABorderPrintedInsideIt() {
        let image = scene(border: 4)
        let refined = QuadRefiner.refine(rough, in: image)
        #expect(largestError(refined) < 1.5, "\(refined)")
    }

    @Test func aThumbOverACornerDoesNotBendItsSides() {
        let refined = QuadRefiner.refine(rough, in: scene(thumb: true))
        #expect(largestError(refined) < 2, "\(refined)")
    }

    @Test func withNoEdgesToFitTheQuadrilateralStaysAsItWas() {
        let blank = GrayImage(width: 640, height: 360, filledWith: 128)
        #expect(QuadRefiner.refine(rough, in: blank) == rough)
    }
}
