import Capture
import EventServer
import Events
import Foundation
import HTTPServer
import Logging
import MQTTPublisher
import Pipeline
import ScannerCore
import ServiceLifecycle
import Tracking
import UnixSignals

/// The event server. Starts listening first; on shutdown it lets every client receive what is
/// already queued for it (the pipeline's last events), then closes.
struct ServerService: Service {
    let server: EventServer
    /// Opened once the server listens: the pipeline waits for it.
    let ready: ReadyGate
    let status: DaemonStatus

    func run() async throws {
        let server = self.server
        // The socket's directory (/run/scannerd) exists under systemd (the socket unit makes it); by
        // hand it may not.
        let directory = (server.configuration.path as NSString).deletingLastPathComponent
        try? FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { server.removeSocketFile() }
        try await withGracefulShutdownHandler {
            try await server.run(ready: { [status, ready] in
                status.serverListening()
                ready.open()
            })
        } onGracefulShutdown: {
            server.shutdownGracefully()
        }
    }
}

/// The HTTP server (docs/http.md). On shutdown its event streams end after the events already
/// queued for them (the pipeline's last `removed` and `end`), and Hummingbird closes.
struct HTTPService: Service {
    let server: HTTPServer
    let hub: EventHub
    let logger: Logger

    func run() async throws {
        let (server, hub, logger) = (server, hub, logger)
        let host = server.configuration.host.contains(":") ? "[\(server.configuration.host)]" : server.configuration.host
        let listening = ReadyGate()
        do {
            try await withGracefulShutdownHandler {
                try await server.run(ready: { port in
                    listening.open()
                    logger.notice("http listening", metadata: ["url": "http://\(host):\(port)/"])
                })
            } onGracefulShutdown: {
                hub.finishSubscribers()
            }
        } catch  where !listening.isOpen {
            // Its port taken, or an address this host does not have: one line that says which.
            throw DaemonError.cannotStart("http.listen \(host):\(server.configuration.port): cannot listen: \(error)")
        }
    }
}

/// The MQTT publisher (docs/mqtt.md). On shutdown, after the pipeline's last events: its hub
/// subscription ends once they are queued, what is queued goes out (for up to 2 s while connected),
/// then `offline` and a clean disconnect.
struct MQTTService: Service {
    let publisher: MQTTPublisher
    let hub: EventHub

    func run() async throws {
        let (publisher, hub) = (publisher, hub)
        try await withGracefulShutdownHandler {
            try await publisher.run()
        } onGracefulShutdown: {
            hub.finishSubscribers()
        }
        await Task.detached { publisher.stop() }.value
    }
}

/// Capture and recognition. The blocking loop runs on a thread of its own (never the cooperative
/// pool); graceful shutdown cancels the source, whose `next()` then returns `.end` within one poll
/// slice, and the pipeline publishes `removed` for what is left and `end`.
struct PipelineService: Service {
    let pipeline: Pipeline
    nonisolated(unsafe) let source: FrameSource
    /// The server listens (or there is none): clients hear the first events.
    let ready: ReadyGate
    let heartbeat: Heartbeat
    let logger: Logger
    /// Where the pipeline's events go (the hub), in order.
    let publish: @Sendable (ScannerEvent) -> Void

    func run() async throws {
        await ready.wait()
        guard ready.isOpen, !Task.isCancelled else { return }
        nonisolated(unsafe) let source = self.source
        let (pipeline, heartbeat, logger, publish) = (pipeline, heartbeat, logger, publish)
        // Graceful shutdown, or cancellation (another service failed): either way the source is
        // cancelled, or the thread would run on (a camera, a looping replay) and the daemon never end.
        await withTaskCancellationHandler {
            await withGracefulShutdownHandler {
                await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
                    let thread = Thread {
                        pipeline.run(source: source, heartbeat: heartbeat, emit: publish)
                        logger.info("pipeline", metadata: DaemonStatistics.metadata(pipeline.statistics))
                        done.resume()
                    }
                    thread.name = "scannerd-capture"
                    thread.start()
                }
            } onGracefulShutdown: {
                source.cancel()
            }
        } onCancel: {
            source.cancel()
        }
    }
}

/// sd_notify: `READY=1` once clients can connect and the source has been tried, `STATUS=` when it
/// changes, `WATCHDOG=1` while the heartbeat is recent, `STOPPING=1` on shutdown.
struct SystemdService: Service {
    let notifier: SystemdNotifier
    let status: DaemonStatus
    let report: StatusReport
    /// Whether `READY=1` waits for the socket's server to listen.
    let needsServer: Bool
    let logger: Logger

    func run() async throws {
        guard notifier.isEnabled else {
            try? await gracefulShutdown()
            return
        }
        let policy = notifier.watchdogTimeout.map(WatchdogPolicy.init(timeout:))
        let interval = min(policy?.checkInterval ?? .seconds(2), .seconds(2))
        var ready = false
        var lastStatus = ""
        var pinging = true
        while !Task.isCancelled && !Task.isShuttingDownGracefully {
            var fields: [String] = []
            if !ready, status.isReady(needsServer: needsServer) {
                ready = true
                fields.append("READY=1")
                logger.notice("ready", metadata: ["source": "\(report.hub.sourceName)"])
            }
            let status = report.line()
            if status != lastStatus {
                fields.append("STATUS=\(status)")
                lastStatus = status
            }
            if let policy {
                let healthy = policy.shouldPing(heartbeatAge: report.heartbeat.age)
                if healthy { fields.append("WATCHDOG=1") }
                if healthy != pinging {
                    pinging = healthy
                    if healthy {
                        logger.notice("pipeline moving again; watchdog pings resumed")
                    } else {
                        logger.error(
                            "pipeline stalled; watchdog pings stopped",
                            metadata: [
                                "lastProgress": "\(String(format: "%.1f", report.heartbeat.age.inSeconds))s ago"
                            ])
                    }
                }
            }
            if !fields.isEmpty { notifier.notify(fields) }
            // Ends at once on shutdown: STOPPING=1 goes out without waiting for the next check.
            guard (try? await cancelWhenGracefulShutdown({ try await Task.sleep(for: interval) })) != nil else { break }
        }
        notifier.notify(["STOPPING=1", "STATUS=stopping"])
    }
}

/// `SIGHUP`: reload the configuration. The file is read on a thread of its own with a deadline
/// (`SettingsControl.reload`), so neither a slow file nor shutdown waits on it: the next `SIGHUP` is
/// heard, and `SIGTERM` ends this service at once.
struct ReloadService: Service {
    let control: SettingsControl

    func run() async throws {
        for await _ in await UnixSignalsSequence(trapping: .sighup).cancelOnGracefulShutdown() {
            await cancelWhenGracefulShutdown { await control.reload() }
        }
    }
}
