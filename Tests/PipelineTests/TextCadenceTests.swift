import Pipeline
import Testing

/// When the text stage reads, in either clock (issue #42): pure, no threads, no sleeping.
@Suite(.timeLimit(.minutes(1))) struct TextCadenceTests {
    /// Every frame seen: the regular pass on every n-th frame, the confirming pass on the frame after
    /// one that left a line awaiting its confirming read, nothing else.
    @Test func framesReadOnEveryNthAndConfirmOnTheNext() {
        var cadence = TextCadence(.frames(every: 3))
        let plain = (0..<7).map { cadence.next(frame: $0, time: 0, awaitsConfirmation: false) }
        #expect(plain == [.pass, .wait(until: 3), .wait(until: 3), .pass, .wait(until: 6), .wait(until: 6), .pass])
        let awaiting = (0..<4).map { cadence.next(frame: $0, time: 0, awaitsConfirmation: true) }
        #expect(awaiting == [.pass, .confirmingPass, .wait(until: 3), .pass])
    }

    /// The frame clock's decisions depend on the frame index alone: the same frames in any order (a
    /// replay that skips some) get the same answers.
    @Test func framesAreAFunctionOfTheIndex() {
        var forward = TextCadence(.frames(every: 2))
        var backward = TextCadence(.frames(every: 2))
        let a = (0..<10).map { forward.next(frame: $0, time: Double($0), awaitsConfirmation: $0 % 3 == 0) }
        let b = (0..<10).reversed().map { backward.next(frame: $0, time: 0, awaitsConfirmation: $0 % 3 == 0) }
        #expect(a == b.reversed())
    }

    /// The camera's clock: at most one regular pass per interval; a frame that comes early waits
    /// until the pass is due, and the call after the wait is the pass.
    @Test func secondsRationPassesAndWaitForTheNextOne() {
        // Times a binary fraction apart, so that sums are exact.
        var cadence = TextCadence(.seconds(0.125))
        #expect(cadence.next(frame: 0, time: 5.0, awaitsConfirmation: false) == .pass)
        #expect(cadence.next(frame: 1, time: 5.0625, awaitsConfirmation: false) == .wait(until: 5.125))
        // The caller slept until the pass was due (or a little less: a sleep's end is not exact).
        #expect(cadence.next(frame: 3, time: 5.1171875, awaitsConfirmation: false) == .pass)
        #expect(cadence.next(frame: 4, time: 5.125, awaitsConfirmation: false) == .wait(until: 5.2421875))
        #expect(cadence.next(frame: 5, time: 5.25, awaitsConfirmation: false) == .pass)
        // A slow pass: the next frame is past due and is read at once.
        #expect(cadence.next(frame: 6, time: 5.5, awaitsConfirmation: false) == .pass)
    }

    /// Between two regular passes, one confirming pass when the last pass asks for it, never two
    /// in a row; the regular pass keeps its time.
    @Test func secondsConfirmOnceBetweenPasses() {
        var cadence = TextCadence(.seconds(0.125))
        #expect(cadence.next(frame: 0, time: 1.0, awaitsConfirmation: true) == .pass)
        #expect(cadence.next(frame: 1, time: 1.03125, awaitsConfirmation: true) == .confirmingPass)
        #expect(cadence.next(frame: 2, time: 1.0625, awaitsConfirmation: true) == .wait(until: 1.125))
        #expect(cadence.next(frame: 3, time: 1.125, awaitsConfirmation: true) == .pass)
        #expect(cadence.next(frame: 4, time: 1.1875, awaitsConfirmation: false) == .wait(until: 1.25))
    }

    /// A pass slower than the interval (a look and six reads: ~8 frame times) is still followed by
    /// its confirming pass, which the caller gives the frame after the pass's (`confirmsNext`); one
    /// confirming pass, not one on each side of a wait.
    @Test func secondsConfirmAfterASlowPassToo() {
        var cadence = TextCadence(.seconds(0.125))
        #expect(cadence.next(frame: 0, time: 1.0, awaitsConfirmation: false) == .pass)
        #expect(cadence.confirmsNext(awaitsConfirmation: true))
        #expect(!cadence.confirmsNext(awaitsConfirmation: false))
        #expect(cadence.next(frame: 1, time: 1.25, awaitsConfirmation: true) == .confirmingPass)
        #expect(!cadence.confirmsNext(awaitsConfirmation: true))
        #expect(cadence.next(frame: 9, time: 1.28125, awaitsConfirmation: true) == .pass)
        #expect(cadence.next(frame: 10, time: 1.3125, awaitsConfirmation: true) == .confirmingPass)
        #expect(cadence.next(frame: 11, time: 1.34375, awaitsConfirmation: true) == .wait(until: 1.40625))
        #expect(cadence.next(frame: 12, time: 1.40625, awaitsConfirmation: true) == .pass)
        // A replay's clock: the frame's index decides, never the caller.
        #expect(!TextCadence(.frames(every: 3)).confirmsNext(awaitsConfirmation: true))
    }

    /// The quality level's interval in either clock: n frames, or n frame times at 30 fps; nonsense
    /// below one frame reads every frame.
    @Test func theQualityLevelsIntervalInEitherClock() {
        #expect(TextCadence(everyFrames: 3, realTime: false).clock == .frames(every: 3))
        #expect(TextCadence(everyFrames: 3, realTime: true).clock == .seconds(3.0 / 30))
        var every = TextCadence(everyFrames: 0, realTime: false)
        #expect((0..<3).map { every.next(frame: $0, time: 0, awaitsConfirmation: false) } == [.pass, .pass, .pass])
    }
}
