import Pipeline
import Synchronization
import Testing

@Suite(.timeLimit(.minutes(2))) struct PipelineMetricsTests {
    final class FakeClock: Sendable {
        let time = Mutex(100.0)
        func advance(_ seconds: Double) { time.withLock { $0 += seconds } }
        var now: Double { time.withLock { $0 } }
    }

    @Test func percentilesAreOverTheLastRuns() {
        let clock = FakeClock()
        let metrics = PipelineMetrics(capacity: 100, rateWindow: 10, clock: { clock.now })
        // 200 runs: the first 100 slow (1 s), the last 100 taking 1…100 ms. Only the last 100 count.
        for _ in 0..<100 { metrics.record(.text, seconds: 1) }
        for ms in 1...100 { metrics.record(.text, seconds: Double(ms) / 1000) }
        let f = metrics.figures(.text)
        #expect(f.count == 200)
        #expect(f.p50 == 50)
        #expect(f.p99 == 99)
    }

    /// Failures (issue #54): a stage's own totals, counted as they grow; a smaller total is a stage
    /// built anew, counted from there.
    @Test func failuresAreCountedAsTheStagesTotalsGrow() {
        let metrics = PipelineMetrics()
        #expect(metrics.figures(.reading).failures == 0)
        metrics.failures(.reading, total: 2)
        metrics.failures(.reading, total: 2)
        metrics.failures(.reading, total: 5)
        #expect(metrics.figures(.reading).failures == 5)
        metrics.failures(.reading, total: 1)
        #expect(metrics.figures(.reading).failures == 6 && metrics.figures(.barcodes).failures == 0)
    }

    @Test func theRateIsOverTheRecentWindow() {
        let clock = FakeClock()
        let metrics = PipelineMetrics(capacity: 1000, rateWindow: 10, clock: { clock.now })
        // 30 frames a second for 20 s, then nothing for 5 s.
        for _ in 0..<600 {
            metrics.record(.capture)
            clock.advance(1.0 / 30)
        }
        #expect(abs(metrics.figures(.capture).perSecond - 30) < 0.5)
        clock.advance(5)
        #expect(abs(metrics.figures(.capture).perSecond - 15) < 0.5, "half of the window is silent")
        clock.advance(10)
        #expect(metrics.figures(.capture).perSecond == 0)
        #expect(metrics.figures(.capture).p50 == nil, "capture has no latency")
        let none = metrics.figures(.barcodes)
        #expect(none.count == 0 && none.perSecond == 0 && none.p50 == nil && none.p99 == nil)
    }

    @Test func measureRecordsOnlyRealWork() {
        let clock = FakeClock()
        let metrics = PipelineMetrics(clock: { clock.now })
        let value = metrics.measure(
            .barcodes,
            { () -> Int in
                clock.advance(0.004)
                return 7
            }, ran: { $0 == 7 })
        _ = metrics.measure(
            .barcodes,
            { () -> Int in
                clock.advance(0.5)
                return 0
            }, ran: { $0 == 7 })
        #expect(value == 7)
        #expect(metrics.figures(.barcodes).count == 1)
        #expect(abs((metrics.figures(.barcodes).p50 ?? 0) - 4) < 1e-6)
    }
}
