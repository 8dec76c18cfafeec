import Recognition
import ScannerCore

/// Counters the pipeline keeps (for stats and benchmarks).
public struct SequenceStatistics: Sendable, Equatable {
    /// The counters the stages keep.
    init(barcodes: BarcodeStage, text: TextStage?) {
        barcodeScans = barcodes.scans
        barcodeScansReused = barcodes.reused
        barcodeFullResolutionScans = barcodes.fullResolutionScans
        barcodeAroundScans = barcodes.aroundScans
        barcodeReadFailures = barcodes.readFailures.count
        barcodeLastReadFailure = barcodes.readFailures.last
        ocrPasses = text?.passes ?? 0
        ocrLinesRead = text?.linesRead ?? 0
        ocrConfirmingPasses = text?.confirmingPasses ?? 0
        ocrSkippedBlurred = text?.skippedBlurred ?? 0
        ocrSkippedUnchanged = text?.skippedUnchanged ?? 0
        ocrDetectionFailures = text?.detectionFailures.count ?? 0
        ocrLastDetectionFailure = text?.detectionFailures.last
        ocrReadFailures = text?.readFailures ?? 0
        ocrWholeFrameLooks = text?.wholeFrameLooks ?? 0
        ocrWindowLooks = text?.windowLooks ?? 0
        ocrStackedReads = text?.stackedReads ?? 0
    }

    public var framesScanned = 0
    public var barcodeScans = 0
    /// Frames whose barcode scan was skipped because nothing had changed.
    public var barcodeScansReused = 0
    /// Barcode scans of the frame at full resolution.
    public var barcodeFullResolutionScans = 0
    /// Barcode scans only around the codes found before (a label held still).
    public var barcodeAroundScans = 0
    /// Barcode reads zxing-cpp failed (they found nothing), and the last one's reason.
    public var barcodeReadFailures = 0
    public var barcodeLastReadFailure: String?
    public var ocrPasses = 0
    /// Text lines read by the recognizer (each pass reads the few lines the schedule picks).
    public var ocrLinesRead = 0
    /// Passes that only gave lines their confirming read (`TextStage.awaitsConfirmation`).
    public var ocrConfirmingPasses = 0
    public var ocrSkippedBlurred = 0
    public var ocrSkippedUnchanged = 0
    /// Frames the line detector failed on (its runtime's error: they gave no lines), and the last error.
    public var ocrDetectionFailures = 0
    public var ocrLastDetectionFailure: String?
    /// Lines the recognizers failed to read in their library (read as nothing).
    public var ocrReadFailures = 0
    /// The line detector's looks at the whole frame, and at windows of it (`TextLooks`).
    public var ocrWholeFrameLooks = 0
    public var ocrWindowLooks = 0
    /// Reads of a line averaged over frames (`LineStack`), among `ocrLinesRead`.
    public var ocrStackedReads = 0
    /// Passes of the document stage (`DocumentStage`).
    public var documentPasses = 0
    public init() {}
}
