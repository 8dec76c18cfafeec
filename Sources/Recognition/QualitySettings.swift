import ScannerCore
import TextRecognition

/// The concrete settings behind each quality level (documented in docs/recognition.md).
public struct QualitySettings: Sendable, Equatable {
    /// JPEG input is DCT-reduced (1/2, 1/4, 1/8) as long as it stays at least this wide; nil = full size.
    public var processingWidth: Int?
    /// The same for camera frames, where zbar runs on every frame: 30 ms at 1280 px but 10 ms at
    /// 640 px (docs/benchmarks.md).
    public var liveProcessingWidth: Int {
        switch processingWidth {
        case .some(let width) where width <= 640: 480
        case .some: 640
        case .none: 960
        }
    }
    /// Retry inverted (light-on-dark) when a scan finds no barcode.
    public var testInvertedBarcodes: Bool
    /// zbar scans every n-th row and column.
    public var barcodeScanDensity: Int
    /// OCR is skipped when the region's contrast spread (`GrayImage.contrastSpread`) is below this:
    /// there is no ink to read, and Tesseract turns noise into short "words".
    public var minimumContrastForText: Int = 48
    /// Plain text lines below this mean word confidence are not reported (content types are validated
    /// by their own rules instead).
    public var minimumLineConfidence: Double

    public init(_ level: QualityLevel) {
        switch level {
        case .fast:
            self.init(
                processingWidth: 640,
                testInvertedBarcodes: false, barcodeScanDensity: 2, minimumLineConfidence: 0.7)
        case .balanced:
            self.init(
                processingWidth: 1280,
                testInvertedBarcodes: true, barcodeScanDensity: 1, minimumLineConfidence: 0.6)
        case .accurate:
            self.init(
                processingWidth: nil,
                testInvertedBarcodes: true, barcodeScanDensity: 1, minimumLineConfidence: 0.5)
        }
    }

    public init(
        processingWidth: Int?, testInvertedBarcodes: Bool, barcodeScanDensity: Int, minimumLineConfidence: Double
    ) {
        self.barcodeScanDensity = barcodeScanDensity
        self.processingWidth = processingWidth
        self.testInvertedBarcodes = testInvertedBarcodes
        self.minimumLineConfidence = minimumLineConfidence
    }
}
