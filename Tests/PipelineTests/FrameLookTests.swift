import ScannerCore
import Testing

@testable import Pipeline

/// What the pipeline learns of a frame before the stages read it (`FrameLooker`).
@Suite(.timeLimit(.minutes(1))) struct FrameLookTests {
    /// A 1280×720 desk (luma 90, a gentle gradient across), with a paper of luma 200 over `paper`.
    static func desk(with paper: PixelRect? = nil) -> GrayImage {
        var image = GrayImage(width: 1280, height: 720, filledWith: 0)
        for y in 0..<720 {
            for x in 0..<1280 {
                let inside = paper.map { x >= $0.x && x < $0.x + $0.width && y >= $0.y && y < $0.y + $0.height } ?? false
                image.pixels[y * image.stride + x] = inside ? 200 : UInt8(80 + x / 64)
            }
        }
        return image
    }

    /// A receipt held up at arm's length covers less of the frame than something held up does
    /// (`PresenceDetector`'s `heldUpShare`): no guidance takes it for something held up, but the text
    /// stage looks for its print where the frame changed (`changedRegion`), not only in the whole
    /// frame reduced, where its print is too small to be found.
    @Test func aReceiptTooSmallToBeHeldUpIsWhereTheFrameChanged() throws {
        let receipt = PixelRect(x: 640, y: 270, width: 150, height: 200)
        var looker = FrameLooker()
        let empty = looker.look(at: Self.desk(), time: 0)
        #expect(empty.changedRegion == nil && !empty.heldUp)
        let look = looker.look(at: Self.desk(with: receipt), time: 0.1)
        #expect(!look.heldUp, "a receipt of 3 % of the frame is not something held up")
        #expect(look.heldUpRegion == nil)
        let changed = try #require(look.changedRegion).pixelRect(width: 1280, height: 720)
        // The thumbnail's cells are ~40×22 px: the region holds the receipt and reaches at most a cell
        // and a half beyond it.
        #expect(changed.x <= receipt.x && changed.y <= receipt.y, "\(changed)")
        #expect(changed.x + changed.width >= receipt.x + receipt.width && changed.y + changed.height >= receipt.y + receipt.height, "\(changed)")
        #expect(changed.width - receipt.width <= 60 && changed.height - receipt.height <= 34, "\(changed)")
    }
}
