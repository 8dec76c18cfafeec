import Capture
import Foundation
import Recognition
import ScannerCore
import Synchronization
import Tracking

/// Frames from a source in, `ScannerEvent`s out: the barcode stage, the text stage behind its
/// cadence (`TextCadence`), single-item selection and one tracker, in either of two pacings:
///
/// - `everyFrame`: every frame in order on the caller's thread, the trackers' clock the frame's
///   index over `fps` (a replay at `--pace none`, tests): every decision a function of the frame,
///   the same events on every run.
/// - `newestFrame`: the live pipeline on 2 cores. The caller's thread captures; one thread scans
///   barcodes on the newest frame whenever it is free, one reads text on the newest frame at the
///   cadence's pace. Hand-offs keep only the newest frame (`Mailbox`), so capture never waits and
///   nothing queues behind a busy stage. Both stages feed the tracker under the lock, which also
///   orders the events.
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
        init(_ configuration: SequenceConfiguration, metrics: PipelineMetrics, kept: Stages? = nil) throws(ScannerError) {
            barcodes = try BarcodeStage(configuration: configuration)
            text = configuration.options.types.wantsText ? try TextStage(configuration: configuration, metrics: metrics, kept: kept?.text) : nil
            documents = configuration.options.types.documents ? kept?.documents ?? DocumentStage() : nil
        }
    }

    public let pacing: Pacing
    /// Live per-stage figures (`stats`).
    public let metrics = PipelineMetrics()
    /// A second of unchanged frames on the barcode thread lets the camera decode half of them.
    static let idleAfterFrames = 30

    // Guarded by `lock`: the configuration in force, the tracker, the pause rule.
    private let lock = NSLock()
    private var current: SequenceConfiguration
    private var tracker: ItemTracker
    /// The documents held up (`DocumentStage`): items of their own kind, beside the tracker's.
    private var documentTracker: DocumentTracker
    private var pause = PauseState()
    /// When the text pass in progress began (nil: none is; `FrameObservations.textPassStarted`).
    private var textPassStarted: Double?

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

    public init(
        configuration: SequenceConfiguration, pacing: Pacing, makeID: @escaping @Sendable () -> UUID = { UUID() }
    ) throws(ScannerError) {
        let stages = try Stages(configuration, metrics: metrics)
        self.pacing = pacing
        current = configuration
        tracker = ItemTracker(configuration: configuration.tracker, makeID: makeID)
        documentTracker = DocumentTracker(configuration: .init(items: configuration.tracker), makeID: makeID)
        posted = Mutex((0, stages))
        barcodes = stages.barcodes
        text = stages.text
        documents = stages.documents
        cadence = Self.cadence(configuration, pacing)
    }

    /// The configuration in force.
    public var configuration: SequenceConfiguration { withLock { current } }

    public var liveItems: [TrackedItem] { withLock { tracker.liveItems + documentTracker.live } }

    /// The stages' counters; read them after `run` returns (the stages' threads write them unlocked).
    public var statistics: SequenceStatistics {
        var s = SequenceStatistics(barcodes: barcodes, text: text)
        s.framesScanned = framesScanned
        s.documentPasses = documents?.passes ?? 0
        return s
    }

    /// Builds the stages `configuration` needs, on the caller's thread, and applies them from the
    /// next frame each stage takes; selection and tracking settings at once. Throws, changing
    /// nothing, when a stage cannot be built (a model or language gone since the start). Building
    /// takes 0.06–0.22 s (Tesseract, the networks; docs/benchmarks.md), so the stages in force are
    /// kept when they serve the new configuration (only tracking or single-item mode changed).
    /// Callable from any thread, while `run` runs.
    /// Why the text networks did not load, when the text stage in force reads without them (the models
    /// beside the binary damaged: `SequenceConfiguration.lineModelRequired`); nil when they did, or
    /// none were asked for.
    public var textModelFailure: String? { posted.withLock { $0.stages.text?.modelFailure } }

    public func reconfigure(_ configuration: SequenceConfiguration) throws(ScannerError) {
        if !configuration.buildsTheSameStages(as: self.configuration) {
            let stages = try Stages(configuration, metrics: metrics, kept: posted.withLock { $0.stages })
            posted.withLock { $0 = ($0.generation + 1, stages) }
        }
        withLock {
            current = configuration
            tracker.configuration = configuration.tracker
            // No longer looked for: the documents clients were told about are gone now, not never.
            if !configuration.options.types.documents {
                for action in documentTracker.removeAll() { pause.emit?(.item(action, frame: pause.lastFrame)) }
            }
        }
    }

    /// Pauses or resumes recognition (`pause` / `resume`). Pausing removes every item (`removed`
    /// events, then `recognition(paused: true)`), and frames are ignored until recognition resumes
    /// (`recognition(paused: false)`); what is still in view is then added again. Saying what already
    /// holds changes nothing and emits nothing. Callable from any thread, while `run` runs.
    public func setPaused(_ paused: Bool) {
        withLock { pause.set(paused) { removeAll() } }
    }

    /// Runs until the source ends or is cancelled; `emit` is called in order, with the lock held.
    /// `heartbeat` is beaten once per frame the barcode stage takes: proof for the watchdog that
    /// frames arrive and recognition is not stuck.
    public func run(source: FrameSource, heartbeat: Heartbeat? = nil, emit: @escaping @Sendable (ScannerEvent) -> Void) {
        withLock { pause.emit = emit }
        defer { withLock { pause.emit = nil } }
        switch pacing {
        case .everyFrame(let fps): runEveryFrame(source, fps: fps, heartbeat: heartbeat, emit: emit)
        case .newestFrame(let clock): runNewestFrame(source, clock: clock, heartbeat: heartbeat, emit: emit)
        }
    }

    // MARK: Every frame

    /// One frame through both stages and the tracker (`everyFrame`); `time` is the trackers' clock
    /// in seconds. With `run`, the lock is held; a test may call it directly.
    public func process(_ frame: Frame, time: Double) -> [TrackerAction] {
        takeStages(since: &barcodeGeneration, stages: [.barcodes, .text, .documents])
        framesScanned += 1
        guidanceChange = nil
        metrics.record(.capture)
        let look = looker.look(at: frame.image, time: time)
        let found = scanBarcodes(frame, look: look)
        var reading: TextStage.PassText?
        if let text {
            cadence.clock = Self.cadence(current, pacing).clock
            let action = cadence.next(frame: frame.index, time: time, awaitsConfirmation: text.awaitsConfirmation)
            if action == .pass || action == .confirmingPass {
                reading = readText(
                    text, LookedFrame(frame: frame, look: look), believed: TextStage.believed(tracker.liveItems), time: time,
                    confirming: action == .confirmingPass)
                if let sample = text.guidanceSample { guidanceChange = pause.guidance(after: sample) }
            }
        }
        let read = reading.map { selectSingle($0, current) }
        let actions = tracker.update(
            FrameObservations(
                frame: frame.index, time: time, barcodes: found, text: read?.items, textIsRepeat: reading?.isRepeat ?? false,
                textCarried: read?.carried ?? []))
        guard let documents, documents.cadence.next(time: time) == .pass else { return actions }
        return actions + documentTracker.update(findDocuments(documents, LookedFrame(frame: frame, look: look)), frame: frame.index, time: time)
    }

    /// What the last `process` said about guidance, to be emitted after its item events.
    private(set) var guidanceChange: Guidance?
    /// The generation of the stages this pipeline's barcode (and, every frame, text) stage is from.
    private var barcodeGeneration = 0
    private var textGeneration = 0
    private var documentGeneration = 0

    /// Ends everything that is still live (end of a file source, shutdown).
    public func finish() -> [TrackerAction] { removeAll() }

    /// Every item and document gone (the lock held).
    private func removeAll() -> [TrackerAction] { tracker.removeAll() + documentTracker.removeAll() }

    private func runEveryFrame(_ source: FrameSource, fps: Double, heartbeat: Heartbeat?, emit: @escaping @Sendable (ScannerEvent) -> Void) {
        runSource(
            source,
            frame: { frame in
                heartbeat?.beat()
                withLock {
                    guard !pause.paused else { return }
                    pause.lastFrame = frame.index
                    for action in process(frame, time: Double(frame.index) / fps) { emit(.item(action, frame: frame.index)) }
                    if let guidanceChange { emit(.guidance(guidanceChange)) }
                }
            },
            removeAll: finish, locked: { withLock($0) }, emit: emit)
    }

    // MARK: Newest frame

    private func runNewestFrame(
        _ source: FrameSource, clock: @escaping @Sendable () -> Double, heartbeat: Heartbeat?, emit: @escaping @Sendable (ScannerEvent) -> Void
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
                let found = scanBarcodes(looked.frame, look: looked.look)
                idleHint.setIdle(barcodes.unchangedStreak >= Self.idleAfterFrames)
                update(FrameObservations(frame: looked.frame.index, time: clock(), barcodes: found, text: nil), from: barcodeGeneration, emit)
            }
        }
        // The text thread runs even when no text type is wanted yet: a `set` or a reload may ask for
        // text later, and frames reach it only while some text type is wanted.
        startWorker(workers, name: "scannerd-text") { [self] in
            while var looked = textBox.take() {
                takeStages(since: &textGeneration, stages: [.text])
                guard let text else { continue }
                cadence.clock = Self.cadence(configuration, pacing).clock
                var action = cadence.next(frame: looked.frame.index, time: clock(), awaitsConfirmation: text.awaitsConfirmation)
                if case .wait(let until) = action {
                    Thread.sleep(forTimeInterval: max(0, until - clock()))
                    // A newer frame may have arrived meanwhile: read that one.
                    looked = textBox.takeIfPresent() ?? looked
                    action = cadence.next(frame: looked.frame.index, time: clock(), awaitsConfirmation: text.awaitsConfirmation)
                }
                let frame = looked.frame
                let now = clock()
                let believed = TextStage.believed(liveItems)
                withLock { textPassStarted = now }
                let read = readText(text, looked, believed: believed, time: now, confirming: action == .confirmingPass)
                if let sample = text.guidanceSample {
                    withLock {
                        guard let change = pause.guidance(after: sample) else { return }
                        emit(.guidance(change))
                    }
                }
                // The pass's update ends it (`update`): until then its lines are not judged absent.
                guard let reading = read else {
                    withLock { textPassStarted = nil }
                    continue
                }
                let selected = selectSingle(reading, configuration)
                update(
                    FrameObservations(
                        frame: frame.index, time: clock(), barcodes: nil, text: selected.items, textIsRepeat: reading.isRepeat,
                        textCarried: selected.carried), from: textGeneration, emit)
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
                let found = findDocuments(documents, looked)
                let index = looked.frame.index
                withLock {
                    guard !pause.paused, current.options.types.documents else { return }
                    pause.lastFrame = max(pause.lastFrame, index)
                    for action in documentTracker.update(found, frame: index, time: now) { emit(.item(action, frame: index)) }
                }
            }
        }
        runSource(
            source,
            frame: { frame in
                metrics.record(.capture)
                // Paused: the source skips frames itself (`setPaused`); one already on its way is dropped.
                if withLock({ pause.paused }) { return }
                let looked = LookedFrame(frame: frame, look: looker.look(at: frame.image, time: clock()))
                barcodeBox.put(looked)
                let wanted = posted.withLock { ($0.stages.text != nil, $0.stages.documents != nil) }
                if wanted.0 { textBox.put(looked) }
                if wanted.1 { documentBox.put(looked) }
            },
            removeAll: { [self] in removeAll() }, locked: { withLock($0) },
            beforeEnd: {
                barcodeBox.close()
                textBox.close()
                documentBox.close()
                workers.wait()
            }, emit: emit)
    }

    /// One stage thread's observations into the tracker, in order, with the lock held.
    /// `generation`: that of the stages that read the frame.
    private func update(_ observations: FrameObservations, from generation: Int, _ emit: (ScannerEvent) -> Void) {
        withLock {
            var observations = observations
            if observations.text == nil { observations.textPassStarted = textPassStarted } else { textPassStarted = nil }
            // A frame read while recognition was being paused: what it saw is no longer wanted.
            guard !pause.paused else { return }
            // Read by stages a `set` or a reload has since replaced: it may hold types no longer asked
            // for, and clients may have been told of the change (its `config` event follows
            // `reconfigure`): a QR code was added after `types` became phone numbers alone.
            guard generation == posted.withLock({ $0.generation }) else { return }
            pause.lastFrame = max(pause.lastFrame, observations.frame)
            for action in tracker.update(observations) { emit(.item(action, frame: observations.frame)) }
        }
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

    // MARK: Both pacings

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

    /// The document stage's pass on a frame, timed.
    private func findDocuments(_ documents: DocumentStage, _ looked: LookedFrame) -> [(quad: Quad, score: Double)] {
        metrics.measure(.documents) { documents.find(in: looked.frame.image, look: looked.look, color: looked.frame.color) }
    }

    /// The barcode stage's items for `frame`, timed, single-item mode applied.
    private func scanBarcodes(_ frame: Frame, look: FrameLook) -> [RecognizedItem] {
        let scansBefore = barcodes.scans
        let found = metrics.measure(
            .barcodes, { barcodes.scan(frame.image, look: look, detail: frame.fullResolution) }, ran: { _ in barcodes.scans > scansBefore })
        metrics.failures(.barcodes, total: barcodes.readFailures.count)
        return selectSingle(found, selectionConfiguration)
    }

    /// The text stage's pass on `frame`, timed.
    private func readText(_ text: TextStage, _ looked: LookedFrame, believed: Set<String>, time: Double, confirming: Bool) -> TextStage.PassText? {
        let passesBefore = text.passes
        let frame = looked.frame
        let reading = metrics.measure(
            .text,
            { text.read(frame.image, look: looked.look, detail: frame.fullResolution, believed: believed, time: time, confirming: confirming) },
            ran: { _ in text.passes > passesBefore })
        metrics.failures(.detection, total: text.detectionFailures.count)
        metrics.failures(.reading, total: text.readFailures)
        return reading
    }

    /// The configuration single-item selection follows: read under the lock on the stages' threads
    /// (`newestFrame`), directly where the lock is already held (`everyFrame`).
    private var selectionConfiguration: SequenceConfiguration {
        if case .everyFrame = pacing { return current }
        return configuration
    }

    private static func cadence(_ configuration: SequenceConfiguration, _ pacing: Pacing) -> TextCadence {
        let realTime = if case .newestFrame = pacing { true } else { false }
        return TextCadence(everyFrames: configuration.ocrEveryFrames, realTime: realTime)
    }

    private func withLock<T>(_ body: () -> T) -> T {
        lock.lock()
        defer { lock.unlock() }
        return body()
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
