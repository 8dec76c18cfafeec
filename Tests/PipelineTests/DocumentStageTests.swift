import DocumentDetection
import ScannerCore
import TestSupport
import Testing

@testable import Pipeline

/// Issue #53, live: a red card held up over a gray desk of its luma, its grid printed inside its
/// sides, where a dark hand was the frame before (so the scene changed there). The frame's luma shows
/// no edge where card and desk meet; its colour does. Given the colour, the document stage finds the
/// card corner for corner; on the luma alone, not.
@Suite(.timeLimit(.minutes(1))) struct DocumentStageTests {
    func found(withColour: Bool) -> [Point]? {
        let scene = SlantedGridPage()
        let (page, desk) = SlantedGridPage.redOnGrayOfItsLuma
        var empty = ColorImage(width: 640, height: 480, pixels: [UInt8](repeating: desk, count: 640 * 480 * 3))
        let box = (x: scene.corners.map(\.x), y: scene.corners.map(\.y))
        for y in Int(box.y.min()!)..<Int(box.y.max()!) {
            for x in Int(box.x.min()!)..<Int(box.x.max()!) { for c in 0..<3 { empty.pixels[(y * 640 + x) * 3 + c] = 20 } }
        }
        let held = scene.renderColor(page: page, desk: desk, margin: 12.5)
        let stage = DocumentStage()
        var looker = FrameLooker()
        _ = stage.find(in: empty.luma, look: looker.look(at: empty.luma, time: 0), color: { withColour ? empty : nil })
        let found = stage.find(in: held.luma, look: looker.look(at: held.luma, time: 0.2), color: { withColour ? held : nil })
        return found.first.map { $0.quad.corners.map { Point(x: $0.x * 640, y: $0.y * 480) } }
    }

    @Test func aRedCardOnADeskOfItsLumaIsFoundInTheFramesColour() {
        let corners = SlantedGridPage().corners
        let twoPercent = 0.02 * 800.0
        let error = { (found: [Point]?) in found.map { zip($0, corners).map { $0.distance(to: $1) }.max()! } ?? .infinity }
        #expect(error(found(withColour: true)) < twoPercent / 2, "\(String(describing: found(withColour: true)))")
        #expect(error(found(withColour: false)) > twoPercent, "\(String(describing: found(withColour: false)))")
    }

    /// The lines a text pass found stand for a later frame only while what is held up has not
    /// moved (a cell of the thumbnail), and only those where the scene changed, each pulled in from
    /// its box's ends (the detector's boxes run past the print).
    @Test func theLinesOfATextPassStandWhileWhatIsHeldUpStays() throws {
        var changed = [Bool](repeating: false, count: 1024)
        for row in 8..<24 { for column in 8..<20 { changed[row * 32 + column] = true } }
        let region = NormalizedRect(x: 0.25, y: 0.25, width: 0.375, height: 0.5)
        let look = FrameLook(
            thumbnail: [UInt8](repeating: 0, count: 1024), sharpness: 1, brightness: 100, saturated: 0, heldUp: true, changed: changed,
            changedRegion: region)
        let onTheCard = Quad(x: 0.3, y: 0.4, width: 0.2, height: 0.05)
        let onTheDesk = Quad(x: 0.7, y: 0.1, width: 0.2, height: 0.05)
        let text = DocumentStage.SeenText(lines: [onTheCard, onTheDesk], heldUp: region)
        let lines = try #require(DocumentStage.heldUpLines(of: text, look: look, width: 640, height: 360))
        #expect(lines.count == 1, "the desk's line is not the document's")
        let line = try #require(lines.first)
        // 128 × 18 px: pulled in by its height at each end, by a quarter of it at each side.
        #expect(abs(line.topLeft.x - 210) < 1e-9 && abs(line.topRight.x - 302) < 1e-9, "\(line)")
        #expect(abs(line.topLeft.y - 148.5) < 1e-9 && abs(line.bottomLeft.y - 157.5) < 1e-9, "\(line)")

        var moved = region
        moved.x += 0.02
        #expect(DocumentStage.heldUpLines(of: .init(lines: text.lines, heldUp: moved), look: look, width: 640, height: 360) != nil)
        moved.x += 0.04
        #expect(DocumentStage.heldUpLines(of: .init(lines: text.lines, heldUp: moved), look: look, width: 640, height: 360) == nil)
        #expect(DocumentStage.heldUpLines(of: nil, look: look, width: 640, height: 360) == nil)
    }
}
