import Capture
import ClientRequests
import DaemonConfiguration
import EventServer
import Events
import HTTPServer
import Foundation
import ImageDecoding
import Logging
import Pipeline
import Recognition
import ScannerCore
import ScannerProtocol
import ServiceLifecycle
import Synchronization
import Tracking

public enum DaemonError: Error, CustomStringConvertible {
    case cannotStart(String)
    public var description: String {
        switch self {
        case .cannotStart(let reason): reason
        }
    }
}

/// `scannerd run`: one source, one pipeline, one event hub, one socket, run as services of a
/// swift-service-lifecycle `ServiceGroup` (docs/architecture.md, "Lifecycle"):
///
/// - the server listens first; the pipeline starts once it does (a second daemon on the same socket
///   exits before touching the camera);
/// - `SIGTERM`/`SIGINT` shut the services down in reverse order: the systemd notifier says STOPPING,
///   the pipeline stops capture and publishes `removed` for what is left and `end`, the server sends
///   those to every client and closes;
/// - a source that ends (a replay) ends the group the same way;
/// - `SIGHUP` reloads the configuration (`reload()`).
public final class ScannerDaemon: Sendable {
    public static let version = "0.2.0"

    let logger: Logger
    let logLevel: LogLevelControl
    let notifier: SystemdNotifier
    let reloadConfiguration: @Sendable () throws(ConfigurationErrors) -> LoadedConfiguration
    /// The configuration loaded at start and at the last successful reload.
    let startup: LoadedConfiguration
    let loaded: Mutex<LoadedConfiguration>
    /// The recognition and tracking settings in force (the file's, then `set` requests and reloads).
    let settings: Mutex<DaemonSettings>
    nonisolated(unsafe) let source: FrameSource
    let hub: EventHub
    let sequence: any ScannerPipeline
    /// `--events-stdout`: the events on standard output, written off the hub's lock.
    let printer: LinePrinter?
    let server: EventServer?
    /// `http.listen`: events, items and snapshots over HTTP (docs/http.md).
    let http: HTTPServer?
    let heartbeat = Heartbeat()
    let status = DaemonStatus()
    let startedAt = ContinuousClock.now
    let serverReady = ReadyGate()

    public init(
        configuration: LoadedConfiguration, logLevel: LogLevelControl, notifier: SystemdNotifier = SystemdNotifier(),
        logger: Logger, metrics: MetricsExport = MetricsExport(),
        reload: @escaping @Sendable () throws(ConfigurationErrors) -> LoadedConfiguration
    ) throws(DaemonError) {
        let s = configuration.settings
        self.logger = logger
        self.logLevel = logLevel
        self.notifier = notifier
        self.reloadConfiguration = reload
        self.startup = configuration
        self.loaded = Mutex(configuration)
        self.settings = Mutex(s)
        let processingWidth = s.processingWidth ?? QualitySettings(s.quality).liveProcessingWidth
        do {
            switch s.input {
            case .device(let path):
                source = try CameraSource(
                    configuration: CameraSource.Configuration(
                        path: path, request: CaptureRequest(width: s.width, height: s.height, fps: s.effectiveFPS, formats: s.formats),
                        processingWidth: processingWidth, controls: s.controls),
                    logger: logger, heartbeat: heartbeat)
            case .replay(let path):
                source = try ReplaySource(
                    path: path,
                    configuration: ReplaySource.Configuration(fps: s.effectiveFPS, pace: s.pace, loop: s.loop, processingWidth: processingWidth),
                    logger: logger)
            }
        } catch {
            throw .cannotStart("\(error)")
        }
        let printer = s.eventsStdout ? LinePrinter() : nil
        self.printer = printer
        // A browser's EventSource reconnects with the last seq it had: keep enough to fill the gap.
        hub = EventHub(daemonVersion: Self.version, sourceName: s.input.name, replayLimit: s.httpListen == nil ? 0 : Self.httpReplayLimit) { line in
            printer?.print(line)
        }
        do {
            if case .replay = s.input, s.pace == .none {
                // One thread, OCR on every n-th frame, the clock is frame index / fps.
                sequence = try SequenceHandler(configuration: Self.sequenceConfiguration(s), fps: s.effectiveFPS)
            } else {
                let start = ContinuousClock.now
                sequence = try LivePipeline(configuration: Self.sequenceConfiguration(s), clock: { (ContinuousClock.now - start).inSeconds })
            }
        } catch {
            throw .cannotStart("\(error)")
        }
        // The server's requests reach the daemon through a weak box: the daemon owns the server.
        let box = WeakDaemon()
        let requests = Self.makeRequestHandler(hub: hub, logger: logger, daemon: box)
        server = s.socketEnabled ? Self.makeServer(s, hub: hub, logger: logger, requests: requests) : nil
        if let listen = s.httpListen {
            let token = try s.httpTokenFile.map { path throws(DaemonError) in try Self.readToken(path) }
            do {
                http = try HTTPServer(
                    hub: hub, requests: requests,
                    configuration: HTTPServerConfiguration(
                        host: listen.host, port: listen.port, token: token, allowedOrigins: Set(s.httpAllowedOrigins),
                        // The socket's rule: with control users or groups configured, only they may `set`.
                        controlOpen: s.controlUsers.isEmpty && s.controlGroups.isEmpty, maximumStreams: s.maximumClients),
                    logger: logger,
                    metrics: { [hub, box] in metrics.render(source: box.daemon?.source.statistics ?? SourceStatistics(), hub: hub) })
            } catch {
                throw .cannotStart("\(error)")
            }
        } else {
            http = nil
        }
        printer?.print(hub.hello())
        box.daemon = self
    }

    /// Runs until a signal or the end of the source.
    public func run() async throws {
        var services: [ServiceGroupConfiguration.ServiceConfiguration] = []
        if let server { services.append(.init(service: ServerService(server: server, daemon: self))) } else { serverReady.open() }
        // An HTTP server that cannot listen (its port taken) ends the daemon, as the socket's does,
        // after the pipeline stops.
        if let http { services.append(.init(service: HTTPService(server: http, daemon: self), failureTerminationBehavior: .gracefullyShutdownGroup)) }
        services.append(.init(
            service: PipelineService(daemon: self),
            successTerminationBehavior: .gracefullyShutdownGroup, failureTerminationBehavior: .gracefullyShutdownGroup))
        services.append(.init(service: SystemdService(daemon: self)))
        services.append(.init(service: ReloadService(daemon: self)))
        var configuration = ServiceGroupConfiguration(services: services, gracefulShutdownSignals: [.sigterm, .sigint], logger: logger)
        configuration.logger = Logger(label: "scannerd.lifecycle", factory: { _ in SwiftLogNoOpLogHandler() })
        // Every event printed before the run ends (the replay's `end` last).
        defer { printer?.finish() }
        try await ServiceGroup(configuration: configuration).run()
        let s = source.statistics
        logger.info("stopped", metadata: [
            "frames": "\(s.delivered)", "dropped": "\(s.dropped)", "idleSkipped": "\(s.idleSkipped)", "corrupt": "\(s.corrupt)", "reconnects": "\(s.reconnects)",
            "uptime": "\(String(format: "%.1f", (ContinuousClock.now - startedAt).inSeconds))",
        ])
    }

    // MARK: Configuration

    /// Events an HTTP client reconnecting with `Last-Event-ID` can catch up on (a few minutes of a
    /// busy kiosk); one further behind gets a fresh `hello`.
    public static let httpReplayLimit = 1024

    /// `http.token-file`: its contents without surrounding whitespace; a regular file of at most 4 KiB.
    static func readToken(_ path: String) throws(DaemonError) -> String {
        let limit = 4096
        guard let handle = FileHandle(forReadingAtPath: path) else { throw .cannotStart("http.token-file \(path): cannot be read") }
        defer { try? handle.close() }
        var info = stat()
        guard fstat(handle.fileDescriptor, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else {
            throw .cannotStart("http.token-file \(path): not a regular file")
        }
        let data = (try? handle.read(upToCount: limit + 1)) ?? Data()
        guard data.count <= limit else { throw .cannotStart("http.token-file \(path): longer than \(limit) bytes") }
        guard let text = String(data: data, encoding: .utf8)?.trimmingCharacters(in: .whitespacesAndNewlines), !text.isEmpty,
            !text.contains(where: { $0.isWhitespace || $0.isNewline })
        else { throw .cannotStart("http.token-file \(path): expected one token (no spaces) in UTF-8") }
        return text
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
        return SequenceConfiguration(options: options, tracker: tracker, singleItem: s.singleItem)
    }

    /// A `set` request: applied from the next frame, described in the reply and the `config` event.
    func apply(_ change: ConfigChange) -> [(String, JSONValue)] {
        let updated = settings.withLock { s -> DaemonSettings in
            if let roi = change.regionOfInterest { s.regionOfInterest = roi }
            if let quality = change.quality { s.quality = quality }
            if let types = change.types { s.types = types }
            if let single = change.singleItem { s.singleItem = single }
            return s
        }
        sequence.reconfigure(Self.sequenceConfiguration(updated))
        return Self.describe(updated)
    }

    /// The configuration in force, as the `config` event and the `set` reply carry it.
    static func describe(_ s: DaemonSettings) -> [(String, JSONValue)] {
        let roi = s.regionOfInterest
        let types = s.types
        let names = types.symbologies.sorted().map(\.rawValue) + types.contentTypes.map(\.rawValue).sorted() + (types.plainText ? ["text"] : [])
        return [
            ("roi", .array([roi.x, roi.y, roi.width, roi.height].map { .number($0, decimals: 4) })),
            ("quality", .string(s.quality.rawValue)),
            ("types", .array(names.map { .string($0) })),
            ("single", .bool(s.singleItem)),
        ]
    }

    /// How long reading the configuration may take before a reload gives up on it. Reading is
    /// bounded by the file's limits (docs/security.md) and takes milliseconds; the deadline is for
    /// what no limit foresaw (a file on a hung network mount).
    public static let reloadDeadline: Duration = .seconds(5)

    /// `SIGHUP`: reads the configuration again. Keys that changed and can change live (recognition,
    /// tracking, log level) are applied from the next frame and announced as a `config` event; keys
    /// that need a restart are named in the log (and the event). A configuration with any error is
    /// refused whole, with every reason logged, and the one in force stays. The file is read on a
    /// thread of its own: past `deadline`, or when the caller is cancelled (shutdown), the reload is
    /// abandoned and whatever that read finds later is ignored.
    public func reload(deadline: Duration = ScannerDaemon.reloadDeadline) async {
        notifier.notify(["RELOADING=1", "MONOTONIC_USEC=\(Heartbeat.monotonicNanoseconds() / 1000)"])
        defer { notifier.notify(["READY=1", "STATUS=\(statusLine())"]) }
        let read = reloadConfiguration
        let outcome = await OffThread.run(deadline: deadline) { () -> Result<LoadedConfiguration, ConfigurationErrors> in
            do throws(ConfigurationErrors) { return .success(try read()) } catch { return .failure(error) }
        }
        let inForce = loaded.withLock { $0 }
        let decision = ReloadDecision.decide(
            read: outcome, inForce: inForce, startup: startup, cancelled: Task.isCancelled, deadline: deadline.inSeconds)
        switch decision {
        case .abandoned(let reason):
            logger.error("configuration reload abandoned", metadata: ["reason": "\(reason)"])
            notifier.notify(["STATUS=reload abandoned: \(reason)"])
            return
        case .refused(let problems):
            for problem in problems {
                logger.error("configuration reload refused", metadata: ["error": "\(problem)"])
            }
            notifier.notify(["STATUS=reload refused: \(problems.first.map { "\($0)" } ?? "")"])
            return
        case .unchanged, .apply:
            break
        }
        // Both remaining decisions come from a read that succeeded.
        guard case .success(let next)? = outcome else { return }
        loaded.withLock { $0 = next }
        guard case .apply(let live, let restart) = decision else {
            logger.info("configuration reloaded: nothing changed")
            return
        }
        logLevel.current = next.settings.logLevel
        let updated = settings.withLock { s -> DaemonSettings in
            s.takeLive(Set(live), from: next.settings)
            return s
        }
        if !live.isEmpty { sequence.reconfigure(Self.sequenceConfiguration(updated)) }
        logger.notice("configuration reloaded", metadata: [
            "applied": "\(live.joined(separator: ","))",
            "restartRequired": "\(restart.joined(separator: ","))",
        ])
        if !live.isEmpty {
            hub.publishNotice("config", Self.describe(updated) + [
                ("reason", .string("reload")), ("changed", .array(live.map { .string($0) })),
                ("restartRequired", .array(restart.map { .string($0) })),
            ])
        }
    }

    // MARK: Status

    func statusLine(fps: Double = 0) -> String {
        let stalled: Duration? = notifier.watchdogTimeout.flatMap { timeout in
            let age = heartbeat.age
            return WatchdogPolicy(timeout: timeout).shouldPing(heartbeatAge: age) ? nil : age
        }
        return DaemonStatus.line(
            source: status.source, name: source is CameraSource ? "camera \(hub.sourceName)" : hub.sourceName,
            fps: fps, stalledFor: stalled, items: hub.items.count, clients: hub.subscriberCount)
    }

    /// Pipeline events: published, and noted for the status line.
    func emit(_ event: ScannerEvent) {
        switch event {
        case .sourceAvailable: status.source = .available
        case .sourceUnavailable(let reason): status.source = .unavailable(reason: reason)
        case .end: status.source = .ended
        case .item: break
        }
        hub.publish(event)
    }

    // MARK: Server

    /// The requests of every transport, answered by this daemon (through the weak box: the daemon
    /// owns the servers that own the handler).
    static func makeRequestHandler(hub: EventHub, logger: Logger, daemon: WeakDaemon) -> RequestHandler {
        RequestHandler(
            hub: hub, logger: logger,
            stats: { daemon.daemon?.statistics() ?? [] },
            configure: { change in
                guard let daemon = daemon.daemon else { return .failure(.init("shutting down")) }
                return .success(daemon.apply(change))
            },
            capture: { annotate in
                guard let daemon = daemon.daemon else { return .failure(.init("shutting down")) }
                return await daemon.photo(annotate: annotate)
            })
    }

    static func makeServer(_ s: DaemonSettings, hub: EventHub, logger: Logger, requests: RequestHandler) -> EventServer {
        EventServer(
            hub: hub,
            configuration: EventServerConfiguration(
                path: s.socketPath, mode: mode_t(s.socketMode), maximumClients: s.maximumClients, maximumClientsPerUser: s.maximumClientsPerUser,
                group: s.socketGroup.flatMap(Accounts.groupID), allowedUsers: Set(s.allowUsers.compactMap(Accounts.userID)),
                allowedGroups: Set(s.allowGroups.compactMap(Accounts.groupID)),
                controlUsers: Set(s.controlUsers.compactMap(Accounts.userID)), controlGroups: Set(s.controlGroups.compactMap(Accounts.groupID))),
            logger: logger, requests: requests)
    }

    /// `capture`: the next frame at full resolution as JPEG, the current items' bounds drawn if asked.
    func photo(annotate: Bool) async -> Result<RequestHandler.CapturedPhoto, RequestHandler.Refusal> {
        nonisolated(unsafe) let source = self.source
        let items = hub.items.map(\.item.bounds)
        let photo: Photo?? = await OffThread.waitForCallback(deadline: .seconds(3)) { finish in source.takePhoto(finish) }
        guard let photo = photo ?? nil else { return .failure(.init("no frame within 3 s (is the camera available?)")) }
        return PhotoRendering.jpeg(of: photo, annotating: annotate ? items : nil)
    }
}

/// The daemon as the server's closures see it.
final class WeakDaemon: @unchecked Sendable {
    // Written once, in the daemon's init, before the server runs.
    weak var daemon: ScannerDaemon?
}

/// Opens once; waiters before and after pass.
final class ReadyGate: Sendable {
    private let state = Mutex<(open: Bool, waiters: [CheckedContinuation<Void, Never>])>((false, []))

    func open() {
        let waiters = state.withLock { s -> [CheckedContinuation<Void, Never>] in
            s.open = true
            defer { s.waiters = [] }
            return s.waiters
        }
        waiters.forEach { $0.resume() }
    }

    var isOpen: Bool { state.withLock { $0.open } }

    /// Returns when open (or at once, if the caller is cancelled: check `isOpen`).
    func wait() async {
        await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                let now = state.withLock { s -> Bool in
                    if s.open || Task.isCancelled { return true }
                    s.waiters.append(continuation)
                    return false
                }
                if now { continuation.resume() }
            }
        } onCancel: {
            let waiters = state.withLock { s -> [CheckedContinuation<Void, Never>] in
                defer { s.waiters = [] }
                return s.waiters
            }
            waiters.forEach { $0.resume() }
        }
    }
}
