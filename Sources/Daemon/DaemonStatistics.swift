import Capture
import Logging
import Pipeline
import ScannerCore
import ScannerProtocol

/// The daemon's figures as `stats` replies and log lines carry them: from the source's totals and
/// the pipeline's live figures, nothing else.
public enum DaemonStatistics {
    /// The `stats` reply's figures of the source and the stages.
    public static func reply(
        source s: SourceStatistics, metrics: PipelineMetrics, sourceName: String, available: Bool, uptime: Double,
        textModelFailure: String? = nil
    ) -> StatsReply.Daemon {
        func stage(_ f: PipelineMetrics.Figures) -> StatsReply.Stage {
            StatsReply.Stage(runs: f.count, perSecond: f.perSecond, latencyP50: f.p50, latencyP99: f.p99)
        }
        let barcodes = metrics.figures(.barcodes)
        return StatsReply.Daemon(
            uptime: uptime,
            capture: StatsReply.Capture(
                source: sourceName, available: available, frames: s.delivered + s.dropped + s.idleSkipped + s.corrupt, decoded: s.delivered,
                dropped: s.dropped, idleSkipped: s.idleSkipped, corrupt: s.corrupt, reconnects: s.reconnects,
                fps: metrics.figures(.capture).perSecond),
            barcodes: stage(barcodes), barcodeFailures: barcodes.failures, text: stage(metrics.figures(.text)),
            detectionFailures: metrics.figures(.detection).failures, readFailures: metrics.figures(.reading).failures,
            textModelFailure: textModelFailure, documents: stage(metrics.figures(.documents)))
    }

    /// The pipeline's counters for the log line at its end.
    public static func metadata(_ s: SequenceStatistics) -> Logger.Metadata {
        var metadata: Logger.Metadata = [
            "ocrDetectionFailures": "\(s.ocrDetectionFailures)", "ocrReadFailures": "\(s.ocrReadFailures)",
            "barcodeReadFailures": "\(s.barcodeReadFailures)",
            "barcodeScans": "\(s.barcodeScans)", "barcodeScansReused": "\(s.barcodeScansReused)",
            "barcodeFullResolutionScans": "\(s.barcodeFullResolutionScans)",
            "barcodeAroundScans": "\(s.barcodeAroundScans)",
            "ocrPasses": "\(s.ocrPasses)", "ocrLinesRead": "\(s.ocrLinesRead)", "ocrConfirmingPasses": "\(s.ocrConfirmingPasses)",
            "ocrSkippedBlurred": "\(s.ocrSkippedBlurred)", "ocrSkippedUnchanged": "\(s.ocrSkippedUnchanged)",
            "ocrWholeFrameLooks": "\(s.ocrWholeFrameLooks)", "ocrWindowLooks": "\(s.ocrWindowLooks)", "ocrStackedReads": "\(s.ocrStackedReads)",
        ]
        if let failure = s.ocrLastDetectionFailure { metadata["ocrLastDetectionFailure"] = "\(failure)" }
        if let failure = s.barcodeLastReadFailure { metadata["barcodeLastReadFailure"] = "\(failure)" }
        return metadata
    }
}
