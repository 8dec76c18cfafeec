import Recognition
import ScannerCore
import Tracking

/// What the pipeline recognizes, and how it schedules and gates the work.
public struct SequenceConfiguration: Sendable {
    public var options: ScanOptions
    public var tracker: TrackerConfiguration
    /// With deterministic pacing: run OCR on every n-th frame (n = this).
    public var ocrEveryFrames: Int
    /// No OCR on frames blurrier than this (variance of the Laplacian; a sharp card at 640 px scores
    /// ~1500, the same card box-blurred 7×7 ~18).
    public var minimumSharpness: Double
    /// A frame that shows nothing new since the last one read (`SceneChangeGate`) is not read
    /// again: the last reading stands for it.
    public var sceneChange: SceneChangeGate.Configuration
    /// recognizesMultipleItems = false: report only the item nearest the centre of the region of interest.
    public var singleItem: Bool
    /// Barcode scans read the frame at full resolution when the processing image is reduced: zxing-cpp
    /// reads a 1280×720 frame in ~8 ms, and codes of 1.6 px a module there are 0.8 px at 640. Off at
    /// `fast` (the processing image only).
    public var barcodesAtFullResolution: Bool
    /// The text networks' model directory: lines are read by PP-OCRv6's recognizer
    /// (`TextReader.init(options:lineModel:…)`). Nil: by Tesseract.
    public var lineModel: String?
    /// Whether the text stage must read with `lineModel`: the operator named it (`--line-model DIR`),
    /// and a model that does not load stops the start. False for the models found beside the binary:
    /// one that does not load (damaged by an update) costs the networks, not the text — the stage
    /// reads with the classical detector and Tesseract, and says so (`TextStage.modelFailure`).
    public var lineModelRequired: Bool
    /// Makes the text stage's line detector and recognizers in place of `lineModel`'s: any
    /// conformance (a test's fakes drive the pipeline in-process). Called for each stage built.
    public var textReaders: (@Sendable () -> TextReaders)?
    /// The live text stage's numbers (`TextTuning`).
    public var textTuning = TextTuning()

    public init(
        options: ScanOptions, tracker: TrackerConfiguration? = nil, ocrEveryFrames: Int? = nil,
        minimumSharpness: Double = 30, sceneChange: SceneChangeGate.Configuration = .init(), singleItem: Bool = false,
        barcodesAtFullResolution: Bool? = nil,
        lineModel: String? = nil, lineModelRequired: Bool = true
    ) {
        self.lineModel = lineModel
        self.lineModelRequired = lineModelRequired
        self.barcodesAtFullResolution = barcodesAtFullResolution ?? (options.quality != .fast)
        self.options = options
        self.tracker = tracker ?? TrackerConfiguration(options.quality)
        self.ocrEveryFrames = ocrEveryFrames ?? Self.ocrCadence(options.quality)
        self.minimumSharpness = minimumSharpness
        self.sceneChange = sceneChange
        self.singleItem = singleItem
    }

    /// Whether the stages built for `other` serve this configuration as well: what they are built
    /// from is the same, only what the pipeline applies around them (tracking, single-item mode, the
    /// OCR cadence) differs. A test's `textReaders` cannot be compared: never the same.
    func buildsTheSameStages(as other: SequenceConfiguration) -> Bool {
        options == other.options && sceneChange == other.sceneChange && barcodesAtFullResolution == other.barcodesAtFullResolution
            && lineModel == other.lineModel && lineModelRequired == other.lineModelRequired && minimumSharpness == other.minimumSharpness
            && textTuning == other.textTuning && textReaders == nil && other.textReaders == nil
    }

    /// OCR cadence per quality level at 30 fps: fast every 6th frame (5 passes/s), balanced every
    /// 3rd (10/s, about what one core sustains at 640 px), accurate every 2nd.
    public static func ocrCadence(_ level: QualityLevel) -> Int {
        switch level {
        case .fast: 6
        case .balanced: 3
        case .accurate: 2
        }
    }
}
