import CoreMetrics
import ScannerCore
import Synchronization

/// Live figures per stage for `stats`, safe to read while the pipeline runs: totals, the rate over the
/// last `rateWindow` seconds, and latency percentiles over the last `capacity` runs of a recognizer.
/// A window of recent work, not all-time figures: what an operator asks is "how is it doing now".
public final class PipelineMetrics: Sendable {
    public enum Stage: Int, Sendable, CaseIterable {
        /// Frames taken from the source (decoded).
        case capture
        /// zbar (+ zxing) runs, not counting frames whose scan was reused because nothing changed.
        case barcodes
        /// Text passes (detection and the lines read).
        case text
        /// Finding the text lines of a pass.
        case detection
        /// Reading one line (Tesseract).
        case reading
        /// A document pass (`DocumentStage`).
        case documents

        /// Its `stage` label in `scannerd_stage_duration_seconds`.
        public var name: String {
            switch self {
            case .capture: "capture"
            case .barcodes: "barcodes"
            case .text: "text"
            case .detection: "detection"
            case .reading: "reading"
            case .documents: "documents"
            }
        }
    }

    public struct Figures: Sendable, Equatable {
        public var count: Int
        /// Runs per second over the last `rateWindow` seconds.
        public var perSecond: Double
        /// Latency percentiles in milliseconds (nil: no runs yet, or a stage without latency).
        public var p50: Double?
        public var p99: Double?
        /// Runs that failed in the recognizer's library (they gave nothing), since the start.
        public var failures = 0
    }

    struct Window {
        var count = 0
        var failures = 0
        /// The stage's own total at the last `failures(_:total:)`.
        var failuresSeen = 0
        var times: [Double] = []
        var durations: [Double] = []
        var next = 0
    }

    public let capacity: Int
    public let rateWindow: Double
    private let clock: @Sendable () -> Double
    private let windows = Mutex<[Window]>(Array(repeating: Window(), count: Stage.allCases.count))
    /// Each stage's durations through swift-metrics (a histogram where the daemon exports them;
    /// nothing where no metrics backend is bootstrapped). Not for capture, which has no duration.
    private let timers: [CoreMetrics.Timer?]
    /// Each stage's failures through swift-metrics (`scannerd_recognition_failures_total`).
    private let failureCounters: [CoreMetrics.Counter]

    /// `clock`: monotonic seconds (injected in tests).
    public init(capacity: Int = 512, rateWindow: Double = 10, clock: @escaping @Sendable () -> Double = PipelineMetrics.now) {
        self.capacity = capacity
        self.rateWindow = rateWindow
        self.clock = clock
        timers = Stage.allCases.map { stage in
            stage == .capture ? nil : CoreMetrics.Timer(label: Self.durationMetric, dimensions: [("stage", stage.name)])
        }
        failureCounters = Stage.allCases.map { CoreMetrics.Counter(label: Self.failureMetric, dimensions: [("stage", $0.name)]) }
    }

    /// The counter of every stage's failures, labelled by stage.
    public static let failureMetric = "scannerd_recognition_failures"

    /// `stage`'s failures so far are `total` (a recognizer's own count, read on the stage's thread):
    /// what is new since the last call is counted. A smaller total (a stage built anew by `set`)
    /// counts from there.
    public func failures(_ stage: Stage, total: Int) {
        let grown = windows.withLock { all -> Int in
            let last = all[stage.rawValue].failuresSeen
            all[stage.rawValue].failuresSeen = total
            let grown = total >= last ? total - last : total
            all[stage.rawValue].failures += grown
            return grown
        }
        if grown > 0 { failureCounters[stage.rawValue].increment(by: Int64(grown)) }
    }

    /// The histogram every stage's durations go to, labelled by stage.
    public static let durationMetric = "scannerd_stage_duration_seconds"

    public static func now() -> Double { Double(Heartbeat.monotonicNanoseconds()) / 1e9 }

    /// One run of `stage` that took `seconds`, ending now.
    public func record(_ stage: Stage, seconds: Double = 0) {
        timers[stage.rawValue]?.recordNanoseconds(Int64(max(0, seconds) * 1e9))
        let time = clock()
        windows.withLock { all in
            var w = all[stage.rawValue]
            w.count += 1
            if w.times.count < capacity {
                w.times.append(time)
                w.durations.append(seconds)
            } else {
                w.times[w.next] = time
                w.durations[w.next] = seconds
                w.next = (w.next + 1) % capacity
            }
            all[stage.rawValue] = w
        }
    }

    /// Times `body` and records it as a run of `stage` if `ran` says it did real work.
    public func measure<T>(_ stage: Stage, _ body: () -> T, ran: (T) -> Bool = { _ in true }) -> T {
        let start = clock()
        let result = body()
        if ran(result) { record(stage, seconds: clock() - start) }
        return result
    }

    public func figures(_ stage: Stage) -> Figures {
        let now = clock()
        let w = windows.withLock { $0[stage.rawValue] }
        let recent = w.times.filter { $0 > now - rateWindow }.count
        // A window not yet full (the daemon just started) is divided by the time it covers.
        let span = min(rateWindow, max(now - (w.times.min() ?? now), 1e-9))
        let perSecond = recent == 0 ? 0 : Double(recent) / max(span, rateWindow / 10)
        guard stage != .capture, !w.durations.isEmpty else {
            return Figures(count: w.count, perSecond: perSecond, p50: nil, p99: nil, failures: w.failures)
        }
        let sorted = w.durations.sorted()
        func percentile(_ p: Double) -> Double { sorted[min(sorted.count - 1, Int((p * Double(sorted.count)).rounded(.up)) - 1)] * 1000 }
        return Figures(count: w.count, perSecond: perSecond, p50: percentile(0.5), p99: percentile(0.99), failures: w.failures)
    }
}
