import CoreMetrics
import ScannerCore

/// Capture's figures through swift-metrics (exported as Prometheus text by the daemon; nothing where
/// no metrics backend is bootstrapped).
enum CaptureMetrics {
    /// Decoding a frame to the processing image: the histogram of every stage's durations, labelled
    /// `decode`. Made on first use, after the daemon has bootstrapped its backend.
    static let decode = CoreMetrics.Timer(label: "scannerd_stage_duration_seconds", dimensions: [("stage", "decode")])

    static func timedDecode<T, E: Error>(_ body: () throws(E) -> T) throws(E) -> T {
        let start = ContinuousClock.now
        defer { decode.recordNanoseconds(Int64((ContinuousClock.now - start).inSeconds * 1e9)) }
        return try body()
    }
}
