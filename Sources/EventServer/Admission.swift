import Foundation
import ScannerProtocol

/// Who is let in when the socket is busy. Pure: counts in, a decision out.
///
/// - The last `reservedControlSlots` of `maximumClients` are kept for privileged peers (root, the
///   daemon's own user, the configured control users and groups), so watchers cannot lock out the
///   operator who wants to change a setting or look at `stats`.
/// - One unprivileged user holds at most `maximumClientsPerUser` connections, so one misbehaving
///   program cannot take every slot.
public struct Admission: Sendable, Equatable {
    public var maximumClients: Int
    public var maximumClientsPerUser: Int

    public init(maximumClients: Int, maximumClientsPerUser: Int) {
        self.maximumClients = maximumClients
        self.maximumClientsPerUser = maximumClientsPerUser
    }

    /// Slots only privileged peers may take: 4, or fewer when `maximumClients` is small (one slot
    /// is always left to anybody).
    public var reservedControlSlots: Int { min(4, max(0, maximumClients - 1)) }

    public enum Decision: Equatable, Sendable {
        case admit
        case refuse(code: ErrorCode, message: String)
    }

    /// - Parameters:
    ///   - privileged: the peer may control the daemon (see `EventServer.isPrivileged`).
    ///   - connected: clients served now, all users.
    ///   - connectedBySameUser: clients served now that belong to this peer's user.
    public func decide(privileged: Bool, connected: Int, connectedBySameUser: Int) -> Decision {
        if connected >= maximumClients {
            return .refuse(code: .tooManyClients, message: "the daemon serves at most \(maximumClients) clients")
        }
        if privileged { return .admit }
        if connected >= maximumClients - reservedControlSlots {
            return .refuse(
                code: .tooManyClients,
                message: "the daemon serves at most \(maximumClients) clients; the last \(reservedControlSlots) are kept for control users")
        }
        if connectedBySameUser >= maximumClientsPerUser {
            return .refuse(code: .tooManyClients, message: "one user may hold at most \(maximumClientsPerUser) connections")
        }
        return .admit
    }
}

/// Whether the process may open enough descriptors for `maximumClients` connections, and what to
/// do about it. Pure: limits in, an action out.
///
/// A daemon that runs out of descriptors cannot accept (EMFILE) and cannot open the camera again
/// after an unplug; so the limit is checked, and raised where the hard limit allows, before
/// listening.
public enum DescriptorBudget {
    /// Descriptors the daemon needs besides its clients: the camera and its buffers, the event
    /// loop's, the listener, libraries' files, a margin for connections accepted only to be refused
    /// (measured: about 20 in use with no client, docs/benchmarks.md soak section).
    public static let headroom = 64

    public enum Action: Equatable, Sendable {
        case enough
        /// Raise the soft limit to this (still within the hard limit).
        case raiseSoftLimit(to: UInt64)
        case refuse(message: String)
    }

    /// - Parameter httpConnections: the HTTP port's connections (`http.max-connections` and its waiting room), which
    ///   hold descriptors beside the socket's clients.
    public static func decide(maximumClients: Int, httpConnections: Int = 0, softLimit: UInt64, hardLimit: UInt64) -> Action {
        let needed = UInt64(maximumClients + httpConnections + headroom)
        if softLimit >= needed { return .enough }
        if hardLimit >= needed { return .raiseSoftLimit(to: needed) }
        let clients =
            httpConnections > 0
            ? "max-clients \(maximumClients) and \(httpConnections) HTTP connections need" : "max-clients \(maximumClients) needs"
        return .refuse(
            message: "\(clients) \(needed) open files, but the limit is \(hardLimit) "
                + "(raise LimitNOFILE= / ulimit -n, or lower server.max-clients to at most \(max(0, Int(hardLimit) - headroom - httpConnections)))")
    }

    /// Applies the decision to this process (getrlimit/setrlimit RLIMIT_NOFILE).
    public static func ensure(maximumClients: Int, httpConnections: Int = 0) throws(EventServerError) {
        var limit = rlimit()
        guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0 else { return }
        switch decide(
            maximumClients: maximumClients, httpConnections: httpConnections, softLimit: UInt64(limit.rlim_cur), hardLimit: UInt64(limit.rlim_max))
        {
        case .enough: return
        case .raiseSoftLimit(let soft):
            limit.rlim_cur = rlim_t(soft)
            if setrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) != 0 {
                throw .descriptorLimit(message: "cannot raise the open-file limit to \(soft): \(String(cString: strerror(errno)))")
            }
        case .refuse(let message):
            throw .descriptorLimit(message: message)
        }
    }
}
