import Pipeline
import ScannerCore
import Testing

/// Codes found only at full resolution are looked at again there on every scan (issue #13).
@Suite(.timeLimit(.minutes(1))) struct DetailSpotsTests {
    func code(_ symbology: Symbology, _ payload: String, x: Double, y: Double = 0.4, size: Double = 0.1) -> RecognizedItem {
        RecognizedItem(kind: .barcode, symbology: symbology, payload: payload, bounds: Quad(x: x, y: y, width: size, height: size / 3), confidence: 1)
    }

    @Test func aSpotIsMadeForWhatOnlyTheFullResolutionScanFound() {
        var spots = DetailSpots()
        let big = code(.qr, "https://example.com", x: 0.6, size: 0.2)
        let small = code(.ean13, "1781958637676", x: 0.2)
        spots.afterDetailScan([big, small], reduced: [big])
        #expect(spots.spots.count == 1)
        let area = spots.spots[0].area
        // The code and half its length around it.
        #expect(abs(area.x - 0.15) < 1e-9 && abs(area.width - 0.2) < 1e-9, "\(area)")
        #expect(area.contains(small.bounds.center) && !area.contains(big.bounds.center))
        #expect(spots.spots[0].symbology == .ean13)
    }

    @Test func aSpotFollowsItsCodeAndIsDroppedAfterItsMisses() {
        var spots = DetailSpots()
        spots.afterDetailScan([code(.ean13, "1781958637676", x: 0.2)], reduced: [])
        // The hand moves the label: the spot is centred where the code is now.
        let moved = code(.ean13, "1781958637676", x: 0.24)
        spots.afterSpotScan([[moved]])
        #expect(spots.spots.count == 1 && spots.spots[0].area.contains(moved.bounds.center))
        #expect(abs(spots.spots[0].area.x - 0.19) < 1e-9)
        // Another code in the crop is not followed (the QR code next to the EAN-13 is found reduced).
        spots.afterSpotScan([[code(.qr, "https://example.com", x: 0.3), moved]])
        #expect(spots.spots.map(\.symbology) == [.ean13])
        // Misses: kept while fewer than `maximumMisses`, then dropped.
        for miss in 1..<spots.maximumMisses {
            spots.afterSpotScan([[]])
            #expect(spots.spots.first?.misses == miss)
        }
        spots.afterSpotScan([[]])
        #expect(spots.spots.isEmpty)
    }

    @Test func aFullResolutionScanThatMissesASpotsCodeCountsAMiss() {
        var spots = DetailSpots()
        spots.afterDetailScan([code(.ean13, "1781958637676", x: 0.2)], reduced: [])
        // A blurred frame: the full-resolution scan finds another code only. The EAN-13's spot stays.
        spots.afterDetailScan([code(.code128, "A", x: 0.6)], reduced: [])
        #expect(spots.spots.map(\.symbology) == [.code128, .ean13])
        #expect(spots.spots.map(\.misses) == [0, 1])
        // Found again: one spot for it, not two.
        spots.afterDetailScan([code(.ean13, "1781958637676", x: 0.21)], reduced: [])
        #expect(spots.spots.map(\.symbology) == [.ean13, .code128])
        #expect(spots.spots.map(\.misses) == [0, 1])
    }

    @Test func theNumberOfSpotsIsBounded() {
        var spots = DetailSpots()
        let many = (0..<10).map { code(.code128, "C\($0)", x: 0.05 + 0.09 * Double($0), size: 0.05) }
        spots.afterDetailScan(many, reduced: [])
        #expect(spots.spots.count == spots.maximumSpots)
    }

    @Test func aSpotStaysInsideTheFrame() {
        var spots = DetailSpots()
        spots.afterDetailScan([code(.ean13, "1781958637676", x: 0.0, y: 0.95, size: 0.1)], reduced: [])
        let area = spots.spots[0].area
        #expect(area.x == 0 && area.y + area.height <= 1 && area.validationProblem == nil, "\(area)")
    }
}
