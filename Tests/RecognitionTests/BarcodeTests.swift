import CZXing
import Foundation
@testable import BarcodeRecognition
import ImageDecoding
import Recognition
import ScannerCore
import TestSupport
import Testing
import TestTraits

/// Scans a fixture with `ImageScanner` (barcodes only unless told otherwise).
func scanFixture(_ name: String, options: ScanOptions = ScanOptions(types: RecognitionTypes(symbologies: Set(Symbology.allCases), contentTypes: []))) throws -> [RecognizedItem] {
    let decoder = try ImageDecoder()
    let scanner = try ImageScanner(options: options)
    let decoded = try decoder.decodeFile(atPath: Fixtures.path(name), targetWidth: scanner.settings.processingWidth)
    return scanner.scan(decoded.image)
}

@Suite(.offThePool(minutes: 2)) struct BarcodeTests {
    /// One fixture per symbology; the data is what the encoder (BWIPP or segno) was given, in the form
    /// the symbology carries it (GS1 DataBar: the element string without parentheses).
    static let symbologyFixtures: [(String, Symbology, String)] = [
        ("qr.png", .qr, "https://example.com/scannerd"),
        ("ean13.png", .ean13, "5901234123457"),
        ("ean8.png", .ean8, "96385074"),
        ("upce.png", .upce, "01234565"),
        ("upca.png", .upca, "036000291452"),
        ("code128.png", .code128, "SCANNERD-128"),
        ("code39.png", .code39, "SCAN-39"),
        ("code93.png", .code93, "SCAN93"),
        ("i2of5.png", .i2of5, "12345670"),
        ("codabar.png", .codabar, "A40156B"),
        ("gs1databar.png", .gs1DataBar, "0109521234543213"),
        ("gs1databar-expanded.png", .gs1DataBarExpanded, "01095212345432133103000123"),
        ("pdf417.png", .pdf417, "SCANNERD PDF417 TEST"),
        ("datamatrix.png", .datamatrix, "SCANNERD DATAMATRIX"),
        ("aztec.png", .aztec, "SCANNERD AZTEC"),
        ("microqr.png", .microqr, "MICRO42"),
    ]

    @Test func everySymbologyHasAFixture() {
        #expect(Set(Self.symbologyFixtures.map(\.1)) == Set(Symbology.allCases))
    }

    @Test(arguments: symbologyFixtures)
    func decodesEachSymbology(file: String, symbology: Symbology, payload: String) throws {
        let items = try scanFixture(file)
        #expect(items.count == 1)
        let item = try #require(items.first)
        #expect(item.kind == .barcode && item.symbology == symbology && item.payload == payload)
        // 1, or 0.5 for a 1-D reading zbar alone made: zxing-cpp 1.4 does not read the EAN-13,
        // UPC-A and UPC-E fixtures (their first digit sits in the quiet zone, as printed).
        #expect(item.confidence == ([.ean13, .upca, .upce].contains(symbology) ? ImageScanner.uncorroboratedConfidence : 1))
        // Each fixture is the symbol centred on its canvas with a 40 px margin (EAN/UPC symbols carry
        // their first digit to the left, so their bars sit a little right of centre).
        let box = item.bounds.boundingBox
        #expect(abs(item.bounds.center.x - 0.5) < 0.05, "centred: \(item.bounds)")
        #expect(box.minX > 0.02 && box.maxX < 0.98 && box.maxX - box.minX > (symbology.isLinear ? 0.6 : 0.4), "spans the symbol: \(item.bounds)")
        #expect(box.minY >= 0 && box.maxY <= 1)
    }

    /// zxing-cpp first (the live pipeline's full-resolution scans) reads every fixture as the
    /// default does: zbar still looks where zxing-cpp read no 1-D code (it misses the EAN-13, UPC-A
    /// and UPC-E fixtures, and reads no GS1 DataBar).
    @Test(arguments: symbologyFixtures)
    func zxingFirstReadsEachSymbology(file: String, symbology: Symbology, payload: String) throws {
        let image = try ImageDecoder().decodeFile(atPath: Fixtures.path(file)).image
        let found = try BarcodeRecognizer(symbologies: Set(Symbology.allCases), zxingFirst: true).recognize(image)
        #expect(found.map(\.payload) == [payload], "\(found.map { ($0.symbology, $0.payload) })")
        #expect(found.first?.symbology == symbology)
    }

    /// Interleaved 2 of 5 has no check digit: zbar finds one in any run of regular stripes. Decoded
    /// on a single scan line it is not reported; the same bars a few rows high are.
    @Test func interleaved2of5OnOneScanLineIsNotASymbol() throws {
        let bars = try ImageDecoder().decodeFile(atPath: Fixtures.path("i2of5.png")).image
        func strip(rows: Int) -> GrayImage {
            var canvas = GrayImage(width: bars.width, height: 60, filledWith: 255)
            let middle = bars.height / 2
            for y in 0..<rows {
                for x in 0..<bars.width { canvas.pixels[(30 + y) * bars.width + x] = bars.pixels[(middle + y) * bars.stride + x] }
            }
            return canvas
        }
        let recognizer = try BarcodeRecognizer(symbologies: [.i2of5])
        #expect(recognizer.recognize(strip(rows: 1)).isEmpty)
        #expect(recognizer.recognize(strip(rows: 8)).map(\.payload) == ["12345670"])
    }

    @Test(arguments: symbologyFixtures)
    func onlyRequestedSymbologiesAreReported(file: String, symbology: Symbology, payload: String) throws {
        // Ask for every symbology except this one (and, for UPC-A, its EAN-13 superset).
        var others = Set(Symbology.allCases)
        others.remove(symbology)
        if symbology == .upca || symbology == .upce { others.subtract([.ean13, .upca, .upce]) }
        let items = try scanFixture(file, options: ScanOptions(types: RecognitionTypes(symbologies: others, contentTypes: [])))
        #expect(items.isEmpty, "\(items)")
    }

    @Test func qrCodeBoundsAreItsCorners() throws {
        // segno: 37 modules (version 5 would be 37; this payload gives version 3 = 29) + 4 quiet modules a side,
        // 6 px per module, centred in 360×360: the code spans (360 − 29·6)/2 = 93 … 267 px.
        let item = try #require(try scanFixture("qr.png").first)
        let expected = Quad(x: 93.0 / 360, y: 93.0 / 360, width: 174.0 / 360, height: 174.0 / 360)
        for (corner, want) in zip(item.bounds.corners, expected.corners) {
            #expect(corner.isNear(want, tolerance: 0.01), "\(corner) vs \(want)")
        }
    }

    @Test func rotatedQRKeepsItsOwnCornerNames() throws {
        let item = try #require(try scanFixture("qr-rotated.jpg").first)
        #expect(item.payload == "ROTATED-QR-30")
        // A 21-module code at 5 px (105 px) rotated 30° counter-clockwise about the centre of 640×480.
        let angle = 30.0 * .pi / 180, half = 52.5
        func rotated(_ dx: Double, _ dy: Double) -> Point {
            Point(
                x: (320 + dx * cos(angle) + dy * sin(angle)) / 640,
                y: (240 - dx * sin(angle) + dy * cos(angle)) / 480)
        }
        let expected = [rotated(-half, -half), rotated(half, -half), rotated(half, half), rotated(-half, half)]
        for (corner, want) in zip(item.bounds.corners, expected) {
            #expect(corner.isNear(want, tolerance: 0.015), "\(corner) vs \(want)")
        }
    }

    @Test func tiltedQRIsReadWithKeystoneCorners() throws {
        let item = try #require(try scanFixture("qr-tilted.jpg").first)
        #expect(item.payload == "TILTED-QR")
        let top = item.bounds.topLeft.distance(to: item.bounds.topRight)
        let bottom = item.bounds.bottomLeft.distance(to: item.bounds.bottomRight)
        #expect(top < bottom * 0.9, "the top edge leans away: top \(top), bottom \(bottom)")
    }

    @Test func severalCodesInOneImageInReadingOrder() throws {
        let items = try scanFixture("multiple.jpg")
        #expect(items.map(\.payload) == ["MULTI-QR-LEFT", "MULTI-QR-RIGHT", "4006381333931", "MULTI-128"])
        #expect(items.map(\.symbology) == [.qr, .qr, .ean13, .code128])
    }

    @Test func invertedQRIsReadAtBalancedQualityNotFast() throws {
        let types = RecognitionTypes(symbologies: [.qr], contentTypes: [])
        #expect(try scanFixture("qr-inverted.png", options: ScanOptions(types: types, quality: .balanced)).map(\.payload) == ["INVERTED-QR"])
        #expect(try scanFixture("qr-inverted.png", options: ScanOptions(types: types, quality: .fast)).isEmpty)
    }

    /// zxing-cpp 1.4 looks for a DataMatrix only on the image's centre lines, one per image: the
    /// strips find one in a corner, and two in one image.
    @Test func dataMatrixOffTheCentreLinesAndTwoInOneImage() throws {
        let types = ScanOptions(types: RecognitionTypes(symbologies: [.datamatrix], contentTypes: []))
        #expect(try scanFixture("datamatrix-offcentre.png", options: types).map(\.payload) == ["OFF-CENTRE DM"])
        let two = try scanFixture("datamatrix-two.png", options: types)
        #expect(two.map(\.payload) == ["DM RIGHT", "DM LEFT"])
        // Each symbol's bounds are where it is in the whole image, not in the strip it was found in.
        #expect(two.first.map { $0.bounds.center.x > 0.7 && $0.bounds.center.y < 0.25 } == true, "\(two)")
        #expect(two.last.map { $0.bounds.center.x < 0.25 && $0.bounds.center.y > 0.65 } == true, "\(two)")
    }

    /// A camera's frames take turns over the tiles, a few a frame: within one round every tile has
    /// been searched, and the same frame again finds what the tiles hold.
    @Test func liveScansTakeTurnsOverTheTiles() throws {
        let image = try ImageDecoder().decodeFile(atPath: Fixtures.path("datamatrix-two.png")).image
        let recognizer = try BarcodeRecognizer(symbologies: [.datamatrix])
        recognizer.dataMatrixTilesPerScan = 3
        let rounds = (BarcodeRecognizer.dataMatrixTiles(width: image.width, height: image.height).count + 2) / 3
        let scans = (0..<rounds).map { _ in Set(recognizer.recognize(image).map(\.payload)) }
        #expect(scans.reduce(Set<String>()) { $0.union($1) } == ["DM LEFT", "DM RIGHT"])
        #expect(scans.contains { $0.count < 2 }, "a few tiles a scan, not all: \(scans)")
    }

    @Test func invertedDataMatrixIsReadAtBalancedQualityNotFast() throws {
        let types = RecognitionTypes(symbologies: [.datamatrix], contentTypes: [])
        #expect(try scanFixture("datamatrix-inverted.png", options: ScanOptions(types: types, quality: .balanced)).map(\.payload) == ["INVERTED DM"])
        #expect(try scanFixture("datamatrix-inverted.png", options: ScanOptions(types: types, quality: .fast)).isEmpty)
    }

    @Test func pgmInput() throws {
        #expect(try scanFixture("qr.pgm").map(\.payload) == ["PGM-QR"])
    }

    @Test func regionOfInterestLimitsTheScanButBoundsStayInImageCoordinates() throws {
        let all = try scanFixture("roi.png")
        #expect(Set(all.map(\.payload)) == ["ROI-LEFT", "9780201379624"])

        var options = ScanOptions(types: RecognitionTypes(symbologies: Set(Symbology.allCases), contentTypes: []))
        options.regionOfInterest = NormalizedRect(x: 0.5, y: 0, width: 0.5, height: 1)
        let right = try scanFixture("roi.png", options: options)
        #expect(right.map(\.payload) == ["9780201379624"])
        let fullBounds = try #require(all.first { $0.payload == "9780201379624" }).bounds
        for (a, b) in zip(right[0].bounds.corners, fullBounds.corners) {
            #expect(a.isNear(b, tolerance: 0.005), "same place whether or not the ROI is used")
        }

        options.regionOfInterest = NormalizedRect(x: 0, y: 0, width: 0.5, height: 1)
        #expect(try scanFixture("roi.png", options: options).map(\.payload) == ["ROI-LEFT"])
    }

    /// zbar's QR decoder never reuses the symbols it keeps (mchehab/zbar#258), so the recognizer replaces
    /// its zbar scanner every `defaultRenewal` decoded symbols. The replacement must behave exactly
    /// like the original: same results, and still only the symbologies asked for.
    @Test func renewedZBarScannerKeepsItsConfiguration() throws {
        let decoder = try ImageDecoder()
        let qr = try decoder.decodeFile(atPath: Fixtures.path("qr.png")).image
        let ean = try decoder.decodeFile(atPath: Fixtures.path("ean13.png")).image
        let recognizer = try BarcodeRecognizer(symbologies: [.qr])
        let first = recognizer.recognize(qr)
        #expect(first.map(\.payload) == ["https://example.com/scannerd"])
        for _ in 1...BarcodeRecognizer.defaultRenewal {
            #expect(recognizer.recognize(qr) == first)
        }
        #expect(recognizer.renewals == 1)
        #expect(recognizer.recognize(qr) == first)
        #expect(recognizer.recognize(ean).isEmpty, "EAN-13 was not asked for, before or after the renewal")
    }

    /// Scans that decode nothing leave nothing behind: no renewal.
    @Test func scansWithoutSymbolsDoNotRenew() throws {
        let ean = try ImageDecoder().decodeFile(atPath: Fixtures.path("ean13.png")).image
        let recognizer = try BarcodeRecognizer(symbologies: [.qr])
        for _ in 0...BarcodeRecognizer.defaultRenewal { _ = recognizer.recognize(ean) }
        #expect(recognizer.renewals == 0)
    }
}

#if canImport(Glibc)
import Glibc
#endif

/// zxing-cpp reads what zbar misses (issue #17).
@Suite(.offThePool(minutes: 2)) struct ZXingFallbackTests {
    /// A 1-D symbol large enough to be found on two layers of zxing-cpp 1.4's downscaled pyramid made
    /// it abort (an assertion in Result::operator==, on in Debian's build): the pyramid is off for
    /// 1-D formats. This test crashed the process before.
    @Test func aLargeLinearSymbolDoesNotAbortZXing() throws {
        let small = try ImageDecoder().decodeFile(atPath: Fixtures.path("code128.png")).image
        let scale = 4
        var large = GrayImage(width: small.width * scale, height: small.height * scale, filledWith: 255)
        for y in 0..<large.height {
            for x in 0..<large.width { large.pixels[y * large.width + x] = small[x / scale, y / scale] }
        }
        let found = BarcodeRecognizer.zxingAlone(large, [.ean13, .code128, .qr])
        #expect(found.map(\.payload) == ["SCANNERD-128"])
    }

    /// zxing-cpp alone on every symbology fixture zbar reads: what it reads is what zbar reports
    /// (Codabar with its start and stop letters), never another payload. zxing-cpp 1.4 does not read
    /// BWIPP's EAN/UPC symbols with their digits printed under the bars; zbar does.
    @Test func zxingReadsTheFixturesAsZBarReportsThem() throws {
        var read: [Symbology] = []
        for (file, symbology, payload) in BarcodeTests.symbologyFixtures where BarcodeRecognizer.zxingFallbackSymbologies.contains(symbology) {
            let image = try ImageDecoder().decodeFile(atPath: Fixtures.path(file)).image
            let payloads = BarcodeRecognizer.zxingAlone(image, [symbology]).map(\.payload)
            #expect(payloads.allSatisfy { $0 == payload }, "\(file): \(payloads)")
            if payloads == [payload] { read.append(symbology) }
        }
        #expect(Set(read) == [.qr, .ean8, .code128, .code39, .code93, .i2of5, .codabar], "\(read)")
    }
}

/// zbar's 1-D readings are read again by zxing-cpp at their place (issue #13: zbar misread a
/// label's EAN-13 with a valid check digit on 60 of 76 frames).
@Suite(.offThePool(minutes: 2)) struct LinearCrossCheckTests {
    /// zbar's own reading of the EAN-8 fixture (which zxing-cpp reads too), before any cross-check.
    func zbarReading() throws -> (image: GrayImage, observation: BarcodeObservation) {
        let image = try ImageDecoder().decodeFile(atPath: Fixtures.path("ean8.png")).image
        let recognizer = try BarcodeRecognizer(symbologies: [.ean8])
        recognizer.crossCheckLinear = false
        let found = recognizer.recognize(image)
        try #require(found.map(\.payload) == ["96385074"])
        return (image, found[0])
    }

    @Test func zxingCppsReadingStandsForThePlace() throws {
        let (image, right) = try zbarReading()
        var wrong = right
        wrong.payload = "96385081"
        wrong.quality = right.quality + 5
        // zbar read it two ways, the wrong one more often: one observation, right.
        let checked = BarcodeRecognizer.crossChecked([wrong, right], in: image)
        #expect(checked.map(\.payload) == ["96385074"])
        #expect(checked.first?.uncorroborated == false)
        #expect(checked.first?.quality == right.quality, "the quality of zbar's agreeing readings")
        // zbar's one reading, wrong: zxing-cpp's replaces it.
        #expect(BarcodeRecognizer.crossChecked([wrong], in: image).map(\.payload) == ["96385074"])
    }

    @Test func whereZXingCppReadsNothingOneReadingStaysUnconfirmedAndTwoAreDropped() throws {
        let (image, right) = try zbarReading()
        // The same place on a blank image: zxing-cpp reads nothing there.
        let blank = GrayImage(width: image.width, height: image.height, filledWith: 255)
        var wrong = right
        wrong.payload = "96385081"
        let one = BarcodeRecognizer.crossChecked([right], in: blank)
        #expect(one.map(\.payload) == ["96385074"])
        #expect(one.first?.uncorroborated == true)
        let two = BarcodeRecognizer.crossChecked([right, wrong], in: blank)
        #expect(two.isEmpty, "contested, with nothing to decide: \(two.map(\.payload))")
        // A QR code is not a 1-D reading: left as it is.
        let qr = BarcodeObservation(symbology: .qr, payload: "x", corners: Quad(x: 10, y: 10, width: 50, height: 50), quality: 1)
        #expect(BarcodeRecognizer.crossChecked([qr], in: blank) == [qr])
    }

    /// Hostile input: a place off the image, corners that are no numbers or beyond any image, and
    /// images too small or all noise are no crash (NaN corners trapped on an Int conversion).
    @Test func placesOffTheImageAndTinyOrNoisyImagesAreHarmless() throws {
        let (image, right) = try zbarReading()
        var off = right
        off.corners = Quad(x: 5000, y: -4000, width: 10, height: 10)
        var nan = right
        nan.corners = Quad(x: .nan, y: .nan, width: .nan, height: .nan)
        var huge = right
        huge.corners = Quad(x: -1e300, y: -1e300, width: 2e300, height: 2e300)
        let offImage = BarcodeRecognizer.crossChecked([off], in: image)
        #expect(offImage.map(\.payload) == ["96385074"] && offImage.first?.uncorroborated == true, "nothing to read off the image")
        // Corners that are no numbers, or beyond any image, clamp to the whole image: read there.
        for place in [nan, huge] {
            #expect(BarcodeRecognizer.crossChecked([place], in: image).map(\.payload) == ["96385074"], "\(place.corners)")
        }
        var generator = SystemRandomNumberGenerator()
        let noise = GrayImage(width: 640, height: 360, pixels: (0..<(640 * 360)).map { _ in UInt8.random(in: 0...255, using: &generator) })
        let recognizer = try BarcodeRecognizer(symbologies: Set(Symbology.allCases))
        for tiny in [GrayImage(width: 1, height: 1, filledWith: 0), GrayImage(width: 3, height: 2, filledWith: 255), noise] {
            #expect(recognizer.recognize(tiny).allSatisfy { !$0.payload.isEmpty }, "\(tiny.width)×\(tiny.height)")
        }
    }

    /// Hostile input: two copies of one 1-D code in an image (a sheet of labels) aborted the process
    /// inside zxing-cpp 1.4 (its duplicate check asserts on 1-D results read over several lines,
    /// Result.cpp; Debian builds with assertions on): both copies are read, side by side, stacked, or
    /// one turned a quarter, and each is reported once.
    @Test func twoCopiesOfOneCodeAreReadOnceEachWithoutAborting() throws {
        let code = try ImageDecoder().decodeFile(atPath: Fixtures.path("ean8.png")).image.packed()
        let turned = GrayImage(width: code.height, height: code.width, pixels: (0..<(code.width * code.height)).map { index in
            let (y, x) = index.quotientAndRemainder(dividingBy: code.height)
            return code[y, code.height - 1 - x]
        })
        func sheet(_ first: GrayImage, _ second: GrayImage, sideBySide: Bool) -> GrayImage {
            let width = sideBySide ? first.width + second.width : max(first.width, second.width)
            let height = sideBySide ? max(first.height, second.height) : first.height + second.height
            var pixels = [UInt8](repeating: 255, count: width * height)
            for (image, dx, dy) in [(first, 0, 0), (second, sideBySide ? first.width : 0, sideBySide ? 0 : first.height)] {
                for y in 0..<image.height { for x in 0..<image.width { pixels[(y + dy) * width + x + dx] = image[x, y] } }
            }
            return GrayImage(width: width, height: height, pixels: pixels)
        }
        for (name, image) in [("side by side", sheet(code, code, sideBySide: true)), ("stacked", sheet(code, code, sideBySide: false)),
                              ("one turned", sheet(code, turned, sideBySide: true))] {
            let read = BarcodeRecognizer.zxingAlone(image, [.ean8])
            #expect(read.map(\.payload) == ["96385074", "96385074"], "\(name): \(read.map(\.corners))")
            // One in each copy's half of the sheet.
            let centres = read.map(\.corners.center).sorted { ($0.x, $0.y) < ($1.x, $1.y) }
            if centres.count == 2 {
                let apart = name == "stacked" ? abs(centres[1].y - centres[0].y) : abs(centres[1].x - centres[0].x)
                #expect(apart > Double(code.width) / 2, "\(name): \(centres)")
            }
            #expect(try BarcodeRecognizer(symbologies: Set(Symbology.allCases)).recognize(image).contains { $0.payload == "96385074" })
        }
    }

    /// Hostile input: zxing-cpp 1.4 fails internal assertions on some camera frames (its Micro QR
    /// sampler aborted the daemon on a generated 640×480 card frame). An abort inside a read
    /// abandons the read, and the process goes on reading.
    @Test func anAssertionInsideZXingCppAbandonsTheReadNotTheProcess() throws {
        let before = BarcodeRecognizer.zxingAborts
        #expect(czx_test_abort() == CZX_ABORTED)
        #expect(BarcodeRecognizer.zxingAborts == before + 1)
        // Reads go on as before, on this thread and on another.
        let code = try ImageDecoder().decodeFile(atPath: Fixtures.path("ean8.png")).image
        #expect(BarcodeRecognizer.zxingAlone(code, [.ean8]).map(\.payload) == ["96385074"])
        let other = Thread { _ = czx_test_abort() }
        other.start()
        #expect(BarcodeRecognizer.zxingAlone(code, [.ean8]).map(\.payload) == ["96385074"])
    }

    /// zxing-cpp's place for a 1-D code is the few lines that read it; it is grown to the bars'
    /// height (as zbar, scanning every line, reports it), also when the code is tilted, and left
    /// alone where there are no bars to follow.
    @Test func zxingCppsLinearPlaceSpansTheBars() throws {
        let code = try ImageDecoder().decodeFile(atPath: Fixtures.path("ean8.png")).image.packed()
        let recognizer = try BarcodeRecognizer(symbologies: [.ean8])
        recognizer.crossCheckLinear = false
        let zbar = try #require(recognizer.recognize(code).first).corners.boundingBox
        let zxing = try #require(BarcodeRecognizer.zxingAlone(code, [.ean8]).first).corners
        let box = zxing.boundingBox
        #expect(box.maxY - box.minY >= 0.8 * (zbar.maxY - zbar.minY), "zxing-cpp \(box), zbar \(zbar)")
        #expect(box.maxY - box.minY <= 1.2 * (zbar.maxY - zbar.minY), "zxing-cpp \(box), zbar \(zbar)")
        #expect(abs(box.minX - zbar.minX) < 10 && abs(box.maxX - zbar.maxX) < 10, "zxing-cpp \(box), zbar \(zbar)")
        // Turned by 20 degrees: the quad's sides follow the slanted bars, as tall as before.
        let angle = 20.0 * Double.pi / 180
        let (cx, cy) = (Double(code.width) / 2, Double(code.height) / 2)
        let tilted = GrayImage(width: code.width, height: code.height, pixels: (0..<(code.width * code.height)).map { index in
            let (y, x) = index.quotientAndRemainder(dividingBy: code.width)
            let (dx, dy) = (Double(x) - cx, Double(y) - cy)
            let (sx, sy) = (Int((cx + dx * cos(angle) + dy * sin(angle)).rounded()), Int((cy - dx * sin(angle) + dy * cos(angle)).rounded()))
            return sx >= 0 && sy >= 0 && sx < code.width && sy < code.height ? code[sx, sy] : 255
        })
        let turned = try #require(BarcodeRecognizer.zxingAlone(tilted, [.ean8]).first).corners
        let height = (turned.topLeft.distance(to: turned.bottomLeft) + turned.topRight.distance(to: turned.bottomRight)) / 2
        #expect(height >= 0.7 * (zbar.maxY - zbar.minY), "\(turned)")
        // Nothing to follow: a blank image, a sliver off the image, corners that are no numbers.
        let sliver = Quad(x: 100, y: 100, width: 200, height: 2)
        #expect(BarExtent.grown(sliver, in: GrayImage(width: 400, height: 300, filledWith: 255)) == sliver)
        let off = Quad(x: 5000, y: 5000, width: 200, height: 2)
        #expect(BarExtent.grown(off, in: code) == off)
        let nan = Quad(x: .nan, y: 0, width: 200, height: 2)
        #expect(BarExtent.grown(nan, in: code).topLeft.x.isNaN)
    }

    /// Through the recognizer: the EAN-8 fixture, read by both, is confirmed; the EAN-13 fixture,
    /// whose leading digit sits in its quiet zone, zxing-cpp 1.4 does not read: zbar's reading stands
    /// unconfirmed.
    @Test func aSymbolBothReadIsConfirmed() throws {
        let decoder = try ImageDecoder()
        let ean8 = try BarcodeRecognizer(symbologies: [.ean8]).recognize(decoder.decodeFile(atPath: Fixtures.path("ean8.png")).image)
        #expect(ean8.map(\.payload) == ["96385074"] && ean8.first?.uncorroborated == false)
        let ean13 = try BarcodeRecognizer(symbologies: [.ean13]).recognize(decoder.decodeFile(atPath: Fixtures.path("ean13.png")).image)
        #expect(ean13.map(\.payload) == ["5901234123457"] && ean13.first?.uncorroborated == true)
    }
}
