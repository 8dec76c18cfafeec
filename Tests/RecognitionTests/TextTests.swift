import ImageDecoding
import ScannerCore
import TestSupport
import TestTraits
import Testing

@testable import Recognition

/// Text recognition end to end: Tesseract reads rendered text, content typing says what it is.
@Suite(.offThePool(minutes: 2)) struct TextTests {
    static let contentOnly = ScanOptions(types: RecognitionTypes(symbologies: [], contentTypes: TextContentType.standard))

    func summary(_ items: [RecognizedItem]) -> [String] {
        items.map { "\($0.contentType?.rawValue ?? $0.kind.rawValue) \($0.payload)" }
    }

    @Test func businessCard() throws {
        let items = try scanFixture("card-us.jpg", options: Self.contentOnly)
        #expect(
            summary(items) == [
                "telephoneNumber +14155550123",
                "telephoneNumber +16502530000",
                "emailAddress jane.doe@example.com",
                "url http://www.acme-optics.com/contact",
            ])
        #expect(items.first?.transcript == "(415) 555-0123")
        #expect(items.allSatisfy { $0.kind == .text && $0.confidence > 0.5 && $0.confidence <= 1 })
        // "Tel: (415) 555-0123" is the third line: 60 + 2·64 px from the top of 720, 40 px type,
        // the number starting after "Tel: " at about x = 160 of 1280 (the card is turned 1.5°).
        let phone = try #require(items.first)
        #expect(phone.bounds.center.isNear(Point(x: 0.245, y: 0.305), tolerance: 0.04), "\(phone.bounds)")
        let box = phone.bounds.boundingBox
        #expect(box.maxY - box.minY < 0.1 && box.maxX - box.minX > 0.15, "one line, the number's width")
    }

    @Test func internationalNumbersInE164() throws {
        let items = try scanFixture("phones-international.png", options: Self.contentOnly)
        #expect(items.map(\.payload) == ["+442079460958", "+4930901820", "+33142685300", "+81332249999"])
        #expect(items.map(\.transcript) == ["+44 20 7946 0958", "+49 30 901820", "+33 1 42 68 53 00", "+81 3-3224-9999"])
    }

    @Test func distractorsAreReadButNotReported() throws {
        // Nothing on this page is a phone number, URL or e-mail address…
        #expect(try scanFixture("distractors.jpg", options: Self.contentOnly).isEmpty)
        // …although every line is read: it is the content rules that refuse them, not blindness.
        var plain = Self.contentOnly
        plain.types = RecognitionTypes(symbologies: [], contentTypes: [], plainText: true)
        let lines = try scanFixture("distractors.jpg", options: plain).map(\.payload)
        for expected in ["$415.55", "#4155550199", "6505550143", "12/25/2024", "94103-1234", "2125551234"] {
            #expect(lines.contains { $0.contains(expected) }, "\(expected) not read: \(lines)")
        }
    }

    @Test func flyerYieldsOnlyThePhoneNumber() throws {
        let items = try scanFixture("flyer.jpg", options: Self.contentOnly)
        #expect(summary(items) == ["telephoneNumber +12125550187"])
        // Its price is money and its date a date, when they are asked for (issue #43); its order
        // number is still nothing.
        let every = try scanFixture(
            "flyer.jpg", options: ScanOptions(types: RecognitionTypes(symbologies: [], contentTypes: Set(TextContentType.allCases))))
        #expect(summary(every) == ["currency 129.99 USD", "dateTimeDuration 2024-12-31", "telephoneNumber +12125550187"])
    }

    @Test func emptyImageYieldsNothing() throws {
        var everything = ScanOptions()
        everything.types.plainText = true
        #expect(try scanFixture("empty.jpg", options: everything).isEmpty)
    }

    @Test func plainTextLinesWhenAsked() throws {
        var options = Self.contentOnly
        options.types.plainText = true
        let items = try scanFixture("card-us.jpg", options: options)
        let lines = items.filter { $0.contentType == nil }.map(\.payload)
        #expect(lines.contains("Jane Doe"))
        #expect(lines.contains("Head of Scanning, Acme Optics"))
    }

    @Test func regionOfInterestExcludesText() throws {
        // The bottom half of the card holds the e-mail address and the URL, not the phone numbers.
        var options = Self.contentOnly
        options.regionOfInterest = NormalizedRect(x: 0, y: 0.45, width: 1, height: 0.55)
        let items = try scanFixture("card-us.jpg", options: options)
        #expect(summary(items) == ["emailAddress jane.doe@example.com", "url http://www.acme-optics.com/contact"])
        #expect(items.allSatisfy { $0.bounds.boundingBox.minY >= 0.45 }, "bounds in whole-image coordinates")
    }

    @Test func digitsUnderABarcodeAreNotText() throws {
        // EAN-13's human-readable digits are part of the symbol.
        var options = ScanOptions()
        options.types.plainText = false
        let items = try scanFixture("ean13.png", options: options)
        #expect(items.map(\.kind) == [.barcode])
        // The rule itself: text centred inside a barcode's quad goes, text beside it stays.
        let barcode = Quad(x: 0.1, y: 0.1, width: 0.5, height: 0.4)
        func line(_ payload: String, _ x: Double, _ y: Double) -> RecognizedItem {
            RecognizedItem(
                kind: .text, contentType: .telephoneNumber, payload: payload, transcript: payload,
                bounds: Quad(x: x, y: y, width: 0.2, height: 0.05), confidence: 0.9)
        }
        let kept = ImageScanner.text(
            [line("+15125550100", 0.2, 0.3), line("+15125550101", 0.7, 0.3), line("+15125550102", 0.2, 0.6)], outside: [barcode])
        #expect(kept.map(\.payload) == ["+15125550101", "+15125550102"])
        #expect(ImageScanner.text([line("+15125550100", 0.2, 0.3)], outside: []).count == 1)
    }
}

@Suite(.offThePool(minutes: 2)) struct QualityLevelTests {
    @Test func fastDecodesAtHalfSizeAndStillReadsTheCard() throws {
        let options = ScanOptions(quality: .fast)
        let scanner = try ImageScanner(options: options)
        let decoded = try ImageDecoder().decodeFile(atPath: Fixtures.path("card-us.jpg"), targetWidth: scanner.settings.processingWidth)
        #expect(decoded.image.width == 640, "1280 px reduced by DCT scaling")
        #expect(
            scanner.scan(decoded.image).map(\.payload) == [
                "+14155550123", "+16502530000", "jane.doe@example.com", "http://www.acme-optics.com/contact",
            ])
    }

    @Test func levelsTradeSpeedForReach() {
        let fast = QualitySettings(.fast)
        let balanced = QualitySettings(.balanced)
        let accurate = QualitySettings(.accurate)
        #expect(fast.processingWidth! < balanced.processingWidth! && accurate.processingWidth == nil)
        // The documented values (docs/recognition.md, config/scannerd.conf): stills at 640 / 1280 /
        // full size, live at 480 / 640 / 960.
        #expect(fast.processingWidth == 640 && balanced.processingWidth == 1280)
        #expect(fast.liveProcessingWidth == 480 && balanced.liveProcessingWidth == 640 && accurate.liveProcessingWidth == 960)
        #expect(fast.barcodeScanDensity > balanced.barcodeScanDensity)
        #expect(!fast.testInvertedBarcodes && balanced.testInvertedBarcodes)
    }
}
