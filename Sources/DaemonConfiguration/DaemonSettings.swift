import Capture
import Logging
import ScannerCore

/// Everything `scannerd run` can be told, typed and validated. Built from the defaults, the
/// configuration file, the environment and the command line, in that order (`ConfigurationLoader`).
/// Each field is described, with its key and default, in `SettingsSchema` and docs/configuration.md.
public struct DaemonSettings: Sendable, Equatable {
    /// Where frames come from.
    public enum Input: Sendable, Equatable {
        /// A V4L2 camera: `/dev/videoN` or a stable `/dev/v4l/by-id/…` link.
        case device(String)
        /// A replay: `demo`, a directory of images or an `.mjpeg` file.
        case replay(String)

        public var name: String {
            switch self {
            case .device(let path), .replay(let path): path
            }
        }
    }

    // camera
    public var input: Input = .device("/dev/video0")
    public var formats: [PixelFormat] = [.mjpeg, .yuyv, .grey]
    public var width = 1280
    public var height = 720
    /// nil: 30, or 10 for the demo clip (recorded to be watched at 10 fps).
    public var fps: Double?
    /// nil: by quality level (fast 480, balanced 640, accurate 960).
    public var processingWidth: Int?
    public var controls: [CameraControlSetting] = []
    public var pace: ReplayPace = .realtime
    public var loop = false

    // recognition
    public var types: RecognitionTypes = .all
    public var quality: QualityLevel = .balanced
    public var regionOfInterest: NormalizedRect = .full
    public var singleItem = false
    public var phoneRegion = "US"
    public var languages = ["eng"]
    public var lineModel: LineModelChoice = .installed

    // tracking (nil: the quality level's value)
    public var gracePeriod = 0.8
    public var textGracePeriod = 0.8
    public var moveThreshold = 0.02
    public var weakBarcodeConfirmations = 2
    public var textAgreement: Int?
    public var textWindow: Int?

    // server
    public var socketEnabled = true
    public var socketPath = "/run/scannerd/scannerd.sock"
    public var socketMode: UInt32 = 0o660
    public var socketGroup: String?
    public var maximumClients = 64
    public var maximumClientsPerUser = 16
    /// Events that may wait for one client (every transport) before it is cut off.
    public var queueLimit = 1024
    public var allowUsers: [String] = []
    public var allowGroups: [String] = []
    public var controlUsers: [String] = []
    public var controlGroups: [String] = []

    // http (off unless `http.listen` is set)
    /// `HOST:PORT` (`[::1]:PORT` for IPv6), nil: no HTTP server.
    public var httpListen: HTTPListen?
    public var httpTokenFile: String?
    public var httpAllowedOrigins: [String] = []
    public var httpMaxConnections = 128
    /// Seconds.
    public var httpIdleTimeout = 30.0
    public var httpRequestTimeout = 10.0

    // mqtt (off unless `mqtt.broker` is set)
    public var mqttBroker: String?
    public var mqttTopic = "scannerd"
    /// nil: the host's name and the camera's.
    public var mqttClientID: String?
    public var mqttUsername: String?
    public var mqttPasswordFile: String?
    public var mqttCAFile: String?
    public var mqttKeepalive = 30
    public var mqttQoS = 1
    public var mqttQueueLimit = 10_000

    // output
    public var logLevel: Logger.Level = .info
    public var eventsStdout = false

    public init() {}

    /// The frame rate in force: the configured one, or the input's natural rate.
    public var effectiveFPS: Double {
        fps ?? (input == .replay("demo") ? 10 : 30)
    }
}

/// Where the HTTP server listens: `127.0.0.1:8390`, `localhost:8390`, `[::1]:8390`, `0.0.0.0:8390`.
public struct HTTPListen: Sendable, Equatable, CustomStringConvertible {
    public var host: String
    public var port: Int

    public init(host: String, port: Int) {
        self.host = host
        self.port = port
    }

    /// nil for anything but a host (letters, digits, `.`, `-`, or a bracketed IPv6 address) and a
    /// port 0–65535 (0: any free port).
    public init?(parsing text: String) {
        guard let colon = text.lastIndex(of: ":"), text.utf8.count <= 300 else { return nil }
        var host = String(text[..<colon])
        guard let port = Int(text[text.index(after: colon)...]), (0...65535).contains(port) else { return nil }
        if host.hasPrefix("["), host.hasSuffix("]") {
            host = String(host.dropFirst().dropLast())
            guard !host.isEmpty, host.allSatisfy({ $0.isHexDigit || $0 == ":" || $0 == "." }) else { return nil }
        } else {
            guard !host.isEmpty, host.allSatisfy({ ($0.isASCII && ($0.isLetter || $0.isNumber)) || $0 == "." || $0 == "-" }) else { return nil }
        }
        self.init(host: host, port: port)
    }

    public var description: String { host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)" }
}

/// What `mqtt.broker` and `mqtt.topic` accept (the publisher parses the same way).
public enum MQTTBrokerAddress {
    /// `mqtt://HOST[:PORT]` (1883) or `mqtts://HOST[:PORT]` (8883); nil for anything else.
    public static func parse(_ url: String) -> (host: String, port: Int, tls: Bool)? {
        let tls: Bool
        let rest: Substring
        if url.hasPrefix("mqtt://") {
            tls = false
            rest = url.dropFirst(7)
        } else if url.hasPrefix("mqtts://") {
            tls = true
            rest = url.dropFirst(8)
        } else {
            return nil
        }
        guard !rest.isEmpty, rest.utf8.count <= 255, !rest.contains("/"), !rest.contains("@") else { return nil }
        var host = rest
        var port = tls ? 8883 : 1883
        if rest.hasPrefix("[") {
            guard let close = rest.firstIndex(of: "]") else { return nil }
            host = rest[rest.index(after: rest.startIndex)..<close]
            let after = rest[rest.index(after: close)...]
            if !after.isEmpty {
                guard after.hasPrefix(":"), let p = Int(after.dropFirst()), (1...65535).contains(p) else { return nil }
                port = p
            }
        } else if let colon = rest.lastIndex(of: ":") {
            guard let p = Int(rest[rest.index(after: colon)...]), (1...65535).contains(p) else { return nil }
            host = rest[..<colon]
            port = p
        }
        guard !host.isEmpty, host.allSatisfy({ ($0.isASCII && ($0.isLetter || $0.isNumber)) || ".-:".contains($0) }) else { return nil }
        return (String(host), port, tls)
    }

    public static func isValid(_ url: String) -> Bool { parse(url) != nil }

    /// The rule `mqtt.topic` follows (`MQTTNames.topicProblem`: the publisher checks the same).
    public static func isValidTopic(_ topic: String) -> Bool { MQTTNames.topicProblem(topic) == nil }

    /// `url` as an error or a listing may show it: the user information before an `@` (a password,
    /// or a token used as the user name) replaced with `***`, keeping a user name that has a password
    /// after it: `mqtt://kiosk:***@broker`. Conservative: everything from `://` to the last `@` before
    /// the next `://` is user information (a password may hold `/`, `?` or spaces), and text with no
    /// scheme is taken as starting with it (`kiosk:secret@broker:1883`).
    public static func redacted(_ url: String) -> String {
        var out = ""
        var rest = Substring(url)
        if let first = rest.firstRange(of: "://") {
            out += rest[..<first.upperBound]
            rest = rest[first.upperBound...]
        }
        while true {
            let next = rest.firstRange(of: "://")
            let segment = rest[..<(next?.lowerBound ?? rest.endIndex)]
            if let at = segment.lastIndex(of: "@") {
                let userinfo = segment[..<at]
                if let colon = userinfo.firstIndex(of: ":") {
                    out += userinfo[..<colon]
                    out += ":***"
                } else {
                    out += "***"
                }
                out += segment[at...]
            } else {
                out += segment
            }
            guard let next else { return out }
            out += rest[next]
            rest = rest[next.upperBound...]
        }
    }
}
