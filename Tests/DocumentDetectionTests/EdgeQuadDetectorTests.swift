import Foundation
import ScannerCore
import TestSupport
import Testing

@testable import DocumentDetection

/// Issue #43: the classical document detector on drawn scenes — a card on a textured desk, tilted,
/// with text rows inside and a thumb over a corner — and on scenes with no card.
@Suite struct EdgeQuadDetectorTests {
    /// A 640×360 desk of wavy wood grain (luma 70–130, no long straight edge), sensor noise, and a
    /// card of luma 225 at `corners` with dark text rows, optionally a thumb (luma 170) over its first
    /// corner.
    static func scene(card corners: [Point]?, thumb: Bool = false, seed: UInt64 = 1) -> GrayImage {
        var random = SeededGenerator(seed: seed)
        var image = GrayImage(width: 640, height: 360, filledWith: 0)
        let phase = Double(seed)
        for y in 0..<360 {
            for x in 0..<640 {
                let grain = sin(Double(x) * 0.06 + 2.5 * sin(Double(y) * 0.021 + phase) + phase)
                var value = 100 + Int(30 * grain)
                if let corners, Self.inside(corners, Point(x: Double(x), y: Double(y))) {
                    value = 225
                    // Text rows: dark bars across the card's middle, in its own frame.
                    let (u, v) = Self.local(corners, Point(x: Double(x), y: Double(y)))
                    if u > 0.1, u < 0.85, v > 0.2, v < 0.9, Int(v * 20) % 3 == 0, Int(u * 60) % 4 != 0 { value = 30 }
                }
                if thumb, let corners, Point(x: Double(x), y: Double(y)).distance(to: corners[0]) < 22 { value = 170 }
                value += Int(random.next() % 7) - 3
                image.pixels[y * 640 + x] = UInt8(max(0, min(255, value)))
            }
        }
        return image
    }

    static func inside(_ c: [Point], _ p: Point) -> Bool {
        (0..<4).allSatisfy { i in
            let a = c[i]
            let b = c[(i + 1) % 4]
            return (b.x - a.x) * (p.y - a.y) - (b.y - a.y) * (p.x - a.x) >= 0
        }
    }

    /// Approximate coordinates of `p` in the card's own frame (0…1 each way), for drawing inside it.
    static func local(_ c: [Point], _ p: Point) -> (Double, Double) {
        let top = (c[1].x - c[0].x, c[1].y - c[0].y)
        let left = (c[3].x - c[0].x, c[3].y - c[0].y)
        let d = (p.x - c[0].x, p.y - c[0].y)
        let det = top.0 * left.1 - top.1 * left.0
        return ((d.0 * left.1 - d.1 * left.0) / det, (top.0 * d.1 - top.1 * d.0) / det)
    }

    /// 2 % of the frame's diagonal (issue #43's tolerance), px.
    static let twoPercent = 0.02 * (640.0 * 640 + 360 * 360).squareRoot()

    let card = [Point(x: 180, y: 80), Point(x: 470, y: 100), Point(x: 455, y: 280), Point(x: 160, y: 262)]

    func largestCornerError(_ found: DocumentCandidate?, _ truth: [Point]) -> Double {
        guard let corners = found?.quad.corners else { return .infinity }
        return zip(corners, truth).map { $0.distance(to: $1) }.max() ?? .infinity
    }

    @Test func aTiltedCardWithTextRowsIsFoundCornerForCorner() {
        let found = EdgeQuadDetector().documents(in: Self.scene(card: card))
        #expect(largestCornerError(found.first, card) < Self.twoPercent, "\(found)")
        #expect((found.first?.score ?? 0) > 0.8)
    }

    /// Issue #53: a red card on a gray desk of its luma, its grid printed inside its sides: no edge
    /// where card and desk meet in the luma, a step in chroma. In colour it is found corner for
    /// corner (and fitted to its sides); in the luma alone, what is found is not the card.
    @Test func aRedCardOnADeskOfItsLumaIsFoundInColour() {
        let scene = SlantedGridPage()
        let (page, desk) = SlantedGridPage.redOnGrayOfItsLuma
        let photo = scene.renderColor(page: page, desk: desk, margin: 12.5)
        let twoPercent = 0.02 * (640.0 * 640 + 480 * 480).squareRoot()
        let inColour = EdgeQuadDetector().documents(in: DocumentImage(photo))
        #expect(largestCornerError(inColour.first, scene.corners) < twoPercent / 2, "\(inColour)")
        let inLuma = EdgeQuadDetector().documents(in: photo.luma)
        #expect(largestCornerError(inLuma.first, scene.corners) > twoPercent, "\(inLuma)")
    }

    @Test func aThumbOverACornerLeavesTheCardFound() {
        let found = EdgeQuadDetector().documents(in: Self.scene(card: card, thumb: true, seed: 2))
        #expect(largestCornerError(found.first, card) < Self.twoPercent, "\(found)")
    }

    @Test func aDeskAloneHasNoDocument() {
        for seed in 3...5 {
            let found = EdgeQuadDetector().documents(in: Self.scene(card: nil, seed: UInt64(seed)))
            #expect(found.isEmpty, "seed \(seed): \(found)")
        }
        #expect(EdgeQuadDetector().documents(in: GrayImage(width: 640, height: 360, filledWith: 128)).isEmpty)
        #expect(EdgeQuadDetector().documents(in: GrayImage(width: 8, height: 8, filledWith: 128)).isEmpty)
    }

    /// A document is something held up only where the scene changed under it (the desk's own papers
    /// are quadrilaterals too), and it is the outline of what is held up, not a rectangle printed
    /// inside it, nor a quadrilateral through its edges and the desk's.
    @Test func theOutlineOfWhatIsHeldUp() {
        let candidate = DocumentCandidate(quad: Quad(x: 160, y: 90, width: 320, height: 180), score: 1)
        var changed = [Bool](repeating: false, count: 1024)
        #expect(candidate.changedShare(changed, width: 640, height: 360) == 0)
        // The cells under its left half changed (a white sheet on white papers changes at its border).
        for row in 8..<24 { for column in 8..<16 { changed[row * 32 + column] = true } }
        #expect(abs(candidate.changedShare(changed, width: 640, height: 360) - 0.5) < 0.01)
        #expect(candidate.changedShare([true], width: 640, height: 360) == 0, "a mask of another size")

        let outline = DocumentCandidate(quad: Quad(x: 100, y: 50, width: 300, height: 250), score: 0.8)
        let printed = DocumentCandidate(quad: Quad(x: 130, y: 80, width: 200, height: 100), score: 0.95)
        let throughTheDesk = DocumentCandidate(quad: Quad(x: 40, y: 20, width: 560, height: 320), score: 0.75)
        let desksPaper = DocumentCandidate(quad: Quad(x: 500, y: 20, width: 100, height: 80), score: 0.99)
        // The card under the outline changed as much as under the printed rectangle; through the
        // desk, the unchanged desk is under it too.
        let shares: [Double: Double] = [0.8: 0.9, 0.95: 0.95, 0.75: 0.7, 0.99: 0]
        let chosen = DocumentCandidate.select([desksPaper, printed, outline, throughTheDesk]) { shares[$0.score] ?? 0 }
        #expect(chosen == [outline], "\(chosen)")
        // Without the outline, the printed rectangle is what there is; knowing nothing of the scene,
        // the best-edged of each overlapping group.
        #expect(DocumentCandidate.select([printed, throughTheDesk]) { shares[$0.score] ?? 0 } == [printed])
        #expect(DocumentCandidate.select([desksPaper, printed, outline, throughTheDesk], heldUp: nil) == [desksPaper, printed])
    }

    /// Knowing where the text held up is (issue #53, live): a document chosen by its edges and the
    /// scene that holds little of the text gives way to the held-up candidate that holds it, the
    /// one under which the scene changed most, unless that changed under half as much.
    @Test func theTextHeldUpChoosesAmongTheHeldUp() {
        func lines(_ rows: [Double]) -> [Quad] { rows.map { Quad(x: 120, y: $0, width: 200, height: 14) } }
        // A card half over the desk's white papers (less of the scene under it changed) and the
        // strip under its name, bounded by a rule printed across it (the best-edged, all changed).
        let card = DocumentCandidate(quad: Quad(x: 100, y: 50, width: 300, height: 200), score: 0.8)
        let strip = DocumentCandidate(quad: Quad(x: 100, y: 50, width: 300, height: 60), score: 1)
        let cardText = lines([60, 85, 130, 160, 190])
        #expect(DocumentCandidate.select([strip, card], shares: [0.79, 0.67]) == [strip], "by the edges and the scene alone")
        #expect(DocumentCandidate.select([strip, card], shares: [0.79, 0.67], lines: cardText) == [card])
        #expect(DocumentCandidate.select([strip, card], shares: [0.79, 0.67], lines: []) == [strip], "no text known")
        #expect(DocumentCandidate.select([strip, card], shares: [0.3, 0.2], lines: cardText) == [strip], "the card not held up")

        // A quadrilateral through the desk around a dark phone holds its text, but has the desk under
        // it: less than half as much changed. The phone's part stays.
        let throughTheDesk = DocumentCandidate(quad: Quad(x: 20, y: 10, width: 600, height: 330), score: 0.7)
        #expect(DocumentCandidate.select([strip, throughTheDesk], shares: [0.86, 0.26], lines: cardText) == [strip])
        // Of two holding the text, the one under which more changed; nearly as much, the best-edged.
        let around = DocumentCandidate(quad: Quad(x: 90, y: 40, width: 330, height: 230), score: 0.9)
        #expect(DocumentCandidate.select([strip, around, card], shares: [0.79, 0.5, 0.67], lines: cardText) == [card])
        #expect(DocumentCandidate.select([strip, around, card], shares: [0.79, 0.6, 0.67], lines: cardText) == [around])
        // A chosen document that already holds the text is kept.
        #expect(DocumentCandidate.select([around, card], shares: [0.5, 0.67], lines: cardText) == [around])
    }
}
