import ImageDecoding
import Recognition
import ScannerCore
import TestSupport
import Testing

@testable import Pipeline

/// A card held still is read, then rested on (issue #52: "a card at rest read once, not every
/// pass"): once a pass finds its lines and none needs reading, frames are left unread as repeats of
/// that pass until `TextTuning.Stage.restingPassEvery` has passed or what is held up moves. Pure
/// where it can be (`TextTuning.Stage.rests`); the stage driven with hand-made looks, no threads.
@Suite struct TextRestTests {
    let tuning = TextTuning.Stage()
    let card = NormalizedRect(x: 0.25, y: 0.25, width: 0.5, height: 0.5)

    @Test func theRuleRestsOnlyOnASettledPassRecentlyWithNothingMoved() {
        let every = tuning.restingPassEvery
        let step = FrameLook.stillRegionTolerance * 0.9
        let moved = NormalizedRect(x: card.x + step, y: card.y - step, width: card.width - step, height: card.height + 2 * step)
        let away = NormalizedRect(x: card.x + 2 * FrameLook.stillRegionTolerance, y: card.y, width: card.width, height: card.height)
        #expect(!tuning.rests(settled: nil, changed: card, time: 1))
        #expect(tuning.rests(settled: (1, card), changed: card, time: 1 + every / 2))
        #expect(!tuning.rests(settled: (1, card), changed: card, time: 1 + every), "the rest is over: a pass looks again")
        #expect(tuning.rests(settled: (1, card), changed: moved, time: 1.5), "a hand's jitter")
        #expect(!tuning.rests(settled: (1, card), changed: away, time: 1.5), "the card moved")
        #expect(tuning.rests(settled: (1, nil), changed: nil, time: 1.5), "lines on the desk, nothing held up")
        #expect(!tuning.rests(settled: (1, nil), changed: card, time: 1.5), "a card comes in")
        #expect(!tuning.rests(settled: (1, card), changed: nil, time: 1.5), "the card is gone")
    }

    @Test func aPassSettlesOnlyHavingFoundLinesReadNoneAndSaidEveryItemAdded() {
        let phone: Set = ["telephoneNumber +12065550188"]
        #expect(tuning.settles(foundLines: true, readAny: false, pendingLines: false, believed: phone, said: phone))
        #expect(tuning.settles(foundLines: true, readAny: false, pendingLines: false, believed: nil, said: []))
        #expect(!tuning.settles(foundLines: false, readAny: false, pendingLines: false, believed: nil, said: []), "nothing found")
        #expect(!tuning.settles(foundLines: true, readAny: true, pendingLines: false, believed: phone, said: phone), "a line was read")
        #expect(!tuning.settles(foundLines: true, readAny: false, pendingLines: true, believed: phone, said: phone), "one still needs reading")
        #expect(!tuning.settles(foundLines: true, readAny: false, pendingLines: false, believed: phone, said: []), "an item added is not said")
    }

    /// A look at a frame: a thumbnail unlike every other frame's (the scene gate sees a hand's
    /// jitter as a change on every frame), sharp, `changed` where it differs from the scene behind,
    /// and that is something held up when `heldUp`.
    func look(_ index: Int, changed: NormalizedRect?, heldUp: Bool) -> FrameLook {
        var thumbnail = [UInt8](repeating: 120, count: 1024)
        for cell in (index * 64 % 1024)..<(index * 64 % 1024 + 64) { thumbnail[cell] = 200 }
        return FrameLook(
            thumbnail: thumbnail, sharpness: 1000, brightness: 120, saturated: 0, heldUp: heldUp && changed != nil,
            changed: [Bool](repeating: false, count: 1024), changedRegion: changed)
    }

    /// Frames every 1/8 s, each handed to the stage as a pass would be; the times at which the
    /// detector looked and the recognizer read, and what the stage said on each frame.
    func run(
        frames: Int, believed: Set<String>? = nil, heldUp: Bool = true, changed: (Int) -> NormalizedRect?
    ) throws -> (
        looked: [Double], read: [Double], said: [TextStage.PassText?], textInView: [Bool]
    ) {
        var options = ScanOptions(quality: .balanced)
        options.types = try RecognitionTypes(parsing: "contentTypes")
        var configuration = SequenceConfiguration(options: options)
        let detector = FakeReadersTests.FakeDetector([Quad(x: 100, y: 200, width: 300, height: 30)])
        let recognizer = FakeReadersTests.FakeRecognizer(["Call 206 555 0188"])
        nonisolated(unsafe) let readers = TextReaders(detector: detector, recognizers: [recognizer])
        configuration.textReaders = { readers }
        let stage = try TextStage(configuration: configuration)
        let image = try ImageDecoder().decodeFile(atPath: Fixtures.path("card-us.jpg"), targetWidth: 640).image
        var looked: [Double] = []
        var read: [Double] = []
        var said: [TextStage.PassText?] = []
        var textInView: [Bool] = []
        for index in 0..<frames {
            let time = Double(index) / 8
            let (looks, reads) = (detector.looks, recognizer.reads)
            said.append(stage.read(image, look: look(index, changed: changed(index), heldUp: heldUp), believed: believed, time: time))
            if detector.looks > looks { looked.append(time) }
            if recognizer.reads > reads { read.append(time) }
            textInView.append(stage.guidanceSample?.textInView == true)
        }
        return (looked, read, said, textInView)
    }

    /// The card's line is read twice (its phone number confirmed), a third pass finds nothing to
    /// read; then the frames of the next second are not looked at, and each says what that pass
    /// said. After the rest a pass looks again (nothing due: another rest), and the line, due again
    /// two seconds after its last read, is read on the pass after that.
    @Test func aSettledCardIsNotLookedAtUntilItsRestEnds() throws {
        #expect(tuning.restingPassEvery == 1, "the times below")
        let run = try run(frames: 20) { _ in card }
        #expect(run.looked == [0, 0.125, 0.25, 1.25, 2.25, 2.375], "\(run.looked)")
        #expect(run.read == [0, 0.125, 2.25], "\(run.read)")
        for (index, said) in run.said.enumerated() where !run.looked.contains(Double(index) / 8) {
            #expect(said?.isRepeat == true, "frame \(index)")
            #expect(said.map { ($0.items + $0.carried).map(\.payload) } == ["+12065550188"], "frame \(index): the item stays")
        }
        #expect(run.textInView.allSatisfy { $0 }, "guidance: text stays in view through the rest \(run.textInView)")
    }

    /// The card moves while the stage rests: that frame is looked at, and the rest begins again there.
    @Test func aCardThatMovesEndsTheRest() throws {
        let moved = NormalizedRect(x: card.x + 0.2, y: card.y, width: card.width, height: card.height)
        let run = try run(frames: 12) { $0 < 4 ? card : moved }
        #expect(run.looked == [0, 0.125, 0.25, 0.5], "\(run.looked)")
    }

    /// A receipt held at arm's length is too small a change to be something held up
    /// (`PresenceDetector.heldUpShare`); coming in while the stage rests on lines already in view,
    /// it ends the rest as a card does: it changed the frame.
    @Test func aReceiptTooSmallToBeHeldUpEndsTheRest() throws {
        let receipt = NormalizedRect(x: 0.5, y: 0.3, width: 0.12, height: 0.3)
        let run = try run(frames: 12, heldUp: false) { $0 < 4 ? nil : receipt }
        #expect(run.looked == [0, 0.125, 0.25, 0.5], "\(run.looked)")
    }

    /// An item clients were told of that the settled pass does not say (its line missed, or read
    /// as something else) keeps the stage looking: a rest would let the item expire unlooked-for
    /// (the footage's phone, seed 3, unpaced: its e-mail address removed while in view, added again).
    @Test func anItemThePassDoesNotSayKeepsTheStageLooking() throws {
        let phone = "telephoneNumber +12065550188"
        let told = try run(frames: 8, believed: [phone]) { _ in card }
        #expect(told.looked == [0, 0.125, 0.25], "\(told.looked)")
        let missing = try run(frames: 8, believed: [phone, "emailAddress jane@example.com"]) { _ in card }
        #expect(missing.looked == (0..<8).map { Double($0) / 8 }, "\(missing.looked)")
    }
}
