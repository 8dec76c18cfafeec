import ScannerCore

/// A business card with a large picture printed on it, on a desk (issue #53): the card fixture at
/// 0.6 (768 × 432 px at (256, 144) of a 1280 × 720 frame) on a desk lit from above (200 at the top to
/// 250 at the bottom, where the card's lower edge fades into it), a dark photo-like block with a
/// lighter figure in the card's empty right half. By edges alone the block (with the card's right
/// side) is the document; the card's text lies outside it.
public enum CardWithPicture {
    public static let card = (x: 256, y: 144, width: 768, height: 432)
    /// The card's text lines (the fixture's, at 0.6), normalized: what a detector finds, or the
    /// bounds of the items a pipeline read there.
    public static let lines: [Quad] = {
        let boxes: [(x: Int, y: Int, width: Int, height: Int)] = [
            (43, 45, 120, 25), (45, 82, 378, 25), (45, 120, 236, 25), (47, 158, 296, 25), (47, 197, 290, 25), (49, 235, 368, 25),
        ]
        return boxes.map { box -> Quad in
            let x = Double(card.x + box.x) / 1280
            let y = Double(card.y + box.y) / 720
            return Quad(x: x, y: y, width: Double(box.width) / 1280, height: Double(box.height) / 720)
        }
    }()

    /// The frame, from the card fixture (`cardFixture`, gray).
    public static func render(cardFixture: GrayImage) -> GrayImage {
        let card = cardFixture.scaled(by: 0.6)
        var desk = GrayImage(width: 1280, height: 720, filledWith: 0)
        for y in 0..<720 { for x in 0..<1280 { desk.pixels[y * desk.stride + x] = UInt8(200 + 50 * y / 719) } }
        for y in 0..<card.height {
            for x in 0..<card.width {
                let inPicture = x >= 470 && x < 730 && y >= 60 && y < 370
                let figure = inPicture && (x - 600) * (x - 600) + (y - 200) * (y - 200) < 70 * 70
                desk.pixels[(Self.card.y + y) * desk.stride + Self.card.x + x] = inPicture ? (figure ? 150 : 25) : card[x, y]
            }
        }
        return desk
    }
}
