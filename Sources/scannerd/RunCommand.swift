import ArgumentParser
import Capture
import EventServer
import Events
import Foundation
import ImageDecoding
import Synchronization
import Logging
import Pipeline
import Recognition
import ScannerCore
import Tracking

/// `scannerd run`: frames from a camera or a replay through recognition, events out.
struct RunCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "run",
        abstract: "Run the scanner on a camera (--device) or a replay (--source), printing events.",
        discussion: """
            With --device the camera is opened through V4L2; if it is missing or unplugged the daemon reports \
            it as unavailable and keeps retrying. With --source the frames come from a directory of images, an \
            .mjpeg file, or the bundled clip `demo`; at the end of a file source the daemon exits 0 unless \
            --loop. Events are JSON lines (docs/protocol.md).
            """
    )

    @Option(name: .long, help: ArgumentHelp("Camera device: /dev/videoN or /dev/v4l/by-id/….", valueName: "path"))
    var device: String?

    @Option(name: .long, help: ArgumentHelp("Replay source: demo, a directory of images, or an .mjpeg file.", valueName: "source"))
    var source: String?

    @Option(name: .customLong("fps"), help: "Frame rate: what to ask the camera for, or the replay rate (default 30; the demo clip plays at 10).")
    var fpsOption: Double?

    /// The demo is a short clip recorded to be watched at 10 fps: a QR code and a card each in view
    /// for a second, long enough apart that clients see each one added and removed.
    var fps: Double { fpsOption ?? (source == "demo" ? 10 : 30) }

    @Option(name: .long, help: "Replay pacing: realtime (drop what the scanner is not ready for) or none (every frame).")
    var pace: String = ReplayPace.realtime.rawValue

    @Flag(name: .long, help: "Replay the source forever.")
    var loop = false

    @Option(name: .long, help: "Camera frame width to ask for.")
    var width: Int = 1280

    @Option(name: .long, help: "Camera frame height to ask for.")
    var height: Int = 720

    @Option(name: .long, help: ArgumentHelp("Allowed camera formats, most preferred first.", valueName: "list"))
    var formats: String = "MJPG,YUYV,GREY"

    @Option(name: .long, help: "Width of the image recognition works on (frames are reduced while decoding); default by quality: fast 480, balanced 640, accurate 960.")
    var processingWidth: Int?

    @Option(name: .customLong("control"), help: ArgumentHelp("Camera control, repeatable: focusAuto=0, focus=120, exposureAuto=manual, exposure=300, zoom=150, brightness=140, powerLineFrequency=50.", valueName: "name=value"))
    var controls: [String] = []

    @OptionGroup var recognition: RecognitionOptions

    @Flag(name: .long, help: "Print events as JSON lines on stdout.")
    var eventsStdout = false

    @Flag(name: .long, help: "Report only the item nearest the centre of the region of interest (recognizesMultipleItems = false).")
    var single = false

    @Option(name: .long, help: ArgumentHelp("Unix socket for clients (scanctl, kiosk apps).", valueName: "path"))
    var socket: String = "/run/scannerd/scannerd.sock"

    @Flag(name: .long, help: "Do not listen on a socket (events only on stdout).")
    var noSocket = false

    @Option(name: .long, help: "Most clients served at once.")
    var maxClients: Int = 64

    @Option(name: .long, help: ArgumentHelp("File mode of the socket, octal.", valueName: "mode"))
    var socketMode: String = "0660"

    @Option(name: .long, help: ArgumentHelp("Group that owns the socket.", valueName: "group"))
    var socketGroup: String?

    @Option(name: .customLong("allow-user"), help: ArgumentHelp("Only these users may use the socket (repeatable; with --allow-group: either).", valueName: "user"))
    var allowUsers: [String] = []

    @Option(name: .customLong("allow-group"), help: ArgumentHelp("Only members of these groups may use the socket (repeatable).", valueName: "group"))
    var allowGroups: [String] = []

    @Option(name: .customLong("control-user"), help: ArgumentHelp("Only these users may change settings over the socket (`set`; repeatable).", valueName: "user"))
    var controlUsers: [String] = []

    @Option(name: .customLong("control-group"), help: ArgumentHelp("Only members of these groups may change settings over the socket (repeatable).", valueName: "group"))
    var controlGroups: [String] = []

    @Option(name: .long, help: "Log level: trace, debug, info, notice, warning, error, critical.")
    var logLevel: String = "info"

    func validate() throws {
        if (device == nil) == (source == nil) { throw ValidationError("give exactly one of --device PATH or --source SOURCE") }
        if ReplayPace(rawValue: pace) == nil { throw ValidationError("invalid pace '\(pace)': expected realtime or none") }
        if !(fps > 0 && fps <= 1000) { throw ValidationError("invalid fps '\(fps)': expected a number above 0") }
        if mode_t(socketMode, radix: 8) == nil || mode_t(socketMode, radix: 8)! > 0o777 {
            throw ValidationError("invalid socket mode '\(socketMode)': expected octal, e.g. 0660")
        }
        for user in allowUsers + controlUsers where Self.userID(user) == nil { throw ValidationError("unknown user '\(user)'") }
        for group in allowGroups + controlGroups + (socketGroup.map { [$0] } ?? []) where Self.groupID(group) == nil {
            throw ValidationError("unknown group '\(group)'")
        }
        if let processingWidth, processingWidth < 16 { throw ValidationError("invalid processing width \(processingWidth)") }
        if Logger.Level(rawValue: logLevel) == nil { throw ValidationError("invalid log level '\(logLevel)'") }
        for control in controls where CameraControlSetting(parsing: control) == nil {
            throw ValidationError("invalid control '\(control)': expected name=value")
        }
        _ = try parsedFormats()
    }

    func parsedFormats() throws -> [PixelFormat] {
        try formats.split(separator: ",").map { name in
            guard let format = PixelFormat(rawValue: name.trimmingCharacters(in: .whitespaces).uppercased()) else {
                throw ValidationError("invalid format '\(name)': expected MJPG, YUYV or GREY")
            }
            return format
        }
    }

    func run() throws {
        LoggingSystem.bootstrap { label in
            var handler = StreamLogHandler.standardError(label: label)
            handler.logLevel = Logger.Level(rawValue: logLevel) ?? .info
            return handler
        }
        let logger = Logger(label: "scannerd")
        let options: ScanOptions
        do {
            options = try recognition.scanOptions()
        } catch {
            throw ValidationError(error.description)
        }
        let processingWidth = self.processingWidth ?? QualitySettings(options.quality).liveProcessingWidth
        let frameSource: FrameSource
        do {
            if let device {
                frameSource = try CameraSource(
                    configuration: CameraSource.Configuration(
                        path: device,
                        request: CaptureRequest(width: width, height: height, fps: fps, formats: try parsedFormats()),
                        processingWidth: processingWidth,
                        controls: controls.compactMap(CameraControlSetting.init(parsing:))),
                    logger: logger)
            } else {
                frameSource = try ReplaySource(
                    path: source!,
                    configuration: ReplaySource.Configuration(
                        fps: fps, pace: ReplayPace(rawValue: pace)!, loop: loop, processingWidth: processingWidth),
                    logger: logger)
            }
        } catch {
            Self.fail("scannerd: \(error)")
        }
        let sequence = SequenceConfiguration(options: options, singleItem: single)
        let printing = eventsStdout
        let hub = EventHub(daemonVersion: Scannerd.version, sourceName: device ?? source!) { line in
            if printing { FileHandle.standardOutput.write(Data((line + "\n").utf8)) }
        }
        let output = EventPrinter(hub: hub, enabled: eventsStdout)
        output.hello()
        // The pipeline exists before the server, so that `set` requests can reach it.
        let deterministic = source != nil && pace == ReplayPace.none.rawValue
        let handler: SequenceHandler?
        let pipeline: LivePipeline?
        do {
            if deterministic {
                // One thread, OCR on every n-th frame, the clock is frame index / fps.
                handler = try SequenceHandler(configuration: sequence)
                pipeline = nil
            } else {
                let start = ContinuousClock.now
                pipeline = try LivePipeline(configuration: sequence, clock: { (ContinuousClock.now - start).inSeconds })
                handler = nil
            }
        } catch {
            Self.fail("scannerd: \(error)")
        }
        let settings = Mutex(sequence)
        nonisolated(unsafe) let target = (handler: handler, pipeline: pipeline)
        let configure: @Sendable (ConfigChange) -> Result<[(String, JSONValue)], EventServer.ConfigurationRefusal> = { change in
            let updated = settings.withLock { current -> SequenceConfiguration in
                var options = current.options
                if let roi = change.regionOfInterest { options.regionOfInterest = roi }
                if let quality = change.quality { options.quality = quality }
                if let types = change.types { options.types = types }
                let next = SequenceConfiguration(options: options, singleItem: change.singleItem ?? current.singleItem)
                current = next
                return next
            }
            target.handler?.reconfigure(updated)
            target.pipeline?.reconfigure(updated)
            return .success(Self.describe(updated))
        }
        nonisolated(unsafe) let photoSource = frameSource
        let capture: @Sendable (Bool) async -> Result<EventServer.CapturedPhoto, EventServer.ConfigurationRefusal> = { annotate in
            await Self.photo(from: photoSource, annotate: annotate, items: hub.items.map(\.item.bounds))
        }
        let server = noSocket ? nil : startServer(hub: hub, source: frameSource, logger: logger, configure: configure, capture: capture)
        // SIGINT / SIGTERM end the run: the source returns `.end` within one poll slice, the
        // pipeline sends `removed` for what is left and `end`.
        let signals = [SIGINT, SIGTERM].map { signo -> DispatchSourceSignal in
            signal(signo, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: signo, queue: .global())
            source.setEventHandler { frameSource.cancel() }
            source.resume()
            return source
        }
        if let handler {
            runDeterministic(handler, frameSource, output)
            logger.info("pipeline", metadata: Self.metadata(handler.statistics))
        } else if let pipeline {
            pipeline.run(source: frameSource) { output.emit($0) }
            logger.info("pipeline", metadata: Self.metadata(pipeline.statistics))
        }
        signals.forEach { $0.cancel() }
        server?.stop()
        logger.info("stopped", metadata: [
            "frames": "\(frameSource.statistics.delivered)", "dropped": "\(frameSource.statistics.dropped)",
            "corrupt": "\(frameSource.statistics.corrupt)", "reconnects": "\(frameSource.statistics.reconnects)",
        ])
    }

    /// Starts the event server on its own task and waits until it listens (or fails: exit 2).
    /// The configuration in force, as the `config` event and the `set` reply carry it.
    static func describe(_ c: SequenceConfiguration) -> [(String, JSONValue)] {
        let roi = c.options.regionOfInterest
        let types = c.options.types
        let names = types.symbologies.sorted().map(\.rawValue) + types.contentTypes.map(\.rawValue).sorted() + (types.plainText ? ["text"] : [])
        return [
            ("roi", .array([roi.x, roi.y, roi.width, roi.height].map { .number($0, decimals: 4) })),
            ("quality", .string(c.options.quality.rawValue)),
            ("types", .array(names.map { .string($0) })),
            ("single", .bool(c.singleItem)),
        ]
    }

    /// The next frame at full resolution as JPEG: the camera's own JPEG when it sent one and no
    /// annotation is asked for; otherwise its luma, with the items' bounds drawn if asked, encoded here.
    static func photo(from source: FrameSource, annotate: Bool, items: [Quad]) async -> Result<EventServer.CapturedPhoto, EventServer.ConfigurationRefusal> {
        let photo: Photo? = await withCheckedContinuation { continuation in
            let resumed = Mutex(false)
            let finish: @Sendable (Photo?) -> Void = { photo in
                let first = resumed.withLock { done -> Bool in
                    defer { done = true }
                    return !done
                }
                if first { continuation.resume(returning: photo) }
            }
            source.takePhoto(finish)
            DispatchQueue.global().asyncAfter(deadline: .now() + 3) { finish(nil) }
        }
        guard let photo else { return .failure(.init("no frame within 3 s (is the camera available?)")) }
        if !annotate, let jpeg = photo.jpeg {
            return .success(.init(jpeg: jpeg, width: photo.width, height: photo.height))
        }
        do {
            var image: GrayImage
            if let luma = photo.luma {
                image = luma
            } else {
                image = try ImageDecoder().decode(photo.jpeg ?? Data()).image
            }
            if annotate {
                let w = Double(image.width), h = Double(image.height)
                for quad in items { image.strokePolygon(quad.corners.map { Point(x: $0.x * w, y: $0.y * h) }, width: max(3, image.width / 320)) }
            }
            let jpeg = try JPEGEncoder().encode(image, quality: 90)
            return .success(.init(jpeg: jpeg, width: image.width, height: image.height))
        } catch {
            return .failure(.init("cannot encode the photo: \(error)"))
        }
    }

    func startServer(
        hub: EventHub, source: FrameSource, logger: Logger,
        configure: @escaping @Sendable (ConfigChange) -> Result<[(String, JSONValue)], EventServer.ConfigurationRefusal>,
        capture: @escaping @Sendable (Bool) async -> Result<EventServer.CapturedPhoto, EventServer.ConfigurationRefusal>
    ) -> RunningServer {
        nonisolated(unsafe) let statsSource = source
        let server = EventServer(
            hub: hub,
            configuration: EventServerConfiguration(
                path: socket, mode: mode_t(socketMode, radix: 8)!, maximumClients: maxClients,
                group: socketGroup.flatMap(Self.groupID), allowedUsers: Set(allowUsers.compactMap(Self.userID)),
                allowedGroups: Set(allowGroups.compactMap(Self.groupID)),
                controlUsers: Set(controlUsers.compactMap(Self.userID)), controlGroups: Set(controlGroups.compactMap(Self.groupID))),
            logger: logger,
            stats: {
                let s = statsSource.statistics
                return [
                    ("framesDelivered", .integer(s.delivered)), ("framesDropped", .integer(s.dropped)),
                    ("framesCorrupt", .integer(s.corrupt)), ("reconnects", .integer(s.reconnects)),
                ]
            },
            configure: configure, capture: capture)
        let directory = (socket as NSString).deletingLastPathComponent
        try? FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let started = DispatchSemaphore(value: 0)
        let failure = Mutex<Error?>(nil)
        let task = Task {
            do {
                try await server.run(ready: { started.signal() })
            } catch is CancellationError {
            } catch {
                failure.withLock { $0 = error }
                started.signal()
            }
        }
        started.wait()
        if let error = failure.withLock({ $0 }) { Self.fail("scannerd: \(error)") }
        return RunningServer(server: server, task: task)
    }

    func runDeterministic(_ handler: SequenceHandler, _ source: FrameSource, _ output: EventPrinter) {
        var lastFrame = 0
        while true {
            switch source.next() {
            case .frame(let frame):
                lastFrame = frame.index
                for action in handler.process(frame, time: Double(frame.index) / fps) {
                    output.emit(.item(action, frame: frame.index))
                }
            case .available:
                output.emit(.source(.available))
            case .unavailable(let reason):
                output.emit(.source(.unavailable(reason: reason)))
            case .end:
                for action in handler.finish() { output.emit(.item(action, frame: lastFrame)) }
                output.emit(.end(frames: source.statistics.delivered))
                return
            }
        }
    }

    static func metadata(_ s: SequenceStatistics) -> Logger.Metadata {
        [
            "barcodeScans": "\(s.barcodeScans)", "barcodeScansReused": "\(s.barcodeScansReused)",
            "ocrPasses": "\(s.ocrPasses)", "ocrPartialPasses": "\(s.ocrPartialPasses)", "ocrSkippedBlurred": "\(s.ocrSkippedBlurred)",
            "ocrSkippedUnchanged": "\(s.ocrSkippedUnchanged)",
        ]
    }

    /// A user name or number → uid.
    static func userID(_ name: String) -> uid_t? {
        if let number = uid_t(name) { return number }
        return getpwnam(name).map { $0.pointee.pw_uid }
    }

    /// A group name or number → gid.
    static func groupID(_ name: String) -> gid_t? {
        if let number = gid_t(name) { return number }
        return getgrnam(name).map { $0.pointee.gr_gid }
    }

    static func fail(_ message: String) -> Never {
        FileHandle.standardError.write(Data((message + "\n").utf8))
        Foundation.exit(2)
    }
}

/// The event server's task, to stop at the end of the run.
struct RunningServer {
    let server: EventServer
    let task: Task<Void, Never>

    func stop() {
        task.cancel()
        let done = DispatchSemaphore(value: 0)
        Task { _ = await task.value; done.signal() }
        _ = done.wait(timeout: .now() + 2)
        server.removeSocketFile()
    }
}

/// Publishes pipeline events on the hub, which prints them (with --events-stdout) as JSON lines, one
/// `write` per line so lines never interleave.
final class EventPrinter: Sendable {
    let hub: EventHub
    let enabled: Bool

    init(hub: EventHub, enabled: Bool) {
        self.hub = hub
        self.enabled = enabled
    }

    func hello() {
        if enabled { FileHandle.standardOutput.write(Data((hub.hello() + "\n").utf8)) }
    }

    /// The hub numbers the event, sends it to socket clients and mirrors it to stdout.
    func emit(_ event: PipelineEvent) {
        hub.publish(event)
    }
}
