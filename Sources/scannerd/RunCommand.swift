import ArgumentParser
import Daemon
import DaemonConfiguration
import Foundation
import Logging
import ScannerCore

/// `scannerd run`: frames from a camera or a replay through recognition, events out.
struct RunCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "run",
        abstract: "Run the scanner on a camera or a replay, serving events on a Unix socket.",
        discussion: """
            Settings come from the defaults, then the configuration file (--config, else $SCANNERD_CONFIG, \
            else /etc/scannerd/scannerd.conf if it exists), then SCANNERD_* environment variables, then \
            these options (docs/configuration.md). SIGHUP reloads the file; SIGTERM and SIGINT stop \
            capture, send `removed` for the items still present and `end`, and exit 0. With a camera that \
            is missing or unplugged the daemon reports it unavailable and keeps retrying; a replay ends \
            with exit 0 unless --loop. Events are JSON lines (docs/protocol.md).
            """
    )

    @Option(name: .long, help: ArgumentHelp("Configuration file (YAML).", valueName: "path"))
    var config: String?

    @Flag(name: .long, help: "Read no configuration file.")
    var noConfig = false

    @Flag(
        name: .long,
        help: "Check the configuration this command gives (file, environment, options), print every key's value and where it comes from, and exit.")
    var check = false

    @Option(name: .long, help: ArgumentHelp("Camera device: /dev/videoN or /dev/v4l/by-id/… (camera.device).", valueName: "path"))
    var device: String?

    @Option(name: .long, help: ArgumentHelp("Replay source: demo, a directory of images, or an .mjpeg file (camera.source).", valueName: "source"))
    var source: String?

    @Option(name: .long, help: "Frame rate: what to ask the camera for, or the replay rate (default 30; the demo clip plays at 10).")
    var fps: String?

    @Option(name: .long, help: "Replay pacing: realtime (drop what the scanner is not ready for) or none (every frame).")
    var pace: String?

    @Flag(name: .long, help: "Replay the source forever.")
    var loop = false

    @Option(name: .long, help: "Camera frame width to ask for (default 1280).")
    var width: String?

    @Option(name: .long, help: "Camera frame height to ask for (default 720).")
    var height: String?

    @Option(name: .long, help: ArgumentHelp("Allowed camera formats, most preferred first (default MJPG,YUYV,GREY).", valueName: "list"))
    var formats: String?

    @Option(name: .long, help: "Width of the image recognition works on; default by quality: fast 480, balanced 640, accurate 960.")
    var processingWidth: String?

    @Option(
        name: .customLong("control"),
        help: ArgumentHelp(
            "Camera control, repeatable: focusAuto=0, focus=120, exposureAuto=manual, exposure=300, zoom=150, brightness=140, powerLineFrequency=50.",
            valueName: "name=value"))
    var controls: [String] = []

    @OptionGroup var recognition: RecognitionOptions

    @Option(
        name: .long,
        help: ArgumentHelp(
            "The text networks' models: with them PP-OCRv6's recognizer reads every line (Tesseract without): auto (the models beside the binary, which make deps and make install put there), none, or their directory (recognition.line-model).",
            valueName: "dir"))
    var lineModel: String?

    @Flag(name: .long, help: "Print events as JSON lines on stdout.")
    var eventsStdout = false

    @Flag(name: .long, help: "Report only the item nearest the centre of the region of interest (recognizesMultipleItems = false).")
    var single = false

    @Option(name: .long, help: ArgumentHelp("Unix socket for clients (default /run/scannerd/scannerd.sock).", valueName: "path"))
    var socket: String?

    @Flag(name: .long, help: "Do not listen on a socket (events only on stdout).")
    var noSocket = false

    @Option(name: .long, help: "Most clients served at once (default 64).")
    var maxClients: String?

    @Option(name: .long, help: "Most connections one user may hold; root, the daemon's user and control users are not limited (default 16).")
    var maxClientsPerUser: String?

    @Option(name: .long, help: ArgumentHelp("File mode of the socket, octal (default 0660).", valueName: "mode"))
    var socketMode: String?

    @Option(name: .long, help: ArgumentHelp("Group that owns the socket.", valueName: "group"))
    var socketGroup: String?

    @Option(
        name: .customLong("allow-user"),
        help: ArgumentHelp("Only these users may use the socket (repeatable; with --allow-group: either).", valueName: "user"))
    var allowUsers: [String] = []

    @Option(name: .customLong("allow-group"), help: ArgumentHelp("Only members of these groups may use the socket (repeatable).", valueName: "group"))
    var allowGroups: [String] = []

    @Option(
        name: .customLong("control-user"),
        help: ArgumentHelp("Only these users may change settings over the socket (`set`; repeatable).", valueName: "user"))
    var controlUsers: [String] = []

    @Option(
        name: .customLong("control-group"),
        help: ArgumentHelp("Only members of these groups may change settings over the socket (repeatable).", valueName: "group"))
    var controlGroups: [String] = []

    @Option(
        name: .long,
        help: ArgumentHelp("Serve events, items, a snapshot and the preview page over HTTP (http.listen; off by default).", valueName: "host:port"))
    var http: String?

    @Option(name: .long, help: ArgumentHelp("File holding the token HTTP clients must present (http.token-file).", valueName: "path"))
    var httpTokenFile: String?

    @Option(
        name: .customLong("http-allowed-origin"),
        help: ArgumentHelp("A web origin besides the server's own whose pages may read events (repeatable).", valueName: "origin"))
    var httpAllowedOrigins: [String] = []

    @Option(
        name: .long,
        help: ArgumentHelp("Publish every event to an MQTT broker: mqtt://HOST[:PORT] or mqtts://… (mqtt.broker; off by default).", valueName: "url"))
    var mqtt: String?

    @Option(
        name: .long,
        help: ArgumentHelp("MQTT topic prefix: PREFIX/events, PREFIX/status, PREFIX/items (mqtt.topic; default scannerd).", valueName: "prefix"))
    var mqttTopic: String?

    @Option(name: .long, help: "Log level: trace, debug, info, notice, warning, error, critical.")
    var logLevel: String?

    /// The options given, as configuration entries: the command line is the top layer and is checked
    /// by the same readers as the file.
    var commandLineEntries: [SettingEntry] {
        var entries: [SettingEntry] = []
        // The key each option sets is the schema's (`SettingKey.flag`): spelled once, there.
        func key(_ flag: String) -> String {
            guard let key = SettingsSchema.key(flag: flag) else { preconditionFailure("no setting has the option \(flag)") }
            return key.name
        }
        func add(_ value: String?, _ flag: String) {
            if let value { entries.append(SettingEntry(key: key(flag), value: .scalar(value), origin: .commandLine(flag))) }
        }
        func add(list: [String], _ flag: String) {
            if !list.isEmpty { entries.append(SettingEntry(key: key(flag), value: .list(list), origin: .commandLine(flag))) }
        }
        add(device, "--device")
        add(source, "--source")
        add(fps, "--fps")
        add(pace, "--pace")
        add(loop ? "true" : nil, "--loop")
        add(width, "--width")
        add(height, "--height")
        add(formats, "--formats")
        add(processingWidth, "--processing-width")
        add(list: controls, "--control")
        add(recognition.types, "--types")
        add(recognition.quality, "--quality")
        add(recognition.roi, "--roi")
        add(recognition.region, "--region")
        add(recognition.languages, "--languages")
        add(lineModel, "--line-model")
        add(single ? "true" : nil, "--single")
        add(noSocket ? "false" : nil, "--no-socket")
        add(socket, "--socket")
        add(maxClients, "--max-clients")
        add(maxClientsPerUser, "--max-clients-per-user")
        add(socketMode, "--socket-mode")
        add(socketGroup, "--socket-group")
        add(list: allowUsers, "--allow-user")
        add(list: allowGroups, "--allow-group")
        add(list: controlUsers, "--control-user")
        add(list: controlGroups, "--control-group")
        add(http, "--http")
        add(httpTokenFile, "--http-token-file")
        add(list: httpAllowedOrigins, "--http-allowed-origin")
        add(mqtt, "--mqtt")
        add(mqttTopic, "--mqtt-topic")
        add(logLevel, "--log-level")
        add(eventsStdout ? "true" : nil, "--events-stdout")
        return entries
    }

    func run() async throws {
        // SIGHUP's default action ends the process: until the reload service listens for it, a reload
        // sent right at start is ignored instead.
        signal(SIGHUP, SIG_IGN)
        let loader = ConfigurationLoader(
            filePath: ConfigurationPath.resolve(explicit: config, none: noConfig), commandLine: commandLineEntries)
        let loaded: LoadedConfiguration
        do {
            loaded = try loader.load()
        } catch {
            Self.fail(error.errors.map { "scannerd: \($0)" }.joined(separator: "\n"))
        }
        if check {
            FileHandle.standardOutput.write(Data(CheckConfigCommand.effective(loaded).utf8))
            return
        }
        let level = LogLevelControl(loaded.settings.logLevel)
        LoggingSystem.bootstrap { label in JournalLogHandler(label: label, level: level) }
        let logger = Logger(label: "scannerd")
        logger.info(
            "starting",
            metadata: [
                "version": "\(Release.version)", "config": "\(loader.filePath ?? "none")", "source": "\(loaded.settings.input.name)",
            ])
        // The stages time themselves through swift-metrics: point it at the registry /metrics shows,
        // once, before any stage is made.
        let metrics = MetricsExport()
        MetricsExport.bootstrap(metrics.registry)
        let daemon: ScannerDaemon
        do {
            daemon = try ScannerDaemon(
                configuration: loaded, logLevel: level, logger: logger, metrics: metrics,
                reload: { () throws(ConfigurationErrors) in
                    try loader.load()
                })
        } catch {
            Self.fail("scannerd: \(error)")
        }
        do {
            try await daemon.run()
        } catch {
            Self.fail("scannerd: \(error)")
        }
    }

    static func fail(_ message: String) -> Never {
        FileHandle.standardError.write(Data((message + "\n").utf8))
        Foundation.exit(2)
    }
}

/// Which configuration file, if any.
enum ConfigurationPath {
    static func resolve(explicit: String?, none: Bool, environment: [String: String] = ProcessInfo.processInfo.environment) -> String? {
        if none { return nil }
        if let explicit { return explicit }
        if let fromEnvironment = environment["SCANNERD_CONFIG"], !fromEnvironment.isEmpty { return fromEnvironment }
        return FileManager.default.fileExists(atPath: ConfigurationLoader.defaultPath) ? ConfigurationLoader.defaultPath : nil
    }
}
