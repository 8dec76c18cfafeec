import Foundation
import ScannerCore
import Testing
import Tracking

/// Sequential ids, so expectations can name them.
final class IDs: @unchecked Sendable {
    private var next = 0
    private let lock = NSLock()
    func make() -> UUID {
        lock.lock()
        defer { lock.unlock() }
        next += 1
        return UUID(uuidString: String(format: "00000000-0000-0000-0000-%012d", next))!
    }
}

func qr(_ payload: String, x: Double = 0.4, y: Double = 0.4, size: Double = 0.2) -> RecognizedItem {
    RecognizedItem(kind: .barcode, symbology: .qr, payload: payload, bounds: Quad(x: x, y: y, width: size, height: size), confidence: 1)
}

func ean13(_ payload: String, y: Double = 0.4, height: Double = 0.1) -> RecognizedItem {
    RecognizedItem(kind: .barcode, symbology: .ean13, payload: payload, bounds: Quad(x: 0.3, y: y, width: 0.12, height: height), confidence: 1)
}

/// A 1-D decode zbar alone made (zxing-cpp did not confirm it): confidence 0.5.
func unconfirmed(_ item: RecognizedItem) -> RecognizedItem {
    var item = item
    item.confidence = 0.5
    return item
}

func code39(_ payload: String) -> RecognizedItem {
    RecognizedItem(kind: .barcode, symbology: .code39, payload: payload, bounds: Quad(x: 0.1, y: 0.1, width: 0.5, height: 0.1), confidence: 1)
}

func text(_ type: TextContentType, _ payload: String, x: Double = 0.1, y: Double = 0.5, confidence: Double = 0.9) -> RecognizedItem {
    RecognizedItem(
        kind: .text, contentType: type, payload: payload, transcript: payload, bounds: Quad(x: x, y: y, width: 0.4, height: 0.05),
        confidence: confidence)
}

/// Drives a tracker at 30 fps.
struct Replay {
    var tracker: ItemTracker
    var frame = 0
    var log: [String] = []

    init(_ configuration: TrackerConfiguration = TrackerConfiguration()) {
        let ids = IDs()
        tracker = ItemTracker(configuration: configuration, makeID: { ids.make() })
    }

    /// One frame; `text` nil means OCR did not run on it.
    @discardableResult
    mutating func step(_ barcodes: [RecognizedItem] = [], text: [RecognizedItem]? = nil) -> [TrackerAction] {
        let actions = tracker.update(FrameObservations(frame: frame, time: Double(frame) / 30, barcodes: barcodes, text: text))
        for action in actions {
            log.append("\(frame) \(action.name) \(action.item.item.payload) #\(action.item.id.uuidString.suffix(2))")
        }
        frame += 1
        return actions
    }

    mutating func steps(_ count: Int, _ barcodes: [RecognizedItem] = [], text: [RecognizedItem]? = nil) {
        for _ in 0..<count { step(barcodes, text: text) }
    }
}

@Suite(.timeLimit(.minutes(2))) struct BarcodeTrackingTests {
    @Test func strongCodeIsAddedOnceOnItsFirstDecode() {
        var replay = Replay()
        replay.steps(30, [qr("A")])
        #expect(replay.log == ["0 added A #01"])
    }

    @Test func missedDetectionsInsideTheGracePeriodCauseNoEvent() {
        var replay = Replay()
        replay.steps(5, [qr("A")])
        replay.steps(20)  // 0.67 s of nothing: under the 0.8 s grace period
        replay.steps(5, [qr("A")])
        #expect(replay.log == ["0 added A #01"])
    }

    @Test func anItemThatLeavesIsRemovedOnceAfterTheGracePeriod() {
        var replay = Replay()
        replay.steps(10, [qr("A")])
        replay.steps(60)
        // Last seen at frame 9 (0.3 s); removed on the first frame more than 0.8 s later.
        #expect(replay.log == ["0 added A #01", "34 removed A #01"])
    }

    @Test func movingGivesUpdatedWithTheSameID() {
        var replay = Replay()
        replay.step([qr("A", x: 0.30)])
        replay.step([qr("A", x: 0.31)])  // 0.01: jitter, below the threshold
        replay.step([qr("A", x: 0.40)])
        replay.step([qr("A", x: 0.45)])
        #expect(replay.log == ["0 added A #01", "2 updated A #01", "3 updated A #01"])
        #expect(replay.tracker.liveItems.first?.item.bounds.topLeft.x == 0.45)
    }

    @Test func handJitterBelowTheThresholdIsQuiet() {
        var replay = Replay()
        for i in 0..<60 { replay.step([qr("A", x: 0.4 + (i % 2 == 0 ? 0.005 : -0.005))]) }
        #expect(replay.log == ["0 added A #01"])
    }

    @Test func weakSymbologiesNeedTwoAgreeingDecodes() {
        var replay = Replay()
        replay.step([code39("SPURIOUS")])  // one misdecode…
        replay.steps(40)  // …never confirmed: never added, and forgotten
        replay.step([code39("SCAN-39")])
        replay.step([code39("SCAN-39")])
        #expect(replay.log == ["42 added SCAN-39 #02"])
    }

    /// Issue #13: zbar read a label's EAN-13 "1781958637676" as "2781278637676", a valid check
    /// digit too, and both were reported. 1-D decodes vote by place.
    @Test func aContestedLinearReadingWaitsAndNeverMakesASecondItem() {
        var replay = Replay()
        replay.step([ean13("1781958637676")])
        replay.step([ean13("2781278637676", y: 0.42, height: 0.02)])  // a sliver of the same symbol
        replay.step([ean13("1781958637676")])
        #expect(replay.log.isEmpty, "2 to 1: no lead")
        replay.step([ean13("1781958637676")])
        #expect(replay.log == ["3 added 1781958637676 #01"])
        // The misread keeps coming, in the same frames as the right reading: no second item, and an
        // even split keeps what clients have.
        replay.steps(3, [ean13("1781958637676"), ean13("2781278637676", y: 0.42, height: 0.02)])
        #expect(replay.log == ["3 added 1781958637676 #01"], "the misread never becomes an item of its own")
        #expect(replay.tracker.liveItems.count == 1)
    }

    /// The footage's sheet (seed 2, realtime) carried away: its column of EAN-13s moved a row's height
    /// between two scans, so the code above came to lie where a code was. Each decode goes to the
    /// track reading the same, not to whatever track lies at its place: no second item, nothing taken
    /// over by a neighbour.
    @Test func aColumnOfCodesCarriedAwayKeepsEachCodesTrack() {
        var replay = Replay()
        let (upper, lower) = ("4000013929479", "4000014325423")
        replay.steps(2, [ean13(upper, y: 0.58), ean13(lower, y: 0.69)])
        #expect(replay.log == ["1 added 4000013929479 #01", "1 added 4000014325423 #02"])
        // A row lower per scan, the upper code decoded first (top to bottom, as a scan finds them).
        for step in 1...2 {
            let shift = 0.11 * Double(step)
            replay.step([ean13(upper, y: 0.58 + shift), ean13(lower, y: 0.69 + shift)])
        }
        #expect(replay.log.filter { !$0.contains(" updated ") } == ["1 added 4000013929479 #01", "1 added 4000014325423 #02"], "no second item")
        let live = Dictionary(uniqueKeysWithValues: replay.tracker.liveItems.map { ($0.item.payload, $0.item.bounds.center.y) })
        #expect(abs((live[upper] ?? 0) - 0.85) < 1e-9)
        #expect(abs((live[lower] ?? 0) - 0.96) < 1e-9)
    }

    /// At realtime on the generated label (seed 1) the EAN-13's item flipped between zbar's readings
    /// in `updated` events: once live, a payload changes only on the evidence that would add it.
    @Test func aLiveLinearItemDoesNotFlipOnSplitEvidence() {
        var replay = Replay()
        replay.steps(2, [ean13("1781958637676")])
        #expect(replay.log == ["1 added 1781958637676 #01"])
        // The misread comes three times in a row: 3 to 2 in the window of 6, a lead of 1.
        replay.steps(3, [ean13("2781278637676")])
        #expect(replay.log == ["1 added 1781958637676 #01"], "a lead of one is not decisive")
        #expect(replay.tracker.liveItems.first?.item.payload == "1781958637676")
        // The other reading comes to lead by two (4 to 2): then the item takes it, once.
        replay.steps(3, [ean13("2781278637676")])
        #expect(replay.log == ["1 added 1781958637676 #01", "5 updated 2781278637676 #01"])
    }

    /// At 640×480 (seed 5) the label's blurred EAN-13 decoded as `2781278637676` on 33 frames and
    /// right on 46, in runs of 5-13 frames, by zbar and zxing-cpp alike: each run filled the vote's
    /// window and the item flipped five times. A live code now changes only to what its recent
    /// decodes say more often.
    @Test func aRunOfMisreadsDoesNotFlipALiveLinearItem() {
        var replay = Replay()
        replay.steps(8, [ean13("1781958637676")])
        replay.steps(7, [ean13("2781278637676")])
        #expect(replay.log == ["1 added 1781958637676 #01"], "7 to 8 of late: the run alone is not enough")
        replay.steps(8, [ean13("1781958637676")])
        replay.steps(7, [ean13("2781278637676")])
        #expect(replay.log == ["1 added 1781958637676 #01"], "16 to 14")
        replay.steps(3, [ean13("2781278637676")])
        #expect(replay.log == ["1 added 1781958637676 #01", "32 updated 2781278637676 #01"], "17 to 16: it says the other now")
    }

    /// At realtime on the generated label (seed 2) the EAN-13 swept into view faster than the
    /// barcode scans followed: a misread first sighting further up started a track of its own, whose
    /// votes settled on the live item's payload, and the code was added twice. Now the live item
    /// moves there instead; two copies in view at once are still two items.
    @Test func aLinearCodeSweptIntoViewStaysOneItem() {
        var replay = Replay()
        replay.steps(2, [ean13("1781958637676", y: 0.85)])
        replay.steps(2)  // not read for two frames, while it moves up
        replay.step([ean13("2781278637676", y: 0.65)])  // a code's length away, misread
        // The right reading, a plausible jump from the live item, joins it at once (before the
        // misread's track at its place).
        replay.steps(3, [ean13("1781958637676", y: 0.6)])
        #expect(replay.log == ["1 added 1781958637676 #01", "5 updated 1781958637676 #01"], "\(replay.log)")
        #expect(replay.tracker.liveItems.count == 1)
        #expect(abs((replay.tracker.liveItems.first?.item.bounds.center.y ?? 0) - 0.65) < 0.01, "it moved where it is now")
        // A second copy, in view together with the first: an item of its own.
        replay.steps(3, [ean13("1781958637676", y: 0.6), ean13("1781958637676", y: 0.2)])
        #expect(replay.tracker.liveItems.count == 2, "\(replay.log)")
    }

    /// The same label, read as it entered, then blurred past reading for a third of a second while
    /// it moved half the frame, then read at rest: one item, moved (`maximumSpeed`). Two copies read
    /// by turns a frame apart stay two items.
    @Test func aCodeUnreadWhileItMovedFarIsTheSameItem() {
        var replay = Replay()
        replay.steps(2, [ean13("1781958637676", y: 0.85)])
        replay.steps(10)
        replay.steps(2, [ean13("1781958637676", y: 0.35)])
        #expect(replay.log == ["1 added 1781958637676 #01", "13 updated 1781958637676 #01"], "\(replay.log)")
        // Allowed no speed, the jump alone is too far: a second item (as before).
        var noSpeed = TrackerConfiguration()
        noSpeed.maximumSpeed = 0
        var strict = Replay(noSpeed)
        strict.steps(2, [ean13("1781958637676", y: 0.85)])
        strict.steps(10)
        strict.steps(2, [ean13("1781958637676", y: 0.35)])
        #expect(strict.log == ["1 added 1781958637676 #01", "13 added 1781958637676 #02"], "\(strict.log)")
        var copies = Replay()
        for _ in 0..<3 {
            copies.step([ean13("1781958637676", y: 0.8)])
            copies.step([ean13("1781958637676", y: 0.1)])
        }
        #expect(copies.tracker.liveItems.count == 2, "\(copies.log)")
    }

    /// A reading zbar alone made (confidence 0.5: zxing-cpp did not confirm it) still votes — some
    /// symbols only zbar reads — but counts half: four such decodes add it, and the item says how
    /// sure it is: the mean of its agreeing reads.
    @Test func anUnconfirmedLinearReadingIsAddedWithItsConfidence() {
        var replay = Replay()
        replay.steps(3, [unconfirmed(ean13("5901234123457"))])
        #expect(replay.log.isEmpty, "three decodes only zbar made are not yet two")
        replay.step([unconfirmed(ean13("5901234123457"))])
        #expect(replay.log == ["3 added 5901234123457 #01"])
        #expect(replay.tracker.liveItems.first?.item.confidence == 0.5)
        replay.steps(2, [ean13("5901234123457")])
        #expect(abs((replay.tracker.liveItems.first?.item.confidence ?? 0) - 4.0 / 6) < 1e-9, "two confirmed reads of six")
    }

    /// At realtime on the generated label (1280×720, seed 1) zbar alone read `2781278637676` on the
    /// two frames the barcode thread scanned while the code was still too blurred to read, and that
    /// was added; zxing-cpp confirmed the right reading two frames later. Unconfirmed decodes count
    /// half, so the right reading is the first one added.
    @Test func unconfirmedMisreadsWaitForAConfirmedReading() {
        var replay = Replay()
        replay.steps(2, [unconfirmed(ean13("2781278637676"))])
        replay.step([unconfirmed(ean13("1781958637676"))])
        #expect(replay.log.isEmpty, "two unconfirmed decodes are one decode's worth")
        replay.steps(2, [ean13("1781958637676")])
        #expect(replay.log.isEmpty, "5 to 2 half decodes: a lead of 3")
        replay.step([ean13("1781958637676")])
        #expect(replay.log == ["5 added 1781958637676 #01"], "\(replay.log)")
        // A confirmed reading outweighs an unconfirmed one against it: with one of each every frame
        // it is added on the third (its third decode: 6 half decodes to 2), where counted alike the
        // two would tie for ever.
        var split = Replay()
        split.steps(4, [ean13("1781958637676"), unconfirmed(ean13("2781278637676", y: 0.42, height: 0.02))])
        #expect(split.log == ["2 added 1781958637676 #01"], "\(split.log)")
    }

    @Test func scanLinesOfOneSymbolOnDifferentRowsAreOneItem() {
        var replay = Replay()
        // One scan line each: boxes of no height, 3% of the frame apart, on a code 12% long.
        replay.step([ean13("1781958637676", y: 0.40, height: 0)])
        replay.step([ean13("1781958637676", y: 0.43, height: 0)])
        #expect(replay.log == ["1 added 1781958637676 #01"])
        // A second EAN-13 a code's length away is another item.
        replay.steps(
            2,
            [
                ean13("1781958637676", y: 0.43, height: 0),
                RecognizedItem(
                    kind: .barcode, symbology: .ean13, payload: "5901234123457", bounds: Quad(x: 0.6, y: 0.43, width: 0.12, height: 0), confidence: 1),
            ])
        #expect(replay.log == ["1 added 1781958637676 #01", "3 added 5901234123457 #02"])
    }

    @Test func twoDecodesOfOneLinearSymbolInOneFrameAreOneItem() {
        var replay = Replay()
        // zbar decodes each scan line: the same symbol twice, one a sliver inside the other.
        replay.steps(2, [ean13("1781958637676"), ean13("1781958637676", y: 0.42, height: 0.02)])
        #expect(replay.log == ["0 added 1781958637676 #01"], "two agreeing decodes in frame 0")
        #expect(replay.tracker.liveItems.first?.item.bounds == ean13("1781958637676").bounds, "the widest decode gives the bounds")
    }

    /// A decode whose bounds fell far from the item's starts a track of its own; when that track's
    /// decodes settle at the item's place, reading the same code, it is the item, not a second one
    /// (seen at 640×480 on the generated label, seed 5: one EAN-13 added three times).
    @Test func aSecondTrackOfOneCodeAtItsPlaceIsNoSecondItem() {
        var replay = Replay()
        replay.steps(2, [ean13("1781958637676", y: 0.40)])
        // 0.15 below the item's centre, more than three quarters of the code's length: a track of its own.
        replay.step([ean13("1781958637676", y: 0.40), ean13("1781958637676", y: 0.60, height: 0)])
        // Then decodes between the two, nearer the new track: it moves to the item's place.
        replay.steps(3, [ean13("1781958637676", y: 0.40), ean13("1781958637676", y: 0.53, height: 0)])
        #expect(replay.log == ["1 added 1781958637676 #01"], "\(replay.log)")
        #expect(replay.tracker.liveItems.count == 1)
    }

    /// zbar's bounds are the scan lines that decoded: a decode of the left half and one of the right
    /// half of one symbol lie further apart than three quarters of either's length. Measured against
    /// the symbol's longest recent decode they are at its place, and a half gives no bounds.
    @Test func decodesOfEachHalfOfOneSymbolAreOneItem() {
        func half(_ x: Double) -> RecognizedItem {
            RecognizedItem(
                kind: .barcode, symbology: .ean13, payload: "1781958637676", bounds: Quad(x: x, y: 0.4, width: 0.1, height: 0.01), confidence: 1)
        }
        let whole = RecognizedItem(
            kind: .barcode, symbology: .ean13, payload: "1781958637676", bounds: Quad(x: 0.3, y: 0.4, width: 0.2, height: 0.02), confidence: 1)
        var replay = Replay()
        replay.steps(2, [whole])
        // Left half on one frame, right half on the next: centres 0.1 apart, more than 0.75 × 0.1.
        for _ in 0..<4 {
            replay.step([half(0.3)])
            replay.step([half(0.4)])
        }
        #expect(replay.log == ["1 added 1781958637676 #01"], "\(replay.log)")
        #expect(replay.tracker.liveItems.first?.item.bounds == whole.bounds)
    }

    @Test func twoIdenticalCodesSideBySideAreTwoItems() {
        var replay = Replay()
        replay.steps(10, [qr("SAME", x: 0.1), qr("SAME", x: 0.6)])
        #expect(replay.log == ["0 added SAME #01", "0 added SAME #02"])
        #expect(replay.tracker.liveItems.map(\.item.bounds.topLeft.x) == [0.1, 0.6])
        // One of them leaves: exactly that one is removed.
        replay.steps(40, [qr("SAME", x: 0.1)])
        #expect(replay.log.last == "34 removed SAME #02")
        #expect(replay.tracker.liveItems.count == 1)
    }

    @Test func aLinearCodeSweptAwayFastStaysOneItem() {
        var replay = Replay()
        replay.steps(2, [ean13("1781958637676", y: 0.40)])
        // The label leaves downwards: 0.15 a frame, more than the code is long (0.12), less than a
        // plausible jump. The same reading there is the same symbol.
        replay.step([ean13("1781958637676", y: 0.55)])
        replay.step([ean13("1781958637676", y: 0.70)])
        #expect(replay.log == ["1 added 1781958637676 #01", "2 updated 1781958637676 #01", "3 updated 1781958637676 #01"])
        // Another reading that far away is not it: it starts its own vote.
        replay.steps(2, [ean13("1781958637676", y: 0.70), ean13("5901234123457", y: 0.85)])
        #expect(replay.log.last == "5 added 5901234123457 #02")
        #expect(replay.tracker.liveItems.count == 2)
    }

    @Test func aFarJumpIsANewItem() {
        var replay = Replay()
        replay.step([qr("A", x: 0.0)])
        replay.step([qr("A", x: 0.75)])
        #expect(replay.log == ["0 added A #01", "1 added A #02"])
    }

    @Test func removeAllEndsLiveItemsOnly() {
        var replay = Replay()
        replay.step([qr("A"), code39("ONCE")])
        let actions = replay.tracker.removeAll()
        #expect(actions.map(\.name) == ["removed"])
        #expect(actions.first?.item.item.payload == "A")
        #expect(replay.tracker.liveItems.isEmpty)
    }
}

@Suite(.timeLimit(.minutes(2))) struct TextTrackingTests {
    @Test func textIsAddedOnlyAfterAgreeingReads() {
        var replay = Replay()
        replay.step(text: [text(.telephoneNumber, "+14155550123")])
        replay.steps(2)  // frames without OCR do not count either way
        replay.step(text: [text(.telephoneNumber, "+14155550123")])
        #expect(replay.log == ["3 added +14155550123 #01"])
    }

    /// A typed text's parsed form (a tracking number's carrier) reaches the item clients are told
    /// about, as a barcode's does (issue #43: live events had lost it).
    @Test func textKeepsWhatItsTypingParsed() {
        var replay = Replay()
        var ups = text(.shipmentTrackingNumber, "1Z999AA10123456784")
        ups.details = PayloadDetails(parsed: .shipment(ShipmentTracking(carrier: "ups")))
        replay.step(text: [ups])
        replay.steps(2)
        let added = replay.step(text: [ups])
        #expect(added.map(\.name) == ["added"])
        #expect(added.first?.item.item.details?.parsed == .shipment(ShipmentTracking(carrier: "ups")))
    }

    /// A reading that overlaps both a live item and a pending track at its place goes to the live
    /// item, however much more it overlaps the pending one: the item is neither starved until it is
    /// removed in view nor added again from the pending track.
    @Test func aReadingAtALiveItemsPlaceGoesToItBeforeAPendingTrack() {
        var replay = Replay()
        let phone = "+14155550169"
        replay.step(text: [text(.telephoneNumber, "+14155550189", x: 0.1)])  // pending, at 0.1
        replay.step(text: [text(.telephoneNumber, phone, x: 0.45)])  // apart from it: a track of its own
        replay.step(text: [text(.telephoneNumber, phone, x: 0.45)])
        #expect(replay.log == ["2 added \(phone) #02"])
        // Now read between the two: it overlaps the pending track (0.45) more than the item (0.33).
        for _ in 0..<90 { replay.step(text: [text(.telephoneNumber, phone, x: 0.25)]) }
        #expect(replay.log.filter { !$0.contains(" updated ") } == ["2 added \(phone) #02"], "no removal, no second item: \(replay.log)")
        // Nor when the pass only carries the line's reading on (no new evidence): it keeps the item alive.
        replay = Replay()
        replay.step(text: [text(.telephoneNumber, "+14155550189", x: 0.1)])
        replay.step(text: [text(.telephoneNumber, phone, x: 0.45)])
        replay.step(text: [text(.telephoneNumber, phone, x: 0.45)])
        for _ in 0..<90 {
            replay.tracker.update(
                FrameObservations(
                    frame: replay.frame, time: Double(replay.frame) / 30, barcodes: nil, text: [],
                    textCarried: [text(.telephoneNumber, phone, x: 0.25)])
            ).forEach { replay.log.append("\(replay.frame) \($0.name) \($0.item.item.payload) #\($0.item.id.uuidString.suffix(2))") }
            replay.frame += 1
        }
        #expect(replay.log.filter { !$0.contains(" updated ") } == ["2 added \(phone) #02"], "carried: \(replay.log)")
    }

    /// The same payload read with other spacing is no update: a live item's transcript changes with
    /// its payload only.
    @Test func anotherTranscriptOfTheSamePayloadIsNoUpdate() {
        var replay = Replay()
        func read(_ transcript: String) -> RecognizedItem {
            var item = text(.telephoneNumber, "+442079460958")
            item.transcript = transcript
            return item
        }
        replay.step(text: [read("+44 20 7946 0958")])
        replay.step(text: [read("+44 20 7946 0958")])
        for _ in 0..<4 { replay.step(text: [read("+44 20 79460958")]) }
        #expect(replay.log == ["1 added +442079460958 #01"])
        #expect(replay.tracker.liveItems.first?.item.transcript == "+44 20 7946 0958")
    }

    @Test func ocrNoiseIsVotedOut() {
        var replay = Replay()
        let reads = [
            "jJane.doe@example.com", "jane.doe@example.com", "jane.doe@example.com", "jJane.doe@example.com", "jane.doe@example.com",
            "jane.doe@example.com",
        ]
        for read in reads { replay.step(text: [text(.emailAddress, read)]) }
        // A bad read neither resets nor wins; while the bad reads are in the window (6 reads) the
        // right reading needs a lead of two over them (2 to 1 at frame 2, 3 to 2 at frame 4), which
        // the fourth good read gives.
        #expect(replay.log == ["5 added jane.doe@example.com #01"])
    }

    @Test func aMisreadDigitDoesNotChangeTheNumber() {
        var replay = Replay()
        for read in ["+14155550123", "+14155550128", "+14155550123", "+14155550123", "+14155550128"] {
            replay.step(text: [text(.telephoneNumber, read)])
        }
        // Contested 2 to 1 at frame 2; 3 to 1 at frame 3.
        #expect(replay.log == ["3 added +14155550123 #01"])
        #expect(replay.tracker.liveItems.first?.item.payload == "+14155550123")
    }

    /// Issue #13: "+16125550191" for "+15125550191" was reported. A misread that validates and is
    /// read twice has support 2, but the right reading at the same place contests it.
    @Test func aMisreadSeenTwiceIsNotAddedWhileTheRightReadingContestsIt() {
        var replay = Replay()
        for read in ["+15125550191", "+16125550191", "+16125550191"] { replay.step(text: [text(.telephoneNumber, read)]) }
        #expect(replay.log.isEmpty, "2 to 1 is not a lead")
        replay.step(text: [text(.telephoneNumber, "+15125550191")])
        #expect(replay.log.isEmpty, "2 to 2 neither")
        replay.steps(1, text: [text(.telephoneNumber, "+15125550191")])
        replay.steps(1, text: [text(.telephoneNumber, "+15125550191")])
        #expect(replay.log == ["5 added +15125550191 #01"], "the window (4) now holds 3 right reads to 1")
    }

    /// Reads Tesseract is unsure of (word confidence under 0.6) never add an item on their own,
    /// however often they agree; they still contest.
    @Test func unsureReadsContestButDoNotConfirm() {
        var replay = Replay()
        for _ in 0..<4 { replay.step(text: [text(.emailAddress, "Ho@oldmill-studios.com", confidence: 0.3)]) }
        #expect(replay.log.isEmpty)
        var contested = Replay()
        contested.step(text: [text(.emailAddress, "hello@oldmill-studios.com")])
        contested.step(text: [text(.emailAddress, "hello@oldmi1l-studios.com", confidence: 0.3)])
        contested.step(text: [text(.emailAddress, "hello@oldmill-studios.com")])
        #expect(contested.log.isEmpty, "2 confident to 1 unsure: a lead of 1")
        contested.step(text: [text(.emailAddress, "hello@oldmill-studios.com")])
        #expect(contested.log == ["3 added hello@oldmill-studios.com #01"])
    }

    /// A line cut short ("Ho@…" for "hello@…") reads as another length: it contests too.
    @Test func aReadOfAnotherLengthContests() {
        var replay = Replay()
        for read in ["hello@oldmill-studios.com", "Ho@oldmill-studios.com", "Ho@oldmill-studios.com"] {
            replay.step(text: [text(.emailAddress, read)])
        }
        #expect(replay.log.isEmpty)
    }

    /// A line found in two pieces on one pass reads "lindqvist@…" where the whole line reads
    /// "avery.lindqvist@…": the piece is the same text cut short, not a competing reading.
    @Test func aReadCutShortDoesNotContest() {
        var replay = Replay()
        for read in ["lindqvist@northgate-optics.com", "avery.lindqvist@northgate-optics.com", "avery.lindqvist@northgate-optics.com"] {
            replay.step(text: [text(.emailAddress, read)])
        }
        #expect(replay.log == ["2 added avery.lindqvist@northgate-optics.com #01"])
    }

    @Test func aDistractorSeenOnceIsNeverAdded() {
        var replay = Replay()
        replay.step(text: [text(.telephoneNumber, "+12125550187", y: 0.2)])
        for _ in 0..<10 { replay.step(text: []) }
        replay.steps(60)
        #expect(replay.log.isEmpty)
    }

    @Test func aBetterReadingUpdatesTheItem() {
        var replay = Replay(TrackerConfiguration(textAgreement: 2, textWindow: 4))
        replay.step(text: [text(.url, "http://acme.com/a")])
        replay.step(text: [text(.url, "http://acme.com/a")])
        // The later reads agree on a different string: the consensus moves, clients hear it once.
        for _ in 0..<4 { replay.step(text: [text(.url, "http://acme.com/b")]) }
        #expect(replay.log == ["1 added http://acme.com/a #01", "4 updated http://acme.com/b #01"])
    }

    @Test func textIsRemovedAfterItsOwnGracePeriod() {
        var replay = Replay()
        replay.steps(2, text: [text(.emailAddress, "a@example.com")])
        // OCR passes that no longer see it; text grace is 0.8 s (24 frames) after the last sighting (1).
        for _ in 0..<60 { replay.step(text: []) }
        #expect(replay.log == ["1 added a@example.com #01", "26 removed a@example.com #01"])
    }

    /// A text pass that takes most of a second (three lines, each checked by the line network) is
    /// still looking at the frame it began on: the barcode thread's updates meanwhile do not remove
    /// text items for not being seen, and a barcode's own grace period is unaffected.
    @Test func textIsNotRemovedWhileAPassIsStillLooking() {
        var replay = Replay()
        replay.steps(2, [qr("A")], text: [text(.emailAddress, "a@example.com")])
        // A pass begins at frame 2 and runs for 1.2 s (36 frames); barcode updates go on without the code.
        for _ in 0..<36 {
            _ = replay.tracker.update(
                FrameObservations(
                    frame: replay.frame, time: Double(replay.frame) / 30, barcodes: [], text: nil, textPassStarted: 2.0 / 30))
            replay.frame += 1
        }
        #expect(replay.tracker.liveItems.map(\.item.payload) == ["a@example.com"], "the code is gone, the text is kept")
        // The pass reports the e-mail still there: nothing happened to it.
        replay.step(text: [text(.emailAddress, "a@example.com")])
        #expect(replay.tracker.liveItems.map(\.item.payload) == ["a@example.com"])
        // Without a pass in progress the same wait removes it.
        replay.steps(30)
        #expect(replay.tracker.liveItems.isEmpty)
    }

    @Test func aRepeatedReadingKeepsItemsAliveButIsNoEvidence() {
        var replay = Replay()
        let phone = text(.telephoneNumber, "+14155550123")
        replay.step(text: [phone])
        // The same reading carried over to unchanged frames: not a second read.
        for _ in 0..<5 {
            _ = replay.tracker.update(
                FrameObservations(frame: replay.frame, time: Double(replay.frame) / 30, barcodes: [], text: [phone], textIsRepeat: true))
            replay.frame += 1
        }
        #expect(replay.log.isEmpty)
        replay.step(text: [phone])
        #expect(replay.log == ["6 added +14155550123 #01"])
        // Once live, repeats keep it from expiring: 3 s of unchanged frames, no removal.
        for _ in 0..<90 {
            _ = replay.tracker.update(
                FrameObservations(frame: replay.frame, time: Double(replay.frame) / 30, barcodes: [], text: [phone], textIsRepeat: true))
            replay.frame += 1
        }
        #expect(replay.log == ["6 added +14155550123 #01"])
    }

    @Test func twoLinesAreTwoItems() {
        var replay = Replay()
        replay.steps(2, text: [text(.telephoneNumber, "+14155550123", y: 0.3), text(.telephoneNumber, "+16502530000", y: 0.4)])
        #expect(replay.log == ["1 added +14155550123 #01", "1 added +16502530000 #02"])
    }
}

@Suite(.timeLimit(.minutes(2))) struct TextEvidenceTests {
    func evidence(_ reads: [String?], window: Int = 5) -> TextEvidence {
        var e = TextEvidence(window: window)
        for r in reads { e.record(r.map { TextEvidence.Read(payload: $0, transcript: $0, confidence: 0.8) }) }
        return e
    }

    @Test func perCharacterVoteAcrossReads() {
        // Three reads, each wrong in a different place: the vote recovers the line, and all three support it.
        let e = evidence(["+14155550123", "+14155550923", "+14156550123", "+14155550123"])
        #expect(e.consensus()?.read.payload == "+14155550123")
        #expect(e.consensus()?.support == 3, "every position has at least 3 of 4 votes")
    }

    @Test func twoDisagreeingReadsSupportNeither() {
        let e = evidence(["+14155550123", "+14155550128"])
        #expect(e.consensus()?.support == 1)
        #expect(e.consensus()?.lead == 0)
    }

    @Test func theLeadCountsEveryReadThatDisagrees() {
        // Position by position 3 agree; the one misread digit and the short read (not a piece of
        // the consensus) disagree there.
        let e = evidence(["+14155550123", "+14155550128", "+14155550123", "+1415555013", "+14155550123"])
        #expect(e.consensus()?.read.payload == "+14155550123")
        #expect(e.consensus()?.support == 3)
        #expect(e.consensus()?.lead == 1)
    }

    @Test func anEvenSplitKeepsWhatClientsHave() {
        let e = evidence(["http://a.com/x", "http://a.com/y", "http://a.com/y", "http://a.com/x"])
        #expect(e.consensus(preferring: "http://a.com/y")?.read.payload == "http://a.com/y")
        #expect(e.consensus(preferring: "http://a.com/x")?.read.payload == "http://a.com/x")
    }

    @Test func theConsensusIsAlwaysSomethingActuallyRead() {
        // Position by position the vote would be "AB", which no pass read (and which need not be a
        // valid phone number or URL): the most frequent exact read stands instead, with its copies'
        // support; on a tie, the newest.
        let e = evidence(["AC", "DB", "AE", "FB"])
        #expect(e.consensus()?.read.payload == "FB")
        #expect(e.consensus()?.support == 1)
        let twice = evidence(["AC", "DB", "AC", "FB"])
        #expect(twice.consensus()?.read.payload == "AC" && twice.consensus()?.support == 2)
    }

    @Test func confidenceIsTheMeanOfTheAgreeingReads() {
        var e = TextEvidence(window: 5)
        for (payload, confidence) in [("+14155550123", 0.6), ("+14155550123", 0.8), ("+14155550923", 1.0), ("+19995550888", 0.1)] {
            e.record(TextEvidence.Read(payload: payload, transcript: payload, confidence: confidence))
        }
        // The three within one character of the consensus agree; the fourth does not count.
        let consensus = e.consensus()
        #expect(consensus?.read.payload == "+14155550123")
        #expect(abs((consensus?.read.confidence ?? 0) - 0.8) < 1e-9, "\(String(describing: consensus))")
    }

    @Test func agreementAndWindowFollowTheQualityLevel() {
        // docs/configuration.md: fast 2 of 3, balanced 2 of 6, accurate 3 of 7.
        let levels: [(QualityLevel, Int, Int)] = [(.fast, 2, 3), (.balanced, 2, 6), (.accurate, 3, 7)]
        for (level, agreement, window) in levels {
            let configuration = TrackerConfiguration(level)
            #expect(configuration.textAgreement == agreement && configuration.textWindow == window, "\(level)")
        }
        // 2 agreeing of a 5-read window is short of accurate's 3; a third read reaches it.
        let two = evidence(["+14155550123", nil, "+14155550123", nil, nil])
        #expect((two.consensus()?.support ?? 0) < TrackerConfiguration(.accurate).textAgreement)
        let three = evidence(["+14155550123", nil, "+14155550123", "+14155550123", nil])
        #expect(three.consensus()?.support == TrackerConfiguration(.accurate).textAgreement)
    }

    @Test func windowForgetsOldReads() {
        let e = evidence(["A1", "A1", nil, nil, nil, nil, nil], window: 5)
        #expect(e.consensus() == nil)
    }
}
