import Daemon
import Foundation
import Logging
import ScannerCore
import Synchronization
import TestTraits
import Testing

/// Issue #39: every `set` logged ~560 bytes, with no limit. The request handler's logger is behind
/// `RateLimitedLogHandler` now; the time is injected.
@Suite(.offThePool(minutes: 1)) struct RateLimitedLogTests {
    final class Clock: Sendable {
        let now = Mutex(0.0)
        func advance(_ seconds: Double) { now.withLock { $0 += seconds } }
        func read() -> Double { now.withLock { $0 } }
    }

    /// The lines written.
    final class Lines: Sendable {
        private let lines = Mutex<[String]>([])
        func append(_ line: String) { lines.withLock { $0.append(line) } }
        var all: [String] { lines.withLock { $0 } }
    }

    /// A logger writing journal lines into `lines`, behind the limit, on `clock`.
    static func limited(_ lines: Lines, clock: Clock, level: Logger.Level = .info) -> Logger {
        let control = LogLevelControl(level)
        let journal = JournalLogHandler(label: "t", level: control, journal: true, write: { line in lines.append(line) })
        let upstream = Logger(label: "scannerd", factory: { _ in journal })
        return RateLimitedLogHandler.logger(upstream, lines: 10, per: 60, clock: { clock.read() })
    }

    @Test func aClientSettingInALoopGetsTenLinesAMinuteAndACount() {
        let lines = Lines()
        let clock = Clock()
        let logger = Self.limited(lines, clock: clock)
        for n in 0..<500 {
            logger.notice("configuration changed", metadata: ["roi": "[0,0,\(n),1]", "client": "uid 1000"])
            clock.advance(0.05)
        }
        // 500 requests in 25 s: ten lines, whatever their metadata.
        #expect(lines.all.count == 10, "\(lines.all)")
        clock.advance(60)
        logger.notice("configuration changed", metadata: ["roi": "[0,0,1,1]", "client": "uid 1000"])
        let last = Array(lines.all.suffix(2))
        #expect(last.first == "<5>configuration changed (490 more suppressed in the last 85 s)\n", "\(last)")
        #expect(last.last == "<5>configuration changed client=\"uid 1000\" roi=[0,0,1,1]\n", "\(last)")
    }

    @Test func eachKindHasItsOwnLimitAndAFloodThatStoppedIsStillSaid() {
        let lines = Lines()
        let clock = Clock()
        let logger = Self.limited(lines, clock: clock)
        for _ in 0..<30 { logger.notice("recognition paused", metadata: ["client": "uid 1000"]) }
        for _ in 0..<3 { logger.warning("photo not written", metadata: ["reason": "exists"]) }
        #expect(lines.all.count == 13)
        // The pauses stopped; a minute later any other line brings their count.
        clock.advance(61)
        logger.info("photo written", metadata: ["path": "/tmp/a.jpg"])
        let tail = Array(lines.all.suffix(2))
        #expect(tail == ["<5>recognition paused (20 more suppressed in the last 61 s)\n", "<6>photo written path=/tmp/a.jpg\n"], "\(tail)")
        // Said once.
        logger.info("photo written", metadata: ["path": "/tmp/b.jpg"])
        #expect(lines.all.filter { $0.contains("more suppressed") }.count == 1)
    }

    @Test func theLevelIsStillTheDaemons() {
        let lines = Lines()
        let logger = Self.limited(lines, clock: Clock(), level: .warning)
        // Below the level: neither logged nor counted.
        for _ in 0..<30 { logger.notice("configuration changed") }
        #expect(lines.all.isEmpty)
        #expect(logger.logLevel == .warning)
    }
}
