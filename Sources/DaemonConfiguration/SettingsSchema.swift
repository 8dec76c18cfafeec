import Capture
import Foundation
import Logging
import ScannerCore

/// One configuration key: its name in the file (`section.key`), how to read it, how to show it, and
/// whether a `SIGHUP` reload can apply it to the running daemon.
public struct SettingKey: Sendable {
    public let name: String
    /// `scannerd run`'s option for it, if it has one.
    public let flag: String?
    public let summary: String
    /// For a key a reload applies without a restart (recognition, tracking, log level): copies its
    /// value from the settings read to the running ones.
    let copy: (@Sendable (inout DaemonSettings, DaemonSettings) -> Void)?
    let read: @Sendable (SettingValue, inout DaemonSettings) throws(ValueProblem) -> Void
    let show: @Sendable (DaemonSettings) -> String
    /// For a key whose value may hold a secret (`mqtt.broker`: `mqtt://user:password@host`): the
    /// value as an error message or a listing may quote it.
    let redact: (@Sendable (String) -> String)?

    init(
        name: String, flag: String? = nil, summary: String, live copy: (@Sendable (inout DaemonSettings, DaemonSettings) -> Void)? = nil,
        read: @escaping @Sendable (SettingValue, inout DaemonSettings) throws(ValueProblem) -> Void,
        show: @escaping @Sendable (DaemonSettings) -> String,
        redact: (@Sendable (String) -> String)? = nil
    ) {
        self.name = name
        self.flag = flag
        self.summary = summary
        self.copy = copy
        self.read = read
        self.show = show
        self.redact = redact
    }

    /// A value as written, as an error message may quote it (secrets redacted).
    public func quoted(_ value: SettingValue) -> String {
        redact.map { $0(value.description) } ?? value.description
    }

    /// Applied by a reload without a restart.
    public var live: Bool { copy != nil }

    /// `camera.processing-width` → `SCANNERD_CAMERA_PROCESSING_WIDTH`.
    public var environmentName: String {
        "SCANNERD_" + name.uppercased().map { $0 == "." || $0 == "-" ? "_" : $0 }.map(String.init).joined()
    }

    /// The value in `settings`, as the file would spell it.
    public func value(in settings: DaemonSettings) -> String { show(settings) }
}

/// Why a value cannot be used (the loader adds the key, the value and the origin).
struct ValueProblem: Error {
    var reason: String
    init(_ reason: String) { self.reason = reason }
}

/// Every key there is. The order is the file's (config/scannerd.conf) and the docs'.
public enum SettingsSchema {
    public static let keys: [SettingKey] = camera + recognition + tracking + server + http + mqtt + output

    public static func key(_ name: String) -> SettingKey? { byName[name] }
    private static let byName = Dictionary(uniqueKeysWithValues: keys.map { ($0.name, $0) })

    /// The key `scannerd run`'s option `flag` sets.
    public static func key(flag: String) -> SettingKey? { byFlag[flag] }
    private static let byFlag = Dictionary(uniqueKeysWithValues: keys.compactMap { key in key.flag.map { ($0, key) } })

    /// Keys that exclude each other within one layer (a higher layer's choice replaces a lower one's).
    static let exclusive = ["camera.device", "camera.source"]

    static let camera: [SettingKey] = [
        SettingKey(
            name: "camera.device", flag: "--device", summary: "V4L2 camera: /dev/videoN or /dev/v4l/by-id/… (stable across replugging)",
            read: { v, s throws(ValueProblem) in
                let path = try scalar(v)
                guard path.hasPrefix("/") else { throw ValueProblem("expected an absolute path such as /dev/video0 or /dev/v4l/by-id/…") }
                s.input = .device(path)
            },
            show: { if case .device(let p) = $0.input { p } else { "null" } }),
        SettingKey(
            name: "camera.source", flag: "--source", summary: "replay instead of a camera: demo, a directory of images or an .mjpeg file",
            read: { v, s throws(ValueProblem) in
                if v == .null {
                    if case .replay = s.input { s.input = DaemonSettings().input }
                    return
                }
                let source = try scalar(v)
                guard !source.isEmpty else { throw ValueProblem("expected demo, a directory or an .mjpeg file") }
                s.input = .replay(source)
            },
            show: { if case .replay(let p) = $0.input { p } else { "null" } }),
        SettingKey(
            name: "camera.formats", flag: "--formats", summary: "pixel formats to accept, most preferred first (MJPG, YUYV, GREY)",
            read: { v, s throws(ValueProblem) in
                let names = try list(v)
                guard !names.isEmpty else { throw ValueProblem("the list is empty") }
                s.formats = try names.map { name throws(ValueProblem) in
                    guard let f = PixelFormat(rawValue: name.uppercased()) else { throw ValueProblem("'\(name)' is not MJPG, YUYV or GREY") }
                    return f
                }
            },
            show: { "[" + $0.formats.map(\.rawValue).joined(separator: ", ") + "]" }),
        SettingKey(
            name: "camera.width", flag: "--width", summary: "frame width to ask the camera for (it may choose the nearest it has)",
            read: { v, s throws(ValueProblem) in s.width = try integer(v, 16...8192) }, show: { "\($0.width)" }),
        SettingKey(
            name: "camera.height", flag: "--height", summary: "frame height to ask the camera for",
            read: { v, s throws(ValueProblem) in s.height = try integer(v, 16...8192) }, show: { "\($0.height)" }),
        SettingKey(
            name: "camera.fps", flag: "--fps", summary: "frame rate to ask for, or the replay's rate; auto: 30 (the demo clip 10)",
            read: { v, s throws(ValueProblem) in s.fps = try auto(v) { v throws(ValueProblem) in try number(v, above: 0, atMost: 1000) } },
            show: { $0.fps.map { format($0) } ?? "auto" }),
        SettingKey(
            name: "camera.processing-width", flag: "--processing-width",
            summary: "width recognition works at (frames are reduced while decoding); auto: fast 480, balanced 640, accurate 960",
            read: { v, s throws(ValueProblem) in s.processingWidth = try auto(v) { v throws(ValueProblem) in try integer(v, 16...8192) } },
            show: { $0.processingWidth.map(String.init) ?? "auto" }),
        SettingKey(
            name: "camera.controls", flag: "--control",
            summary: "camera controls, name: value (focusAuto, focus, exposureAuto, exposure, zoom, brightness, powerLineFrequency)",
            read: { v, s throws(ValueProblem) in
                let pairs = try pairs(v)
                for pair in pairs {
                    if let problem = CameraControls.problem(name: pair.key, value: pair.value) { throw ValueProblem(problem) }
                }
                s.controls = pairs.map { CameraControlSetting(name: $0.key, value: $0.value) }
            },
            show: { "{" + $0.controls.map { "\($0.name): \($0.value)" }.joined(separator: ", ") + "}" }),
        SettingKey(
            name: "camera.pace", flag: "--pace",
            summary: "replays only: realtime (skip what the scanner is not ready for, as a camera) or none (every frame)",
            read: { v, s throws(ValueProblem) in s.pace = try choice(v, ReplayPace.self) }, show: { $0.pace.rawValue }),
        SettingKey(
            name: "camera.loop", flag: "--loop", summary: "replays only: start again at the end instead of exiting",
            read: { v, s throws(ValueProblem) in s.loop = try boolean(v) }, show: { "\($0.loop)" }),
    ]

    static let recognition: [SettingKey] = [
        SettingKey(
            name: "recognition.types", flag: "--types",
            summary:
                "what to recognize: symbologies (qr, ean13, …), telephoneNumber, url, emailAddress, shipmentTrackingNumber, currency, dateTimeDuration, flightNumber, fullStreetAddress, document (the page or card held up), or the groups barcodes, matrix, linear, retail, contentTypes (the first three), text",
            live: { $0.types = $1.types },
            read: { v, s throws(ValueProblem) in
                let names = try list(v)
                do throws(ScannerError) {
                    s.types = try RecognitionTypes(parsing: names.joined(separator: ","))
                } catch {
                    if case .invalidArgument(_, let name, let reason) = error, names.count > 1 { throw ValueProblem("'\(name)': \(reason)") }
                    throw ValueProblem(error.reason)
                }
            },
            show: { "[" + $0.types.names.joined(separator: ", ") + "]" }),
        SettingKey(
            name: "recognition.quality", flag: "--quality",
            summary: "fast, balanced or accurate: processing width, OCR rate and how much evidence text needs", live: { $0.quality = $1.quality },
            read: { v, s throws(ValueProblem) in s.quality = try choice(v, QualityLevel.self) }, show: { $0.quality.rawValue }),
        SettingKey(
            name: "recognition.region-of-interest", flag: "--roi", summary: "where to look, normalized [x, y, width, height] from the top-left",
            live: { $0.regionOfInterest = $1.regionOfInterest },
            read: { v, s throws(ValueProblem) in
                let parts = try list(v)
                do throws(ScannerError) { s.regionOfInterest = try NormalizedRect(parsing: parts.joined(separator: ",")) } catch {
                    throw ValueProblem(error.reason)
                }
            },
            show: { r in
                "["
                    + [r.regionOfInterest.x, r.regionOfInterest.y, r.regionOfInterest.width, r.regionOfInterest.height].map { format($0) }.joined(
                        separator: ", ") + "]"
            }),
        SettingKey(
            name: "recognition.single-item", flag: "--single", summary: "report only the item nearest the centre of the region of interest",
            live: { $0.singleItem = $1.singleItem },
            read: { v, s throws(ValueProblem) in s.singleItem = try boolean(v) }, show: { "\($0.singleItem)" }),
        SettingKey(
            name: "recognition.phone-region", flag: "--region",
            summary: "country for phone numbers written without a country code (ISO 3166 alpha-2)", live: { $0.phoneRegion = $1.phoneRegion },
            read: { v, s throws(ValueProblem) in
                let region = try scalar(v).uppercased()
                guard region.count == 2, region.allSatisfy({ $0.isASCII && $0.isLetter }) else {
                    throw ValueProblem("expected a two-letter country code such as US or DE")
                }
                s.phoneRegion = region
            },
            show: { $0.phoneRegion }),
        SettingKey(
            name: "recognition.languages", flag: "--languages", summary: "Tesseract languages (each needs its tesseract-ocr-LANG package)",
            live: { $0.languages = $1.languages },
            read: { v, s throws(ValueProblem) in
                let languages = try list(v).flatMap { $0.split(separator: "+").map(String.init) }
                guard !languages.isEmpty else { throw ValueProblem("the list is empty") }
                for language in languages where !language.allSatisfy({ $0.isASCII && ($0.isLetter || $0 == "_") }) {
                    throw ValueProblem("'\(language)' is not a Tesseract language name such as eng or deu")
                }
                s.languages = languages
            },
            show: { "[" + $0.languages.joined(separator: ", ") + "]" }),
        SettingKey(
            name: "recognition.line-model", flag: "--line-model",
            summary:
                "the text networks' models (make deps fetches them): with them PP-OCRv6's recognizer reads every line (Tesseract without): auto (the models beside the binary; ones that do not load are logged, flagged in stats and /metrics, and Tesseract reads), none, or their directory (one that does not load stops the start)",
            read: { v, s throws(ValueProblem) in
                switch try v == .null ? "auto" : scalar(v) {
                case "auto": s.lineModel = .installed
                case "none": s.lineModel = .none
                case let path:
                    guard path.hasPrefix("/") else { throw ValueProblem("expected auto, none or an absolute path") }
                    s.lineModel = .directory(path)
                }
            },
            show: {
                switch $0.lineModel {
                case .installed: "auto"
                case .none: "none"
                case .directory(let path): path
                }
            }),
    ]

    static let tracking: [SettingKey] = [
        SettingKey(
            name: "tracking.grace-period", summary: "seconds a barcode may go unseen before it is removed", live: { $0.gracePeriod = $1.gracePeriod },
            read: { v, s throws(ValueProblem) in s.gracePeriod = try number(v, above: 0, atMost: 60) }, show: { format($0.gracePeriod) }),
        SettingKey(
            name: "tracking.text-grace-period", summary: "the same for text (its lines are looked for on every OCR pass, several a second)",
            live: { $0.textGracePeriod = $1.textGracePeriod },
            read: { v, s throws(ValueProblem) in s.textGracePeriod = try number(v, above: 0, atMost: 60) }, show: { format($0.textGracePeriod) }),
        SettingKey(
            name: "tracking.move-threshold", summary: "an item is updated when a corner moved more than this (normalized units)",
            live: { $0.moveThreshold = $1.moveThreshold },
            read: { v, s throws(ValueProblem) in s.moveThreshold = try number(v, above: 0, atMost: 1) }, show: { format($0.moveThreshold) }),
        SettingKey(
            name: "tracking.weak-barcode-confirmations",
            summary:
                "agreeing decodes at one place needed for 1-D codes (EAN/UPC, Code 128, Code 39, …), which must also lead the other decodes there by as many (a decode only zbar made, not confirmed by zxing-cpp, counts half); QR and PDF417 need one",
            live: { $0.weakBarcodeConfirmations = $1.weakBarcodeConfirmations },
            read: { v, s throws(ValueProblem) in s.weakBarcodeConfirmations = try integer(v, 1...30) }, show: { "\($0.weakBarcodeConfirmations)" }),
        SettingKey(
            name: "tracking.text-agreement", summary: "OCR reads that must agree before text is added; auto: fast 2, balanced 2, accurate 3",
            live: { $0.textAgreement = $1.textAgreement },
            read: { v, s throws(ValueProblem) in s.textAgreement = try auto(v) { v throws(ValueProblem) in try integer(v, 1...30) } },
            show: { $0.textAgreement.map(String.init) ?? "auto" }),
        SettingKey(
            name: "tracking.text-window", summary: "of the last this many OCR reads; auto: fast 3, balanced 4, accurate 5",
            live: { $0.textWindow = $1.textWindow },
            read: { v, s throws(ValueProblem) in s.textWindow = try auto(v) { v throws(ValueProblem) in try integer(v, 1...30) } },
            show: { $0.textWindow.map(String.init) ?? "auto" }),
    ]

    static let server: [SettingKey] = [
        SettingKey(
            name: "server.enabled", flag: "--no-socket", summary: "listen on the socket (false: events only on stdout)",
            read: { v, s throws(ValueProblem) in s.socketEnabled = try boolean(v) }, show: { "\($0.socketEnabled)" }),
        SettingKey(
            name: "server.socket", flag: "--socket", summary: "Unix socket for clients (unused when systemd passes one: scannerd.socket)",
            read: { v, s throws(ValueProblem) in
                let path = try scalar(v)
                guard !path.isEmpty, path.utf8.count < 108 else { throw ValueProblem("expected a path shorter than 108 bytes") }
                // Linux's abstract names ('@…') have no file mode or group: no access control.
                guard !path.hasPrefix("@") else { throw ValueProblem("expected a file path (an abstract socket name has no file permissions)") }
                s.socketPath = path
            },
            show: { $0.socketPath }),
        SettingKey(
            name: "server.socket-mode", flag: "--socket-mode", summary: "file mode of the socket, octal",
            read: { v, s throws(ValueProblem) in
                let text = try scalar(v)
                guard let mode = UInt32(text, radix: 8), mode <= 0o777 else { throw ValueProblem("expected an octal mode such as \"0660\"") }
                s.socketMode = mode
            },
            show: { "\"0" + String($0.socketMode, radix: 8) + "\"" }),
        SettingKey(
            name: "server.socket-group", flag: "--socket-group", summary: "group that owns the socket (null: the daemon's)",
            read: { v, s throws(ValueProblem) in s.socketGroup = v == .null ? nil : try group(scalar(v)) },
            show: { $0.socketGroup ?? "null" }),
        SettingKey(
            name: "server.max-clients", flag: "--max-clients", summary: "clients served at once; more are refused with too-many-clients",
            read: { v, s throws(ValueProblem) in s.maximumClients = try integer(v, 1...10_000) }, show: { "\($0.maximumClients)" }),
        SettingKey(
            name: "server.queue-limit",
            summary:
                "events that may wait for one client (socket, event stream or WebSocket) before it is cut off with overflow; at most 4 MiB may wait, whatever the count",
            read: { v, s throws(ValueProblem) in s.queueLimit = try integer(v, 16...100_000) }, show: { "\($0.queueLimit)" }),
        SettingKey(
            name: "server.max-clients-per-user", flag: "--max-clients-per-user",
            summary: "connections one user may hold (root, the daemon's user and control users: no limit)",
            read: { v, s throws(ValueProblem) in s.maximumClientsPerUser = try integer(v, 1...10_000) }, show: { "\($0.maximumClientsPerUser)" }),
        SettingKey(
            name: "server.allow-users", flag: "--allow-user",
            summary: "only these users may connect (empty, with allow-groups empty: anyone the socket's mode lets in)",
            read: { v, s throws(ValueProblem) in s.allowUsers = try list(v).map { name throws(ValueProblem) in try user(name) } },
            show: { "[" + $0.allowUsers.joined(separator: ", ") + "]" }),
        SettingKey(
            name: "server.allow-groups", flag: "--allow-group", summary: "only members of these groups may connect",
            read: { v, s throws(ValueProblem) in s.allowGroups = try list(v).map { name throws(ValueProblem) in try group(name) } },
            show: { "[" + $0.allowGroups.joined(separator: ", ") + "]" }),
        SettingKey(
            name: "server.control-users", flag: "--control-user",
            summary:
                "besides root and the daemon's user, these may change settings (set) and write photos to paths (both lists empty: every client may set, nobody else may write)",
            read: { v, s throws(ValueProblem) in s.controlUsers = try list(v).map { name throws(ValueProblem) in try user(name) } },
            show: { "[" + $0.controlUsers.joined(separator: ", ") + "]" }),
        SettingKey(
            name: "server.control-groups", flag: "--control-group", summary: "members of these groups are control users too",
            read: { v, s throws(ValueProblem) in s.controlGroups = try list(v).map { name throws(ValueProblem) in try group(name) } },
            show: { "[" + $0.controlGroups.joined(separator: ", ") + "]" }),
    ]

    static let http: [SettingKey] = [
        SettingKey(
            name: "http.listen", flag: "--http",
            summary:
                "serve events, items, a snapshot and the preview page over HTTP at HOST:PORT (null: off); an address other than loopback needs http.token-file",
            read: { v, s throws(ValueProblem) in
                if v == .null {
                    s.httpListen = nil
                    return
                }
                let text = try scalar(v)
                guard let listen = HTTPListen(parsing: text) else { throw ValueProblem("expected HOST:PORT, such as 127.0.0.1:8390 or [::1]:8390") }
                s.httpListen = listen
            },
            show: { $0.httpListen.map { "\"\($0)\"" } ?? "null" }),
        SettingKey(
            name: "http.token-file", flag: "--http-token-file",
            summary: "a file holding the token HTTP clients must present (Authorization: Bearer, or ?token=)",
            read: { v, s throws(ValueProblem) in
                if v == .null {
                    s.httpTokenFile = nil
                    return
                }
                let path = try scalar(v)
                guard path.hasPrefix("/") else { throw ValueProblem("expected an absolute path") }
                s.httpTokenFile = path
            },
            show: { $0.httpTokenFile ?? "null" }),
        SettingKey(
            name: "http.max-connections",
            summary:
                "HTTP connections held at once, event streams included; when all are held, the one that has waited longest for a request is closed to make room",
            read: { v, s throws(ValueProblem) in s.httpMaxConnections = try integer(v, 1...10_000) }, show: { "\($0.httpMaxConnections)" }),
        SettingKey(
            name: "http.idle-timeout", summary: "seconds an HTTP connection may wait for a request (keep-alive) before it is closed",
            read: { v, s throws(ValueProblem) in s.httpIdleTimeout = try number(v, above: 0, atMost: 3600) }, show: { format($0.httpIdleTimeout) }),
        SettingKey(
            name: "http.request-timeout", summary: "seconds a client may take to send a request once it has begun (slow clients are closed)",
            read: { v, s throws(ValueProblem) in s.httpRequestTimeout = try number(v, above: 0, atMost: 600) },
            show: { format($0.httpRequestTimeout) }),
        SettingKey(
            name: "http.allowed-origins", flag: "--http-allowed-origin",
            summary: "web origins besides the server's own whose pages may read the events (scheme://host[:port])",
            read: { v, s throws(ValueProblem) in
                s.httpAllowedOrigins = try list(v).map { origin throws(ValueProblem) in
                    guard origin.hasPrefix("http://") || origin.hasPrefix("https://"), !origin.dropFirst(8).contains("/"), origin.utf8.count <= 300
                    else {
                        throw ValueProblem("'\(origin)': expected an origin, such as http://kiosk.local:8080")
                    }
                    return origin
                }
            },
            show: { "[" + $0.httpAllowedOrigins.joined(separator: ", ") + "]" }),
    ]

    static let mqtt: [SettingKey] = [
        SettingKey(
            name: "mqtt.broker", flag: "--mqtt",
            summary: "publish every event to this MQTT broker, mqtt://HOST[:PORT] or mqtts://HOST[:PORT] (null: off; docs/mqtt.md)",
            read: { v, s throws(ValueProblem) in
                if v == .null {
                    s.mqttBroker = nil
                    return
                }
                let url = try scalar(v)
                guard MQTTBrokerAddress.isValid(url) else {
                    // The error line quotes the value redacted (`redact`); it says where credentials go.
                    throw ValueProblem(
                        url.contains("@")
                            ? "credentials do not go in the URL: set mqtt.username and mqtt.password-file (expected mqtt://HOST[:PORT] or mqtts://HOST[:PORT])"
                            : "expected mqtt://HOST[:PORT] or mqtts://HOST[:PORT]")
                }
                s.mqttBroker = url
            },
            // A valid URL holds no user information; redacted all the same, should that change.
            show: { $0.mqttBroker.map { MQTTBrokerAddress.redacted($0) } ?? "null" },
            redact: { MQTTBrokerAddress.redacted($0) }),
        SettingKey(
            name: "mqtt.topic", flag: "--mqtt-topic", summary: "topic prefix: PREFIX/events, PREFIX/status, PREFIX/items",
            read: { v, s throws(ValueProblem) in
                let topic = try scalar(v)
                if let problem = MQTTNames.topicProblem(topic) { throw ValueProblem(problem) }
                s.mqttTopic = topic
            },
            show: { $0.mqttTopic }),
        SettingKey(
            name: "mqtt.client-id", summary: "MQTT client id (null: scannerd-HOSTNAME-CAMERA); the broker keeps this client's session",
            read: { v, s throws(ValueProblem) in
                if v == .null {
                    s.mqttClientID = nil
                    return
                }
                let id = try scalar(v)
                guard !id.isEmpty, id.utf8.count <= 128 else { throw ValueProblem("expected 1 to 128 bytes") }
                // libmosquitto refuses such an id at start ("cannot create an MQTT client").
                if let problem = MQTTNames.textProblem(id) { throw ValueProblem(problem) }
                s.mqttClientID = id
            },
            show: { $0.mqttClientID ?? "null" }),
        SettingKey(
            name: "mqtt.username", summary: "user name for the broker (null: none)",
            read: { v, s throws(ValueProblem) in
                if v == .null {
                    s.mqttUsername = nil
                    return
                }
                let name = try scalar(v)
                // libmosquitto refuses such a name at start ("username: Malformed UTF-8").
                guard name.utf8.count <= 65535 else { throw ValueProblem("expected at most 65535 bytes") }
                if let problem = MQTTNames.textProblem(name) { throw ValueProblem(problem) }
                s.mqttUsername = name
            },
            show: { $0.mqttUsername ?? "null" }),
        SettingKey(
            name: "mqtt.password-file", summary: "a file holding the broker password (read at start; never logged)",
            read: { v, s throws(ValueProblem) in s.mqttPasswordFile = v == .null ? nil : try absolutePath(v) },
            show: { $0.mqttPasswordFile ?? "null" }),
        SettingKey(
            name: "mqtt.ca-file", summary: "CA certificates for mqtts:// (null: the system's)",
            read: { v, s throws(ValueProblem) in s.mqttCAFile = v == .null ? nil : try absolutePath(v) }, show: { $0.mqttCAFile ?? "null" }),
        SettingKey(
            name: "mqtt.keepalive", summary: "seconds between pings; the broker publishes the will (offline) after 1.5 times this in silence",
            read: { v, s throws(ValueProblem) in s.mqttKeepalive = try integer(v, 5...3600) }, show: { "\($0.mqttKeepalive)" }),
        SettingKey(
            name: "mqtt.qos", summary: "QoS of the events: 0 (at most once) or 1 (at least once)",
            read: { v, s throws(ValueProblem) in s.mqttQoS = try integer(v, 0...1) }, show: { "\($0.mqttQoS)" }),
        SettingKey(
            name: "mqtt.queue-limit", summary: "events kept while the broker is away; beyond, the oldest are dropped and counted",
            read: { v, s throws(ValueProblem) in s.mqttQueueLimit = try integer(v, 1...1_000_000) }, show: { "\($0.mqttQueueLimit)" }),
    ]

    static func absolutePath(_ v: SettingValue) throws(ValueProblem) -> String {
        let path = try scalar(v)
        guard path.hasPrefix("/"), path.utf8.count < 4096 else { throw ValueProblem("expected an absolute path") }
        return path
    }

    static let output: [SettingKey] = [
        SettingKey(
            name: "log.level", flag: "--log-level", summary: "trace, debug, info, notice, warning, error or critical",
            live: { $0.logLevel = $1.logLevel },
            read: { v, s throws(ValueProblem) in s.logLevel = try choice(v, Logger.Level.self) }, show: { $0.logLevel.rawValue }),
        SettingKey(
            name: "log.events-stdout", flag: "--events-stdout", summary: "also print every event as a JSON line on stdout",
            read: { v, s throws(ValueProblem) in s.eventsStdout = try boolean(v) }, show: { "\($0.eventsStdout)" }),
    ]

    // MARK: Readers

    static func scalar(_ v: SettingValue) throws(ValueProblem) -> String {
        guard case .scalar(let s) = v else { throw ValueProblem("expected a single value") }
        return s
    }

    /// A YAML list, or one comma-separated string (environment, command line).
    static func list(_ v: SettingValue) throws(ValueProblem) -> [String] {
        switch v {
        case .null: return []
        case .list(let items): return items.map { $0.trimmingCharacters(in: .whitespaces) }
        case .scalar(let s): return s.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
        case .map: throw ValueProblem("expected a list")
        }
    }

    /// A YAML mapping, or `name=value` items (a list, or comma-separated).
    static func pairs(_ v: SettingValue) throws(ValueProblem) -> [SettingValue.Pair] {
        if case .map(let pairs) = v { return pairs }
        return try list(v).map { item throws(ValueProblem) in
            let parts = item.split(separator: "=", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
            guard parts.count == 2, !parts[0].isEmpty, !parts[1].isEmpty else { throw ValueProblem("expected name=value, got '\(item)'") }
            return SettingValue.Pair(parts[0], parts[1])
        }
    }

    static func integer(_ v: SettingValue, _ range: ClosedRange<Int>) throws(ValueProblem) -> Int {
        guard let n = Int(try scalar(v)), range.contains(n) else {
            throw ValueProblem("expected a whole number from \(range.lowerBound) to \(range.upperBound)")
        }
        return n
    }

    static func number(_ v: SettingValue, above low: Double, atMost high: Double) throws(ValueProblem) -> Double {
        guard let n = Double(try scalar(v)), n.isFinite, n > low, n <= high else {
            throw ValueProblem("expected a number above \(format(low)) and at most \(format(high))")
        }
        return n
    }

    /// YAML 1.1's spellings, which people write, as well as 1.2's.
    static func boolean(_ v: SettingValue) throws(ValueProblem) -> Bool {
        switch try scalar(v).lowercased() {
        case "true", "yes", "on", "1": return true
        case "false", "no", "off", "0": return false
        default: throw ValueProblem("expected true or false")
        }
    }

    static func choice<T: RawRepresentable & CaseIterable>(_ v: SettingValue, _ type: T.Type) throws(ValueProblem) -> T where T.RawValue == String {
        let text = try scalar(v)
        guard let value = T(rawValue: text) else {
            throw ValueProblem("expected one of " + T.allCases.map(\.rawValue).joined(separator: ", "))
        }
        return value
    }

    /// `auto` (or null) → nil, else the reader's value.
    static func auto<T>(_ v: SettingValue, _ read: (SettingValue) throws(ValueProblem) -> T) throws(ValueProblem) -> T? {
        if v == .null || v == .scalar("auto") { return nil }
        return try read(v)
    }

    static func user(_ name: String) throws(ValueProblem) -> String {
        guard Accounts.userID(name) != nil else { throw ValueProblem("no such user") }
        return name
    }

    static func group(_ name: String) throws(ValueProblem) -> String {
        guard Accounts.groupID(name) != nil else { throw ValueProblem("no such group") }
        return name
    }

    static func format(_ x: Double) -> String {
        x == x.rounded() && abs(x) < 1e9 ? String(Int(x)) : String(x)
    }
}

/// Users and groups by name or number.
public enum Accounts {
    public static func userID(_ name: String) -> uid_t? {
        if let number = uid_t(name) { return number }
        return getpwnam(name).map { $0.pointee.pw_uid }
    }

    public static func groupID(_ name: String) -> gid_t? {
        if let number = gid_t(name) { return number }
        return getgrnam(name).map { $0.pointee.gr_gid }
    }
}

extension ScannerError {
    /// The reason alone (the loader names the key and value itself).
    var reason: String {
        switch self {
        case .invalidArgument(_, _, let reason): reason
        default: description
        }
    }
}

extension DaemonSettings {
    /// Copies the named live keys' values from `other` (a reload applies what the file changed and
    /// leaves the rest, including earlier `set` requests, alone). Keys that are not live are left too.
    public mutating func takeLive(_ keys: Set<String>, from other: DaemonSettings) {
        for name in keys { SettingsSchema.key(name)?.copy?(&self, other) }
    }
}
