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
}
