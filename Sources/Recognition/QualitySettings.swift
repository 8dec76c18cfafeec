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
    /// Light-on-dark codes (a phone in dark mode) are looked for too: zxing-cpp tries the negative,
    /// zbar retries inverted when it finds nothing.
    public var testInvertedBarcodes: Bool
    /// zbar scans every n-th row and column.
    public var barcodeScanDensity: Int
    /// On camera frames every n-th barcode scan is thorough (zxing-cpp tries 1-D codes turned by 90°
    /// and light-on-dark codes, and zbar looks for what it missed); the others are quick
    /// (`ZXingReader.quickEffort`, half the cost; `BarcodeCadence`). A still image's scan is always thorough.
    public var liveThoroughBarcodeScanEvery = 3
    /// zbar on a camera frame (at full resolution, on thorough scans) scans every n-th row and column
    /// and not the negative (zxing-cpp's thorough scan tries that): 1-D codes are read along the rows
    /// at the frame's full resolution, and zbar costs half (docs/benchmarks.md).
    public var liveBarcodeScanDensity = 2
    /// A still image's barcodes are also read with the image enlarged this much (`BarcodeRecognizer.enlargedRead`).
    public var stillEnlargedBarcodeRead: Double? = 1.5
    /// OCR is skipped when the region's contrast spread (`GrayImage.contrastSpread`) is below this:
    /// there is no ink to read, and Tesseract turns noise into short "words".
    public var minimumContrastForText: Int = 48
    /// Plain text lines below this mean word confidence are not reported (content types are validated
    /// by their own rules instead).
    public var minimumLineConfidence: Double
    /// A single image is all the evidence `ImageScanner.scan` has: a line that says a phone number,
    /// URL or e-mail address is read again at these heights, and a typed payload is reported only
    /// when most of the readings give it (`ReadingFusion.agreed`). Empty: one reading, at once.
    ///
    /// Measured 2026-11-22 on the footage's scan frames (3 seeds, 640×480 and 1280×720, at a
    /// quarter, half and three quarters into each item's legible frames; 172 typed items): one
    /// reading at 36 px read 160 right with 11 typed payloads in no truth item; with 32 and 40 px
    /// also, 161 and 4 (34/38: 160 and 5; 30/42: 156 and 8; 28/40: 160 and 3). A misread depends
    /// on how the glyphs fall on the LSTM's input rows, so it seldom repeats at another scale.
    ///
    /// Four more heights, three of five to agree: measured 2026-11-23 with these and with seeds 4–6
    /// made for the check (not looked at before), on the middle legible frames and the
    /// quarter/half/three-quarter frames (typed payloads in no truth item, distinct):
    ///
    /// | heights besides 36 | seeds 1–3: middle read, false; q/h/3q right, wrong | seeds 4–6: the same |
    /// |---|---|---|
    /// | 32, 40 | 38/42, 1; 116, 4 | 39/48, 2; 110, 4 |
    /// | 32, 40, 34, 38 | 38/42, 0; 117, 0 | 40/48, 0; 110, 2 |
    /// | 32, 40, 28, 44 | 38/42, 0; 115, 1 | 39/48, 2; 109, 4 |
    /// | 32, 40, 30, 42 | 36/42, 2; 114, 4 | – |
    ///
    /// A typed line is read four more times (~12 ms each); lines without a typed item are read once.
    public var secondReadingHeights: [Int] = [32, 40, 34, 38]
    /// With a line model (`ImageScanner(lineModel:)`), a still image's lines are read by the line
    /// network (docs/recognition.md). False: Tesseract alone.
    public var readsWithNetwork = true
    /// With a line model, a camera frame's lines are found by the detector network on the frame
    /// reduced to this longer side (px); nil: by the classical detector. At 640 a 1280×720 frame is
    /// detected at 640×352 in ~34 ms, one thread. The classical detector took ~13 ms, but finds desk
    /// texture as lines of three or four "glyphs", read as garbage three times each before they are
    /// taken for clutter: on the footage at realtime (seeds 1–3, 2026-11-26) 1,100 of 2,520 reads,
    /// none typed. With the network the text pass costs less in all (docs/benchmarks.md).
    public var liveDetectionSide: Int? = 640

    public init(_ level: QualityLevel) {
        switch level {
        case .fast:
            self.init(
                processingWidth: 640,
                testInvertedBarcodes: false, barcodeScanDensity: 2, minimumLineConfidence: 0.7)
            secondReadingHeights = []
            readsWithNetwork = false
            liveDetectionSide = nil
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
