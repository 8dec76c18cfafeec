import MQTTPublisher
import Testing

/// Issue #39: a broker that takes the TCP connection and never sends its CONNACK. The rule, with
/// the time given (the publisher's clock is injected this way).
@Suite struct ConnackWatchTests {
    @Test func aConnectionUnansweredForTheLimitIsGivenUpOnce() {
        var watch = ConnackWatch(limit: 10)
        // (#expect cannot call a mutating method itself.)
        func observe(_ connection: Int?, now: Double) -> Bool { watch.observe(connection, now: now) }
        #expect(!observe(7, now: 100), "first seen: the clock starts")
        #expect(!observe(7, now: 109.9))
        #expect(observe(7, now: 110), "ten seconds without an answer")
        #expect(!observe(7, now: 111), "given up once, not every second after")
        #expect(!observe(7, now: 200))
        // The next connection (the retry) gets its own ten seconds.
        #expect(!observe(8, now: 201))
        #expect(!observe(8, now: 210))
        #expect(observe(8, now: 211))
    }

    @Test func anAnswerEvenBeforeTheConnectionIsSeenOwesNothing() {
        var watch = ConnackWatch(limit: 10)
        // (#expect cannot call a mutating method itself.)
        func observe(_ connection: Int?, now: Double) -> Bool { watch.observe(connection, now: now) }
        // A broker answers in milliseconds, before the publisher's next look.
        watch.answered(on: 7)
        for now in stride(from: 0.0, through: 100, by: 1) { #expect(!observe(7, now: now)) }
        #expect(watch.waiting == nil)
        // A refusal is an answer too; a new connection is watched again.
        #expect(!observe(8, now: 100))
        watch.answered(on: 8)
        #expect(!observe(8, now: 120))
        #expect(!observe(9, now: 121) && watch.waiting?.since == 121)
    }

    @Test func noConnectionOwesNothingAndTheClockStartsAgain() {
        var watch = ConnackWatch(limit: 10)
        // (#expect cannot call a mutating method itself.)
        func observe(_ connection: Int?, now: Double) -> Bool { watch.observe(connection, now: now) }
        #expect(!observe(7, now: 0))
        #expect(!observe(nil, now: 5), "none established (refused, or still being made)")
        #expect(watch.waiting == nil)
        #expect(!observe(7, now: 6))
        #expect(!observe(7, now: 15), "counted from 6, not 0")
        #expect(observe(7, now: 16))
    }

    @Test func theLimitIsTenSecondsOrTheKeepaliveWhenShorter() {
        #expect(ConnackWatch.limit(keepalive: 30) == 10)
        #expect(ConnackWatch.limit(keepalive: 3600) == 10)
        // libmosquitto closes an unanswered connection after one keepalive by itself.
        #expect(ConnackWatch.limit(keepalive: 5) == 5)
    }
}
