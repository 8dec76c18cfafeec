import Foundation
import ImageDecoding
import Recognition
import ScannerCore
import TestSupport
import TestTraits
import Testing

@testable import BarcodeRecognition

/// Scans a fixture with `ImageScanner` (barcodes only unless told otherwise).
func scanFixture(
    _ name: String, options: ScanOptions = ScanOptions(types: RecognitionTypes(symbologies: Set(Symbology.allCases), contentTypes: []))
) throws -> [RecognizedItem] {
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
        ("maxicode.png", .maxicode, "SCANNERD MAXICODE"),
        ("rmqr.png", .rmqr, "RMQR-42"),
        ("micropdf417.png", .micropdf417, "SCANNERD MICROPDF"),
        ("gs1databar-limited.png", .gs1DataBarLimited, "0115012345678907"),
        ("telepen.png", .telepen, "SCANNERD"),
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
        // 1, or 0.5 for a 1-D reading zbar alone made: zxing-cpp (1.4 and 3.1 alike) does not read the
        // EAN-13 and UPC-E fixtures (BWIPP prints their first digit in the quiet zone).
        #expect(item.confidence == ([.ean13, .upce].contains(symbology) ? ImageScanner.uncorroboratedConfidence : 1))
        // Each fixture is the symbol centred on its canvas with a 40 px margin (EAN/UPC symbols carry
        // their first digit to the left, so their bars sit a little right of centre).
        let box = item.bounds.boundingBox
        #expect(abs(item.bounds.center.x - 0.5) < 0.05, "centred: \(item.bounds)")
        #expect(box.minX > 0.02 && box.maxX < 0.98 && box.maxX - box.minX > (symbology.isLinear ? 0.6 : 0.4), "spans the symbol: \(item.bounds)")
        #expect(box.minY >= 0 && box.maxY <= 1)
    }

    /// zxing-cpp reads every fixture by itself but the EAN-13 and UPC-E ones (their first digit in
    /// the quiet zone; zbar reads those), as the symbology it is, with its ISO/IEC 15424 identifier.
    @Test(arguments: symbologyFixtures.filter { ![.ean13, .upce].contains($0.1) })
    func zxingCppReadsEachSymbology(file: String, symbology: Symbology, payload: String) throws {
        let image = try ImageDecoder().decodeFile(atPath: Fixtures.path(file)).image
        let found = ZXingReader(symbologies: Set(Symbology.allCases)).read(image)
        #expect(found.map(\.payload) == [payload], "\(found.map { ($0.symbology, $0.payload) })")
        #expect(found.first?.symbology == symbology)
        #expect(found.first?.symbologyIdentifier?.hasPrefix("]") == true)
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
        let angle = 30.0 * .pi / 180
        let half = 52.5
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

    /// A page of codes (issue #41): the photographed sheet of 30 EAN-13 and 30 DataMatrix
    /// (Tests/Fixtures/generate.py, `code_sheet`) is read completely, each code once, at its own place.
    @Test func aSheetOfSixtyCodesIsReadCompletely() throws {
        let expected = try String(contentsOfFile: Fixtures.path("sheet.txt"), encoding: .utf8).split(separator: "\n").map(String.init)
        try #require(expected.count == 60)
        let items = try scanFixture("sheet.jpg")
        #expect(items.count == 60)
        #expect(Set(items.map(\.payload)) == Set(expected), "missing \(Set(expected).subtracting(items.map(\.payload)))")
        #expect(items.filter { $0.symbology == .ean13 }.count == 30 && items.filter { $0.symbology == .datamatrix }.count == 30)
        // Sixty places: no two items' centres inside one another's bounds.
        for (i, a) in items.enumerated() {
            for b in items[(i + 1)...] { #expect(!a.bounds.contains(b.bounds.center), "\(a.payload) and \(b.payload) overlap") }
        }
    }

    @Test func invertedQRIsReadAtBalancedQualityNotFast() throws {
        let types = RecognitionTypes(symbologies: [.qr], contentTypes: [])
        #expect(try scanFixture("qr-inverted.png", options: ScanOptions(types: types, quality: .balanced)).map(\.payload) == ["INVERTED-QR"])
        #expect(try scanFixture("qr-inverted.png", options: ScanOptions(types: types, quality: .fast)).isEmpty)
    }

    /// zxing-cpp 1.4 looked for a DataMatrix only on the image's centre lines, one per image (tiles
    /// made up for it); 3.x finds one in a corner, and two in one image, in the whole image.
    @Test func dataMatrixOffTheCentreLinesAndTwoInOneImage() throws {
        let types = ScanOptions(types: RecognitionTypes(symbologies: [.datamatrix], contentTypes: []))
        #expect(try scanFixture("datamatrix-offcentre.png", options: types).map(\.payload) == ["OFF-CENTRE DM"])
        let two = try scanFixture("datamatrix-two.png", options: types)
        #expect(two.map(\.payload) == ["DM RIGHT", "DM LEFT"])
        #expect(two.first.map { $0.bounds.center.x > 0.7 && $0.bounds.center.y < 0.25 } == true, "\(two)")
        #expect(two.last.map { $0.bounds.center.x < 0.25 && $0.bounds.center.y > 0.65 } == true, "\(two)")
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

    /// zbar's QR decoder never reuses the symbols it keeps (mchehab/zbar#258), so its scanner is
    /// replaced every `defaultRenewal` decoded symbols. The replacement must behave exactly like the
    /// original: same results, and still only the symbologies asked for.
    @Test func renewedZBarScannerKeepsItsConfiguration() throws {
        let decoder = try ImageDecoder()
        let qr = try decoder.decodeFile(atPath: Fixtures.path("qr.png")).image
        let ean = try decoder.decodeFile(atPath: Fixtures.path("ean13.png")).image
        let scanner = try ZBarScanner(symbologies: [.qr])
        let first = scanner.scan(qr)
        #expect(first.map(\.payload) == ["https://example.com/scannerd"])
        for _ in 1...ZBarScanner.defaultRenewal {
            #expect(scanner.scan(qr) == first)
        }
        #expect(scanner.renewals == 1)
        #expect(scanner.scan(qr) == first)
        #expect(scanner.scan(ean).isEmpty, "EAN-13 was not asked for, before or after the renewal")
    }

    /// Scans that decode nothing leave nothing behind: no renewal.
    @Test func scansWithoutSymbolsDoNotRenew() throws {
        let ean = try ImageDecoder().decodeFile(atPath: Fixtures.path("ean13.png")).image
        let scanner = try ZBarScanner(symbologies: [.qr])
        for _ in 0...ZBarScanner.defaultRenewal { _ = scanner.scan(ean) }
        #expect(scanner.renewals == 0)
    }

    /// A quick scan (a camera frame's, between thorough ones) reads upright codes dark on light with
    /// zxing-cpp alone; a thorough scan also the negative, and zbar looks.
    @Test func quickAndThoroughScans() throws {
        let decoder = try ImageDecoder()
        let qr = try decoder.decodeFile(atPath: Fixtures.path("qr.png")).image
        let inverted = try decoder.decodeFile(atPath: Fixtures.path("qr-inverted.png")).image
        // zbar's scans counted through its renewals: one symbol a scan, renewed after every one.
        let recognizer = try BarcodeRecognizer(symbologies: [.qr], renewAfterSymbols: 1)
        #expect(recognizer.recognize(qr, thorough: false).map(\.payload) == ["https://example.com/scannerd"])
        #expect(recognizer.zbarRenewals == 0)
        #expect(recognizer.recognize(inverted, thorough: false).isEmpty)
        #expect(recognizer.recognize(inverted).map(\.payload) == ["INVERTED-QR"])
        _ = recognizer.recognize(qr)
        #expect(recognizer.zbarRenewals == 1)
        recognizer.zbarLooks = false
        _ = recognizer.recognize(qr)
        #expect(recognizer.zbarRenewals == 1)
    }

    /// Every symbology group names what it says, and `--types` reads it.
    @Test func symbologyGroups() throws {
        #expect(Symbology.groups["barcodes"] == Set(Symbology.allCases))
        #expect(Symbology.groups["matrix"]!.isDisjoint(with: Symbology.groups["linear"]!))
        #expect(Symbology.groups["matrix"]!.union(Symbology.groups["linear"]!) == Set(Symbology.allCases))
        #expect(Symbology.groups["matrix"]!.isSuperset(of: [.qr, .datamatrix, .maxicode, .rmqr]))
        #expect(Symbology.groups["retail"]!.isSubset(of: Symbology.groups["linear"]!))
        #expect(try RecognitionTypes(parsing: "retail,qr").symbologies == Symbology.groups["retail"]!.union([.qr]))
        #expect(try RecognitionTypes(parsing: "matrix").contentTypes.isEmpty)
    }
}

/// zxing-cpp 3.x through its C API (issue #41).
@Suite(.offThePool(minutes: 2)) struct ZXingReaderTests {
    /// A 1-D symbol large enough to be found on two layers of zxing-cpp's downscaled pyramid made 1.4
    /// abort (an assertion in Result::operator==, on in Debian's build); 3.x reads it once.
    @Test func aLargeLinearSymbolIsReadOnce() throws {
        let small = try ImageDecoder().decodeFile(atPath: Fixtures.path("code128.png")).image
        let scale = 4
        var large = GrayImage(width: small.width * scale, height: small.height * scale, filledWith: 255)
        for y in 0..<large.height {
            for x in 0..<large.width { large.pixels[y * large.width + x] = small[x / scale, y / scale] }
        }
        let found = ZXingReader(symbologies: [.ean13, .code128, .qr]).read(large)
        #expect(found.map(\.payload) == ["SCANNERD-128"])
    }

    /// Only what was asked for: a QR reader does not report the Micro QR or rMQR fixtures (zxing-cpp's
    /// `QRCode` format is the whole family), and the EAN-13 reader no UPC-A.
    @Test func onlyTheRequestedVariants() throws {
        let decoder = try ImageDecoder()
        for (file, asked) in [("microqr.png", Symbology.qr), ("rmqr.png", .qr), ("qr.png", .microqr), ("micropdf417.png", .pdf417)] {
            let image = try decoder.decodeFile(atPath: Fixtures.path(file)).image
            #expect(ZXingReader(symbologies: [asked]).read(image).isEmpty, "\(file) read as \(asked)")
        }
    }

    /// An image whose rows are padded and whose buffer ends at its last row's width (as `GrayImage`
    /// allows; zxing-cpp's checked view wants the last row whole) is read, not refused.
    @Test func aStridedImageEndingAtItsLastRowIsRead() throws {
        let code = try ImageDecoder().decodeFile(atPath: Fixtures.path("qr.png")).image.packed()
        let stride = code.width + 8
        var pixels = [UInt8](repeating: 255, count: (code.height - 1) * stride + code.width)
        for y in 0..<code.height { for x in 0..<code.width { pixels[y * stride + x] = code[x, y] } }
        let strided = GrayImage(width: code.width, height: code.height, stride: stride, pixels: pixels)
        let reader = ZXingReader(symbologies: [.qr])
        #expect(reader.read(strided).map(\.payload) == ["https://example.com/scannerd"])
        #expect(reader.failures == 0)
    }

    /// A region is read alone, and what is found there is placed in the whole image.
    @Test func aRegionIsReadInTheWholeImagesCoordinates() throws {
        let image = try ImageDecoder().decodeFile(atPath: Fixtures.path("datamatrix-two.png")).image
        let reader = ZXingReader(symbologies: [.datamatrix])
        let whole = reader.read(image)
        let right = try #require(whole.first { $0.payload == "DM RIGHT" })
        let half = PixelRect(x: image.width / 2, y: 0, width: image.width - image.width / 2, height: image.height)
        let inHalf = reader.read(image, in: half)
        #expect(inHalf.map(\.payload) == ["DM RIGHT"])
        for (a, b) in zip(inHalf[0].corners.corners, right.corners.corners) { #expect(a.distance(to: b) < 4, "\(a) vs \(b)") }
        // A region off the image, or empty, reads nothing and is no crash.
        #expect(reader.read(image, in: PixelRect(x: -50, y: -50, width: 10, height: 10)).count <= 1)
        #expect(reader.read(GrayImage(width: 1, height: 1, filledWith: 0)).isEmpty)
    }
}

/// zbar's readings count only by one rule (`BarcodeRecognizer.complemented`; issues #13, #41: zbar
/// misread a label's EAN-13 with a valid check digit on 60 of 76 frames, and read parts of EAN-13s
/// as UPC-E).
@Suite(.offThePool(minutes: 2)) struct ComplementTests {
    /// zbar's own reading of the EAN-8 fixture (which zxing-cpp reads too).
    func zbarReading() throws -> (image: GrayImage, observation: BarcodeObservation) {
        let image = try ImageDecoder().decodeFile(atPath: Fixtures.path("ean8.png")).image
        let found = try ZBarScanner(symbologies: [.ean8]).scan(image)
        try #require(found.map(\.payload) == ["96385074"])
        return (image, found[0])
    }

    let reader = ZXingReader(symbologies: Set(Symbology.allCases))

    /// Where zxing-cpp read a code, zbar adds nothing there: not its misread, not another symbology
    /// (a UPC-E inside an EAN-13), not the same reading twice.
    @Test func whereZXingCppReadACodeZBarAddsNothing() throws {
        let (image, right) = try zbarReading()
        let zxing = reader.read(image)
        try #require(zxing.map(\.payload) == ["96385074"])
        var wrong = right
        wrong.payload = "96385081"
        var upce = right
        upce.symbology = .upce
        upce.payload = "08407818"
        #expect(BarcodeRecognizer.complemented(zxing, with: [right, wrong, upce], in: image, reader: reader).isEmpty)
        // Elsewhere in the image, zbar's reading is its own place.
        var elsewhere = upce
        elsewhere.corners = Quad(x: 2, y: 2, width: 10, height: 4)
        #expect(BarcodeRecognizer.complemented(zxing, with: [elsewhere], in: image, reader: reader).count == 1)
    }

    /// Where zxing-cpp read nothing in the whole image, it reads the place again: its reading stands.
    @Test func zxingCppsRereadingStandsForThePlace() throws {
        let (image, right) = try zbarReading()
        var wrong = right
        wrong.payload = "96385081"
        wrong.quality = right.quality + 5
        // zbar read it two ways, the wrong one more often: one observation, right.
        let checked = BarcodeRecognizer.complemented([], with: [wrong, right], in: image, reader: reader)
        #expect(checked.map(\.payload) == ["96385074"])
        #expect(checked.first?.uncorroborated == false)
        #expect(checked.first?.quality == right.quality, "the quality of zbar's agreeing readings")
        #expect(BarcodeRecognizer.complemented([], with: [wrong], in: image, reader: reader).map(\.payload) == ["96385074"])
    }

    @Test func whereZXingCppReadsNothingOneReadingStaysUnconfirmedAndTwoAreDropped() throws {
        let (image, right) = try zbarReading()
        // The same place on a blank image: zxing-cpp reads nothing there.
        let blank = GrayImage(width: image.width, height: image.height, filledWith: 255)
        var wrong = right
        wrong.payload = "96385081"
        let one = BarcodeRecognizer.complemented([], with: [right], in: blank, reader: reader)
        #expect(one.map(\.payload) == ["96385074"])
        #expect(one.first?.uncorroborated == true)
        let two = BarcodeRecognizer.complemented([], with: [right, wrong], in: blank, reader: reader)
        #expect(two.isEmpty, "contested, with nothing to decide: \(two.map(\.payload))")
        // A QR code's error correction makes one decode enough: kept, not uncorroborated.
        let qr = BarcodeObservation(symbology: .qr, payload: "x", corners: Quad(x: 10, y: 10, width: 50, height: 50), quality: 1)
        #expect(BarcodeRecognizer.complemented([], with: [qr], in: blank, reader: reader) == [qr])
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
        let offImage = BarcodeRecognizer.complemented([], with: [off], in: image, reader: reader)
        #expect(offImage.map(\.payload) == ["96385074"] && offImage.first?.uncorroborated == true, "nothing to read off the image")
        // Corners that are no numbers, or beyond any image, clamp to the whole image: read there.
        for place in [nan, huge] {
            #expect(BarcodeRecognizer.complemented([], with: [place], in: image, reader: reader).map(\.payload) == ["96385074"], "\(place.corners)")
        }
        var generator = SystemRandomNumberGenerator()
        let noise = GrayImage(width: 640, height: 360, pixels: (0..<(640 * 360)).map { _ in UInt8.random(in: 0...255, using: &generator) })
        let recognizer = try BarcodeRecognizer(symbologies: Set(Symbology.allCases))
        for tiny in [GrayImage(width: 1, height: 1, filledWith: 0), GrayImage(width: 3, height: 2, filledWith: 255), noise] {
            #expect(recognizer.recognize(tiny).allSatisfy { !$0.payload.isEmpty }, "\(tiny.width)×\(tiny.height)")
        }
    }

    /// Hostile input: every symbology's fixture broken in the ways a camera or an attacker breaks a
    /// code (pixels flipped, bands blanked, cut in half, squashed to a sliver, inverted in stripes),
    /// 8 ways each, seeded: every read returns, and whatever it reports is a payload at a finite place
    /// inside the image.
    @Test func fuzzedCodesAreHarmless() throws {
        let decoder = try ImageDecoder()
        let recognizer = try BarcodeRecognizer(symbologies: Set(Symbology.allCases))
        var generator = SeededGenerator(seed: 41)
        for (file, _, _) in BarcodeTests.symbologyFixtures {
            let code = try decoder.decodeFile(atPath: Fixtures.path(file)).image.packed()
            for way in 0..<8 {
                var broken = code
                switch way % 4 {
                case 0:
                    for _ in 0..<(code.pixels.count / 20) { broken.pixels[Int.random(in: 0..<code.pixels.count, using: &generator)] ^= 0xFF }
                case 1:
                    let y0 = Int.random(in: 0..<code.height, using: &generator)
                    let rows = max(1, code.height / 6)
                    for y in y0..<min(code.height, y0 + rows) { for x in 0..<code.width { broken.pixels[y * code.width + x] = 255 } }
                case 2:
                    broken = code.cropped(to: PixelRect(x: 0, y: 0, width: max(1, code.width / 2), height: code.height)).packed()
                default:
                    broken = code.scaled(by: Double.random(in: 0.05...0.3, using: &generator))
                }
                if way >= 4 {
                    for y in stride(from: 0, to: broken.height, by: 7) { for x in 0..<broken.width { broken.pixels[y * broken.stride + x] ^= 0xFF } }
                }
                for found in recognizer.recognize(broken) {
                    #expect(!found.payload.isEmpty, "\(file), way \(way)")
                    #expect(
                        found.corners.corners.allSatisfy {
                            $0.x.isFinite && $0.y.isFinite && $0.x > -2 && $0.y > -2
                                && $0.x < Double(broken.width) + 2 && $0.y < Double(broken.height) + 2
                        }, "\(file), way \(way): \(found.corners)")
                }
            }
        }
    }

    /// Two copies of one 1-D code in an image (a sheet of labels) aborted the process inside zxing-cpp
    /// 1.4: both copies are read, side by side or one turned a quarter, each once. Stacked closer than
    /// half their length, zxing-cpp 3.x takes their scan lines for one symbol's (ODReader merges equal
    /// lines that near; zbar does the same): one reading, nothing else.
    @Test func twoCopiesOfOneCodeAreReadOnceEach() throws {
        let code = try ImageDecoder().decodeFile(atPath: Fixtures.path("ean8.png")).image.packed()
        let turned = GrayImage(
            width: code.height, height: code.width,
            pixels: (0..<(code.width * code.height)).map { index in
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
        for (name, image) in [
            ("side by side", sheet(code, code, sideBySide: true)), ("stacked", sheet(code, code, sideBySide: false)),
            ("one turned", sheet(code, turned, sideBySide: true)),
        ] {
            let read = try BarcodeRecognizer(symbologies: Set(Symbology.allCases)).recognize(image)
            if name == "stacked" {
                #expect(read.map(\.payload) == ["96385074"], "\(name): \(read.map(\.corners))")
                continue
            }
            #expect(read.map(\.payload) == ["96385074", "96385074"], "\(name): \(read.map(\.corners))")
            // One in each copy's half of the sheet.
            let centres = read.map(\.corners.center).sorted { ($0.x, $0.y) < ($1.x, $1.y) }
            if centres.count == 2 {
                let apart = name == "stacked" ? abs(centres[1].y - centres[0].y) : abs(centres[1].x - centres[0].x)
                #expect(apart > Double(code.width) / 2, "\(name): \(centres)")
            }
        }
    }

    /// zxing-cpp's place for a 1-D code is the lines that read it; it is grown to the bars' height (as
    /// zbar, scanning every line, reports it), and left alone where there are no bars to follow. A
    /// tilted code's place is the rows every line crosses it on (zxing-cpp 3.x reports them as an
    /// upright box): centred on the code, a part of its height.
    @Test func zxingCppsLinearPlaceSpansTheBars() throws {
        let code = try ImageDecoder().decodeFile(atPath: Fixtures.path("ean8.png")).image.packed()
        let zbar = try #require(try ZBarScanner(symbologies: [.ean8]).scan(code).first).corners.boundingBox
        let zxing = try #require(ZXingReader(symbologies: [.ean8]).read(code).first).corners
        let box = zxing.boundingBox
        #expect(box.maxY - box.minY >= 0.8 * (zbar.maxY - zbar.minY), "zxing-cpp \(box), zbar \(zbar)")
        #expect(box.maxY - box.minY <= 1.2 * (zbar.maxY - zbar.minY), "zxing-cpp \(box), zbar \(zbar)")
        #expect(abs(box.minX - zbar.minX) < 10 && abs(box.maxX - zbar.maxX) < 10, "zxing-cpp \(box), zbar \(zbar)")
        // Turned by 20 degrees: the quad's sides follow the slanted bars, as tall as before.
        let angle = 20.0 * Double.pi / 180
        let (cx, cy) = (Double(code.width) / 2, Double(code.height) / 2)
        let tilted = GrayImage(
            width: code.width, height: code.height,
            pixels: (0..<(code.width * code.height)).map { index in
                let (y, x) = index.quotientAndRemainder(dividingBy: code.width)
                let (dx, dy) = (Double(x) - cx, Double(y) - cy)
                let (sx, sy) = (Int((cx + dx * cos(angle) + dy * sin(angle)).rounded()), Int((cy - dx * sin(angle) + dy * cos(angle)).rounded()))
                return sx >= 0 && sy >= 0 && sx < code.width && sy < code.height ? code[sx, sy] : 255
            })
        let turned = try #require(ZXingReader(symbologies: [.ean8]).read(tilted).first).corners
        let height = (turned.topLeft.distance(to: turned.bottomLeft) + turned.topRight.distance(to: turned.bottomRight)) / 2
        #expect(height >= 0.35 * (zbar.maxY - zbar.minY), "\(turned)")
        // The code's centre, turned with the image (a pixel takes the source's at the inverse turn).
        let (sx, sy) = ((zbar.minX + zbar.maxX) / 2 - cx, (zbar.minY + zbar.maxY) / 2 - cy)
        let centre = Point(x: cx + sx * cos(angle) - sy * sin(angle), y: cy + sx * sin(angle) + sy * cos(angle))
        #expect(turned.center.distance(to: centre) < 0.1 * (zbar.maxX - zbar.minX), "\(turned) vs \(centre)")
        // Nothing to follow: a blank image, a sliver off the image, corners that are no numbers.
        let sliver = Quad(x: 100, y: 100, width: 200, height: 2)
        #expect(BarExtent.grown(sliver, in: GrayImage(width: 400, height: 300, filledWith: 255)) == sliver)
        let off = Quad(x: 5000, y: 5000, width: 200, height: 2)
        #expect(BarExtent.grown(off, in: code) == off)
        let nan = Quad(x: .nan, y: 0, width: 200, height: 2)
        #expect(BarExtent.grown(nan, in: code).topLeft.x.isNaN)
    }

    /// Through the recognizer: the EAN-8 fixture, read by zxing-cpp, is confirmed; the EAN-13 one,
    /// whose leading digit sits in its quiet zone, zxing-cpp does not read: zbar's reading stands
    /// unconfirmed.
    @Test func aSymbolZXingCppReadsIsConfirmed() throws {
        let decoder = try ImageDecoder()
        let ean8 = try BarcodeRecognizer(symbologies: [.ean8]).recognize(decoder.decodeFile(atPath: Fixtures.path("ean8.png")).image)
        #expect(ean8.map(\.payload) == ["96385074"] && ean8.first?.uncorroborated == false)
        let ean13 = try BarcodeRecognizer(symbologies: [.ean13]).recognize(decoder.decodeFile(atPath: Fixtures.path("ean13.png")).image)
        #expect(ean13.map(\.payload) == ["5901234123457"] && ean13.first?.uncorroborated == true)
    }
}
