import ScannerCore
import Testing

@testable import DaemonConfiguration

/// `SIGHUP`'s rules, without a daemon (docs/configuration.md "Reload").
@Suite struct ReloadDecisionTests {
    func configuration(_ change: (inout DaemonSettings) -> Void = { _ in }) -> LoadedConfiguration {
        var settings = DaemonSettings()
        change(&settings)
        return LoadedConfiguration(settings: settings, origins: [:])
    }

    @Test func aReadThatDidNotFinishChangesNothingAndSaysWhy() {
        let now = configuration()
        #expect(ReloadDecision.decide(read: nil, inForce: now, startup: now, cancelled: true, deadline: 5) == .abandoned(reason: "shutting down"))
        #expect(
            ReloadDecision.decide(read: nil, inForce: now, startup: now, cancelled: false, deadline: 5)
                == .abandoned(reason: "reading the configuration took longer than 5.0 s"))
    }

    @Test func aFileWithErrorsIsRefusedWhole() {
        let now = configuration()
        let errors = ConfigurationErrors([.more(count: 3)])
        #expect(ReloadDecision.decide(read: .failure(errors), inForce: now, startup: now, cancelled: false, deadline: 5) == .refused(errors.errors))
    }

    /// Live keys against what is in force; restart-only keys against what the daemon started with.
    @Test func liveKeysApplyAndRestartKeysAreNamed() {
        let startup = configuration()
        #expect(ReloadDecision.decide(read: .success(startup), inForce: startup, startup: startup, cancelled: false, deadline: 5) == .unchanged)
        let faster = configuration { $0.quality = .fast }
        #expect(
            ReloadDecision.decide(read: .success(faster), inForce: startup, startup: startup, cancelled: false, deadline: 5)
                == .apply(live: ["recognition.quality"], restartRequired: []))
        // Read again: fast is in force now, so nothing live changed.
        #expect(ReloadDecision.decide(read: .success(faster), inForce: faster, startup: startup, cancelled: false, deadline: 5) == .unchanged)
        let wider = configuration {
            $0.width = 1920
            $0.quality = .fast
        }
        #expect(
            ReloadDecision.decide(read: .success(wider), inForce: faster, startup: startup, cancelled: false, deadline: 5)
                == .apply(live: [], restartRequired: ["camera.width"]))
        // Still different from the start on the next read: still named.
        #expect(
            ReloadDecision.decide(read: .success(wider), inForce: wider, startup: startup, cancelled: false, deadline: 5)
                == .apply(live: [], restartRequired: ["camera.width"]))
    }
}
