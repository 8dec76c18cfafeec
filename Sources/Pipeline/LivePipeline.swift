import Capture
import Foundation
import ScannerCore
import Synchronization
import Tracking

/// The live pipeline on 2 cores: the caller's thread captures, one thread scans barcodes on the newest
/// frame whenever it is free, one thread reads text on the newest frame at its own pace. Hand-offs keep
/// only the newest frame, so capture never waits and nothing queues behind a busy stage. Both
/// recognizers feed one tracker under a lock, which also orders the events.
public final class LivePipeline: ScannerPipeline, @unchecked Sendable {
    public private(set) var configuration: SequenceConfiguration
    // Each stage belongs to its thread; a new configuration is picked up by that thread before its
    // next frame (generation counters), so a change applies from the next frame without a pause.
    private var barcodes: BarcodeStage
    private var text: TextStage?
    private let pending = Mutex<(generation: Int, configuration: SequenceConfiguration?)>((0, nil))
    private var tracker: ItemTracker
    /// Guarded by `lock`, as the tracker is.
    private var pause = PauseState()
    /// When the text pass in progress began (nil: none is; `FrameObservations.textPassStarted`).
    private var textPassStarted: Double?
    private let lock = NSLock()
    private let clock: @Sendable () -> Double
    private let barcodeBox = Mailbox<Frame>()
    static let idleAfterFrames = 30
    private let textBox = Mailbox<Frame>()
    /// Live per-stage figures (`stats`).
    public let metrics = PipelineMetrics()

    /// `clock` is the trackers' time in seconds (monotonic).
    public init(
        configuration: SequenceConfiguration, clock: @escaping @Sendable () -> Double,
        makeID: @escaping @Sendable () -> UUID = { UUID() }
    ) throws(ScannerError) {
        self.configuration = configuration
        self.clock = clock
        barcodes = try BarcodeStage(
            options: configuration.options, sceneChange: configuration.sceneChange, fullResolution: configuration.barcodesAtFullResolution)
        text = configuration.options.types.wantsText ? try TextStage(configuration: configuration, metrics: metrics) : nil
        tracker = ItemTracker(configuration: configuration.tracker, makeID: makeID)
    }

    public var liveItems: [TrackedItem] {
        lock.lock()
        defer { lock.unlock() }
        return tracker.liveItems
    }

    /// The stages' counters; read them after `run` returns (the worker threads write them unlocked).
    public var statistics: SequenceStatistics { SequenceStatistics(barcodes: barcodes, text: text) }

    /// Runs until the source ends or is cancelled. `emit` is called with the lock held, in order.
    /// `heartbeat` is beaten once per frame the barcode thread takes: proof for the watchdog that
    /// frames arrive and recognition is not stuck.
    public func run(source: FrameSource, heartbeat: Heartbeat? = nil, emit: @escaping @Sendable (ScannerEvent) -> Void) {
        locked { pause.emit = emit }
        defer { locked { pause.emit = nil } }
        let workers = DispatchGroup()
        // The barcode thread only calls `setIdle`, which sources make thread-safe.
        nonisolated(unsafe) let idleHint = source
        startWorker(workers, name: "scannerd-barcodes") { [self] in
            var generation = 0
            while let frame = barcodeBox.take() {
                heartbeat?.beat()
                if let (newGeneration, changed) = changedConfiguration(since: generation) {
                    generation = newGeneration
                    if let stage = try? BarcodeStage(
                        options: changed.options, sceneChange: changed.sceneChange, fullResolution: changed.barcodesAtFullResolution)
                    {
                        barcodes = stage
                    }
                    locked {
                        configuration = changed
                        tracker.configuration = changed.tracker
                    }
                }
                let current = withLock { configuration }
                let scansBefore = barcodes.scans
                let scanned = metrics.measure(
                    .barcodes, { barcodes.scan(frame.image, detail: { frame.fullResolution() }) }, ran: { _ in barcodes.scans > scansBefore })
                let found = selectSingle(scanned, current)
                // A second of unchanged frames: let the camera decode half of them.
                idleHint.setIdle(barcodes.unchangedStreak >= Self.idleAfterFrames)
                update(FrameObservations(frame: frame.index, time: clock(), barcodes: found, text: nil), emit)
            }
        }
        // The text thread runs even when no text type is wanted yet: a `set` or a reload may ask for
        // text later, and frames reach it only while some text type is wanted.
        let startedWithText = text != nil
        startWorker(workers, name: "scannerd-text") { [self] in
            var generation = 0
            var lastPass = -Double.infinity
            var lastWasConfirming = false
            while var frame = textBox.take() {
                if let (newGeneration, changed) = changedConfiguration(since: generation) {
                    generation = newGeneration
                    // Types, region or quality changed: a new Tesseract instance on this thread
                    // (none when no text type is wanted any more).
                    text = changed.options.types.wantsText ? ((try? TextStage(configuration: changed, metrics: metrics)) ?? text) : nil
                }
                guard let text else { continue }
                let current = withLock { configuration }
                // The quality level's OCR rate: at most one pass per `ocrEveryFrames` frame times at 30 fps.
                let interval = Double(current.ocrEveryFrames) / 30
                // Between two regular passes, one confirming pass when the last one asks for it
                // (`TextStage.awaitsConfirmation`) on the next frame there is.
                let wait = lastPass + interval - clock()
                let confirming = wait > 0 && !lastWasConfirming && text.awaitsConfirmation
                if wait > 0, !confirming {
                    Thread.sleep(forTimeInterval: wait)
                    // A newer frame may have arrived meanwhile: read that one.
                    frame = textBox.takeIfPresent() ?? frame
                }
                lastWasConfirming = confirming
                if !confirming { lastPass = clock() }
                let passesBefore = text.passes
                let now = clock()
                let believed = TextStage.believed(liveItems)
                locked { textPassStarted = now }
                let read = metrics.measure(
                    .text, { text.read(frame.image, detail: { frame.fullResolution() }, believed: believed, time: now, confirming: confirming) },
                    ran: { _ in text.passes > passesBefore })
                if let sample = text.guidanceSample {
                    locked {
                        guard let change = pause.guidance(after: sample) else { return }
                        emit(.guidance(change))
                    }
                }
                // The pass's update ends it (`update`): until then its lines are not judged absent.
                guard let reading = read else {
                    locked { textPassStarted = nil }
                    continue
                }
                let selected = selectSingle(reading, current)
                update(
                    FrameObservations(
                        frame: frame.index, time: clock(), barcodes: nil, text: selected.items,
                        textIsRepeat: reading.isRepeat, textCarried: selected.carried), emit)
            }
        }
        runSource(
            source,
            frame: { frame in
                metrics.record(.capture)
                // Paused: the source skips frames itself (`setPaused`); one already on its way is dropped.
                if withLock({ pause.paused }) { return }
                barcodeBox.put(frame)
                if pending.withLock({ $0.configuration?.options.types.wantsText }) ?? startedWithText { textBox.put(frame) }
            },
            removeAll: { [self] in tracker.removeAll() }, locked: { locked($0) },
            beforeEnd: {
                barcodeBox.close()
                textBox.close()
                workers.wait()
            }, emit: emit)
    }

    /// Applies `configuration` from the next frame each stage takes, text recognition included: it can
    /// be turned on (a Tesseract instance is made on the text thread) and off again.
    public func reconfigure(_ configuration: SequenceConfiguration) {
        pending.withLock { $0 = ($0.generation + 1, configuration) }
    }

    private func changedConfiguration(since generation: Int) -> (Int, SequenceConfiguration)? {
        pending.withLock { state in
            guard state.generation != generation, let configuration = state.configuration else { return nil }
            return (state.generation, configuration)
        }
    }

    private func update(_ observations: FrameObservations, _ emit: (ScannerEvent) -> Void) {
        locked {
            // A frame read while recognition was being paused: what it saw is no longer wanted.
            var observations = observations
            if observations.text == nil { observations.textPassStarted = textPassStarted } else { textPassStarted = nil }
            guard !pause.paused else { return }
            pause.lastFrame = max(pause.lastFrame, observations.frame)
            for action in tracker.update(observations) { emit(.item(action, frame: observations.frame)) }
        }
    }

    public func setPaused(_ paused: Bool) {
        locked { pause.set(paused) { tracker.removeAll() } }
    }

    private func withLock<T>(_ body: () -> T) -> T {
        lock.lock()
        defer { lock.unlock() }
        return body()
    }

    private func locked(_ body: () -> Void) {
        lock.lock()
        body()
        lock.unlock()
    }

    /// Recognizers block (zbar, Tesseract): they get threads of their own, never the cooperative pool.
    private func startWorker(_ group: DispatchGroup, name: String, _ body: @escaping @Sendable () -> Void) {
        group.enter()
        let thread = Thread {
            body()
            group.leave()
        }
        thread.name = name
        thread.start()
    }
}
