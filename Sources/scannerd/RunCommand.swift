import ArgumentParser
import Capture
import Foundation
import Logging
import Recognition
import ScannerCore

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

    @Option(name: .long, help: "Frame rate: what to ask the camera for, or the replay rate.")
    var fps: Double = 30

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

    @Option(name: .long, help: "Width of the image recognition works on (frames are reduced while decoding).")
    var processingWidth: Int = 640

    @Option(name: .customLong("control"), help: ArgumentHelp("Camera control, repeatable: focusAuto=0, focus=120, exposureAuto=manual, exposure=300, zoom=150, brightness=140, powerLineFrequency=50.", valueName: "name=value"))
    var controls: [String] = []

    @OptionGroup var recognition: RecognitionOptions

    @Flag(name: .long, help: "Print events as JSON lines on stdout.")
    var eventsStdout = false

    @Flag(name: .long, help: "Also print a `frame` event with the items seen in every frame scanned (diagnostic).")
    var frameEvents = false

    @Option(name: .long, help: "Log level: trace, debug, info, notice, warning, error, critical.")
    var logLevel: String = "info"

    func validate() throws {
        if (device == nil) == (source == nil) { throw ValidationError("give exactly one of --device PATH or --source SOURCE") }
        if ReplayPace(rawValue: pace) == nil { throw ValidationError("invalid pace '\(pace)': expected realtime or none") }
        if !(fps > 0 && fps <= 1000) { throw ValidationError("invalid fps '\(fps)': expected a number above 0") }
        if processingWidth < 16 { throw ValidationError("invalid processing width \(processingWidth)") }
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
        let scanner: ImageScanner
        do {
            scanner = try ImageScanner(options: options)
        } catch {
            Self.fail("scannerd: \(error)")
        }

        let output = EventPrinter(enabled: eventsStdout)
        let loop = ScanLoop(source: frameSource, scanner: scanner, output: output, frameEvents: frameEvents, logger: logger)
        // SIGINT / SIGTERM end the loop; the source returns `.end` within one poll slice.
        let signals = [SIGINT, SIGTERM].map { signo -> DispatchSourceSignal in
            signal(signo, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: signo, queue: .global())
            source.setEventHandler { frameSource.cancel() }
            source.resume()
            return source
        }
        loop.run()
        signals.forEach { $0.cancel() }
        logger.info("stopped", metadata: [
            "frames": "\(frameSource.statistics.delivered)", "dropped": "\(frameSource.statistics.dropped)",
            "corrupt": "\(frameSource.statistics.corrupt)", "reconnects": "\(frameSource.statistics.reconnects)",
        ])
    }

    static func fail(_ message: String) -> Never {
        FileHandle.standardError.write(Data((message + "\n").utf8))
        Foundation.exit(2)
    }
}

/// The capture → recognition loop, on the calling thread (never the cooperative pool: `next()` blocks).
/// The sequence pipeline with trackers replaces the per-frame reporting here.
final class ScanLoop {
    let source: FrameSource
    let scanner: ImageScanner
    let output: EventPrinter
    let frameEvents: Bool
    let logger: Logger

    init(source: FrameSource, scanner: ImageScanner, output: EventPrinter, frameEvents: Bool, logger: Logger) {
        self.source = source
        self.scanner = scanner
        self.output = output
        self.frameEvents = frameEvents
        self.logger = logger
    }

    func run() {
        while true {
            switch source.next() {
            case .available:
                output.emit("available", [])
            case .unavailable(let reason):
                output.emit("unavailable", [("reason", .string(reason))])
            case .end:
                output.emit("end", [("frames", .integer(source.statistics.delivered))])
                return
            case .frame(let frame):
                let items = scanner.scan(frame.image.image)
                if frameEvents {
                    output.emit("frame", [
                        ("frame", .integer(frame.index)),
                        ("size", .array([.integer(frame.image.sourceWidth), .integer(frame.image.sourceHeight)])),
                        ("items", .array(items.map(\.json))),
                    ])
                }
            }
        }
    }
}

/// Writes events as JSON lines to stdout, one `write` per line so lines never interleave.
final class EventPrinter {
    let enabled: Bool
    private var seq = 0
    private let formatter: ISO8601DateFormatter = {
        let f = ISO8601DateFormatter()
        f.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return f
    }()

    init(enabled: Bool) { self.enabled = enabled }

    func emit(_ event: String, _ fields: [(String, JSONValue)]) {
        guard enabled else { return }
        seq += 1
        let object = JSONValue.object(
            [("event", .string(event)), ("seq", .integer(seq)), ("time", .string(formatter.string(from: Date())))] + fields)
        FileHandle.standardOutput.write(Data((object.serialized() + "\n").utf8))
    }
}
