import ScannerCore
import Testing

@testable import DocumentDetection

/// Which quadrilateral is the document, from the text lines found in the image (issue #53): a pure rule.
@Suite(.timeLimit(.minutes(1))) struct TextHoldingTests {
    func rect(_ x: Double, _ y: Double, _ width: Double, _ height: Double) -> Quad {
        Quad(
            topLeft: Point(x: x, y: y), topRight: Point(x: x + width, y: y),
            bottomRight: Point(x: x + width, y: y + height), bottomLeft: Point(x: x, y: y + height))
    }

    /// A card with a large picture printed on it: the picture's edges are the strongest, but the
    /// card's lines lie beside it, so the card is the document.
    @Test func theCardHoldingTheTextNotThePictureOnIt() throws {
        let picture = DocumentCandidate(quad: rect(420, 150, 300, 300), score: 1)
        let card = DocumentCandidate(quad: rect(100, 100, 700, 420), score: 0.8)
        let lines = [rect(130, 160, 250, 24), rect(130, 220, 220, 20), rect(130, 260, 260, 20), rect(130, 300, 200, 20)]
        let choice = try #require(TextHolding.document(among: [picture, card], lines: lines, width: 1280, height: 720))
        #expect(choice.document == card && !choice.fromText)
        // Without lines: the edge detector's best, as before.
        #expect(TextHolding.document(among: [picture, card], lines: [], width: 1280, height: 720)?.document == picture)
    }

    /// A line the outline cuts is not held: of two candidates holding every line's centre, the one
    /// that cuts the lines' starts is not the document.
    @Test func aLineCutByTheOutlineIsNotHeld() throws {
        let cutting = DocumentCandidate(quad: rect(200, 100, 600, 500), score: 1)
        let whole = DocumentCandidate(quad: rect(100, 90, 720, 520), score: 0.7)
        let lines = (0..<6).map { rect(150, 120 + Double($0) * 60, 400, 24) }
        #expect(TextHolding.document(among: [cutting, whole], lines: lines, width: 1280, height: 720)?.document == whole)
    }

    /// No candidate holds most of the text (a receipt filling the photo shows no edge of its own):
    /// the text's own rectangle, a line's height of margin on every side, inside the image.
    @Test func withoutAnOutlineTheTextsOwnRectangle() throws {
        let block = DocumentCandidate(quad: rect(300, 300, 300, 100), score: 1)
        let lines = (0..<8).map { rect(20, 10 + Double($0) * 40, 600, 20) }
        let choice = try #require(TextHolding.document(among: [block], lines: lines, width: 700, height: 400))
        #expect(choice.fromText)
        let box = choice.document.quad.boundingBox
        #expect(box.minX == 0 && abs(box.maxX - 640) < 1e-6 && box.minY == 0 && abs(box.maxY - 330) < 1e-6, "\(box)")
        #expect(
            choice.document.quad.topLeft.x < choice.document.quad.topRight.x && choice.document.quad.topLeft.y < choice.document.quad.bottomLeft.y)
    }
}
