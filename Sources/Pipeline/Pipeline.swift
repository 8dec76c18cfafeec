import Capture
import Foundation
import Logging
import Recognition
import ScannerCore
import Synchronization
import Tracking

/// Frames from a source in, `ScannerEvent`s out: each frame looked at once (`FrameLooker`), then the
/// barcode stage, the text stage behind its cadence (`TextCadence`) and the document stage behind
/// its own (`DocumentCadence`), each one step (`barcodeStep`, `textStep`, `documentStep`: a frame and
/// its look in, observations out) whose result is committed to the trackers under one lock
/// (`TrackingState.commit`: items, then documents, then guidance, in order). The pacing chooses only
/// the threads the steps run on:
///
/// - `everyFrame`: every frame in order on the caller's thread, the trackers' clock the frame's
///   index over `fps` (a replay at `--pace none`, tests): every decision a function of the frame,
///   the same events on every run.
/// - `newestFrame`: the live pipeline on 2 cores. The caller's thread captures and looks; one thread
///   scans barcodes on the newest frame whenever it is free, one reads text on the newest frame at
///   the cadence's pace, one looks for documents. Hand-offs keep only the newest frame (`Mailbox`),
///   so capture never waits and nothing queues behind a busy stage.
///
/// Stages are built in one place (`Stages`), at start and by `reconfigure`, which throws when they
/// cannot be (issue #42: they were built in four places, and a failure was dropped).
public final class Pipeline: @unchecked Sendable {
    public enum Pacing: Sendable {
        /// Every frame, on the caller's thread; the trackers' clock is the frame index over `fps`.
        case everyFrame(fps: Double)
        /// The newest frame to each stage on a thread of its own; `clock` is the trackers' time in
        /// seconds (monotonic).
        case newestFrame(clock: @Sendable () -> Double)
    }

    /// The stages one configuration needs: built together, handed to the threads that use them.
    struct Stages {
        var barcodes: BarcodeStage
        /// Nil when no text type is wanted.
        var text: TextStage?
        /// Nil when documents are not wanted.
        var documents: DocumentStage?

        /// `kept`: the stages in force (the text stage's networks are taken over; the document stage,
        /// while documents are still wanted, keeps its cadence).
        init(_ configuration: SequenceConfiguration, metrics: PipelineMetrics, logger: Logger?, kept: Stages? = nil) throws(ScannerError) {
            barcodes = try BarcodeStage(configuration: configuration)
            text =
                configuration.options.types.wantsText
                ? try TextStage(configuration: configuration, metrics: metrics, logger: logger, kept: kept?.text) : nil
            documents = configuration.options.types.documents ? kept?.documents ?? DocumentStage() : nil
        }
    }

    public let pacing: Pacing
    /// Where the text stage tells what each pass looked at and read, at `trace` level (nil: nowhere).
    let logger: Logger?
    /// Live per-stage figures (`stats`).
    public let metrics = PipelineMetrics()
    /// A second of unchanged frames on the barcode thread lets the camera decode half of them.
    static let idleAfterFrames = 30

    /// The configuration in force, the trackers and the pause rule, shared by the stages' threads
    /// and the control calls (`TrackingState`).
    private let state: Mutex<TrackingState>

    /// Stages built by `reconfigure`, with a generation each stage's thread compares with its own:
    /// a change applies from the next frame that thread takes, without a pause.
    private let posted: Mutex<(generation: Int, stages: Stages)>
    // Each stage belongs to the thread that runs it (`everyFrame`: the caller's).
    private var barcodes: BarcodeStage
    private var text: TextStage?
    private var documents: DocumentStage?
    private var cadence: TextCadence
    private var framesScanned = 0
    /// Looks at each frame as it enters, for every stage (`FrameLook`); the thread frames enter on
    /// owns it (`everyFrame`: the caller's; `newestFrame`: the capture thread).
    private var looker = FrameLooker()
    /// The generation of the stages each thread runs (`everyFrame`: the barcode one, for all three).
    private var barcodeGeneration = 0
    private var textGeneration = 0
    private var documentGeneration = 0

    public init(
        configuration: SequenceConfiguration, pacing: Pacing, makeID: @escaping @Sendable () -> UUID = { UUID() },
        logger: Logger? = nil
    ) throws(ScannerError) {
        self.logger = logger
        let stages = try Stages(configuration, metrics: metrics, logger: logger)
        self.pacing = pacing
        state = Mutex(
            TrackingState(
                configuration: configuration, tracker: ItemTracker(configuration: configuration.tracker, makeID: makeID),
                documents: DocumentTracker(configuration: .init(items: configuration.tracker), makeID: makeID)))
        posted = Mutex((0, stages))
        barcodes = stages.barcodes
        text = stages.text
        documents = stages.documents
        cadence = Self.cadence(configuration, pacing)
    }

    /// The configuration in force.
    public var configuration: SequenceConfiguration { state.withLock { $0.configuration } }

    public var liveItems: [TrackedItem] { state.withLock { $0.tracker.liveItems + $0.documents.live } }

    /// The stages' counters; read them after `run` returns (the stages' threads write them unlocked).
    public var statistics: SequenceStatistics {
        var s = SequenceStatistics(barcodes: barcodes, text: text)
        s.framesScanned = framesScanned
        s.documentPasses = documents?.passes ?? 0
        return s
    }

    /// Why the text networks did not load, when the text stage in force reads without them (the models
    /// beside the binary damaged: `SequenceConfiguration.lineModelRequired`); nil when they did, or
    /// none were asked for.
    public var textModelFailure: String? { posted.withLock { $0.stages.text?.modelFailure } }

    /// Builds the stages `configuration` needs, on the caller's thread, and applies them from the
    /// next frame each stage takes; selection and tracking settings at once. Throws, changing
    /// nothing, when a stage cannot be built (a model or language gone since the start). Building
    /// takes 0.06–0.22 s (Tesseract, the networks; docs/benchmarks.md), so the stages in force are
    /// kept when they serve the new configuration (only tracking or single-item mode changed).
    /// Callable from any thread, while `run` runs.
    public func reconfigure(_ configuration: SequenceConfiguration) throws(ScannerError) {
        if !configuration.buildsTheSameStages(as: self.configuration) {
            let stages = try Stages(configuration, metrics: metrics, logger: logger, kept: posted.withLock { $0.stages })
            posted.withLock { $0 = ($0.generation + 1, stages) }
        }
        state.withLock { $0.configure(configuration) }
    }

    /// Pauses or resumes recognition (`pause` / `resume`). Pausing removes every item (`removed`
    /// events, then `recognition(paused: true)`), and frames are ignored until recognition resumes
    /// (`recognition(paused: false)`); what is still in view is then added again. Saying what already
    /// holds changes nothing and emits nothing. Callable from any thread, while `run` runs.
    public func setPaused(_ paused: Bool) {
        state.withLock { $0.setPaused(paused) }
    }

    /// Runs until the source ends or is cancelled; `emit` is called in order, with the lock held.
    /// `heartbeat` is beaten once per frame the barcode stage takes: proof for the watchdog that
    /// frames arrive and recognition is not stuck.
    public func run(source: FrameSource, heartbeat: Heartbeat? = nil, emit: @escaping @Sendable (ScannerEvent) -> Void) {
        state.withLock { $0.pause.emit = emit }
        defer { state.withLock { $0.pause.emit = nil } }
        let sourceSaid = { [self] (event: ScannerEvent, removingAllAt: Int?) in
            state.withLock { $0.sourceSaid(event, removingAllAt: removingAllAt) }
        }
        switch pacing {
        case .everyFrame(let fps):
            runSource(
                source,
                frame: { frame in
                    heartbeat?.beat()
                    _ = process(frame, time: Double(frame.index) / fps)
                }, sourceSaid: sourceSaid)
        case .newestFrame(let clock): runNewestFrame(source, clock: clock, heartbeat: heartbeat, sourceSaid: sourceSaid)
        }
    }

    // MARK: Every frame

    /// One frame through every stage and the trackers (`everyFrame`); `time` is the trackers' clock
    /// in seconds. What it changed is emitted (with `run`) and returned; a test may call it directly.
    public func process(_ frame: Frame, time: Double) -> [TrackerAction] {
        guard !state.withLock({ $0.pause.paused }) else { return [] }
        takeStages(since: &barcodeGeneration, stages: [.barcodes, .text, .documents])
        let configuration = self.configuration
        framesScanned += 1
        metrics.record(.capture)
        let looked = LookedFrame(frame: frame, look: looker.look(at: frame.image, time: time), time: time)
        var step = StepResult(frame: frame.index, time: time, generation: barcodeGeneration)
        var observations = FrameObservations(frame: frame.index, time: time, barcodes: barcodeStep(looked, time: time), text: nil)
        if let text {
            cadence.clock = Self.cadence(configuration, pacing).clock
            let action = cadence.next(frame: frame.index, time: time, awaitsConfirmation: text.awaitsConfirmation)
            if action == .pass || action == .confirmingPass {
                let believed = state.withLock { TextStage.believed($0.tracker.liveItems) }
                let pass = textStep(text, looked, believed: believed, time: time, confirming: action == .confirmingPass)
                observations.text = pass.reading?.items
                observations.textIsRepeat = pass.reading?.isRepeat ?? false
                observations.textCarried = pass.reading?.carried ?? []
                step.guidance = pass.guidance
                step.text = Self.seenText(pass.reading, looked)
            }
        }
        step.observations = observations
        if let documents, documents.cadence.next(time: time) == .pass { step.documents = documentStep(documents, looked, text: step.text) }
        return commit(step)
    }

    // MARK: Newest frame

    private func runNewestFrame(
        _ source: FrameSource, clock: @escaping @Sendable () -> Double, heartbeat: Heartbeat?,
        sourceSaid: @escaping (ScannerEvent, Int?) -> Void
    ) {
        let barcodeBox = Mailbox<LookedFrame>()
        let textBox = Mailbox<LookedFrame>()
        let documentBox = Mailbox<LookedFrame>()
        let workers = DispatchGroup()
        // The barcode thread only calls `setIdle`, which sources make thread-safe.
        nonisolated(unsafe) let idleHint = source
        startWorker(workers, name: "scannerd-barcodes") { [self] in
            while let looked = barcodeBox.take() {
                heartbeat?.beat()
                takeStages(since: &barcodeGeneration, stages: [.barcodes])
                framesScanned += 1
                let found = barcodeStep(looked, time: clock())
                idleHint.setIdle(barcodes.unchangedStreak >= Self.idleAfterFrames)
                let index = looked.frame.index
                var step = StepResult(frame: index, time: clock(), generation: barcodeGeneration)
                step.observations = FrameObservations(frame: index, time: step.time, barcodes: found, text: nil)
                commit(step)
            }
        }
        // The text thread runs even when no text type is wanted yet: a `set` or a reload may ask for
        // text later, and frames reach it only while some text type is wanted.
        startWorker(workers, name: "scannerd-text") { [self] in
            // A pass that left lines awaiting their confirming read is confirmed on the frame after
            // its own (`TextCadence.confirmsNext`), not on the newest one a slow pass left behind.
            var following = false
            while var looked = (following ? textBox.takeFollowing() ?? textBox.take() : textBox.take()) {
                following = false
                takeStages(since: &textGeneration, stages: [.text])
                guard let text else { continue }
                let configuration = self.configuration
                cadence.clock = Self.cadence(configuration, pacing).clock
                var action = cadence.next(frame: looked.frame.index, time: clock(), awaitsConfirmation: text.awaitsConfirmation)
                if case .wait(let until) = action {
                    Thread.sleep(forTimeInterval: max(0, until - clock()))
                    // A newer frame may have arrived meanwhile: read that one.
                    looked = textBox.takeIfPresent() ?? looked
                    action = cadence.next(frame: looked.frame.index, time: clock(), awaitsConfirmation: text.awaitsConfirmation)
                }
                let now = clock()
                // Until the pass's step is committed, its lines are not judged absent.
                let believed = state.withLock { s in
                    s.textPassStarted = now
                    return TextStage.believed(s.tracker.liveItems)
                }
                let pass = textStep(text, looked, believed: believed, time: now, confirming: action == .confirmingPass)
                let index = looked.frame.index
                var step = StepResult(frame: index, time: clock(), generation: textGeneration)
                step.guidance = pass.guidance
                step.text = Self.seenText(pass.reading, looked)
                if let reading = pass.reading {
                    step.observations = FrameObservations(
                        frame: index, time: step.time, barcodes: nil, text: reading.items, textIsRepeat: reading.isRepeat,
                        textCarried: reading.carried)
                } else {
                    step.endsTextPass = true
                }
                commit(step)
                following = cadence.confirmsNext(awaitsConfirmation: text.awaitsConfirmation)
            }
        }
        // Documents on a thread of their own: a pass (~15 ms) on the barcode thread would slow every
        // scan, and the text thread's passes (reading lines: 100 ms and more) come too seldom for a
        // document to be added within half a second.
        startWorker(workers, name: "scannerd-documents") { [self] in
            while var looked = documentBox.take() {
                takeStages(since: &documentGeneration, stages: [.documents])
                guard let documents else { continue }
                var now = clock()
                if case .wait(let until) = documents.cadence.next(time: now) {
                    Thread.sleep(forTimeInterval: max(0, until - now))
                    // A newer frame may have arrived meanwhile: look at that one.
                    looked = documentBox.takeIfPresent() ?? looked
                    // The pass is due (a sleep that ended a hair early is not a reason to wait again).
                    now = max(clock(), until)
                    _ = documents.cadence.next(time: now)
                }
                var step = StepResult(frame: looked.frame.index, time: now, generation: documentGeneration)
                step.documents = documentStep(documents, looked)
                commit(step)
            }
        }
        runSource(
            source,
            frame: { frame in
                metrics.record(.capture)
                // Paused: the source skips frames itself (`setPaused`); one already on its way is dropped.
                if state.withLock({ $0.pause.paused }) { return }
                let now = clock()
                let looked = LookedFrame(frame: frame, look: looker.look(at: frame.image, time: now), time: now)
                barcodeBox.put(looked)
                let wanted = posted.withLock { ($0.stages.text != nil, $0.stages.documents != nil) }
                if wanted.0 { textBox.put(looked) }
                if wanted.1 { documentBox.put(looked) }
            },
            beforeEnd: {
                barcodeBox.close()
                textBox.close()
                documentBox.close()
                workers.wait()
            }, sourceSaid: sourceSaid)
    }

    /// Recognizers block (zxing-cpp, Tesseract, the networks): they get threads of their own, never
    /// the cooperative pool.
    private func startWorker(_ group: DispatchGroup, name: String, _ body: @escaping @Sendable () -> Void) {
        group.enter()
        let thread = Thread {
            body()
            group.leave()
        }
        thread.name = name
        thread.start()
    }

    // MARK: Both pacings: one step per stage

    /// Which of the stages a thread runs.
    struct StageSet: OptionSet {
        let rawValue: Int
        static let barcodes = StageSet(rawValue: 1)
        static let text = StageSet(rawValue: 2)
        static let documents = StageSet(rawValue: 4)
    }

    /// The stages `reconfigure` posted since `generation`, taken by the thread that runs them.
    private func takeStages(since generation: inout Int, stages taken: StageSet) {
        guard let stages = posted.withLock({ $0.generation == generation ? nil : ($0.generation, $0.stages) }) else { return }
        generation = stages.0
        if taken.contains(.barcodes) { barcodes = stages.1.barcodes }
        if taken.contains(.text) { text = stages.1.text }
        if taken.contains(.documents) { documents = stages.1.documents }
    }

    /// The barcode stage's step: the frame's barcodes, timed.
    private func barcodeStep(_ looked: LookedFrame, time: Double) -> [RecognizedItem] {
        let scansBefore = barcodes.scans
        let frame = looked.frame
        let found = metrics.measure(
            .barcodes, { barcodes.scan(frame.image, look: looked.look, time: time, detail: frame.fullResolution) },
            ran: { _ in barcodes.scans > scansBefore })
        metrics.failures(.barcodes, total: barcodes.readFailures.count)
        return found
    }

    /// The text stage's step, on a frame its cadence passed: the pass's reading (nil: not read),
    /// timed, and what it measured for guidance.
    private func textStep(
        _ text: TextStage, _ looked: LookedFrame, believed: Set<String>, time: Double, confirming: Bool
    ) -> (reading: TextStage.PassText?, guidance: GuidanceSample?) {
        let passesBefore = text.passes
        let frame = looked.frame
        let reading = metrics.measure(
            .text,
            {
                text.read(
                    frame.image, look: looked.look, detail: frame.fullResolution, believed: believed, time: time, frameTime: looked.time,
                    confirming: confirming)
            },
            ran: { _ in text.passes > passesBefore })
        metrics.failures(.detection, total: text.detectionFailures.count)
        metrics.failures(.reading, total: text.readFailures)
        return (reading, text.guidanceSample)
    }

    /// The lines a text pass found, for the document stage: nil when it read nothing, or repeated
    /// an earlier pass's reading (its lines are where they were then, not in this frame).
    private static func seenText(_ reading: TextStage.PassText?, _ looked: LookedFrame) -> DocumentStage.SeenText? {
        guard let reading, !reading.isRepeat else { return nil }
        return DocumentStage.SeenText(lines: reading.lines, heldUp: looked.look.heldUpRegion)
    }

    /// The document stage's step: the documents held up in the frame, timed. `text`: the lines of a
    /// text pass on this very frame, if any (else the last pass's).
    private func documentStep(
        _ documents: DocumentStage, _ looked: LookedFrame, text found: DocumentStage.SeenText? = nil
    ) -> [(quad: Quad, score: Double)] {
        let text = found ?? state.withLock { $0.text }
        return metrics.measure(.documents) {
            documents.find(in: looked.frame.image, look: looked.look, color: looked.frame.color, text: text)
        }
    }

    /// A step's result into the trackers, under the lock, its events emitted in order.
    @discardableResult private func commit(_ step: StepResult) -> [TrackerAction] {
        state.withLock { $0.commit(step, generation: posted.withLock { $0.generation }) }
    }

    private static func cadence(_ configuration: SequenceConfiguration, _ pacing: Pacing) -> TextCadence {
        let realTime = if case .newestFrame = pacing { true } else { false }
        return TextCadence(everyFrames: configuration.ocrEveryFrames, realTime: realTime)
    }
}

/// What one stage's step made of a frame, to be committed under the lock (`TrackingState.commit`).
struct StepResult {
    var frame: Int
    /// The trackers' clock, seconds.
    var time: Double
    /// For the item tracker: barcodes, text or both; nil when the step has none (a text pass that
    /// read nothing, a document pass).
    var observations: FrameObservations?
    /// What a text pass measured, for guidance.
    var guidance: GuidanceSample?
    /// What a document pass found.
    var documents: [(quad: Quad, score: Double)]?
    /// The lines a text pass found, for the document stage.
    var text: DocumentStage.SeenText?
    /// The generation of the stages that made it (`Pipeline.reconfigure`).
    var generation: Int
    /// A text pass ended without a reading: its lines may be judged absent again.
    var endsTextPass = false

    init(frame: Int, time: Double, generation: Int) {
        self.frame = frame
        self.time = time
        self.generation = generation
    }
}

/// What the pipeline's threads and its control calls share, under one `Mutex`: the configuration in
/// force, the item and document trackers, the pause rule. Every change is made here and emitted in
/// order, with the lock held (`pause.emit`, set while `run` runs).
struct TrackingState {
    var configuration: SequenceConfiguration
    var tracker: ItemTracker
    /// The documents held up (`DocumentStage`): items of their own kind, beside the tracker's.
    var documents: DocumentTracker
    var pause = PauseState()
    /// When the text pass in progress began (nil: none is; `FrameObservations.textPassStarted`).
    var textPassStarted: Double?
    /// The lines the last text pass found: where the documents' text is (`DocumentStage.find`).
    var text: DocumentStage.SeenText?

    init(configuration: SequenceConfiguration, tracker: ItemTracker, documents: DocumentTracker) {
        self.configuration = configuration
        self.tracker = tracker
        self.documents = documents
    }

    /// Every item and document gone.
    mutating func removeAll() -> [TrackerAction] {
        text = nil
        return tracker.removeAll() + documents.removeAll()
    }

    /// A step's result: its items' changes, then its documents', then guidance's, each emitted. A
    /// step made while recognition was being paused is dropped; so are observations made by stages a
    /// `set` or a reload has since replaced (`generation`, that of the stages in force): they may hold
    /// types no longer asked for, and clients may have been told of the change (its `config` event
    /// follows `reconfigure`): a QR code was added after `types` became phone numbers alone.
    mutating func commit(_ step: StepResult, generation: Int) -> [TrackerAction] {
        var changes: [TrackerAction] = []
        if let text = step.text, step.generation == generation { self.text = text }
        if var observations = step.observations {
            // Single-item mode as it is now, not as it was when the step began (a `set` changes it
            // without new stages).
            observations.barcodes = observations.barcodes.map { selectSingle($0, configuration) }
            observations.text = observations.text.map { selectSingle($0, configuration) }
            observations.textCarried = selectSingle(observations.textCarried, configuration)
            if observations.text == nil { observations.textPassStarted = textPassStarted } else { textPassStarted = nil }
            if !pause.paused, step.generation == generation {
                pause.lastFrame = max(pause.lastFrame, step.frame)
                changes += tracker.update(observations)
            }
        } else if step.endsTextPass {
            textPassStarted = nil
        }
        guard !pause.paused else { return [] }
        if let found = step.documents, configuration.options.types.documents {
            pause.lastFrame = max(pause.lastFrame, step.frame)
            changes += documents.update(found, frame: step.frame, time: step.time)
        }
        for action in changes { pause.emit?(.item(action, frame: step.frame)) }
        if let sample = step.guidance, let change = pause.guidance(after: sample) { pause.emit?(.guidance(change)) }
        return changes
    }

    /// The configuration `reconfigure` applies: tracking settings at once; documents no longer looked
    /// for are gone now, not never.
    mutating func configure(_ configuration: SequenceConfiguration) {
        self.configuration = configuration
        tracker.configuration = configuration.tracker
        // Lines found under another configuration (text types may be gone) stand for nothing now.
        text = nil
        if !configuration.options.types.documents {
            for action in documents.removeAll() { pause.emit?(.item(action, frame: pause.lastFrame)) }
        }
    }

    mutating func setPaused(_ paused: Bool) {
        // Removed only when pausing (`PauseState.set` asks for them then, and only then).
        let removed = paused && !pause.paused ? removeAll() : []
        pause.set(paused) { removed }
    }

    /// What the source said (`runSource`): everything it showed removed first when it went away or
    /// ended (`removingAllAt`, the frame), then `event`.
    mutating func sourceSaid(_ event: ScannerEvent, removingAllAt frame: Int?) {
        if let frame { for action in removeAll() { pause.emit?(.item(action, frame: frame)) } }
        pause.emit?(event)
    }
}

/// The pause rule, with the pipeline's lock held: inputs in, events out. It holds the guidance
/// advisor too, because pausing silences guidance: no hint while paused, and the one showing is
/// cleared.
struct PauseState {
    private(set) var paused = false
    private var advisor = GuidanceAdvisor()
    /// The last frame that reached the tracker: the `frame` of the `removed` events a pause causes.
    var lastFrame = 0
    /// Set while `run` runs.
    var emit: (@Sendable (ScannerEvent) -> Void)?

    /// Goes to `paused`; `removeAll` is called (and its actions emitted) only when pausing.
    mutating func set(_ paused: Bool, removeAll: () -> [TrackerAction]) {
        guard paused != self.paused else { return }
        // Whatever the person was told no longer applies.
        if paused, advisor.reset() { emit?(.guidance(.cleared)) }
        self.paused = paused
        if paused { for action in removeAll() { emit?(.item(action, frame: lastFrame)) } }
        emit?(.recognition(paused: paused))
    }

    /// What clients are to be told about guidance after `sample` (`GuidanceAdvisor`); nothing while paused.
    mutating func guidance(after sample: GuidanceSample) -> Guidance? {
        paused ? nil : advisor.observe(sample)
    }
}
