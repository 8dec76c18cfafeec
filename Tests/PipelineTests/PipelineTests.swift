import Capture
import Foundation
import ImageDecoding
import Recognition
import ScannerCore
import TestSupport
import TestTraits
import Testing
import Tracking

@testable import Pipeline

/// The deterministic pipeline's gates and selection, frame by frame, without threads or a daemon
/// (docs/pipeline.md). OCR runs on every 3rd frame at `balanced`.
@Suite(.offThePool(minutes: 2)) struct PipelineTests {
    func frame(_ index: Int, _ image: GrayImage) -> Frame {
        Frame(index: index, decoded: DecodedImage(image: image, sourceWidth: image.width, sourceHeight: image.height), format: nil)
    }

    func image(_ name: String) throws -> GrayImage { try ImageDecoder().decodeFile(atPath: Fixtures.path(name), targetWidth: 640).image }

    func handler(types: String = "barcodes,contentTypes", single: Bool = false) throws -> Pipeline {
        var options = ScanOptions(quality: .balanced)
        options.types = try RecognitionTypes(parsing: types)
        return try Pipeline(configuration: SequenceConfiguration(options: options, singleItem: single), pacing: .everyFrame(fps: 30))
    }

    @Test func anUnchangedFrameIsNotReadAgainOnceItsLinesAreConfirmed() throws {
        let card = try image("bench-640x480.jpg")
        let handler = try handler()
        // Passes read the card's lines (a few per pass) until each line's two reads agree; identical
        // frames after that are not read at all.
        var added = 0
        var index = 0
        var before = handler.statistics
        while index < 90 {
            added += handler.process(frame(index, card), time: Double(index) / 30).filter { $0.name == "added" }.count
            index += 3
            if handler.statistics.ocrSkippedUnchanged > 0 { break }
            before = handler.statistics
        }
        let s = handler.statistics
        #expect(added > 0, "the card's text was confirmed and added")
        #expect(s.ocrSkippedUnchanged == 1, "\(s)")
        #expect(s.ocrLinesRead == before.ocrLinesRead && s.ocrPasses == before.ocrPasses, "nothing read once confirmed: \(s)")
        #expect(s.ocrLinesRead <= 2 * s.ocrPasses * LineSchedule<Int>.Configuration().readsPerPass, "\(s)")
        #expect(s.barcodeScans == 1, "a thorough first scan, reused while nothing changes: \(s)")
    }

    @Test func aConfidentFirstReadIsConfirmedOnTheNextFrameNotAPassLater() throws {
        // Every frame arrives; passes run on every 3rd. The first pass reads a few lines; those that
        // said something with confidence get their second read on the frame after it, by themselves.
        let card = try image("bench-640x480.jpg")
        let handler = try handler()
        var firstAdded: Int?
        var perFrame: [SequenceStatistics] = []
        for index in 0..<6 {
            let actions = handler.process(frame(index, card), time: Double(index) / 30)
            if firstAdded == nil, actions.contains(where: { $0.name == "added" && $0.item.item.kind == .text }) { firstAdded = index }
            perFrame.append(handler.statistics)
        }
        #expect(firstAdded == 1, "added on the confirming pass: \(perFrame)")
        #expect(perFrame[1].ocrConfirmingPasses == 1 && perFrame[1].ocrPasses == 2, "\(perFrame[1])")
        let confirmingReads = perFrame[1].ocrLinesRead - perFrame[0].ocrLinesRead
        #expect(confirmingReads >= 1 && confirmingReads < perFrame[0].ocrLinesRead, "only the lines awaiting confirmation: \(perFrame)")
        // No pass on the frame after a confirming pass, nor on one after a pass with nothing to confirm.
        #expect(perFrame[2].ocrPasses == perFrame[1].ocrPasses, "\(perFrame[2])")
        #expect(perFrame[5].ocrConfirmingPasses <= 2, "\(perFrame[5])")
    }

    @Test func aChangeReadsOnlyTheLinesThatAreNew() throws {
        let card = try image("bench-640x480.jpg")
        let handler = try handler()
        var index = 0
        while handler.statistics.ocrSkippedUnchanged == 0 && index < 90 {
            _ = handler.process(frame(index, card), time: Double(index) / 30)
            index += 3
        }
        // The name line (the top 64 rows of the card's left half) inverted: the card's other lines
        // stay confirmed and are not read again.
        var changed = card
        for y in 0..<64 { for x in 0..<(card.width / 2) { changed.pixels[y * card.width + x] = 255 - card.pixels[y * card.width + x] } }
        let before = handler.statistics
        _ = handler.process(frame(index, changed), time: Double(index) / 30)
        let s = handler.statistics
        #expect(s.ocrPasses == before.ocrPasses + 1, "\(s)")
        let reader = try TextReader(options: handler.configuration.options)
        let top = reader.textLines(in: changed).filter { $0.quad.boundingBox.minY < 64 }.count
        #expect(top >= 1 && top < reader.textLines(in: card).count, "the change touches some of the lines")
        #expect(s.ocrLinesRead - before.ocrLinesRead == top, "only the changed lines are read: \(s)")
    }

    @Test func linesOfOneOrTwoGlyphsAreNotRead() throws {
        // Two hollow boxes side by side: a "line" of two wide glyphs (a logo, a frame), nothing to
        // read. (A small picture, so that they are enough ink for the text gate.)
        var blank = GrayImage(width: 160, height: 120, pixels: [UInt8](repeating: 225, count: 160 * 120))
        for x0 in [40, 76] {
            for y in 50..<70 {
                for x in x0..<(x0 + 28) where y < 53 || y >= 67 || x < x0 + 3 || x >= x0 + 25 { blank.pixels[y * 160 + x] = 30 }
            }
        }
        let handler = try handler()
        // A still's reader keeps lines of letters run together, and takes the boxes for one; a
        // camera's does not.
        let found = try TextReader(options: handler.configuration.options).textLines(in: blank)
        try #require(!found.isEmpty, "\(found)")
        #expect(try TextReader(options: handler.configuration.options, live: true).textLines(in: blank).isEmpty)
        for index in stride(from: 0, to: 12, by: 3) { _ = handler.process(frame(index, blank), time: Double(index) / 30) }
        let s = handler.statistics
        #expect(s.ocrPasses > 0 && s.ocrLinesRead == 0, "\(s)")
    }

    /// The pipeline reads a card's lines through the one fusion policy whichever recognizer it holds:
    /// PP-OCRv6's with the models (`make deps`), Tesseract's without; both add its phone number, at a
    /// size where its print is small (320 px) and at a camera's 1280 px.
    @Test(arguments: [320, 1280]) func aCardsPhoneNumberIsAddedWithEitherRecognizer(width: Int) throws {
        let model = Fixtures.packageRoot.appendingPathComponent(".build/models").path
        let full = try ImageDecoder().decodeFile(atPath: Fixtures.path("card-us.jpg")).image
        let card = full.scaled(by: Double(width) / Double(full.width))
        for lineModel in [model, nil] {
            var options = ScanOptions(quality: .balanced)
            options.types = try RecognitionTypes(parsing: "contentTypes")
            let handler = try Pipeline(configuration: SequenceConfiguration(options: options, lineModel: lineModel), pacing: .everyFrame(fps: 30))
            var added: Set<String> = []
            for index in stride(from: 0, to: 45, by: 3) {
                added.formUnion(handler.process(frame(index, card), time: Double(index) / 30).filter { $0.name == "added" }.map(\.item.item.payload))
            }
            #expect(added.contains("+14155550123"), "\(width) px, model \(lineModel ?? "none"): \(added)")
        }
    }

    /// An EAN-13 of ~1.6 px per module in a 1280×720 frame: 0.8 px in the 640 px processing image,
    /// which cannot be read; the full-resolution scans find it. zxing-cpp does not read this one
    /// (BWIPP prints its first digit in the quiet zone): zbar does, on the first (thorough) scan.
    @Test func aCodeTooSmallForTheProcessingImageIsFoundAtFullResolution() throws {
        let ean = try ImageDecoder().decodeFile(atPath: Fixtures.path("ean13.png")).image.scaled(by: 0.25)
        var canvas = GrayImage(width: 1280, height: 720, filledWith: 255)
        for y in 0..<ean.height { for x in 0..<ean.width { canvas.pixels[(300 + y) * 1280 + 500 + x] = ean.pixels[y * ean.stride + x] } }
        var pgm = Data("P5\n1280 720\n255\n".utf8)
        pgm.append(contentsOf: canvas.pixels)
        let full = Frame(
            index: 0, decoded: DecodedImage(image: canvas.scaled(by: 0.5), sourceWidth: 1280, sourceHeight: 720), format: nil,
            encoded: EncodedFrame(bytes: pgm, format: nil, width: 1280, height: 720, bytesPerLine: 0))
        func run(fullResolution: Bool) throws -> (payloads: [String], statistics: SequenceStatistics) {
            var options = ScanOptions(quality: .balanced)
            options.types = try RecognitionTypes(parsing: "barcodes")
            let handler = try Pipeline(
                configuration: SequenceConfiguration(options: options, barcodesAtFullResolution: fullResolution), pacing: .everyFrame(fps: 30))
            var payloads: [String] = []
            for index in 0..<8 {
                var frame = full
                frame.index = index
                for case .added(let item) in handler.process(frame, time: Double(index) / 30) { payloads.append(item.item.payload) }
            }
            return (payloads, handler.statistics)
        }
        let reducedOnly = try run(fullResolution: false)
        #expect(reducedOnly.payloads.isEmpty, "the processing image alone does not hold it")
        let withFull = try run(fullResolution: true)
        #expect(withFull.payloads == ["5901234123457"])
        #expect(withFull.statistics.barcodeFullResolutionScans == 1, "one thorough scan, reused: \(withFull.statistics)")
        #expect(withFull.statistics.barcodeScansReused == 7)
    }

    @Test func aBlurredFrameIsNotRead() throws {
        let handler = try handler()
        let blurry = blurred(try image("bench-640x480.jpg"), radius: 3)
        _ = handler.process(frame(0, blurry), time: 0)
        #expect(handler.statistics.ocrSkippedBlurred == 1 && handler.statistics.ocrPasses == 0)
    }

    @Test func aNewRegionOfInterestAppliesFromTheNextFrame() throws {
        let codes = try image("multiple.jpg")
        let handler = try handler(types: "barcodes")
        var configuration = handler.configuration
        configuration.options.regionOfInterest = NormalizedRect(x: 0, y: 0, width: 0.5, height: 0.5)
        try handler.reconfigure(configuration)
        let found = handler.process(frame(0, codes), time: 0).compactMap { action -> String? in
            if case .added(let item) = action { return item.item.payload }
            return nil
        }
        // Of the four codes only the top-left QR code lies in the top-left quarter.
        #expect(found == ["MULTI-QR-LEFT"], "\(found)")
    }

    /// A configuration whose stages cannot be built is refused whole (issue #42: the failure was
    /// dropped with `try?` and the stage of before went on, under the new configuration's name).
    @Test func aConfigurationThatCannotBeBuiltIsRefusedAndChangesNothing() throws {
        let handler = try handler(types: "barcodes")
        var broken = handler.configuration
        broken.options.types = try RecognitionTypes(parsing: "barcodes,contentTypes")
        broken.options.regionOfInterest = NormalizedRect(x: 0, y: 0, width: 0.5, height: 0.5)
        broken.lineModel = "/nonexistent/scannerd-models"
        #expect(throws: ScannerError.self) { try handler.reconfigure(broken) }
        #expect(handler.configuration.options.regionOfInterest == NormalizedRect(x: 0, y: 0, width: 1, height: 1))
        #expect(!handler.configuration.options.types.wantsText)
        let card = try image("bench-640x480.jpg")
        _ = handler.process(frame(0, card), time: 0)
        #expect(handler.statistics.ocrPasses == 0 && handler.statistics.barcodeScans == 1)
    }

    /// A change that needs no new recognizer (single-item mode, tracking) keeps the stages in force:
    /// building them takes up to 0.2 s, and their state (the scene they last scanned) stays.
    @Test func aChangeThatNeedsNoNewStageKeepsTheStages() throws {
        let codes = try image("multiple.jpg")
        let handler = try handler(types: "barcodes")
        _ = handler.process(frame(0, codes), time: 0)
        var single = handler.configuration
        single.singleItem = true
        try handler.reconfigure(single)
        _ = handler.process(frame(1, codes), time: 1.0 / 30)
        // The same stage: the unchanged frame reuses its scan (a new one would scan it again).
        #expect(handler.statistics.barcodeScans == 1 && handler.statistics.barcodeScansReused == 1, "\(handler.statistics)")
        var elsewhere = handler.configuration
        elsewhere.options.regionOfInterest = NormalizedRect(x: 0, y: 0, width: 0.5, height: 0.5)
        try handler.reconfigure(elsewhere)
        _ = handler.process(frame(2, codes), time: 2.0 / 30)
        #expect(handler.statistics.barcodeScans == 1 && handler.statistics.barcodeScansReused == 0, "a new stage: \(handler.statistics)")
    }

    @Test func aNewQualityLevelChangesTheReadingCadence() throws {
        let card = try image("bench-640x480.jpg")
        let balanced = try handler()
        _ = balanced.process(frame(3, card), time: 0.1)
        #expect(balanced.statistics.ocrPasses == 1, "balanced reads every 3rd frame")
        let switched = try handler()
        try switched.reconfigure(SequenceConfiguration(options: ScanOptions(quality: .fast)))
        _ = switched.process(frame(3, card), time: 0.1)
        #expect(switched.statistics.ocrPasses == 0, "fast reads every 6th frame: not the 3rd")
        _ = switched.process(frame(6, card), time: 0.2)
        #expect(switched.statistics.ocrPasses == 1 && switched.configuration.options.quality == .fast)
    }

    /// The live pipeline lets the camera decode half the frames once `unchangedStreak` reaches
    /// `Pipeline.idleAfterFrames`; the first changed frame ends it at once.
    @Test func idleBeginsAfterASecondOfSameFramesAndEndsOnTheFirstChange() throws {
        let card = try image("bench-640x480.jpg")
        let codes = try image("multiple.jpg")
        let stage = try BarcodeStage(options: ScanOptions(quality: .balanced))
        var looker = FrameLooker()
        for n in 0...Pipeline.idleAfterFrames { _ = stage.scan(card, look: looker.look(at: card, time: Double(n) / 30), time: Double(n) / 30) }
        #expect(stage.unchangedStreak >= Pipeline.idleAfterFrames, "idle after a second of the same frame")
        _ = stage.scan(codes, look: looker.look(at: codes, time: 2), time: 2)
        #expect(stage.unchangedStreak == 0, "the first changed frame ends it")
        // A thorough first scan (`BarcodeCadence`), reuse; the change: a quick scan.
        #expect(stage.scans == 2 && stage.reused == Pipeline.idleAfterFrames)
    }

    /// A label held still whose codes were found (issue #56): once at rest, its frames between whole
    /// scans are scanned only around the four codes, which are found on every frame where the hand's
    /// jitter has moved them.
    @Test func aStillLabelIsScannedAroundItsCodesAndFollowed() throws {
        let codes = try image("multiple.jpg")
        let stage = try BarcodeStage(options: ScanOptions(quality: .balanced))
        let all: Set = ["MULTI-QR-LEFT", "MULTI-QR-RIGHT", "4006381333931", "MULTI-128"]
        var firstLeft: Double?
        for n in 0..<60 {
            let shift = n % 3
            var jittered = GrayImage(width: codes.width, height: codes.height, filledWith: 255)
            for y in 0..<codes.height {
                for x in 0..<(codes.width - shift) { jittered.pixels[y * jittered.stride + x + shift] = codes.pixels[y * codes.stride + x] }
            }
            // The gate sees every frame change (a hand's jitter); what is held up stays put.
            let look = FrameLook(
                thumbnail: (0..<1024).map { UInt8(truncatingIfNeeded: $0 * 7 + n * 91) }, sharpness: 1, brightness: 128, saturated: 0,
                heldUp: true, changed: [], changedRegion: NormalizedRect(x: 0.02, y: 0.05, width: 0.9, height: 0.85))
            let aroundBefore = stage.aroundScans
            let found = stage.scan(jittered, look: look, time: Double(n) / 30)
            // A quick scan of the whole frame may miss the EAN-13 (zbar reads it); around, every code is found.
            if stage.aroundScans > aroundBefore { #expect(Set(found.map(\.payload)) == all, "frame \(n): \(found.map(\.payload))") }
            let left = try #require(found.first { $0.payload == "MULTI-QR-LEFT" }).bounds.boundingBox.minX
            if n == 0 { firstLeft = left }
            let expected = try #require(firstLeft) + Double(shift) / Double(codes.width)
            #expect(abs(left - expected) < 1.5 / Double(codes.width), "frame \(n): the code's corners follow it")
        }
        #expect(stage.aroundScans >= 30, "scans: \(stage.scans), around: \(stage.aroundScans)")
        #expect(stage.reused == 0)
    }

    /// Where a scan around a label's codes looks: each code's box widened by the held-still tolerance,
    /// clipped to the region of interest; codes whose places overlap are looked at in one place.
    @Test func theNeighbourhoodsOfCodesJoinWhereTheyOverlap() {
        func code(_ x: Double, _ y: Double) -> RecognizedItem {
            RecognizedItem(kind: .barcode, payload: "\(x),\(y)", bounds: Quad(x: x, y: y, width: 0.1, height: 0.1), confidence: 1)
        }
        let margin = FrameLook.stillRegionTolerance
        let places = BarcodeStage.neighbourhoods(of: [code(0.1, 0.1), code(0.25, 0.12), code(0.7, 0.7)], within: .full)
        #expect(places.count == 2, "\(places)")
        let joined = NormalizedRect(x: 0.1 - margin, y: 0.1 - margin, width: 0.25 + 2 * margin, height: 0.12 + 2 * margin)
        #expect(places.contains { abs($0.x - joined.x) < 1e-9 && abs($0.width - joined.width) < 1e-9 && abs($0.height - joined.height) < 1e-9 })
        let clipped = BarcodeStage.neighbourhoods(of: [code(0.7, 0.7)], within: NormalizedRect(x: 0, y: 0, width: 0.75, height: 1))
        #expect(clipped.count == 1 && abs(clipped[0].x + clipped[0].width - 0.75) < 1e-9)
    }

    /// A still scene is not read again once its lines are settled, nor after 2 s of lines that never
    /// settle (noise on a still desk makes new clutter "lines" on every pass); a change is always read.
    @Test func aStillSceneIsReadUntilItsLinesSettleOrForTwoSeconds() {
        let stage = TextTuning.Stage()
        let still = stage.pendingReadingWhileStill
        #expect(stage.skipsStillFrame(unchanged: true, pendingLines: false, stillFor: 0))
        #expect(!stage.skipsStillFrame(unchanged: true, pendingLines: true, stillFor: still - 0.1))
        #expect(stage.skipsStillFrame(unchanged: true, pendingLines: true, stillFor: still))
        #expect(!stage.skipsStillFrame(unchanged: false, pendingLines: false, stillFor: 100))
        #expect(still == 2)
    }

    /// docs/pipeline.md "no ink": a frame whose darkest and brightest 1% are less than 48 levels
    /// apart is not read. The card pressed into 40 levels is not read; the card itself is.
    @Test func aFrameWithoutInkIsNotRead() throws {
        let card = try image("bench-640x480.jpg")
        var faint = card
        faint.pixels = card.pixels.map { UInt8(100 + Int($0) * 40 / 255) }
        let limit = QualitySettings(.balanced).minimumContrastForText
        #expect(faint.contrastSpread() < limit && card.contrastSpread() >= limit)
        var options = ScanOptions(quality: .balanced)
        options.types = try RecognitionTypes(parsing: "text")
        let scanner = try ImageScanner(options: options)
        #expect(!scanner.scan(card).isEmpty, "the card has lines of text")
        #expect(scanner.scan(faint).isEmpty, "nothing is read where there is no ink")
    }

    @Test func singleItemModeKeepsTheCodeNearestTheCentreOfTheRegion() throws {
        let codes = try image("multiple.jpg")
        // Four frames: a 1-D code is added on its second agreeing decode, or its fourth when only
        // zbar reads it (the EAN-13, whose first digit sits in the quiet zone): zbar looks on the
        // first, thorough, scan (`BarcodeCadence`), which the unchanged frames after it reuse.
        func frames(_ handler: Pipeline) -> [TrackerAction] {
            (0..<4).flatMap { handler.process(frame($0, codes), time: Double($0) / 30) }
        }
        let all = try handler(types: "barcodes")
        let everything = frames(all)
        #expect(everything.count == 4, "\(everything)")
        let single = try handler(types: "barcodes", single: true)
        let one = frames(single)
        // Of the four codes, the EAN-13 (centre about 0.77, 0.7) is nearest the frame's centre.
        guard case .added(let item)? = one.first, one.count == 1 else {
            Issue.record("one item expected: \(one)")
            return
        }
        let nearest = everything.compactMap { action -> RecognizedItem? in
            if case .added(let item) = action { return item.item }
            return nil
        }.min { $0.bounds.center.distance(to: Point(x: 0.5, y: 0.5)) < $1.bounds.center.distance(to: Point(x: 0.5, y: 0.5)) }
        #expect(item.item.payload == nearest?.payload, "\(item.item.payload)")
    }
}
