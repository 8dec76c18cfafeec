import ScannerCore
import Synchronization
import Testing

/// Issue #39: log lines a client can cause once per request, limited per kind; the time is given.
@Suite struct LogRateLimitTests {
    typealias Limit = LogRateLimit<String>

    @Test func atMostNLinesPerWindowThenOneSummary() {
        var limit = Limit(lines: 3, per: 60)
        #expect((0..<3).map { limit.admit("set", now: Double($0)) } == Array(repeating: .log(summary: nil), count: 3))
        #expect(limit.admit("set", now: 3) == .suppress)
        #expect(limit.admit("set", now: 59.9) == .suppress)
        // The window (from the first line, t = 0) is over: the next line brings the count.
        #expect(limit.admit("set", now: 60) == .log(summary: Limit.Summary(key: "set", suppressed: 2, seconds: 60)))
        #expect(limit.admit("set", now: 61) == .log(summary: nil), "a new window, and the count was said once")
        #expect(Limit.Summary(key: "set", suppressed: 2, seconds: 60).text == "(2 more suppressed in the last 60 s)")
        #expect(Limit.Summary(key: "set", suppressed: 1, seconds: 2.25).text == "(1 more suppressed in the last 2.3 s)")
    }

    @Test func aWindowWithNothingHeldBackSaysNothing() {
        var limit = Limit(lines: 3, per: 60)
        for t in stride(from: 0.0, to: 600, by: 30) { #expect(limit.admit("ping", now: t) == .log(summary: nil)) }
        #expect(limit.expired(now: 1000).isEmpty)
    }

    @Test func kindsAreCountedApart() {
        var limit = Limit(lines: 1, per: 10)
        #expect(limit.admit("a", now: 0) == .log(summary: nil))
        #expect(limit.admit("b", now: 0) == .log(summary: nil))
        #expect(limit.admit("a", now: 1) == .suppress)
        #expect(limit.admit("b", now: 1) == .suppress)
        #expect(limit.admit("b", now: 2) == .suppress)
        // A flood that stopped is summed up without waiting for its next line, once.
        #expect(limit.expired(now: 9).isEmpty)
        let due = limit.expired(now: 12).sorted { ($0.key ?? "") < ($1.key ?? "") }
        #expect(due == [Limit.Summary(key: "a", suppressed: 1, seconds: 12), Limit.Summary(key: "b", suppressed: 2, seconds: 12)])
        #expect(limit.expired(now: 13).isEmpty)
        #expect(limit.admit("a", now: 13) == .log(summary: nil))
    }

    @Test func keysBeyondTheMaximumShareOneWindowAndMemoryStaysBounded() {
        var limit = Limit(lines: 2, per: 60, maximumKeys: 4)
        // A client that makes every line a kind of its own (say, its address in the message).
        var logged = 0
        for n in 0..<10_000 {
            if limit.admit("peer \(n)", now: Double(n) / 1000) != .suppress { logged += 1 }
        }
        #expect(logged == 4 + 2, "four kinds of their own, then two lines of the shared window")
        #expect(limit.count <= 5)
        let due = limit.expired(now: 100)
        // The shared window began with peer 4's line, at 0.004 s.
        #expect(due == [Limit.Summary(key: nil, suppressed: 10_000 - 6, seconds: 100 - Double(4) / 1000)], "\(due)")
        // Windows that are over and held nothing back make room again.
        #expect(limit.admit("peer new", now: 100) == .log(summary: nil))
    }

    @Test func theSharedLimiterReadsItsClock() {
        let now = Mutex(0.0)
        let limiter = LogRateLimiter<String>(lines: 1, per: 5, clock: { now.withLock { $0 } })
        #expect(limiter.admit("x") == .log(summary: nil))
        #expect(limiter.admit("x") == .suppress)
        now.withLock { $0 = 5 }
        #expect(limiter.expired() == [LogRateLimit<String>.Summary(key: "x", suppressed: 1, seconds: 5)])
        #expect(limiter.admit("x") == .log(summary: nil))
    }
}
