import Capture
import Foundation  // UUID
import Recognition
import ScannerCore
import Synchronization
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
    /// (`ImageScanner.init(options:lineModel:)`). Nil: by Tesseract.
    public var lineModel: String?
    /// Makes the text stage's line detector and recognizers in place of `lineModel`'s: any
    /// conformance (a test's fakes drive the pipeline in-process). Called for each stage built.
    public var textReaders: (@Sendable () -> TextReaders)?

    public init(
        options: ScanOptions, tracker: TrackerConfiguration? = nil, ocrEveryFrames: Int? = nil,
        minimumSharpness: Double = 30, sceneChange: SceneChangeGate.Configuration = .init(), singleItem: Bool = false,
        barcodesAtFullResolution: Bool? = nil,
        lineModel: String? = nil
    ) {
        self.lineModel = lineModel
        self.barcodesAtFullResolution = barcodesAtFullResolution ?? (options.quality != .fast)
        self.options = options
        self.tracker = tracker ?? TrackerConfiguration(options.quality)
        self.ocrEveryFrames = ocrEveryFrames ?? Self.ocrCadence(options.quality)
        self.minimumSharpness = minimumSharpness
        self.sceneChange = sceneChange
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
        barcodeFullResolutionScans = barcodes.fullResolutionScans
        barcodeReadFailures = barcodes.readFailures.count
        barcodeLastReadFailure = barcodes.readFailures.last
        ocrPasses = text?.passes ?? 0
        ocrLinesRead = text?.linesRead ?? 0
        ocrConfirmingPasses = text?.confirmingPasses ?? 0
        ocrSkippedBlurred = text?.skippedBlurred ?? 0
        ocrSkippedUnchanged = text?.skippedUnchanged ?? 0
        ocrDetectionFailures = text?.detectionFailures.count ?? 0
        ocrLastDetectionFailure = text?.detectionFailures.last
    }

    public var framesScanned = 0
    public var barcodeScans = 0
    /// Frames whose barcode scan was skipped because nothing had changed.
    public var barcodeScansReused = 0
    /// Barcode scans of the frame at full resolution.
    public var barcodeFullResolutionScans = 0
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
    public init() {}
}

/// Barcodes for one frame, skipping the scan when the frame equals the last one scanned.
///
/// zxing-cpp reads the frame at full resolution (`SequenceConfiguration.barcodesAtFullResolution`):
/// every code of a page, each on every scan (issue #41). Before zxing-cpp 3, zbar read the reduced
/// processing image and the full frame was scanned every fourth scan and in a few spots around codes
/// found there, which cannot follow thirty codes at once.
/// Owned by one thread at a time (the deterministic loop, or the live pipeline's barcode thread).
final class BarcodeStage: @unchecked Sendable {
    private let scanner: ImageScanner
    private var gate: SceneChangeGate
    private let fullResolution: Bool
    private var cadence: BarcodeCadence
    private var lastResult: [RecognizedItem] = []
    var scans = 0
    var reused = 0
    /// Scans of the frame at full resolution.
    var fullResolutionScans = 0
    /// Reads zxing-cpp failed, and why it last did (`BarcodeRecognizer.zxingFailures`).
    var readFailures: (count: Int, last: String?) { scanner.barcodeFailures }
    /// Consecutive frames that matched the last scanned one.
    private(set) var unchangedStreak = 0

    init(options: ScanOptions, sceneChange: SceneChangeGate.Configuration = .init(), fullResolution: Bool = false) throws(ScannerError) {
        var barcodeOptions = options
        barcodeOptions.types = RecognitionTypes(symbologies: options.types.symbologies, contentTypes: [])
        scanner = try ImageScanner(options: barcodeOptions, live: true)
        gate = SceneChangeGate(configuration: sceneChange)
        self.fullResolution = fullResolution
        cadence = BarcodeCadence(thoroughEvery: scanner.settings.liveThoroughBarcodeScanEvery)
    }

    /// - Parameter detail: the frame at full resolution (decoded only when scanned at full resolution).
    func scan(_ image: GrayImage, detail: () -> GrayImage? = { nil }) -> [RecognizedItem] {
        // A static scene (a kiosk with nobody in front of it) costs a thumbnail, not a scan.
        let thumbnail = FrameMetrics.thumbnail(image)
        let changed = !gate.isUnchanged(thumbnail)
        if changed {
            unchangedStreak = 0
            gate.rebase(on: thumbnail)
        } else {
            unchangedStreak += 1
        }
        let next = cadence.next(sceneChanged: changed)
        guard next != .reuse else {
            reused += 1
            return lastResult
        }
        scans += 1
        var found: [RecognizedItem]
        if fullResolution, let full = detail(), full.width > image.width {
            fullResolutionScans += 1
            found = scanner.scanBarcodes(full, thorough: next == .thorough)
        } else {
            found = scanner.scanBarcodes(image, thorough: next == .thorough)
        }
        // Come to rest: the thorough look adds to what the last scan of this scene found.
        if !changed { found = Self.merge(lastResult, found) }
        lastResult = found
        return found
    }

    /// `found` plus what `more` found that `found` does not already hold at the same place (one
    /// symbol must not become two observations in one frame).
    static func merge(_ found: [RecognizedItem], _ more: [RecognizedItem]) -> [RecognizedItem] {
        found
            + more.filter { item in
                !found.contains { $0.symbology == item.symbology && $0.payload == item.payload && $0.bounds.contains(item.bounds.center) }
            }
    }
}

/// Text for one frame behind the gates, line by line: unchanged since the last pass and every line
/// confirmed → that reading again; too blurred → not read (nil); otherwise the lines are detected on
/// the frame at full resolution and the `LineSchedule` picks the few to read (new ones, unconfirmed
/// ones, and now and then confirmed ones); the other lines keep their last reading, placed where the
/// line is now.
/// Owned by one thread at a time (the deterministic loop, or the live pipeline's text thread).
final class TextStage: @unchecked Sendable {
    private let scanner: ImageScanner
    private let configuration: SequenceConfiguration
    private var schedule = LineSchedule<[LineItem]>()
    private var gate: SceneChangeGate
    /// When the scene last changed and was read (the trackers' clock).
    private var sceneReadAt: Double?
    private var lastReading = Reading(items: [], carried: [], isRepeat: true)
    var passes = 0
    /// Lines read by the recognizer (a pass reads a few of the lines it finds).
    var linesRead = 0
    var skippedBlurred = 0
    var skippedUnchanged = 0
    /// Passes that only gave lines their confirming read (`awaitsConfirmation`).
    var confirmingPasses = 0
    /// Frames the line detector failed on, and why it last did (`ImageScanner.detectionFailures`).
    var detectionFailures: (count: Int, last: String?) { scanner.detectionFailures }
    /// What the last `read` measured, for guidance (`GuidanceAdvisor`).
    private(set) var guidanceSample: GuidanceSample?
    private var previous: (thumbnail: [UInt8], time: Double)?
    private var lastSharpness = 0.0
    /// When lines of text were last found, and the glyph height of the largest (full-resolution px).
    private var linesSeen: (time: Double, glyphHeight: Double)?

    /// Whether the last pass left a line that said something awaiting the read that would confirm it.
    ///
    /// Passes are rationed (`SequenceConfiguration.ocrEveryFrames`), and an item is added on its
    /// second agreeing read: a line first read just after it became legible waited a whole pass
    /// interval for that read, though it costs one line's reading (~12 ms) and a detection. So the
    /// frame after such a pass gets a short pass that reads only those lines (`read(…, confirming:)`).
    var awaitsConfirmation: Bool { schedule.hasLinesAwaitingConfirmation }

    /// Where detection and each line's reading are timed.
    private let metrics: PipelineMetrics?

    init(configuration: SequenceConfiguration, metrics: PipelineMetrics? = nil) throws(ScannerError) {
        self.metrics = metrics
        var textOptions = configuration.options
        textOptions.types.symbologies = []
        if let make = configuration.textReaders {
            let readers = make()
            scanner = try ImageScanner(options: textOptions, lineDetector: readers.detector, recognizers: readers.recognizers)
        } else {
            scanner = try ImageScanner(options: textOptions, lineModel: configuration.lineModel, lineDetection: .network, live: true)
        }
        self.configuration = configuration
        gate = SceneChangeGate(configuration: configuration.sceneChange)
    }

    /// A pass's text: `items` read on this pass (new evidence), `carried` the readings of lines found
    /// again but not read again (no new evidence), and whether it merely repeats the previous pass.
    struct Reading {
        var items: [RecognizedItem]
        var carried: [RecognizedItem]
        var isRepeat: Bool
    }

    /// - Parameters:
    ///   - image: the processing image (the gates look at it).
    ///   - detail: the same frame at full resolution, decoded only when the pass reads (small print
    ///     needs every pixel the camera sent); nil → `image`.
    ///   - believed: what the tracker has added (`believed(_:)`): a line is read until what it says is.
    ///   - time: the trackers' clock, seconds.
    ///   - confirming: a confirming pass (`awaitsConfirmation`): only the lines awaiting their
    ///     confirming read are read, and nil is returned when none is found.
    func read(
        _ image: GrayImage, detail: () -> GrayImage? = { nil }, believed: Set<String>? = nil, time: Double, confirming: Bool = false
    ) -> Reading? {
        let thumbnail = FrameMetrics.thumbnail(image)
        defer { guidanceSample = sample(thumbnail, time: time) }
        let unchanged = gate.isUnchanged(thumbnail)
        if Self.skipsStillFrame(
            unchanged: unchanged, pendingLines: schedule.hasPendingLines, stillFor: sceneReadAt.map { time - $0 } ?? 0)
        {
            if confirming { return nil }
            // The same scene, read and agreed on: reading it again would only repeat any misreading.
            skippedUnchanged += 1
            var repeated = lastReading
            repeated.isRepeat = true
            return repeated
        }
        lastSharpness = FrameMetrics.sharpness(image)
        if lastSharpness < configuration.minimumSharpness {
            skippedBlurred += 1
            // Not read; but guidance needs to know whether text is in view (a dark or blurred card
            // scores low here, and so does a blank frame): the lines are looked for on each.
            lookForLinesForGuidance(in: image, everyTime: true, time: time)
            return nil
        }
        passes += 1
        // The reference moves only with the scene: a card creeping in is compared with the frame
        // before it crept, not with the last pass, so its steps add up to a change.
        if !unchanged {
            gate.rebase(on: thumbnail)
            sceneReadAt = time
        }
        let full = detail() ?? image
        // A "line" of one or two glyphs says nothing a client asked for (a phone number, address or
        // link has many characters, and even blurred together they leave more pieces) and is the
        // costliest to read: a rule line or an edge straightened to the reading height is a long
        // strip that took Tesseract 100–200 ms to read as nothing. Measured on the footage (2026-11-22, five
        // clips): 75 such reads, a fifth of the reading time, none typed.
        let lines = timed(.detection) { scanner.textLines(in: full) }.filter { $0.glyphs >= Self.minimumGlyphs }
        // Guidance's evidence of text in view is the classical detector's (`lookForLinesForGuidance`).
        lookForLinesForGuidance(in: full, measured: true, time: time)
        let quads = lines.map(\.quad)
        let chosen = schedule.plan(
            quads, signatures: quads.map { scanner.lineSignature($0, in: full) }, priorities: lines.map { Double($0.glyphs) },
            believed: believed, time: time, confirmingOnly: confirming)
        if confirming {
            guard !chosen.isEmpty else { return nil }
            confirmingPasses += 1
        }
        for index in chosen {
            let read = timed(.reading) { scanner.readLine(quads[index], in: full) }
            let items = Self.admitted(read?.items ?? [], believed: believed)
            linesRead += 1
            let earlier = schedule.standing(forQuad: index) ?? []
            let part = Self.readsAPart(read?.items ?? [], admitted: items, of: earlier)
            // Said nothing asked for, but may be a misread of something that is (`LineSchedule.record(…, doubt:)`).
            let doubt = read.flatMap { ReadingFusion.mayBeTyped($0.text) ? $0.text : nil }
            // Such a read of a line that said something typed is no evidence against it: a misread,
            // taken as garbage is (the line goes on saying it, `LineSchedule.standing`). Receipt seed 1
            // (unpaced, 2026-11-26): its phone number, read in doubt twice after it was added, was
            // removed in view and added again.
            let misread = doubt != nil && earlier.contains { $0.item.contentType != nil }
            schedule.record(
                items, key: items.map { Self.key($0.item) }, forQuad: index, time: time,
                unconfident: !part && items.isEmpty
                    && (misread
                        || Self.readsAsGarbage(confidence: read?.confidence ?? 0, characters: read.map { ImageScanner.characters($0.text) } ?? 0)),
                confidence: read?.confidence ?? 0,
                part: part,
                doubt: doubt)
        }
        let toImage = { (p: Point) in Point(x: p.x / Double(full.width), y: p.y / Double(full.height)) }
        var reading = Reading(items: [], carried: [], isRepeat: false)
        for index in quads.indices {
            // New evidence only from a line read on this pass, not merely chosen (a line put off
            // keeps what it said), and not read as garbage or as a part of what it said: that
            // carries what it said before (`LineSchedule.standing`), no evidence, but its item is
            // still there.
            let line = schedule.line(forQuad: index)
            let isNewRead = line.lastRead == time && !schedule.carries(line)
            guard let said = schedule.standing(forQuad: index) else { continue }
            func placed(_ items: [LineItem]) -> [RecognizedItem] {
                items.map { item in
                    var placed = item.placed(on: quads[index])
                    placed.bounds = placed.bounds.map(toImage)
                    return placed
                }
            }
            if isNewRead {
                reading.items += placed(said)
            } else {
                reading.carried += placed(said)
            }
        }
        lastReading = reading
        return reading
    }

    /// Guidance's lines are looked for on unread (blurred) frames at most this often, seconds.
    static let guidanceLookEvery = 0.5
    /// Lines found this long ago still count as text in view, seconds.
    static let guidanceLinesLast = 1.0

    /// Whether text is in view, read or not — too blurred, or too faint for the reading's contrast
    /// limit (a card in a dark room) — at most every `guidanceLookEvery` seconds, by the classical
    /// detector (`ImageScanner.textLines(in:evenFaint:)`): the detector network sees text in a
    /// camera's noise and in a QR code leaving the frame (the sequence clip, 2026-11-26: the person
    /// was told the empty scene was blurry, and nothing while the card was). `measured`: `image` is
    /// the frame at full resolution, so the lines' heights are the glyphs'. `everyTime`: a frame too
    /// blurred to read is looked at whenever it comes, and a look that finds no line ends "text in
    /// view" at once: a card gone in a cut leaves a blank frame, not a blurred card (the demo clip at
    /// realtime: `blurry` on its blank frames, within a second of the card's last lines).
    private func lookForLinesForGuidance(in image: GrayImage, measured: Bool = false, everyTime: Bool = false, time: Double) {
        guard everyTime || linesSeen.map({ time - $0.time >= Self.guidanceLookEvery }) ?? true else { return }
        let lines = timed(.detection) { scanner.textLines(in: image, evenFaint: true) }.filter { $0.glyphs >= Self.minimumGlyphs }
        guard !lines.isEmpty else {
            linesSeen = nil
            return
        }
        let tallest = lines.map { $0.quad.topLeft.distance(to: $0.quad.bottomLeft) / Self.linePadding }.max() ?? 0
        linesSeen = (time, measured ? tallest : (linesSeen?.glyphHeight ?? .infinity))
    }

    private func sample(_ thumbnail: [UInt8], time: Double) -> GuidanceSample {
        defer { previous = (thumbnail, time) }
        let count = Double(max(1, thumbnail.count))
        // Change per 30th of a second: passes come every few frames, at a pace of their own.
        let motion =
            previous.map { previous in
                Double(zip(previous.thumbnail, thumbnail).reduce(0) { $0 + abs(Int($1.0) - Int($1.1)) }) / count
                    / max(1, (time - previous.time) * 30)
            } ?? 0
        let recent = linesSeen.flatMap { time - $0.time <= Self.guidanceLinesLast ? $0 : nil }
        return GuidanceSample(
            time: time, textInView: recent != nil, brightness: Double(thumbnail.reduce(0) { $0 + Int($1) }) / count,
            saturated: Double(thumbnail.filter { $0 >= 254 }.count) / count, sharpness: lastSharpness, motion: motion,
            largestGlyphHeight: recent.flatMap { $0.glyphHeight.isFinite ? $0.glyphHeight : nil })
    }

    private func timed<T>(_ stage: PipelineMetrics.Stage, _ body: () -> T) -> T {
        guard let metrics else { return body() }
        return metrics.measure(stage, body)
    }

    /// While the scene is still, lines that still need reading are read for at most this long (s)
    /// after it last changed. A still, noisy desk makes new clutter "lines" on every pass (noise
    /// moves their ends and splits them), so lines are always pending there and the text thread
    /// never rested (a static desk through the emulated camera: 8 passes a second, 56% of a core);
    /// a card held still has its lines read some 60 times in 2 s, and more reads of the same pixels
    /// would repeat their misreadings.
    static let pendingReadingWhileStill = 2.0

    /// Whether a frame is left unread as a repeat of the last pass: the scene is unchanged, and no
    /// line needs reading or it has been still for `pendingReadingWhileStill`.
    static func skipsStillFrame(unchanged: Bool, pendingLines: Bool, stillFor: Double) -> Bool {
        unchanged && (!pendingLines || stillFor >= pendingReadingWhileStill)
    }

    /// A read up to a cut end of its line (a thumb, the frame's edge) may be a part of what is
    /// printed ("lo@…" of "hello@…"): it keeps an item clients were told about, and adds none.
    static func admitted(_ items: [LineItem], believed: Set<String>?) -> [LineItem] {
        items.filter { !$0.reachesCutEnd || believed?.contains(key($0.item)) == true }
    }

    /// Whether a line's read (`read`, of which `admitted` are left after `admitted(_:believed:)` and
    /// the line network) says only a part of what the line said before (`earlier`): nothing typed
    /// is left, and a typed item left out for reaching a cut end lies where an earlier typed item
    /// of its type lay. The line is then still taken to say that (`LineSchedule.record(…, part:)`):
    /// the detector may find a line short of its end for a while (a tilted link found as `…/i` and
    /// `nfo`), and a card sliding out of the frame cuts its lines before they are gone.
    static func readsAPart(_ read: [LineItem], admitted: [LineItem], of earlier: [LineItem]) -> Bool {
        guard !admitted.contains(where: { $0.item.contentType != nil }) else { return false }
        return read.contains { part in part.reachesCutEnd && earlier.contains { $0.sharesPlace(with: part) } }
    }

    /// A line that reads as nothing below this mean word confidence read as garbage (clutter, or
    /// text too blurred to read). On the footage, desk clutter read at 0.0–0.45; text read at
    /// 0.6–0.97, and at 0.28–0.30 while still blurred.
    static let clutterConfidence = 0.5

    /// Whether a line's read of nothing is garbage: below `clutterConfidence`, or fewer letters and
    /// digits than a line that says something has (`ImageScanner.minimumCharacters`). The network
    /// reads desk clutter as one or two symbols at 0.2–0.72 (1280×720 card and desk footage, seed 1,
    /// 2026-11-25): read so it says nothing but was no garbage, and was read again every half second.
    static func readsAsGarbage(confidence: Double, characters: Int) -> Bool {
        confidence < clutterConfidence || characters < ImageScanner.minimumCharacters
    }

    /// A detected line's quad is this many times its glyphs' height (padded by a fifth of it on
    /// each side, `TextLineDetector`).
    static let linePadding = 1.4

    /// Lines with fewer glyphs are not followed or read.
    static let minimumGlyphs = 3

    /// What the schedule compares a line's reads by.
    static func key(_ item: RecognizedItem) -> String { "\(item.contentType?.rawValue ?? "text") \(item.payload)" }

    /// The keys of the text items clients have been told about.
    static func believed(_ live: [TrackedItem]) -> Set<String> {
        Set(live.filter { $0.item.kind == .text }.map { key($0.item) })
    }
}

/// Single-item mode keeps the one observation nearest the centre of the region of interest.
func selectSingle(_ items: [RecognizedItem], _ configuration: SequenceConfiguration) -> [RecognizedItem] {
    guard configuration.singleItem, items.count > 1 else { return items }
    let roi = configuration.options.regionOfInterest
    let centre = Point(x: roi.x + roi.width / 2, y: roi.y + roi.height / 2)
    return [items.min { $0.bounds.center.distance(to: centre) < $1.bounds.center.distance(to: centre) }!]
}

/// Single-item mode on a pass's text: the new reads are one
/// choice, the carried ones another.
func selectSingle(_ reading: TextStage.Reading, _ configuration: SequenceConfiguration) -> TextStage.Reading {
    var selected = reading
    selected.items = selectSingle(reading.items, configuration)
    selected.carried = selectSingle(reading.carried, configuration)
    return selected
}

/// The per-frame work in order, every decision a function of the frame (its index and pixels):
/// barcodes on every frame, OCR on every n-th frame unless a gate says it is pointless, then the
/// trackers. This is the deterministic pipeline (`--pace none`, tests); `LivePipeline` runs the same
/// stages on their own threads.
public final class SequenceHandler: ScannerPipeline, @unchecked Sendable {
    public private(set) var configuration: SequenceConfiguration
    /// Frames a second of the source: the trackers' clock in `run`.
    public let fps: Double
    private var barcodes: BarcodeStage
    private var text: TextStage?
    private var tracker: ItemTracker
    private var scanned = 0
    /// `pause` and the tracker, between the frame thread and `setPaused` callers.
    private var pause = PauseState()
    /// What the last `process` said about guidance, to be emitted after its item events.
    private(set) var guidanceChange: GuidanceAdvisor.Change?
    private let lock = NSLock()
    /// A configuration to apply before the next frame (set from another thread).
    private let pending = Mutex<SequenceConfiguration?>(nil)
    /// Live per-stage figures (`stats`).
    public let metrics = PipelineMetrics()

    public init(configuration: SequenceConfiguration, fps: Double = 30, makeID: @escaping @Sendable () -> UUID = { UUID() }) throws(ScannerError) {
        self.configuration = configuration
        self.fps = fps
        barcodes = try BarcodeStage(
            options: configuration.options, sceneChange: configuration.sceneChange, fullResolution: configuration.barcodesAtFullResolution)
        text = configuration.options.types.wantsText ? try TextStage(configuration: configuration, metrics: metrics) : nil
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
        if let changed = pending.withLock({ state -> SequenceConfiguration? in
            defer { state = nil }
            return state
        }) {
            if let stage = try? BarcodeStage(
                options: changed.options, sceneChange: changed.sceneChange, fullResolution: changed.barcodesAtFullResolution)
            {
                barcodes = stage
            }
            text = changed.options.types.wantsText ? ((try? TextStage(configuration: changed, metrics: metrics)) ?? text) : nil
            tracker.configuration = changed.tracker
            configuration = changed
        }
        scanned += 1
        guidanceChange = nil
        let image = frame.image
        // The frame at full resolution, decoded once for both stages (each decoded it for itself).
        var decodedFull: GrayImage??
        func fullResolution() -> GrayImage? {
            if decodedFull == nil { decodedFull = .some(frame.fullResolution()) }
            return decodedFull!
        }
        metrics.record(.capture)
        let scansBefore = barcodes.scans
        let found = selectSingle(
            metrics.measure(.barcodes, { barcodes.scan(image, detail: fullResolution) }, ran: { _ in barcodes.scans > scansBefore }),
            configuration)
        var reading: TextStage.Reading? = nil
        if let text {
            // The regular passes, and a confirming pass on the frame after one that needs it.
            let phase = frame.index % configuration.ocrEveryFrames
            let confirming = phase == 1 && text.awaitsConfirmation
            if phase == 0 || confirming {
                let passesBefore = text.passes
                let believed = TextStage.believed(tracker.liveItems)
                reading = metrics.measure(
                    .text, { text.read(image, detail: fullResolution, believed: believed, time: time, confirming: confirming) },
                    ran: { _ in text.passes > passesBefore })
                if let sample = text.guidanceSample { guidanceChange = pause.guidance(after: sample) }
            }
        }
        let read = reading.map { selectSingle($0, configuration) }
        return tracker.update(
            FrameObservations(
                frame: frame.index, time: time, barcodes: found, text: read?.items,
                textIsRepeat: reading?.isRepeat ?? false, textCarried: read?.carried ?? []))
    }

    /// Ends everything that is still live (end of a file source, shutdown).
    public func finish() -> [TrackerAction] { tracker.removeAll() }

    /// Every frame of `source` in order on this thread, the trackers' clock the frame's index over
    /// `fps`: the same events on every run.
    public func run(source: FrameSource, heartbeat: Heartbeat? = nil, emit: @escaping @Sendable (ScannerEvent) -> Void) {
        locked { pause.emit = emit }
        defer { locked { pause.emit = nil } }
        runSource(
            source,
            frame: { frame in
                heartbeat?.beat()
                locked {
                    guard !pause.paused else { return }
                    pause.lastFrame = frame.index
                    for action in process(frame, time: Double(frame.index) / fps) { emit(.item(action, frame: frame.index)) }
                    if let guidanceChange { emit(.guidance(guidanceChange)) }
                }
            },
            removeAll: finish, locked: { locked($0) }, emit: emit)
    }

    public func setPaused(_ paused: Bool) {
        locked { pause.set(paused) { tracker.removeAll() } }
    }

    private func locked(_ body: () -> Void) {
        lock.lock()
        body()
        lock.unlock()
    }
}
