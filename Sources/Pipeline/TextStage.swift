import Foundation
import Logging
import Recognition
import ScannerCore
import TextDetection
import Tracking

/// Text for one frame behind the gates, line by line: unchanged since the last pass and every line
/// confirmed → that reading again; too blurred → not read (nil); otherwise the lines are detected
/// where `TextLooks` says to look (the frame reduced, or windows of it at full resolution and
/// closer) and the `LineSchedule` picks the few to read (new ones, unconfirmed
/// ones, and now and then confirmed ones); the other lines keep their last reading, placed where the
/// line is now.
/// Owned by one thread at a time (`Pipeline`: the caller's thread, every frame; or the text thread, newest frame).
final class TextStage: @unchecked Sendable {
    let reader: TextReader
    private let configuration: SequenceConfiguration
    private var schedule: LineSchedule<[LineItem]>
    private var gate: SceneChangeGate
    /// When the scene last changed and was read (the trackers' clock).
    private var sceneReadAt: Double?
    private var lastReading = PassText(items: [], carried: [], isRepeat: true)
    var passes = 0
    /// Lines read by the recognizer (a pass reads a few of the lines it finds).
    var linesRead = 0
    var skippedBlurred = 0
    var skippedUnchanged = 0
    /// Passes that only gave lines their confirming read (`awaitsConfirmation`).
    var confirmingPasses = 0
    /// Frames the line detector failed on, and why it last did (`TextReader.detectionFailures`).
    var detectionFailures: (count: Int, last: String?) { reader.detectionFailures }
    /// Lines the recognizers failed to read (`TextReader.readFailures`).
    var readFailures: Int { reader.readFailures }
    /// What the last `read` measured, for guidance (`GuidanceAdvisor`).
    private(set) var guidanceSample: GuidanceSample?
    private var previous: (thumbnail: [UInt8], time: Double)?
    /// Where the detector looks on each pass, and at what scale (`TextLooks`).
    private var looks: TextLooks
    /// The quads of the lines the last detection found (full-resolution pixels): `looks`' evidence.
    private var lastLines: [TextLooks.SeenLine] = []
    /// Windows looked at below or at full resolution, beside looks at the whole frame (`stats`).
    var windowLooks = 0
    var wholeFrameLooks = 0
    /// When lines of text were last found, and the glyph height of the largest (full-resolution px).
    private var linesSeen: (time: Double, textHeight: Double)?
    /// The frames of each line whose reading is in question, by the schedule's line id
    /// (`LineSchedule.isInQuestion`): its next read reads them averaged.
    private var stacks: [Int: LineStack] = [:]
    /// Reads of a line averaged over frames (`stats`).
    var stackedReads = 0

    /// Whether the last pass left a line that said something awaiting the read that would confirm it.
    ///
    /// Passes are rationed (`SequenceConfiguration.ocrEveryFrames`), and an item is added on its
    /// second agreeing read: a line first read just after it became legible waited a whole pass
    /// interval for that read, though it costs one line's reading (~12 ms) and a detection. So the
    /// frame after such a pass gets a short pass that reads only those lines (`read(…, confirming:)`).
    var awaitsConfirmation: Bool { schedule.hasLinesAwaitingConfirmation }

    /// The last regular pass, when it found lines and none needed reading: its time and where the
    /// frame had changed then (`TextTuning.Stage.rests`).
    private var settled: (time: Double, changed: NormalizedRect?)?
    /// Frames left unread because the stage rested (`TextTuning.Stage.rests`).
    var skippedResting = 0

    /// Where detection and each line's reading are timed.
    private let metrics: PipelineMetrics?
    /// Each pass's looks, lines and reads, at `trace` level (`--log-level trace`): what the live text
    /// stage saw and why an item came or did not. The text read is a card's: never above `trace`.
    private let logger: Logger?
    /// Why the text networks did not load, when the stage reads without them (a model found beside
    /// the binary that is damaged: `SequenceConfiguration.lineModelRequired`).
    private(set) var modelFailure: String?

    /// Whether stages for `a` and `b` read with the same line detector and recognizers.
    static func readsAlike(_ a: SequenceConfiguration, _ b: SequenceConfiguration) -> Bool {
        a.textReaders == nil && b.textReaders == nil && a.lineModel == b.lineModel && a.lineModelRequired == b.lineModelRequired
            && a.options.quality == b.options.quality && a.options.languages == b.options.languages
    }

    /// `kept`: the text stage in force. Where it reads with the same models, quality and languages
    /// (a `set` of types or of the region of interest), its detector and recognizers are taken over:
    /// no network is loaded again (0.2–0.6 s). The text thread uses the two stages one after the
    /// other, never at once.
    init(
        configuration: SequenceConfiguration, metrics: PipelineMetrics? = nil, logger: Logger? = nil, kept: TextStage? = nil
    )
        throws(ScannerError)
    {
        self.metrics = metrics
        self.logger = logger
        var textOptions = configuration.options
        textOptions.types.symbologies = []
        if let kept, Self.readsAlike(kept.configuration, configuration) {
            reader = try kept.reader.reading(textOptions)
            modelFailure = kept.modelFailure
        } else if let make = configuration.textReaders {
            let readers = make()
            reader = try TextReader(options: textOptions, lineDetector: readers.detector, recognizers: readers.recognizers)
        } else {
            do {
                reader = try TextReader(options: textOptions, lineModel: configuration.lineModel, lineDetection: .network, live: true)
            } catch .libraryFailure(let library, let reason) where configuration.lineModel != nil && !configuration.lineModelRequired {
                modelFailure = "\(library): \(reason)"
                reader = try TextReader(options: textOptions, lineModel: nil, lineDetection: .network, live: true)
            }
        }
        self.configuration = configuration
        gate = SceneChangeGate(configuration: configuration.sceneChange)
        schedule = LineSchedule(configuration: configuration.textTuning.schedule)
        looks = TextLooks(configuration: configuration.textTuning.looks)
    }

    /// A pass's text: `items` read on this pass (new evidence), `carried` the readings of lines found
    /// again but not read again (no new evidence), and whether it merely repeats the previous pass.
    struct PassText {
        var items: [RecognizedItem]
        var carried: [RecognizedItem]
        var isRepeat: Bool
        /// The lines the pass found, read or not (corners normalized to 0…1): where the text is, for
        /// which quadrilateral is the document (`DocumentStage`). A repeat's are its pass's.
        var lines: [Quad] = []
    }

    /// - Parameters:
    ///   - image: the processing image (the gates look at it).
    ///   - detail: the same frame at full resolution, decoded only when the pass reads (small print
    ///     needs every pixel the camera sent); nil → `image`.
    ///   - believed: what the tracker has added (`believed(_:)`): a line is read until what it says is.
    ///   - time: the trackers' clock, seconds.
    ///   - frameTime: when the frame was looked at, if earlier than `time` (a confirming pass reads
    ///     the frame after the last pass's, `Mailbox.takeFollowing`): guidance measures motion
    ///     between frames by it.
    ///   - confirming: a confirming pass (`awaitsConfirmation`): only the lines awaiting their
    ///     confirming read are read, and nil is returned when none is found.
    func read(
        _ image: GrayImage, look: FrameLook, detail: () -> GrayImage? = { nil }, believed: Set<String>? = nil, time: Double,
        frameTime: Double? = nil, confirming: Bool = false
    ) -> PassText? {
        let thumbnail = look.thumbnail
        defer { guidanceSample = sample(look, time: time, frameTime: frameTime ?? time) }
        let unchanged = gate.isUnchanged(thumbnail)
        let resting = !confirming && tuning.stage.rests(settled: settled, changed: look.changedRegion, time: time)
        if resting
            || tuning.stage.skipsStillFrame(
                unchanged: unchanged, pendingLines: schedule.hasPendingLines, stillFor: sceneReadAt.map { time - $0 } ?? 0)
        {
            if confirming { return nil }
            // The same scene, read and agreed on: reading it again would only repeat any misreading.
            if resting {
                skippedResting += 1
                // What the settled pass saw stands for this frame, for guidance too: its lines are
                // still in view (a rest outlasts `guidanceLinesLast`).
                if let seen = linesSeen { linesSeen = (time, seen.textHeight) }
            } else {
                skippedUnchanged += 1
            }
            var repeated = lastReading
            repeated.isRepeat = true
            return repeated
        }
        if look.sharpness < configuration.minimumSharpness {
            skippedBlurred += 1
            settled = nil
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
        // A line of one or two glyphs is not read (`TextReader.liveMinimumGlyphs`).
        let lines = detectLines(in: full, changed: look.changedRegion, time: time).filter { $0.glyphEstimate >= TextReader.liveMinimumGlyphs }
        lastLines = lines.map { TextLooks.SeenLine($0.quad) }
        // Guidance's evidence of text in view is the classical detector's (`lookForLinesForGuidance`).
        lookForLinesForGuidance(in: full, measured: true, time: time)
        let quads = lines.map(\.quad)
        let chosen = schedule.plan(
            quads, signatures: quads.map { reader.lineSignature($0, in: full) }, priorities: lines.map { Double($0.glyphEstimate) },
            believed: believed, time: time, confirmingOnly: confirming)
        if confirming {
            guard !chosen.isEmpty else { return nil }
            confirmingPasses += 1
        }
        logger?.trace(
            "text pass", metadata: ["time": "\(time)", "confirming": "\(confirming)", "lines": "\(quads.count)", "reading": "\(chosen)"])
        gatherFrames(of: quads, chosen: chosen, in: full)
        for index in chosen {
            let stacked = stacks[schedule.line(forQuad: index).id].flatMap { $0.strips.count > 1 ? $0.average : nil }
            if stacked != nil { stackedReads += 1 }
            let read = timed(.reading) { reader.readLine(quads[index], in: full, stacked: stacked) }
            linesRead += 1
            let said = LiveReadingPolicy.judge(
                read, earlier: schedule.standing(forQuad: index) ?? [], believed: believed, configuration: tuning.reading)
            schedule.record(
                .init(
                    said.items, key: said.keys, unconfident: said.unconfident, confidence: said.confidence, part: said.part, doubt: said.doubt),
                forQuad: index, time: time)
            logger?.trace(
                "text read",
                metadata: [
                    "time": "\(time)", "line": "\(index)", "at": "\(Int(quads[index].center.x)),\(Int(quads[index].center.y))",
                    "size": "\(Int(quads[index].meanLength))x\(Int(quads[index].meanHeight))", "text": "\(read?.text ?? "")",
                    "confidence": "\(read?.confidence ?? 0)",
                    "items": "\(read?.items.map { "\($0.item.payload) cut=\($0.reachesCutEnd) confidence=\($0.item.confidence)" } ?? [])",
                    "says": "\(said.keys.sorted())",
                ])
        }
        // A line whose last read was garbage says nothing of the print's height (`TextLooks.plan`): a
        // card coming into view, blurred, is found as one "line" the size of the card, and taken for
        // its print it sent the looks to the reduced frame for a second while the small print was
        // legible (the generator's `smallprint` clip, networks in f32: the phone number added 26
        // frames after legible; 8 now; docs/benchmarks.md).
        lastLines = quads.indices.map { TextLooks.SeenLine(quads[$0], readAsGarbage: schedule.line(forQuad: $0).garbageReads > 0) }
        let toImage = { (p: Point) in Point(x: p.x / Double(full.width), y: p.y / Double(full.height)) }
        var reading = PassText(items: [], carried: [], isRepeat: false, lines: quads.map { $0.map(toImage) })
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
        // A street and the locality under it are one address, a date and the time after it one
        // moment (`ImageScanner.joiningLines`): new when either part was read now.
        let all = reading.items + reading.carried
        let joined = ImageScanner.joiningLines(all)
        if joined.count != all.count || joined.contains(where: { $0.parts.count > 1 }) {
            let newCount = reading.items.count
            reading.items = joined.filter { $0.parts.contains { $0 < newCount } }.map(\.item)
            reading.carried = joined.filter { !$0.parts.contains { $0 < newCount } }.map(\.item)
        }
        lastReading = reading
        logger?.trace(
            "text pass read",
            metadata: [
                "time": "\(time)", "new": "\(reading.items.filter { $0.contentType != nil }.map(\.payload))",
                "carried": "\(reading.carried.filter { $0.contentType != nil }.map(\.payload))",
            ])
        if !confirming {
            let settles = tuning.stage.settles(
                foundLines: !quads.isEmpty, readAny: !chosen.isEmpty, pendingLines: schedule.hasPendingLines, believed: believed,
                said: Set((reading.items + reading.carried).map(LiveReadingPolicy.key)))
            settled = settles ? (time, look.changedRegion) : nil
        }
        return reading
    }

    /// Adds this frame's picture of each line in question (`LineSchedule.isInQuestion`) to its stack,
    /// and of each line about to be read that has one; forgets the stacks of the other lines.
    private func gatherFrames(of quads: [Quad], chosen: [Int], in full: GrayImage) {
        var kept: [Int: LineStack] = [:]
        for index in quads.indices {
            let line = schedule.line(forQuad: index)
            guard schedule.isInQuestion(line) || (chosen.contains(index) && stacks[line.id] != nil) else { continue }
            var stack = stacks[line.id] ?? LineStack(configuration: tuning.stack)
            stack.add(quads[index], in: full) { reader.straightenedLine($0, in: full) ?? full }
            kept[line.id] = stack
        }
        stacks = kept
    }

    /// The lines of `full` (the frame at full resolution), found where `looks` says to look.
    /// `changed`: where the frame differs from the scene behind (`FrameLook.changedRegion`).
    private func detectLines(in full: GrayImage, changed: NormalizedRect?, time: Double) -> [DetectedLine] {
        let area = reader.options.regionOfInterest.pixelRect(width: full.width, height: full.height)
        guard let input = reader.detectionInput(for: area) else {
            wholeFrameLooks += 1
            return timed(.detection) { reader.textLines(in: full) }
        }
        let region = changed.map { $0.pixelRect(width: full.width, height: full.height) }
        var found: [DetectedLine] = []
        let plan = looks.plan(area: area, input: input, changed: region, lines: lastLines, time: time)
        logger?.trace("text looks", metadata: ["time": "\(time)", "changed": "\(region.map { "\($0)" } ?? "-")", "looks": "\(plan)"])
        for look in plan {
            if look.rect == area { wholeFrameLooks += 1 } else { windowLooks += 1 }
            let lines = timed(.detection) { reader.textLines(in: full, within: look.rect) }
            found = TextLooks.merged(found, TextLooks.keeping(lines, of: look, in: plan))
        }
        return found
    }

    /// Whether text is in view, read or not — too blurred, or too faint for the reading's contrast
    /// limit (a card in a dark room) — at most every `TextTuning.Stage.guidanceLookEvery` seconds, by the classical
    /// detector (`TextReader.textLines(in:evenFaint:)`): the detector network sees text in a
    /// camera's noise and in a QR code leaving the frame (the sequence clip, 2026-11-26: the person
    /// was told the empty scene was blurry, and nothing while the card was). `measured`: `image` is
    /// the frame at full resolution, so the lines' text heights are its pixels'. `everyTime`: a frame too
    /// blurred to read is looked at whenever it comes, and a look that finds no line ends "text in
    /// view" at once: a card gone in a cut leaves a blank frame, not a blurred card (the demo clip at
    /// realtime: `blurry` on its blank frames, within a second of the card's last lines).
    private func lookForLinesForGuidance(in image: GrayImage, measured: Bool = false, everyTime: Bool = false, time: Double) {
        guard everyTime || linesSeen.map({ time - $0.time >= tuning.stage.guidanceLookEvery }) ?? true else { return }
        let lines = timed(.detection) { reader.textLines(in: image, evenFaint: true) }.filter { $0.glyphEstimate >= TextReader.liveMinimumGlyphs }
        guard !lines.isEmpty else {
            linesSeen = nil
            return
        }
        let tallest = lines.map(\.textHeight).max() ?? 0
        linesSeen = (time, measured ? tallest : (linesSeen?.textHeight ?? .infinity))
    }

    private func sample(_ look: FrameLook, time: Double, frameTime: Double) -> GuidanceSample {
        let thumbnail = look.thumbnail
        defer { previous = (thumbnail, frameTime) }
        let count = Double(max(1, thumbnail.count))
        // Change per 30th of a second: passes come every few frames, at a pace of their own.
        let motion =
            previous.map { previous in
                Double(zip(previous.thumbnail, thumbnail).reduce(0) { $0 + abs(Int($1.0) - Int($1.1)) }) / count
                    / max(1, (frameTime - previous.time) * 30)
            } ?? 0
        let recent = linesSeen.flatMap { time - $0.time <= tuning.stage.guidanceLinesLast ? $0 : nil }
        return GuidanceSample(
            time: time, textInView: recent != nil, brightness: look.brightness, saturated: look.saturated, sharpness: look.sharpness,
            motion: motion, largestTextHeight: recent.flatMap { $0.textHeight.isFinite ? $0.textHeight : nil },
            somethingHeldUp: look.heldUp)
    }

    private func timed<T>(_ stage: PipelineMetrics.Stage, _ body: () -> T) -> T {
        guard let metrics else { return body() }
        return metrics.measure(stage, body)
    }

    /// The stage's numbers (`SequenceConfiguration.textTuning`).
    private var tuning: TextTuning { configuration.textTuning }

    /// The keys of the text items clients have been told about.
    static func believed(_ live: [TrackedItem]) -> Set<String> {
        Set(live.filter { $0.item.kind == .text }.map { LiveReadingPolicy.key($0.item) })
    }
}
