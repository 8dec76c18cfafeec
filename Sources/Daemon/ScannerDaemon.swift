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
    /// `mqtt.broker`: every event to a broker (docs/mqtt.md).
    let mqtt: MQTTPublisher?
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
        source = try DaemonAssembly.source(s, logger: logger, heartbeat: heartbeat)
        let printer = s.eventsStdout ? LinePrinter() : nil
        self.printer = printer
        // A browser's EventSource reconnects with the last seq it had: keep enough to fill the gap.
        hub = EventHub(
            daemonVersion: Release.version, sourceName: s.input.name, replayLimit: s.httpListen == nil ? 0 : DaemonAssembly.httpReplayLimit
        ) { line in
            printer?.print(line)
        }
        sequence = try DaemonAssembly.pipeline(s)
        // The server's requests reach the daemon through a weak box: the daemon owns the server.
        let box = WeakDaemon()
        let requests = DaemonAssembly.requestHandler(hub: hub, logger: logger, daemon: box)
        server = s.socketEnabled ? DaemonAssembly.eventServer(s, hub: hub, logger: logger, requests: requests) : nil
        http = try DaemonAssembly.httpServer(s, hub: hub, requests: requests, logger: logger) { [hub, box] in
            metrics.render(source: box.daemon?.source.statistics ?? SourceStatistics(), hub: hub, mqtt: box.daemon?.mqtt?.statistics)
        }
        // The socket's server checks the descriptor budget for both when it listens; without it the
        // HTTP port's connections are checked here.
        if server == nil, http != nil {
            do { try DescriptorBudget.ensure(maximumClients: 0, httpConnections: s.httpMaxConnections) } catch { throw .cannotStart("\(error)") }
        }
        mqtt = try DaemonAssembly.mqttPublisher(s, hub: hub, logger: logger, version: Release.version)
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
        if let mqtt { services.append(.init(service: MQTTService(publisher: mqtt, daemon: self))) }
        services.append(
            .init(
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
        logger.info(
            "stopped",
            metadata: [
                "frames": "\(s.delivered)", "dropped": "\(s.dropped)", "idleSkipped": "\(s.idleSkipped)", "corrupt": "\(s.corrupt)",
                "reconnects": "\(s.reconnects)",
                "uptime": "\(String(format: "%.1f", (ContinuousClock.now - startedAt).inSeconds))",
            ])
    }

    // MARK: Configuration

    /// A `set` request: applied from the next frame, described in the reply and the `config` event.
    func apply(_ change: ConfigChange) -> [(String, JSONValue)] {
        let updated = settings.withLock { s -> DaemonSettings in
            if let roi = change.regionOfInterest { s.regionOfInterest = roi }
            if let quality = change.quality { s.quality = quality }
            if let types = change.types { s.types = types }
            if let single = change.singleItem { s.singleItem = single }
            return s
        }
        sequence.reconfigure(DaemonAssembly.sequenceConfiguration(updated))
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
        if !live.isEmpty { sequence.reconfigure(DaemonAssembly.sequenceConfiguration(updated)) }
        logger.notice(
            "configuration reloaded",
            metadata: [
                "applied": "\(live.joined(separator: ","))",
                "restartRequired": "\(restart.joined(separator: ","))",
            ])
        if !live.isEmpty {
            hub.publishNotice(
                "config",
                Self.describe(updated) + [
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
        case .item, .recognition, .guidance: break
        }
        hub.publish(event)
    }

    /// `pause` / `resume`: the pipeline first (it removes what it tracked and announces the pause),
    /// then the source, which stops decoding; resuming in the other order, so the first frame decoded
    /// is recognized.
    func setPaused(_ paused: Bool) {
        if paused {
            sequence.setPaused(true)
            source.setPaused(true)
        } else {
            source.setPaused(false)
            sequence.setPaused(false)
        }
    }

    // MARK: Server

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
