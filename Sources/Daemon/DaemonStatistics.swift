import Capture
import Logging
import MQTTPublisher
import Pipeline
import ScannerCore

/// The daemon's figures as `stats` replies and log lines carry them: from the source's totals and
/// the pipeline's live figures, nothing else.
public enum DaemonStatistics {
    /// The `stats` reply's figures beyond the server's own (`events`): per stage.
    public static func reply(
        source s: SourceStatistics, metrics: PipelineMetrics, sourceName: String, available: Bool, uptime: Double,
        textModelFailure: String? = nil
    ) -> [(String, JSONValue)] {
        let capture = metrics.figures(.capture)
        let barcodes = metrics.figures(.barcodes)
        func milliseconds(_ value: Double?) -> JSONValue { value.map { .number($0, decimals: 2) } ?? .null }
        func recognizer(_ f: PipelineMetrics.Figures, runs: String, failures: [(String, Int)] = [], modelFailure: String? = nil) -> JSONValue {
            .object(
                [
                    (runs, .integer(f.count)), ("perSecond", .number(f.perSecond, decimals: 2)),
                    ("latencyP50", milliseconds(f.p50)), ("latencyP99", milliseconds(f.p99)),
                ] + failures.map { ($0.0, JSONValue.integer($0.1)) } + (modelFailure.map { [("modelFailure", JSONValue.string($0))] } ?? []))
        }
        return [
            ("uptime", .number(uptime, decimals: 1)),
            (
                "capture",
                .object([
                    ("source", .string(sourceName)), ("available", .bool(available)),
                    // Every frame the source took: decoded ones, ones dropped for a newer frame, ones skipped
                    // undecoded while the scene is still, and corrupt ones.
                    ("frames", .integer(s.delivered + s.dropped + s.idleSkipped + s.corrupt)), ("decoded", .integer(s.delivered)),
                    ("dropped", .integer(s.dropped)), ("idleSkipped", .integer(s.idleSkipped)), ("corrupt", .integer(s.corrupt)),
                    ("reconnects", .integer(s.reconnects)),
                    ("fps", .number(capture.perSecond, decimals: 1)),
                ])
            ),
            ("barcodes", recognizer(barcodes, runs: "scans", failures: [("failures", barcodes.failures)])),
            (
                "text",
                recognizer(
                    metrics.figures(.text), runs: "passes",
                    failures: [
                        ("detectionFailures", metrics.figures(.detection).failures), ("readFailures", metrics.figures(.reading).failures),
                    ], modelFailure: textModelFailure)
            ),
            ("documents", recognizer(metrics.figures(.documents), runs: "passes")),
        ]
    }

    /// The MQTT publisher's state for `stats`.
    public static func mqtt(_ m: MQTTPublisher.Statistics) -> JSONValue {
        .object([
            ("connected", .bool(m.connected)), ("queued", .integer(m.queued)), ("unacknowledged", .integer(m.unacknowledged)),
            ("published", .integer(m.published)), ("dropped", .integer(m.dropped)), ("lastError", m.lastError.map { .string($0) } ?? .null),
        ])
    }

    /// The pipeline's counters for the log line at its end.
    public static func metadata(_ s: SequenceStatistics) -> Logger.Metadata {
        var metadata: Logger.Metadata = [
            "ocrDetectionFailures": "\(s.ocrDetectionFailures)", "ocrReadFailures": "\(s.ocrReadFailures)",
            "barcodeReadFailures": "\(s.barcodeReadFailures)",
            "barcodeScans": "\(s.barcodeScans)", "barcodeScansReused": "\(s.barcodeScansReused)",
            "barcodeFullResolutionScans": "\(s.barcodeFullResolutionScans)",
            "ocrPasses": "\(s.ocrPasses)", "ocrLinesRead": "\(s.ocrLinesRead)", "ocrConfirmingPasses": "\(s.ocrConfirmingPasses)",
            "ocrSkippedBlurred": "\(s.ocrSkippedBlurred)", "ocrSkippedUnchanged": "\(s.ocrSkippedUnchanged)",
            "ocrWholeFrameLooks": "\(s.ocrWholeFrameLooks)", "ocrWindowLooks": "\(s.ocrWindowLooks)", "ocrStackedReads": "\(s.ocrStackedReads)",
        ]
        if let failure = s.ocrLastDetectionFailure { metadata["ocrLastDetectionFailure"] = "\(failure)" }
        if let failure = s.barcodeLastReadFailure { metadata["barcodeLastReadFailure"] = "\(failure)" }
        return metadata
    }
}
