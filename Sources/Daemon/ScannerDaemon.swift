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
/// - `SIGHUP` reloads the configuration (`SettingsControl.reload`).
public final class ScannerDaemon: Sendable {
    let logger: Logger
    nonisolated(unsafe) let source: FrameSource
    let hub: EventHub
    let pipeline: Pipeline
    /// `--events-stdout`: the events on standard output, written off the hub's lock.
    let printer: EventPrinter?
    let server: EventServer?
    /// `http.listen`: events, items and snapshots over HTTP (docs/http.md).
    let http: HTTPServer?
    /// `mqtt.broker`: every event to a broker (docs/mqtt.md).
    let mqtt: MQTTPublisher?
    let notifier: SystemdNotifier
    let heartbeat: Heartbeat
    let status = DaemonStatus()
    let report: StatusReport
    let control: SettingsControl
    let startedAt = ContinuousClock.now
    let serverReady = ReadyGate()

    public init(
        configuration: LoadedConfiguration, logLevel: LogLevelControl, notifier: SystemdNotifier = SystemdNotifier(),
        logger: Logger, metrics: MetricsExport = MetricsExport(),
        reload: @escaping @Sendable () throws(ConfigurationErrors) -> LoadedConfiguration
    ) throws(DaemonError) {
        let s = configuration.settings
        let startedAt = self.startedAt
        self.logger = logger
        self.notifier = notifier
        let heartbeat = Heartbeat()
        self.heartbeat = heartbeat
        let source = try DaemonAssembly.source(s, logger: logger, heartbeat: heartbeat)
        self.source = source
        let printer = s.eventsStdout ? EventPrinter() : nil
        self.printer = printer
        // A browser's EventSource reconnects with the last seq it had: keep enough to fill the gap.
        let hub = EventHub(
            daemonVersion: Release.version, sourceName: s.input.name, replayLimit: s.httpListen == nil ? 0 : DaemonAssembly.httpReplayLimit
        ) { line in
            printer?.print(line)
        }
        self.hub = hub
        let pipeline = try DaemonAssembly.pipeline(s, logger: logger)
        self.pipeline = pipeline
        if let failure = pipeline.textModelFailure {
            // The models beside the binary, damaged: barcodes and text are still read (issue #54).
            logger.error("the text networks did not load (\(failure)): text is read by the classical detector and Tesseract")
        }
        report = StatusReport(
            status: status, heartbeat: heartbeat, watchdogTimeout: notifier.watchdogTimeout,
            sourceLabel: source is CameraSource ? "camera \(s.input.name)" : s.input.name, hub: hub, metrics: pipeline.metrics,
            textDegraded: { pipeline.textModelFailure != nil })
        control = SettingsControl(
            configuration: configuration, pipeline: pipeline, hub: hub, logger: logger, logLevel: logLevel, notifier: notifier, status: report,
            read: reload)
        let mqtt = try DaemonAssembly.mqttPublisher(s, hub: hub, logger: logger, version: Release.version)
        self.mqtt = mqtt
        let status = self.status
        nonisolated(unsafe) let unsafeSource = source
        let requests = DaemonAssembly.requestHandler(
            hub: hub, logger: logger, control: control, pipeline: pipeline, source: source,
            stats: {
                let available: Bool = if case .available = status.source { true } else { false }
                return StatsReply(
                    daemon: DaemonStatistics.reply(
                        source: unsafeSource.statistics, metrics: pipeline.metrics, sourceName: hub.sourceName, available: available,
                        uptime: (ContinuousClock.now - startedAt).inSeconds, textModelFailure: pipeline.textModelFailure),
                    mqtt: mqtt?.statistics)
            })
        server = s.socketEnabled ? DaemonAssembly.eventServer(s, hub: hub, logger: logger, requests: requests) : nil
        http = try DaemonAssembly.httpServer(s, hub: hub, requests: requests, logger: logger) {
            metrics.render(source: unsafeSource.statistics, hub: hub, mqtt: mqtt?.statistics, textModelFailure: pipeline.textModelFailure)
        }
        // The socket's server checks the descriptor budget for both when it listens; without it the
        // HTTP port's connections are checked here.
        if server == nil, http != nil {
            let connections = s.httpMaxConnections + HTTPServerConfiguration.waitingRoom
            do { try DescriptorBudget.ensure(maximumClients: 0, httpConnections: connections) } catch { throw .cannotStart("\(error)") }
        }
        printer?.print(hub.hello())
    }

    /// Runs until a signal or the end of the source. Each service gets the parts it uses, never the
    /// daemon (issue #42).
    public func run() async throws {
        var services: [ServiceGroupConfiguration.ServiceConfiguration] = []
        if let server {
            services.append(.init(service: ServerService(server: server, ready: serverReady, status: status)))
        } else {
            serverReady.open()
        }
        // An HTTP server that cannot listen (its port taken) ends the daemon, as the socket's does,
        // after the pipeline stops.
        if let http {
            services.append(.init(service: HTTPService(server: http, hub: hub, logger: logger), failureTerminationBehavior: .gracefullyShutdownGroup))
        }
        if let mqtt { services.append(.init(service: MQTTService(publisher: mqtt, hub: hub))) }
        let (status, hub) = (status, hub)
        services.append(
            .init(
                service: PipelineService(
                    pipeline: pipeline, source: source, ready: serverReady, heartbeat: heartbeat, logger: logger,
                    publish: { event in
                        status.note(event)
                        hub.publish(event)
                    }),
                successTerminationBehavior: .gracefullyShutdownGroup, failureTerminationBehavior: .gracefullyShutdownGroup))
        services.append(
            .init(
                service: SystemdService(
                    notifier: notifier, status: status, report: report, needsServer: server != nil, logger: logger)))
        services.append(.init(service: ReloadService(control: control)))
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
