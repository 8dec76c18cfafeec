import Foundation
import ImageDecoding
import ScannerCore
import ScannerProtocol
import TestSupport
import TestTraits
import Testing

/// `scannerd scan` as a user runs it: arguments in, JSON lines and an exit status out.
@Suite(.offThePool(minutes: 5)) struct ScanCommandTests {
    let scannerd = Subprocess.executable("scannerd")

    func scan(_ arguments: [String]) throws -> Subprocess.Result {
        try Subprocess.run(scannerd, ["scan"] + arguments)
    }

    func objects(_ result: Subprocess.Result) throws -> [JSONValue] {
        try result.stdoutLines.map { line in
            let value = JSONLines.object(line)
            try #require(!value.keys.isEmpty, "not a JSON object: \(line)")
            return value
        }
    }

    /// Issue #43's documents (Tests/Fixtures/generate.py `tracking_label`, `money_receipt`,
    /// `boarding_pass`, `letterhead`, photographed): with the text networks (as installed) `scan`
    /// types exactly what each one's `.txt` lists — tracking numbers, amounts, dates, times, ranges
    /// and durations, flight numbers, addresses on one line or two — in reading order, and none of
    /// their other numbers (order, account, invoice, ticket, card, VAT and registration numbers,
    /// references, weights, tax rates, gates, seats). With Tesseract alone some are missed (the bold
    /// UPS line's `AA1` reads `AAl1`; its detector cuts the receipt's `Austin,` from `TX 78701`), and
    /// still nothing false: whatever it types is listed, or a part of what is.
    @Test(arguments: ["label", "receipt", "boarding", "letterhead"]) func aDocumentsTypedTextAndNothingElse(name: String) throws {
        let expected = try String(contentsOfFile: Fixtures.path(name + ".txt"), encoding: .utf8).split(separator: "\n").map(String.init)
        let types = "shipmentTrackingNumber,currency,dateTimeDuration,flightNumber,fullStreetAddress"
        let models = Fixtures.packageRoot.appendingPathComponent(".build/models").path
        for lineModel in [["--line-model", models], ["--no-line-model"]] {
            let result = try scan(["--types", types] + lineModel + ["Tests/Fixtures/\(name).jpg"])
            #expect(result.status == 0, "\(result.stderr)")
            let items = try objects(result).map { try Event.Item($0) }
            let typed = items.map { "\($0.contentType?.rawValue ?? "?") \($0.payload)" }
            if lineModel.count == 2 {
                #expect(typed == expected, "\(name): \(typed)")
            } else {
                // Listed, or a part of a listed one of its type (`2026-11-22` of `2026-11-22T09:41`).
                let unlisted = items.filter { item in
                    !expected.contains { listed in
                        let (type, payload) = (item.contentType?.rawValue ?? "?", item.payload)
                        return listed == "\(type) \(payload)" || listed.hasPrefix(type + " ") && listed.contains(payload)
                    }
                }.map(\.payload)
                #expect(unlisted.isEmpty && typed.count * 2 >= expected.count, "\(name), Tesseract: \(typed)")
            }
        }
    }

    /// The compiled-network cache as a user meets it (issue #56): a first `scan` compiles the text
    /// networks and keeps them; damaged entries are refused with one line each and the networks
    /// compiled again, the items the same; the next `scan` takes the rewritten entries, silently.
    @Test func aDamagedNetworkCacheCostsOneLineAndNothingElse() throws {
        let cache = FileManager.default.temporaryDirectory.appendingPathComponent("scan-cache-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: cache) }
        let models = Fixtures.packageRoot.appendingPathComponent(".build/models").path
        func scan() throws -> Subprocess.Result {
            try Subprocess.run(
                scannerd, ["scan", "--types", "contentTypes", "--line-model", models, Fixtures.path("card-us.jpg")],
                environment: ["CACHE_DIRECTORY": cache])
        }
        let first = try scan()
        #expect(first.status == 0 && first.stderr.isEmpty, "\(first.stderr)")
        #expect(first.stdoutLines.count >= 3)
        let directory = (cache as NSString).appendingPathComponent("networks")
        let entries = try FileManager.default.contentsOfDirectory(atPath: directory).filter { $0.hasSuffix(".network") }
        #expect(entries.count == 2, "the recognizer and the detector at the photo's size")
        for entry in entries {
            let path = (directory as NSString).appendingPathComponent(entry)
            var bytes = try Data(contentsOf: URL(fileURLWithPath: path))
            for offset in stride(from: bytes.count / 2, to: bytes.count / 2 + 64, by: 1) { bytes[offset] = 0 }
            try bytes.write(to: URL(fileURLWithPath: path))
        }
        let damaged = try scan()
        #expect(damaged.status == 0)
        #expect(damaged.stdout == first.stdout)
        #expect(damaged.stderrLines.count == 2 && damaged.stderrLines.allSatisfy { $0.contains("refused (corrupt") }, "\(damaged.stderr)")
        let again = try scan()
        #expect(again.stdout == first.stdout && again.stderr.isEmpty, "\(again.stderr)")
    }

    /// What each typed item's `parsed` says on the documents: the carrier, the currency, the kind of
    /// date, the airline, the address's parts.
    @Test func theDocumentsParsedValues() throws {
        let models = ["--line-model", Fixtures.packageRoot.appendingPathComponent(".build/models").path]
        let result = try scan(
            ["--types", "shipmentTrackingNumber,currency,dateTimeDuration,flightNumber,fullStreetAddress"] + models
                + ["Tests/Fixtures/label.jpg", "Tests/Fixtures/boarding.jpg", "Tests/Fixtures/letterhead.jpg"])
        let items = try objects(result).map { try Event.Item($0) }
        func parsed(_ payload: String) -> [String: String] {
            guard let object = items.first(where: { $0.payload == payload })?.parsed else { return [:] }
            return Dictionary(uniqueKeysWithValues: object.keys.compactMap { key in object[key]?.string.map { (key, $0) } })
        }
        #expect(parsed("1Z999AA10123456784") == ["type": "shipmentTracking", "carrier": "ups"])
        #expect(parsed("RR473124829GB") == ["type": "shipmentTracking", "carrier": "s10", "country": "GB"])
        #expect(
            parsed("2210 Harbor Lane, Apt 5, Oakland CA 94607") == [
                "type": "address", "street": "2210 Harbor Lane", "unit": "Apt 5", "city": "Oakland", "region": "CA", "postalCode": "94607",
            ])
        #expect(parsed("LH400") == ["type": "flight", "airline": "LH", "number": "400"])
        #expect(parsed("2026-11-25") == ["type": "dateTime", "kind": "date", "iso8601": "2026-11-25"])
        #expect(parsed("PT8H40M") == ["type": "dateTime", "kind": "duration", "iso8601": "PT8H40M"])
        #expect(parsed("--12-24/--12-26") == ["type": "dateTime", "kind": "range", "iso8601": "--12-24/--12-26"])
        #expect(parsed("1250.00 GBP") == ["type": "currency", "amount": "1250.00", "currency": "GBP"])
        #expect(
            parsed("221B Baker Street, London NW1 6XE") == [
                "type": "address", "street": "221B Baker Street", "city": "London", "postalCode": "NW1 6XE",
            ])
        // An address printed on two lines is one item over both.
        let address = try #require(items.first { $0.payload == "2210 Harbor Lane, Apt 5, Oakland CA 94607" })
        #expect(address.transcript == "2210 Harbor Lane, Apt 5\nOakland CA 94607")
    }

    /// `scan --document FILE` (issue #43): the letter held up tilted in the letterhead fixture is
    /// written straightened — the page's shape (1000×1300), its text lines level — and what it says is
    /// typed the same from the straightened picture. One image only; a photo with no page says so.
    @Test func aStillsDocumentIsWrittenStraightened() throws {
        let scratch = try TemporaryDirectory("document")
        let output = scratch.file("page.jpg")
        let models = ["--line-model", Fixtures.packageRoot.appendingPathComponent(".build/models").path]
        let result = try scan(["--types", "dateTimeDuration", "--document", output] + models + ["Tests/Fixtures/letterhead.jpg"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stderr.contains("document") && result.stderr.contains(output), "\(result.stderr)")
        let page = try ImageDecoder().decodeFile(atPath: output).image
        let aspect = Double(page.width) / Double(page.height)
        #expect(abs(aspect - 1000.0 / 1300) < 0.03, "\(page.width)x\(page.height)")
        let again = try scan(["--types", "dateTimeDuration"] + models + [output])
        let items = try objects(again).map { try Event.Item($0) }
        #expect(items.map(\.payload) == ["2026-11-03", "--10-28", "P30D", "--12-24/--12-26"], "\(items.map(\.payload))")
        // Straight on, a line's quad is level: its top corners at one height.
        for item in items {
            #expect(abs(item.bounds.topLeft.y - item.bounds.topRight.y) < 0.005, "\(item.payload): \(item.bounds)")
        }
        // Two images, or none to be found.
        let two = try scan(["--document", output, "Tests/Fixtures/letterhead.jpg", "Tests/Fixtures/label.jpg"])
        #expect(two.status == 2 && two.stderr.contains("one image"), "\(two.stderr)")
        let none = try scan(["--document", scratch.file("none.jpg"), "Tests/Fixtures/empty.jpg"])
        #expect(none.status == 1 && none.stderr.contains("no document"), "\(none.status) \(none.stderr)")
        #expect(!FileManager.default.fileExists(atPath: scratch.file("none.jpg")))
    }

    /// `scan --types document` prints each document as an item like any other (issue #53): the
    /// letter in the letterhead fixture, its corners where the page's are in the photo (measured by
    /// eye: top-left at 6 % and 4 % of the width and height, bottom-right at 92 % and 92 %), and
    /// beside the letter's other items when they are asked for too. A desk without a page prints none.
    @Test func documentsArePrintedAsItems() throws {
        let result = try scan(["--types", "document", "--no-line-model", "Tests/Fixtures/letterhead.jpg"])
        #expect(result.status == 0, "\(result.stderr)")
        let items = try objects(result).map { try Event.Item($0) }
        try #require(items.count == 1, "\(result.stdout)")
        let page = items[0]
        #expect(page.kind == .document && page.payload == "document" && page.confidence > 0.5, "\(page)")
        func near(_ p: Point, _ x: Double, _ y: Double) -> Bool { abs(p.x - x) < 0.03 && abs(p.y - y) < 0.03 }
        #expect(near(page.bounds.topLeft, 0.06, 0.04) && near(page.bounds.topRight, 0.96, 0.07), "\(page.bounds)")
        #expect(near(page.bounds.bottomRight, 0.92, 0.92) && near(page.bounds.bottomLeft, 0.04, 0.93), "\(page.bounds)")
        let both = try objects(try scan(["--types", "document,dateTimeDuration", "--no-line-model", "Tests/Fixtures/letterhead.jpg"]))
        #expect(both.count > 1 && both.filter { $0["kind"] == .string("document") }.count == 1, "\(both)")
        let none = try scan(["--types", "document", "Tests/Fixtures/empty.jpg"])
        #expect(none.status == 1 && none.stdout.isEmpty, "\(none.stdout)")
        // A broken detector network costs the documents its lines, not the documents.
        let broken = try TemporaryDirectory("broken-models")
        try Data("not a model".utf8).write(to: URL(fileURLWithPath: broken.file("text-detector.onnx")))
        let degraded = try scan(["--types", "document", "--line-model", broken.path, "Tests/Fixtures/letterhead.jpg"])
        #expect(degraded.status == 0 && degraded.stdoutLines.count == 1, "\(degraded.status) \(degraded.stderr)")
        #expect(degraded.stderr.contains("text-detector.onnx") && degraded.stderr.contains("classical"), "\(degraded.stderr)")
    }

    /// A card with a large picture printed on it (issue #53, `CardWithPicture`): by edges alone the
    /// picture (with the card's right side) is the document; the card's text lies outside it, and the
    /// document is the card.
    @Test func aCardWithAPictureOnItGivesTheCardNotThePicture() throws {
        let scratch = try TemporaryDirectory("document-picture")
        let desk = CardWithPicture.render(cardFixture: try ImageDecoder().decodeFile(atPath: Fixtures.path("card-us.jpg")).image)
        let photo = scratch.file("card.jpg")
        try JPEGEncoder().encode(desk, quality: 92).write(to: URL(fileURLWithPath: photo))
        let result = try scan(["--types", "document", photo])
        let items = try objects(result).map { try Event.Item($0) }
        try #require(items.count == 1, "\(result.stdout)\(result.stderr)")
        let box = items[0].bounds.boundingBox
        // The card is 768 × 432 px at (256, 144) of 1280 × 720: its left, top and right sides within
        // 2 % of the frame; its bottom, faded into the desk, below the last line of its text.
        #expect(abs(box.minX - 0.2) < 0.02 && abs(box.minY - 0.2) < 0.02 && abs(box.maxX - 0.8) < 0.02, "\(box)")
        #expect(box.maxY > 0.6 && box.maxY < 0.82, "\(box)")
    }

    /// A colour photo's document is written in colour (issue #53): a pink card with a dark grid on a
    /// gray desk, straightened, its page still pink.
    @Test func aColourPhotosDocumentIsWrittenInColour() throws {
        let scratch = try TemporaryDirectory("document-colour")
        let photo = scratch.file("card.jpg")
        try JPEGEncoder().encode(SlantedGridPage().renderColor(page: (240, 120, 120)), quality: 90).write(to: URL(fileURLWithPath: photo))
        let output = scratch.file("flat.jpg")
        let result = try scan(["--types", "document", "--no-line-model", "--document", output, photo])
        #expect(result.status == 0, "\(result.stderr)")
        let flat = try ImageDecoder().decodeColor(try Data(contentsOf: URL(fileURLWithPath: output)))
        #expect(flat.hasColor(tolerance: 40), "the document is gray: \(flat.width)x\(flat.height)")
    }

    /// A red card on a gray desk of its luma (issue #53): `scan` finds it by its chroma — the item's
    /// corners within 1 % of the frame's diagonal of the card's — and writes it red, at its own size.
    @Test func aRedCardOnADeskOfItsLumaIsFound() throws {
        let scratch = try TemporaryDirectory("document-red")
        let scene = SlantedGridPage()
        let (page, desk) = SlantedGridPage.redOnGrayOfItsLuma
        let photo = scratch.file("card.jpg")
        try JPEGEncoder().encode(scene.renderColor(page: page, desk: desk, margin: 12.5), quality: 90).write(to: URL(fileURLWithPath: photo))
        let output = scratch.file("flat.jpg")
        let result = try scan(["--types", "document", "--no-line-model", "--document", output, photo])
        let items = try objects(result).map { try Event.Item($0) }
        try #require(items.count == 1, "\(result.stdout)\(result.stderr)")
        let found = items[0].bounds.corners.map { Point(x: $0.x * 640, y: $0.y * 480) }
        let error = zip(found, scene.corners).map { $0.distance(to: $1) }.max() ?? .infinity
        #expect(error < 8, "\(found) for \(scene.corners)")
        let flat = try ImageDecoder().decodeColor(try Data(contentsOf: URL(fileURLWithPath: output)))
        #expect(abs(Double(flat.width) - scene.ownSize.width) < 6, "\(flat.width)x\(flat.height)")
        #expect(flat.hasColor(tolerance: 100), "the document is not red: \(flat.width)x\(flat.height)")
    }

    /// Issue #54: a card's JPEG as print workflows write it — CMYK, Adobe's inverted and plain
    /// (generate_cmyk.py) — is read as its RGB original is: its phone numbers, address and link.
    @Test(arguments: ["cmyk-card-adobe.jpg", "cmyk-card-plain.jpg"]) func aCMYKCardIsRead(name: String) throws {
        let models = ["--line-model", Fixtures.packageRoot.appendingPathComponent(".build/models").path]
        let result = try scan(["--types", "contentTypes"] + models + [Fixtures.path(name)])
        let payloads = Set(try objects(result).map { try Event.Item($0).payload })
        #expect(
            payloads == ["+14155550123", "+16502530000", "jane.doe@example.com", "http://www.acme-optics.com/contact"],
            "\(name): \(payloads) \(result.stderr)")
    }

    /// The colour decode behind `--document` is bounded as the gray one is: image bombs (a JPEG and a
    /// PNG declaring huge sizes, a truncated TIFF) get one line naming the file, and nothing is written.
    @Test func documentsOfHostileImagesAreRefusedAndNothingIsWritten() throws {
        let scratch = try TemporaryDirectory("document-hostile-images")
        for name in ["bomb.jpg", "bomb-65535.png", "truncated.tif"] {
            let output = scratch.file("\(name).out.jpg")
            let result = try scan(["--types", "document", "--no-line-model", "--document", output, Fixtures.path("hostile/" + name)])
            #expect(result.status == 2 && result.stderr.contains(name), "\(name): \(result.status) \(result.stderr)")
            #expect(!FileManager.default.fileExists(atPath: output), "\(name)")
        }
    }

    /// Where `--document` cannot write (a directory, a missing one, no name), the error names it and
    /// the exit status is 2; the directory is left as it was.
    @Test func aDocumentThatCannotBeWrittenIsOneClearError() throws {
        let scratch = try TemporaryDirectory("document-hostile")
        let directory = scratch.file("taken")
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: false)
        try "keep".write(toFile: directory + "/inside.txt", atomically: false, encoding: .utf8)
        for target in [directory, scratch.file("missing/page.jpg"), ""] {
            let result = try scan(["--types", "dateTimeDuration", "--document", target, "--no-line-model", "Tests/Fixtures/letterhead.jpg"])
            #expect(result.status == 2, "\(target): \(result.status) \(result.stderr)")
            #expect(result.stderr.contains(target.isEmpty ? "--document" : target), "\(target): \(result.stderr)")
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory) == ["inside.txt"])
        #expect(try String(contentsOfFile: directory + "/inside.txt", encoding: .utf8) == "keep")
    }

    @Test func printsOneJSONObjectPerItemAndExitsZero() throws {
        let result = try scan(["Tests/Fixtures/qr.png", "Tests/Fixtures/flyer.jpg"])
        #expect(result.status == 0)
        let items = try objects(result)
        #expect(items.count == 2)
        #expect(items[0]["image"]?.string == "Tests/Fixtures/qr.png")
        #expect(items[0]["kind"]?.string == "barcode")
        #expect(items[0]["symbology"]?.string == "qr")
        #expect(items[0]["payload"]?.string == "https://example.com/scannerd")
        #expect(items[0]["confidence"]?.doubleValue == 1)
        // The item is the protocol's (`Event.Item`, whose decoder checks each corner is [x, y]).
        let bounds = try Event.Item(items[0]).bounds
        #expect(bounds.corners.allSatisfy { (0...1).contains($0.x) && (0...1).contains($0.y) })
        #expect(items[1]["kind"]?.string == "text")
        #expect(items[1]["contentType"]?.string == "telephoneNumber")
        #expect(items[1]["payload"]?.string == "+12125550187")
        #expect(items[1]["transcript"]?.string == "212-555-0187")
        // Keys come in the documented order.
        #expect(
            result.stdoutLines[0].hasPrefix(
                #"{"image":"Tests/Fixtures/qr.png","kind":"barcode","symbology":"qr","symbologyIdentifier":"]Q1","payload":"https://example.com/scannerd","parsed":{"type":"url",""#
            ))
        #expect(result.stderr.isEmpty)
    }

    /// An image that takes longer than `--max-seconds`: what was found is printed (nothing, at a
    /// limit this short), one line names the image and the limit, and the next image is still read.
    @Test func anImagePastItsTimeLimitSaysSoAndTheNextIsRead() throws {
        let directory = try TemporaryDirectory()
        // 324 codes: more than one read returns, so read in tiles too, the limit checked between them.
        let code = try ImageDecoder().decodeFile(atPath: Fixtures.path("qr.pgm")).image
        let large = directory.file("sheet.pgm")
        try Data(CodeSheet.pgm(CodeSheet.sheet(of: code, n: 18))).write(to: URL(fileURLWithPath: large))
        let result = try scan(["--types", "qr", "--max-seconds", "0.001", large, "Tests/Fixtures/qr.png"])
        #expect(result.status == 2, "\(result.stderr)")
        #expect(result.stderr.contains("\(large): stopped at the 0.001 s limit (--max-seconds)"), "\(result.stderr)")
        #expect(result.stdout.contains("https://example.com/scannerd"), "the next image is read: \(result.stdout)")
        let lines = result.stderr.split(separator: "\n").filter { $0.contains("--max-seconds") }
        #expect(lines.count == 1, "one line, for the image past the limit: \(lines)")
    }

    @Test func exitsOneWhenNothingIsFound() throws {
        let result = try scan(["Tests/Fixtures/empty.jpg", "Tests/Fixtures/distractors.jpg"])
        #expect(result.status == 1)
        #expect(result.stdout.isEmpty && result.stderr.isEmpty)
    }

    @Test func brokenFilesAreReportedAndTheOthersStillScanned() throws {
        let result = try scan([
            "Tests/Fixtures/truncated.jpg", "Tests/Fixtures/qr.png", "Tests/Fixtures/garbage.jpg",
            "Tests/Fixtures/not-an-image.txt", "Tests/Fixtures/missing.png", "Tests/Fixtures/zero-bytes.png",
            "Tests/Fixtures/ean8.png",
        ])
        #expect(result.status == 2)
        #expect(try objects(result).map { $0["payload"]?.string } == ["https://example.com/scannerd", "96385074"])
        let errors = result.stderrLines
        #expect(errors.count == 5, "\(errors)")
        let expected = [
            ("truncated.jpg", "Premature end of JPEG file"), ("garbage.jpg", "not a readable image"),
            ("not-an-image.txt", "not a readable image"), ("missing.png", "no such file"), ("zero-bytes.png", "empty file"),
        ]
        for ((file, reason), line) in zip(expected, errors) {
            #expect(line.contains("Tests/Fixtures/\(file)") && line.contains(reason), "\(line)")
        }
    }

    @Test func typesRestrictWhatIsReported() throws {
        let result = try scan(["--types", "ean13,code128", "Tests/Fixtures/multiple.jpg"])
        #expect(result.status == 0)
        #expect(try objects(result).map { $0["symbology"]?.string } == ["ean13", "code128"])
    }

    @Test func regionOfInterestOption() throws {
        let result = try scan(["--roi", "0.5,0,0.5,1", "Tests/Fixtures/roi.png"])
        #expect(try objects(result).map { $0["payload"]?.string } == ["9780201379624"])
    }

    @Test func phoneRegionOption() throws {
        // The flyer's number is a US number written nationally: with another default region it is not valid.
        let us = try scan(["--types", "telephoneNumber", "--region", "US", "Tests/Fixtures/flyer.jpg"])
        #expect(us.status == 0)
        let gb = try scan(["--types", "telephoneNumber", "--region", "GB", "Tests/Fixtures/flyer.jpg"])
        #expect(gb.status == 1)
    }

    @Test(arguments: [
        (["--types", "qrcode"], "qrcode"),
        (["--quality", "best"], "best"),
        (["--roi", "0.5,0.5,0.9,0.9"], "roi"),
        (["--roi", "1,2"], "x,y,w,h"),
        (["--region", "XX"], "XX"),
        (["--languages", "klingon"], "klingon"),
        (["--max-seconds", "0"], "--max-seconds"),
        (["--max-seconds", "nan"], "--max-seconds"),
        ([], "image"),
    ])
    func badArgumentsExitTwoNamingTheProblem(arguments: [String], mentions: String) throws {
        let images = arguments.isEmpty ? [] : ["Tests/Fixtures/qr.png"]
        let result = try scan(arguments + images)
        #expect(result.status == 2)
        #expect(result.stdout.isEmpty)
        #expect(result.stderr.contains(mentions), "\(result.stderr)")
    }
}

/// issue #17: `scannerd scan` on the 2-D and formatted-payload fixtures prints each code with its
/// symbology and, where its payload follows a format, `parsed`; the malformed variants have none.
@Suite(.offThePool(minutes: 2)) struct ScanParsedPayloadTests {
    @Test func everyFixtureIsReadWithItsParsedForm() throws {
        let expected: [(String, String, String?)] = [
            ("datamatrix.png", "datamatrix", nil), ("aztec.png", "aztec", nil), ("microqr.png", "microqr", nil),
            ("qr-wifi.png", "qr", "wifi"), ("qr-wifi-malformed.png", "qr", nil), ("qr-mecard.png", "qr", "contact"),
            ("qr-vcard.png", "qr", "contact"), ("qr-vcard-malformed.png", "qr", nil), ("gs1-128.png", "code128", "gs1"),
            ("gs1-128-malformed.png", "code128", nil), ("gs1-datamatrix.png", "datamatrix", "gs1"), ("aamva.png", "pdf417", "aamva"),
            ("aamva-malformed.png", "pdf417", nil),
        ]
        let run = try Subprocess.run(Subprocess.executable("scannerd"), ["scan", "--types", "barcodes"] + expected.map { "Tests/Fixtures/\($0.0)" })
        #expect(run.status == 0, "\(run.stderr)")
        let items = JSONLines.objects(run.stdoutLines)
        for (file, symbology, parsed) in expected {
            let item = items.filter { $0["image"]?.string == "Tests/Fixtures/\(file)" }
            #expect(item.count == 1, "\(file): \(item)")
            #expect(item.first?["symbology"]?.string == symbology, "\(file)")
            #expect(item.first?["parsed"]?["type"]?.string == parsed, "\(file): \(item)")
        }
        // The Wi-Fi password is in the payload, never in `parsed`.
        let wifi = try #require(items.first { $0["image"]?.string == "Tests/Fixtures/qr-wifi.png" })
        #expect((wifi["payload"]?.string)?.contains("correct horse") == true)
        #expect(!(wifi["parsed"] ?? .null).serialized().contains("correct horse"))
    }
}
