/// What a `SIGHUP` reload does, decided from what the read found: inputs in, an action out, so every
/// rule is a test without a daemon, signals or threads (`SettingsControl.reload` carries it out).
public enum ReloadDecision: Sendable, Equatable {
    /// The read did not finish (past the deadline, or the daemon is shutting down): nothing changes,
    /// and what the read finds later is ignored.
    case abandoned(reason: String)
    /// The file has errors: the configuration in force stays, whole. Every problem is named.
    case refused([ConfigurationError])
    /// The file says what is in force.
    case unchanged
    /// `live` keys changed and apply from the next frame; `restartRequired` keys differ from what
    /// the daemon started with and wait for a restart.
    case apply(live: [String], restartRequired: [String])

    /// - Parameters:
    ///   - read: the configuration read, its errors, or nil when the read did not finish.
    ///   - inForce: the configuration last read (the live keys of `read` are compared with it).
    ///   - startup: the configuration the daemon started with (restart-only keys are compared with it).
    ///   - cancelled: the daemon is shutting down (a read that did not finish names that reason).
    ///   - deadline: how long the read was given, in seconds.
    public static func decide(
        read: Result<LoadedConfiguration, ConfigurationErrors>?, inForce: LoadedConfiguration, startup: LoadedConfiguration,
        cancelled: Bool, deadline: Double
    ) -> ReloadDecision {
        switch read {
        case nil:
            return .abandoned(reason: cancelled ? "shutting down" : "reading the configuration took longer than \(deadline) s")
        case .failure(let errors)?:
            return .refused(errors.errors)
        case .success(let next)?:
            let live = next.changedKeys(from: inForce).filter(\.live).map(\.name)
            let restart = next.changedKeys(from: startup).filter { !$0.live }.map(\.name)
            return live.isEmpty && restart.isEmpty ? .unchanged : .apply(live: live, restartRequired: restart)
        }
    }
}
