import Foundation
import ImageDecoding
import LineNetwork
import ScannerCore
import TestSupport
import TestTraits
import Testing
import TextDetection

@testable import Recognition

/// Issue #52, item 3: a large page is read at its own resolution. The card fixture at half its size
/// (capitals about 10 px) lying on an A4 page scanned at 300 dpi (2480 × 3508): the detector's one
/// look at 2000 px finds none of its lines — the print is small there and the network weighs the
/// whole blank page — while the tiles, a camera frame's worth of page each, find them all.
@Suite(.offThePool(minutes: 3)) struct LargePageTests {
    static let models = Fixtures.packageRoot.appendingPathComponent(".build/models").path
    static let wanted: Set = ["+14155550123", "+16502530000", "jane.doe@example.com"]

    /// The card at `scale` with its top-left corner at (`x`, `y`) on a light gray page.
    static func page(cardScale scale: Double, at x: Int, _ y: Int) throws -> GrayImage {
        let card = try ImageDecoder().decodeFile(atPath: Fixtures.path("card-us.jpg")).image.scaled(by: scale)
        var page = GrayImage(width: 2480, height: 3508, filledWith: 245)
        for row in 0..<card.height {
            for column in 0..<card.width {
                page.pixels[(y + row) * page.stride + x + column] = card.pixels[row * card.stride + column]
            }
        }
        return page
    }

    func scanner(tiled: Bool) throws -> ImageScanner {
        try #require(FileManager.default.fileExists(atPath: Self.models + "/alphabet.json"), "the text networks are missing: `make test` makes them")
        let settings = QualitySettings(.balanced)
        let detector = try NetworkLineDetector(directory: Self.models)
        detector.tiles = tiled ? TiledLook(minimumSpread: settings.minimumContrastForText) : nil
        return try ImageScanner(
            options: TextTests.contentOnly, lineDetector: detector,
            recognizers: [NetworkLineRecognizer(try LineNetwork(directory: Self.models))])
    }

    @Test func smallPrintOnALargePageIsReadInTiles() throws {
        let page = try Self.page(cardScale: 0.5, at: 1500, 2200)
        let tiled = Set(try scanner(tiled: true).scan(page).map(\.payload))
        #expect(tiled.isSuperset(of: Self.wanted), "\(tiled)")
        let whole = Set(try scanner(tiled: false).scan(page).map(\.payload))
        #expect(whole.isDisjoint(with: Self.wanted), "the one look reads it too: the page does not show what tiles are for (\(whole))")
    }

    /// A card at its own size on the same page: ink on under 1 % of the page, which used to read as a
    /// blank image (no text looked for at all), is print.
    @Test func aCardOnAnEmptyPageIsPrint() throws {
        let page = try Self.page(cardScale: 1, at: 600, 1400)
        #expect(page.contrastSpread() < QualitySettings(.balanced).minimumContrastForText, "the page's spread as a whole is a blank one's")
        let scanner = try ImageScanner(options: TextTests.contentOnly, lineModel: Self.models, lineDetection: .network)
        let payloads = Set(scanner.scan(page).map(\.payload))
        #expect(payloads.isSuperset(of: Self.wanted), "\(payloads)")
    }

    /// Issue #54: a page's time is bounded. Past its deadline the scan says it stopped, and the
    /// detector stops between its tiles (its one whole look is all it gives then).
    @Test func aPagePastItsDeadlineStopsBetweenTiles() throws {
        let page = try Self.page(cardScale: 0.5, at: 1500, 2200)
        let late = try scanner(tiled: true).scan(page, until: .now)
        #expect(!late.complete)
        #expect(Set(late.items.map(\.payload)).isDisjoint(with: Self.wanted))
        let detector = try NetworkLineDetector(directory: Self.models)
        detector.tiles = TiledLook(minimumSpread: QualitySettings(.balanced).minimumContrastForText)
        let stopped = detector.lines(in: page, until: .now - .seconds(1))
        let all = detector.lines(in: page)
        #expect(stopped.count < all.count, "\(stopped.count) lines past the deadline, \(all.count) in all")
    }
}
