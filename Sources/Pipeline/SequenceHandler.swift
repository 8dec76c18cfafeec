import Capture
import Recognition
import ScannerCore
import Tracking

/// How the sequence handler schedules and gates work.
public struct SequenceConfiguration: Sendable {
    public var options: ScanOptions
    public var tracker: TrackerConfiguration
    /// With deterministic pacing: run OCR on every n-th frame (n = this).
    public var ocrEveryFrames: Int
    /// No OCR on frames blurrier than this (variance of the Laplacian; a sharp card at 640 px scores
    /// ~1500, the same card box-blurred 7×7 ~18).
    public var minimumSharpness: Double
    /// A frame whose thumbnail differs from the last one read by less than this (mean absolute
    /// difference, 0…255) is not read again: the last reading stands for it.
    public var unchangedBelow: Double
    /// recognizesMultipleItems = false: report only the item nearest the centre of the region of interest.
    public var singleItem: Bool

    public init(
        options: ScanOptions, tracker: TrackerConfiguration? = nil, ocrEveryFrames: Int? = nil,
        minimumSharpness: Double = 30, unchangedBelow: Double = 1.0, singleItem: Bool = false
    ) {
        self.options = options
        self.tracker = tracker ?? TrackerConfiguration(options.quality)
        self.ocrEveryFrames = ocrEveryFrames ?? Self.ocrCadence(options.quality)
        self.minimumSharpness = minimumSharpness
        self.unchangedBelow = unchangedBelow
        self.singleItem = singleItem
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

/// Counters the handler keeps (for stats and benchmarks).
public struct SequenceStatistics: Sendable, Equatable {
    /// The counters the stages keep.
    init(barcodes: BarcodeStage, text: TextStage?) {
        barcodeScans = barcodes.scans
        barcodeScansReused = barcodes.reused
        ocrPasses = text?.passes ?? 0
        ocrPartialPasses = text?.partialPasses ?? 0
        ocrSkippedBlurred = text?.skippedBlurred ?? 0
        ocrSkippedUnchanged = text?.skippedUnchanged ?? 0
    }

    public var framesScanned = 0
    public var barcodeScans = 0
    /// Frames whose barcode scan was skipped because nothing had changed.
    public var barcodeScansReused = 0
    public var ocrPasses = 0
    /// OCR passes restricted to the part of the frame that changed.
    public var ocrPartialPasses = 0
    public var ocrSkippedBlurred = 0
    public var ocrSkippedUnchanged = 0
    public init() {}
}

/// Barcodes for one frame, skipping the scan when the frame equals the last one scanned.
/// Owned by one thread at a time (the deterministic loop, or the live pipeline's barcode thread).
final class BarcodeStage: @unchecked Sendable {
    private let scanner: ImageScanner
    private let unchangedBelow: Double
    private var lastThumbnail: [UInt8]?
    private var lastResult: [RecognizedItem] = []
    var scans = 0
    var reused = 0
    /// Consecutive frames that matched the last scanned one.
    private(set) var unchangedStreak = 0

    init(options: ScanOptions, unchangedBelow: Double) throws(ScannerError) {
        var barcodeOptions = options
        barcodeOptions.types = RecognitionTypes(symbologies: options.types.symbologies, contentTypes: [])
        scanner = try ImageScanner(options: barcodeOptions)
        self.unchangedBelow = unchangedBelow
    }

    func scan(_ image: GrayImage) -> [RecognizedItem] {
        // A static scene (a kiosk with nobody in front of it) costs a thumbnail, not a zbar pass.
        let thumbnail = FrameMetrics.thumbnail(image)
        if let last = lastThumbnail, FrameMetrics.difference(last, thumbnail) < unchangedBelow {
            reused += 1
            unchangedStreak += 1
            return lastResult
        }
        unchangedStreak = 0
        scans += 1
        lastThumbnail = thumbnail
        lastResult = scanner.scan(image)
        return lastResult
    }
}

/// Text for one frame behind the gates: unchanged since the last read → that reading again; too
/// blurred → not read (nil); otherwise Tesseract.
/// Owned by one thread at a time (the deterministic loop, or the live pipeline's text thread).
final class TextStage: @unchecked Sendable {
    private let scanner: ImageScanner
    private let configuration: SequenceConfiguration
    private var lastThumbnail: [UInt8]?
    private var lastReading: [RecognizedItem] = []
    var passes = 0
    /// Passes that read only the changed part of the frame.
    var partialPasses = 0
    var skippedBlurred = 0
    var skippedUnchanged = 0

    init(configuration: SequenceConfiguration) throws(ScannerError) {
        var textOptions = configuration.options
        textOptions.types.symbologies = []
        scanner = try ImageScanner(options: textOptions)
        self.configuration = configuration
    }

    /// A reading, and whether it merely repeats the previous one (an unchanged frame).
    struct Reading {
        var items: [RecognizedItem]
        var isRepeat: Bool
    }

    /// - Parameter confirm: where text awaits a confirming read: those areas are read again even on
    ///   an unchanged frame (a second read of new pixels, not the first reading repeated).
    func read(_ image: GrayImage, confirm: [Quad] = []) -> Reading? {
        let thumbnail = FrameMetrics.thumbnail(image)
        if let last = lastThumbnail, FrameMetrics.difference(last, thumbnail) < configuration.unchangedBelow {
            guard let area = Self.area(around: confirm)?.intersection(configuration.options.regionOfInterest) else {
                skippedUnchanged += 1
                return Reading(items: lastReading, isRepeat: true)
            }
            passes += 1
            partialPasses += 1
            let kept = lastReading.filter { !area.contains($0.bounds.center) }
            return Reading(items: kept + scanner.scan(image, within: area), isRepeat: false)
        }
        if FrameMetrics.sharpness(image) < configuration.minimumSharpness {
            skippedBlurred += 1
            return nil
        }
        passes += 1
        defer { lastThumbnail = thumbnail }
        // Read only where the frame changed since the last reading (a card held up in front of a
        // static scene): Tesseract's cost grows with the area it segments. What was read outside the
        // changed area stands.
        if let last = lastThumbnail, let changed = FrameMetrics.changedArea(last, thumbnail),
            changed.width * changed.height < 0.6, let area = changed.intersection(configuration.options.regionOfInterest)
        {
            let kept = lastReading.filter { !area.contains($0.bounds.center) }
            lastReading = kept + scanner.scan(image, within: area)
            partialPasses += 1
        } else {
            lastReading = scanner.scan(image)
        }
        return Reading(items: lastReading, isRepeat: false)
    }

    /// The box around `quads`, grown by 2% of the image on each side; nil for none.
    static func area(around quads: [Quad]) -> NormalizedRect? {
        guard !quads.isEmpty else { return nil }
        let boxes = quads.map(\.boundingBox)
        let x0 = max(0, boxes.map(\.minX).min()! - 0.02), y0 = max(0, boxes.map(\.minY).min()! - 0.02)
        let x1 = min(1, boxes.map(\.maxX).max()! + 0.02), y1 = min(1, boxes.map(\.maxY).max()! + 0.02)
        return NormalizedRect(x: x0, y: y0, width: x1 - x0, height: y1 - y0)
    }
}

/// Single-item mode keeps the one observation nearest the centre of the region of interest.
func selectSingle(_ items: [RecognizedItem], _ configuration: SequenceConfiguration) -> [RecognizedItem] {
    guard configuration.singleItem, items.count > 1 else { return items }
    let roi = configuration.options.regionOfInterest
    let centre = Point(x: roi.x + roi.width / 2, y: roi.y + roi.height / 2)
    return [items.min { $0.bounds.center.distance(to: centre) < $1.bounds.center.distance(to: centre) }!]
}

/// The per-frame work in order, every decision a function of the frame (its index and pixels):
/// barcodes on every frame, OCR on every n-th frame unless a gate says it is pointless, then the
/// trackers. This is the deterministic pipeline (`--pace none`, tests); `LivePipeline` runs the same
/// stages on their own threads.
public final class SequenceHandler: @unchecked Sendable {
    public private(set) var configuration: SequenceConfiguration
    private var barcodes: BarcodeStage
    private var text: TextStage?
    private var tracker: ItemTracker
    private var scanned = 0
    /// A configuration to apply before the next frame (set from another thread).
    private let pending = Mutex<SequenceConfiguration?>(nil)
    /// Live per-stage figures (`stats`).
    public let metrics = PipelineMetrics()

    public init(configuration: SequenceConfiguration, makeID: @escaping @Sendable () -> UUID = { UUID() }) throws(ScannerError) {
        self.configuration = configuration
        barcodes = try BarcodeStage(options: configuration.options, unchangedBelow: configuration.unchangedBelow)
        text = configuration.options.types.wantsText ? try TextStage(configuration: configuration) : nil
        tracker = ItemTracker(configuration: configuration.tracker, makeID: makeID)
    }

    public var liveItems: [TrackedItem] { tracker.liveItems }

    public var statistics: SequenceStatistics {
        var s = SequenceStatistics(barcodes: barcodes, text: text)
        s.framesScanned = scanned
        return s
    }

    /// Applies `configuration` from the next frame. Callable from any thread.
    public func reconfigure(_ configuration: SequenceConfiguration) {
        pending.withLock { $0 = configuration }
    }

    /// Scans `frame` and returns what changed. `time` is the tracker's clock in seconds.
    public func process(_ frame: Frame, time: Double) -> [TrackerAction] {
        if let changed = pending.withLock({ state -> SequenceConfiguration? in defer { state = nil }; return state }) {
            if let stage = try? BarcodeStage(options: changed.options, unchangedBelow: changed.unchangedBelow) { barcodes = stage }
            text = changed.options.types.wantsText ? ((try? TextStage(configuration: changed)) ?? text) : nil
            tracker.configuration = changed.tracker
            configuration = changed
        }
        scanned += 1
        let image = frame.image.image
        metrics.record(.capture)
        let scansBefore = barcodes.scans
        let found = selectSingle(metrics.measure(.barcodes, { barcodes.scan(image) }, ran: { _ in barcodes.scans > scansBefore }), configuration)
        var reading: TextStage.Reading? = nil
        if frame.index % configuration.ocrEveryFrames == 0, let text {
            let passesBefore = text.passes
            reading = metrics.measure(.text, { text.read(image, confirm: tracker.pendingTextAreas) }, ran: { _ in text.passes > passesBefore })
        }
        return tracker.update(FrameObservations(
            frame: frame.index, time: time, barcodes: found, text: reading.map { selectSingle($0.items, configuration) },
            textIsRepeat: reading?.isRepeat ?? false))
    }

    /// Ends everything that is still live (end of a file source, shutdown).
    public func finish() -> [TrackerAction] { tracker.removeAll() }
}

import Foundation  // UUID
import Synchronization
