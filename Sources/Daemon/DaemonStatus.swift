import Events
import Foundation
import Pipeline
import ScannerCore
import Synchronization
import Tracking

/// What the daemon is doing, for `READY=1` and the `STATUS=` line systemd shows.
public final class DaemonStatus: Sendable {
    public enum Source: Sendable, Equatable {
        /// Not opened yet.
        case starting
        case available
        case unavailable(reason: String)
        case ended
    }

    private struct State {
        var source: Source = .starting
        var listening = false
    }

    private let state = Mutex(State())
    public init() {}

    public var source: Source {
        get { state.withLock { $0.source } }
        set { state.withLock { $0.source = newValue } }
    }

    public func serverListening() { state.withLock { $0.listening = true } }

    /// Ready for systemd: clients can connect and the source has been tried once. A camera that is
    /// missing at boot does not hold the unit in "activating": the daemon is up, reports the camera
    /// unavailable, and picks it up when it is plugged in.
    public func isReady(needsServer: Bool) -> Bool {
        state.withLock { ($0.listening || !needsServer) && $0.source != .starting }
    }

    /// The `STATUS=` text: the source's state, the frame rate it delivers, items and clients; and
    /// when the text networks did not load (`textDegraded`), that text is read without them.
    public static func line(
        source: Source, name: String, fps: Double, stalledFor: Duration?, items: Int, clients: Int, textDegraded: Bool = false
    ) -> String {
        let tail =
            "; \(items) item\(items == 1 ? "" : "s"), \(clients) client\(clients == 1 ? "" : "s")"
            + (textDegraded ? "; text without its networks (they did not load)" : "")
        switch source {
        case .starting: return "opening \(name)"
        case .ended: return "\(name) ended"
        case .unavailable(let reason): return "waiting for \(name): \(reason)" + tail
        case .available:
            if let stalledFor {
                return "stalled: no frame processed from \(name) for \(Int(stalledFor.inSeconds)) s" + tail
            }
            return "\(name): \(String(format: "%.1f", fps)) fps" + tail
        }
    }
}

extension DaemonStatus {
    /// Notes what a pipeline event says about the source.
    func note(_ event: ScannerEvent) {
        switch event {
        case .sourceAvailable: source = .available
        case .sourceUnavailable(let reason): source = .unavailable(reason: reason)
        case .end: source = .ended
        case .item, .recognition, .guidance: break
        }
    }
}

/// The `STATUS=` line from the parts it describes (`DaemonStatus.line`).
struct StatusReport: Sendable {
    let status: DaemonStatus
    let heartbeat: Heartbeat
    let watchdogTimeout: Duration?
    /// The source as the line names it ("camera /dev/video0", a file's path).
    let sourceLabel: String
    let hub: EventHub
    let metrics: PipelineMetrics
    /// Whether the text stage reads without its networks (`Pipeline.textModelFailure`).
    let textDegraded: @Sendable () -> Bool

    func line() -> String {
        let stalled: Duration? = watchdogTimeout.flatMap { timeout in
            let age = heartbeat.age
            return WatchdogPolicy(timeout: timeout).shouldPing(heartbeatAge: age) ? nil : age
        }
        return DaemonStatus.line(
            source: status.source, name: sourceLabel, fps: metrics.figures(.capture).perSecond, stalledFor: stalled, items: hub.items.count,
            clients: hub.subscriberCount, textDegraded: textDegraded())
    }
}
