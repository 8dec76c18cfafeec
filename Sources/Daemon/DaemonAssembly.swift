import Capture
import ClientRequests
import DaemonConfiguration
import EventServer
import Events
import Foundation
import HTTPServer
import Logging
import MQTTPublisher
import Pipeline
import Recognition
import ScannerCore
import ScannerProtocol
import Tracking

/// Settings → the daemon's parts: the source, the pipeline, the request handler and the servers.
/// `ScannerDaemon` runs them; this is where each is chosen and configured.
public enum DaemonAssembly {
    /// A camera, or a replay.
    static func source(_ s: DaemonSettings, logger: Logger, heartbeat: Heartbeat) throws(DaemonError) -> FrameSource {
        let processingWidth = s.processingWidth ?? QualitySettings(s.quality).liveProcessingWidth
        do {
            switch s.input {
            case .device(let path):
                return try CameraSource(
                    configuration: CameraSource.Configuration(
                        path: path, request: CaptureRequest(width: s.width, height: s.height, fps: s.effectiveFPS, formats: s.formats),
                        processingWidth: processingWidth, controls: s.controls),
                    logger: logger, heartbeat: heartbeat)
            case .replay(let path):
                return try ReplaySource(
                    path: path,
                    configuration: ReplaySource.Configuration(fps: s.effectiveFPS, pace: s.pace, loop: s.loop, processingWidth: processingWidth),
                    logger: logger)
            }
        } catch {
            throw .cannotStart("\(error)")
        }
    }

    /// A replay with `--pace none`: every frame, OCR on every n-th frame, the clock is frame index /
    /// fps. Anything else: the newest frame to each stage, on the wall clock.
    static func pipeline(_ s: DaemonSettings, logger: Logger? = nil) throws(DaemonError) -> Pipeline {
        let pacing: Pipeline.Pacing
        if case .replay = s.input, s.pace == .none {
            pacing = .everyFrame(fps: s.effectiveFPS)
        } else {
            let start = ContinuousClock.now
            pacing = .newestFrame(clock: { (ContinuousClock.now - start).inSeconds })
        }
        do {
            return try Pipeline(configuration: sequenceConfiguration(s), pacing: pacing, logger: logger)
        } catch {
            throw .cannotStart("\(error)")
        }
    }

    /// Recognition and tracking settings → what the pipeline runs with.
    public static func sequenceConfiguration(_ s: DaemonSettings) -> SequenceConfiguration {
        let options = ScanOptions(
            types: s.types, quality: s.quality, regionOfInterest: s.regionOfInterest, phoneRegion: s.phoneRegion, languages: s.languages)
        var tracker = TrackerConfiguration(s.quality)
        tracker.gracePeriod = s.gracePeriod
        tracker.textGracePeriod = s.textGracePeriod
        tracker.moveThreshold = s.moveThreshold
        tracker.weakBarcodeConfirmations = s.weakBarcodeConfirmations
        tracker.textAgreement = s.textAgreement ?? tracker.textAgreement
        tracker.textWindow = s.textWindow ?? tracker.textWindow
        return SequenceConfiguration(
            options: options, tracker: tracker, singleItem: s.singleItem, lineModel: s.lineModel.directory,
            lineModelRequired: s.lineModel != .installed)
    }

    /// The requests of every transport, answered by the daemon's parts: `set` by the settings
    /// control, `pause` by the pipeline and the source, `capture` by the source.
    ///
    /// Every line the handler logs is one a client can cause once per request (`set`, `pause`, a
    /// photo written): at most `requestLogLines` of each kind a minute, the rest summed up
    /// (`RateLimitedLogHandler`), so a client in a loop cannot fill the journal.
    static func requestHandler(
        hub: EventHub, logger: Logger, control: SettingsControl, pipeline: Pipeline, source: FrameSource,
        stats: @escaping @Sendable () -> StatsReply
    ) -> RequestHandler {
        nonisolated(unsafe) let source = source
        return RequestHandler(
            hub: hub, logger: clientCaused(logger), stats: stats,
            configure: { change in await control.apply(change) },
            capture: { content in await photo(source: source, items: hub.items.map(\.item), content: content) },
            pause: { paused in
                setPaused(paused, pipeline: pipeline, source: source)
                return .success(())
            })
    }

    /// `pause` / `resume`: the pipeline first (it removes what it tracked and announces the pause),
    /// then the source, which stops decoding; resuming in the other order, so the first frame decoded
    /// is recognized.
    static func setPaused(_ paused: Bool, pipeline: Pipeline, source: FrameSource) {
        if paused {
            pipeline.setPaused(true)
            source.setPaused(true)
        } else {
            source.setPaused(false)
            pipeline.setPaused(false)
        }
    }

    /// `capture`: the next frame at full resolution as JPEG, `items`' bounds drawn or the document
    /// among them straightened, as asked.
    static func photo(
        source: FrameSource, items: [RecognizedItem], content: PhotoContent
    ) async -> Result<RequestHandler.CapturedPhoto, RequestHandler.Refusal> {
        nonisolated(unsafe) let source = source
        let photo: Photo?? = await OffThread.waitForCallback(deadline: .seconds(3)) { finish in source.takePhoto(finish) }
        guard let photo = photo ?? nil else { return .failure(.init("no frame within 3 s (is the camera available?)")) }
        switch content {
        case .frame: return PhotoRendering.jpeg(of: photo, annotating: nil)
        case .annotated: return PhotoRendering.jpeg(of: photo, annotating: items.map(\.bounds))
        case .document:
            // Straightening a full-resolution frame takes tens of milliseconds: off the caller's executor.
            let tracked = items.filter { $0.kind == .document }.map(\.bounds)
            let holding = items.filter { $0.kind != .document }.map(\.bounds)
            return await OffThread.run(deadline: .seconds(10)) { PhotoRendering.document(of: photo, tracked: tracked, holding: holding) }
                ?? .failure(.init("the document could not be straightened within 10 s"))
        }
    }

    /// `logger` for lines a client can cause once per request or connection (`set`, refusals,
    /// cut-offs): at most `requestLogLines` of each kind a minute, the rest summed up.
    static func clientCaused(_ logger: Logger) -> Logger {
        RateLimitedLogHandler.logger(logger, lines: requestLogLines, per: requestLogInterval)
    }

    /// Lines of one kind the request handler logs per `requestLogInterval` seconds.
    static let requestLogLines = 10
    static let requestLogInterval = 60.0

    static func eventServer(_ s: DaemonSettings, hub: EventHub, logger: Logger, requests: RequestHandler) -> EventServer {
        EventServer(
            hub: hub,
            configuration: EventServerConfiguration(
                path: s.socketPath, mode: mode_t(s.socketMode), maximumClients: s.maximumClients, maximumClientsPerUser: s.maximumClientsPerUser,
                queueLimit: s.queueLimit,
                group: s.socketGroup.flatMap(Accounts.groupID), allowedUsers: Set(s.allowUsers.compactMap(Accounts.userID)),
                allowedGroups: Set(s.allowGroups.compactMap(Accounts.groupID)),
                controlUsers: Set(s.controlUsers.compactMap(Accounts.userID)), controlGroups: Set(s.controlGroups.compactMap(Accounts.groupID)),
                httpConnections: s.httpListen == nil ? 0 : s.httpMaxConnections + HTTPServerConfiguration.waitingRoom),
            // Refusals and cut-offs are per connection: a client that reconnects in a loop gets the same
            // limit as one that `set`s in a loop.
            logger: clientCaused(logger), requests: requests)
    }

    /// Events an HTTP client reconnecting with `Last-Event-ID` can catch up on (a few minutes of a
    /// busy kiosk); one further behind gets a fresh `hello`.
    static let httpReplayLimit = 1024

    /// `http.listen` set: the HTTP server (nil otherwise), with the token read and checked now.
    static func httpServer(
        _ s: DaemonSettings, hub: EventHub, requests: RequestHandler, logger: Logger, metrics: @escaping @Sendable () -> String
    ) throws(DaemonError) -> HTTPServer? {
        guard let listen = s.httpListen else { return nil }
        let token = try s.httpTokenFile.map { path throws(DaemonError) in try readToken(path) }
        do {
            return try HTTPServer(
                hub: hub, requests: requests,
                configuration: HTTPServerConfiguration(
                    host: listen.host, port: listen.port, token: token, allowedOrigins: Set(s.httpAllowedOrigins), queueLimit: s.queueLimit,
                    // The socket's rule: with control users or groups configured, only they may `set`.
                    controlOpen: s.controlUsers.isEmpty && s.controlGroups.isEmpty, maximumStreams: s.maximumClients,
                    maximumConnections: s.httpMaxConnections, idleTimeout: .seconds(s.httpIdleTimeout), requestTimeout: .seconds(s.httpRequestTimeout)
                ),
                logger: clientCaused(logger), metrics: metrics)
        } catch {
            throw .cannotStart("\(error)")
        }
    }

    /// `http.token-file`, `mqtt.password-file`: the secret in the file without surrounding
    /// whitespace; a regular file of at most 4 KiB holding one word.
    /// Never waits: a FIFO (or a device) is refused at once, not opened for reading (which would
    /// block until a writer came, and hang the start).
    static func readToken(_ path: String, key: String = "http.token-file") throws(DaemonError) -> String {
        let limit = 4096
        let bytes: [UInt8]
        do throws(RegularFile.Failure) {
            bytes = try RegularFile.read(path, limit: limit)
        } catch {
            switch error {
            case .system: throw .cannotStart("\(key) \(path): cannot be read: \(error)")
            case .directory: throw .cannotStart("\(key) \(path): not a regular file (a directory)")
            case .notRegular: throw .cannotStart("\(key) \(path): not a regular file")
            case .tooLarge: throw .cannotStart("\(key) \(path): longer than \(limit) bytes")
            }
        }
        guard let text = String(validating: bytes, as: UTF8.self)?.trimmingCharacters(in: .whitespacesAndNewlines), !text.isEmpty,
            !text.contains(where: { $0.isWhitespace || $0.isNewline })
        else { throw .cannotStart("\(key) \(path): expected one token (no spaces) in UTF-8") }
        return text
    }

    /// `mqtt.ca-file`'s limit: Debian's whole bundle (/etc/ssl/certs/ca-certificates.crt) is 0.2 MiB.
    static let caFileLimit = 4 << 20

    /// `mqtt.broker` set: the MQTT publisher (nil otherwise), with the password read now.
    static func mqttPublisher(_ s: DaemonSettings, hub: EventHub, logger: Logger, version: String) throws(DaemonError) -> MQTTPublisher? {
        guard let configuration = try mqttConfiguration(s) else { return nil }
        do {
            return try MQTTPublisher(configuration: configuration, hub: hub, logger: logger, daemonVersion: version)
        } catch {
            throw .cannotStart("mqtt: \(error)")
        }
    }

    /// `mqtt.broker` set: where and how to publish, with the password read and the CA file checked
    /// now (nil otherwise).
    static func mqttConfiguration(_ s: DaemonSettings) throws(DaemonError) -> MQTTConfiguration? {
        guard let url = s.mqttBroker else { return nil }
        // The loader refused anything else; the URL is quoted redacted all the same (never a password in a log).
        guard let broker = MQTTBrokerAddress.parse(url) else {
            throw .cannotStart(
                "mqtt.broker \(MQTTBrokerAddress.redacted(url)): expected mqtt://HOST[:PORT] or mqtts://HOST[:PORT] (credentials go in mqtt.username and mqtt.password-file)"
            )
        }
        let password = try s.mqttPasswordFile.map { path throws(DaemonError) in try readToken(path, key: "mqtt.password-file") }
        // libmosquitto opens the CA file with fopen(3), which waits for ever on a FIFO: checked first.
        if broker.tls, let caFile = s.mqttCAFile {
            do throws(RegularFile.Failure) {
                try RegularFile.check(caFile, limit: caFileLimit)
            } catch {
                throw .cannotStart("mqtt.ca-file \(caFile): \(error)")
            }
        }
        // The broker keeps a session per client id: one per kiosk and camera by default.
        let host = ProcessInfo.processInfo.hostName.split(separator: ".").first.map(String.init) ?? "kiosk"
        let camera = (s.input.name as NSString).lastPathComponent
        let clientID = s.mqttClientID ?? "scannerd-\(host)-\(camera)".filter { $0.isASCII && ($0.isLetter || $0.isNumber || "-_.".contains($0)) }
        return MQTTConfiguration(
            host: broker.host, port: broker.port, tls: broker.tls, topic: s.mqttTopic, clientID: String(clientID.prefix(128)),
            username: s.mqttUsername, password: password, caFile: s.mqttCAFile, keepalive: s.mqttKeepalive, qos: s.mqttQoS,
            queueLimit: s.mqttQueueLimit)
    }
}
