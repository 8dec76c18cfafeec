import ClientRequests
import DaemonConfiguration
import Events
import Foundation
import Logging
import Pipeline
import ScannerCore
import ScannerProtocol
import Synchronization

/// The recognition and tracking settings in force and the two ways they change, a `set` request and
/// a reload (`SIGHUP`): the one place that turns settings into the pipeline's configuration and
/// publishes `config` (issue #42: the request handler and the daemon each published it).
///
/// A change is applied whole or not at all: the pipeline's stages for it are built first
/// (`Pipeline.reconfigure`), and only when they are is it stored and announced. One change at a
/// time, so a `set` and a reload racing each other cannot store one and run the other.
final class SettingsControl: Sendable {
    private let pipeline: Pipeline
    private let hub: EventHub
    private let logger: Logger
    private let logLevel: LogLevelControl
    private let notifier: SystemdNotifier
    private let status: StatusReport
    private let readConfiguration: @Sendable () throws(ConfigurationErrors) -> LoadedConfiguration
    /// The configuration loaded at start.
    private let startup: LoadedConfiguration
    /// The configuration loaded at start or at the last successful reload.
    private let loaded: Mutex<LoadedConfiguration>
    /// The settings in force (the file's, then `set` requests and reloads).
    private let settings: Mutex<DaemonSettings>
    /// Held while a change's stages are built and it is stored: one change at a time.
    private let changing = Mutex(())

    init(
        configuration: LoadedConfiguration, pipeline: Pipeline, hub: EventHub, logger: Logger, logLevel: LogLevelControl,
        notifier: SystemdNotifier, status: StatusReport, read: @escaping @Sendable () throws(ConfigurationErrors) -> LoadedConfiguration
    ) {
        self.pipeline = pipeline
        self.hub = hub
        self.logger = logger
        self.logLevel = logLevel
        self.notifier = notifier
        self.status = status
        readConfiguration = read
        startup = configuration
        loaded = Mutex(configuration)
        settings = Mutex(configuration.settings)
    }

    /// How long building a change's stages may take before a `set` is answered as not applied (the
    /// text networks load in well under a second; this is for what nobody foresaw).
    static let applyDeadline: Duration = .seconds(20)

    /// A `set` request: applied from the next frame, described in the reply and the `config` event.
    func apply(_ change: ConfigChange) async -> Result<Event.Configuration, RequestHandler.Refusal> {
        let outcome = await OffThread.run(deadline: Self.applyDeadline) { [self] in
            self.change { s in
                if let roi = change.regionOfInterest { s.regionOfInterest = roi }
                if let quality = change.quality { s.quality = quality }
                if let types = change.types { s.types = types }
                if let single = change.singleItem { s.singleItem = single }
            }
        }
        switch outcome {
        case nil:
            // The build goes on: the change may still take effect, unannounced (builds take 0.06–0.22 s;
            // this is for a machine that has stopped).
            logger.error("configuration change not confirmed in time", metadata: ["deadline": "\(Int(Self.applyDeadline.inSeconds))s"])
            return .failure(
                .init(
                    "not confirmed within \(Int(Self.applyDeadline.inSeconds)) s: the pipeline's stages were still being built, and the change may still apply"
                ))
        case .failure(let error)?:
            logger.error("configuration change not applied", metadata: ["error": "\(error)"])
            return .failure(.init("not applied: \(error)"))
        case .success(let updated)?:
            let described = Self.describe(updated)
            hub.publish(config: described)
            return .success(described)
        }
    }

    /// How long reading the configuration may take before a reload gives up on it. Reading is
    /// bounded by the file's limits (docs/security.md) and takes milliseconds; the deadline is for
    /// what no limit foresaw (a file on a hung network mount).
    static let reloadDeadline: Duration = .seconds(5)

    /// `SIGHUP`: reads the configuration again. Keys that changed and can change live (recognition,
    /// tracking, log level) are applied from the next frame and announced as a `config` event; keys
    /// that need a restart are named in the log (and the event). A configuration with any error is
    /// refused whole, with every reason logged, and the one in force stays; so does one whose stages
    /// cannot be built. The file is read on a thread of its own: past `deadline`, or when the caller
    /// is cancelled (shutdown), the reload is abandoned and whatever that read finds later is ignored.
    func reload(deadline: Duration = SettingsControl.reloadDeadline) async {
        notifier.notify(["RELOADING=1", "MONOTONIC_USEC=\(Heartbeat.monotonicNanoseconds() / 1000)"])
        defer { notifier.notify(["READY=1", "STATUS=\(status.line())"]) }
        let read = readConfiguration
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
        guard case .apply(let live, let restart) = decision else {
            loaded.withLock { $0 = next }
            logger.info("configuration reloaded: nothing changed")
            return
        }
        let applied: Result<DaemonSettings, ScannerError>? =
            live.isEmpty
            ? .success(settings.withLock { $0 })
            : await OffThread.run(deadline: Self.applyDeadline) { [self] in self.change { $0.takeLive(Set(live), from: next.settings) } }
        guard case .success(let updated)? = applied else {
            let reason =
                if case .failure(let error)? = applied { "\(error)" } else {
                    "its stages were not built within \(Int(Self.applyDeadline.inSeconds)) s"
                }
            logger.error("configuration reload not applied", metadata: ["error": "\(reason)"])
            notifier.notify(["STATUS=reload not applied: \(reason)"])
            return
        }
        loaded.withLock { $0 = next }
        logLevel.current = next.settings.logLevel
        logger.notice(
            "configuration reloaded",
            metadata: [
                "applied": "\(live.joined(separator: ","))",
                "restartRequired": "\(restart.joined(separator: ","))",
            ])
        if !live.isEmpty {
            var described = Self.describe(updated)
            described.reload = .init(changed: live, restartRequired: restart)
            hub.publish(config: described)
        }
    }

    /// `modify` applied to the settings in force: the pipeline's stages for them built, then they
    /// are stored. Nothing changes when the stages cannot be built. Blocks (it builds the stages).
    private func change(_ modify: (inout DaemonSettings) -> Void) -> Result<DaemonSettings, ScannerError> {
        changing.withLock { _ in
            var updated = settings.withLock { $0 }
            modify(&updated)
            do throws(ScannerError) {
                try pipeline.reconfigure(DaemonAssembly.sequenceConfiguration(updated))
            } catch {
                return .failure(error)
            }
            settings.withLock { $0 = updated }
            return .success(updated)
        }
    }

    /// The configuration in force, as the `config` event and the `set` reply carry it.
    static func describe(_ s: DaemonSettings) -> Event.Configuration {
        let types = s.types
        let names = types.symbologies.sorted().map(\.rawValue) + types.contentTypes.map(\.rawValue).sorted() + (types.plainText ? ["text"] : [])
        return Event.Configuration(regionOfInterest: s.regionOfInterest, quality: s.quality, types: names, single: s.singleItem)
    }
}
