import ClientRequests
import Events
import Foundation
import Logging
import NIOCore
import NIOPosix
import ScannerCore
import ScannerProtocol
import Synchronization

/// Where and how the event server listens.
public struct EventServerConfiguration: Sendable {
    public var path: String
    /// File mode of the socket (owner and group may connect by default).
    public var mode: mode_t
    public var maximumClients: Int
    /// Connections one user may hold (root, the daemon's own user and control peers: no limit).
    public var maximumClientsPerUser: Int
    /// Lines that may wait for one client before it is cut off as too slow.
    public var queueLimit: Int
    /// Bytes that may wait for one client (replies with photos are large) before it is cut off.
    public var byteLimit: Int
    /// Connections the daemon's HTTP port may hold: they take descriptors from the same budget.
    public var httpConnections: Int
    public var maximumLineLength: Int
    /// Group that owns the socket file (with `mode` 0660: who may connect at all).
    public var group: gid_t?
    /// Peers allowed by credentials (SO_PEERCRED): by user id, or by any of their groups. Both empty:
    /// whoever may open the socket file.
    public var allowedUsers: Set<uid_t>
    public var allowedGroups: Set<gid_t>
    /// Who may change the daemon's state (`set`) besides root and the daemon's own user: a narrower
    /// set than who may listen. Both empty: every client that was let in may `set`. Writing files
    /// (`capture` with a path) is only ever for root, the daemon's user and these (docs/security.md).
    public var controlUsers: Set<uid_t>
    public var controlGroups: Set<gid_t>

    public init(
        path: String = "/run/scannerd/scannerd.sock", mode: mode_t = 0o660, maximumClients: Int = 64, maximumClientsPerUser: Int = 16,
        queueLimit: Int = 1024,
        maximumLineLength: Int = 64 * 1024, group: gid_t? = nil, allowedUsers: Set<uid_t> = [], allowedGroups: Set<gid_t> = [],
        controlUsers: Set<uid_t> = [], controlGroups: Set<gid_t> = [], byteLimit: Int = EventHub.defaultByteLimit,
        httpConnections: Int = 0
    ) {
        self.httpConnections = httpConnections
        self.byteLimit = byteLimit
        self.controlUsers = controlUsers
        self.controlGroups = controlGroups
        self.path = path
        self.mode = mode
        self.group = group
        self.allowedUsers = allowedUsers
        self.allowedGroups = allowedGroups
        self.maximumClients = maximumClients
        self.maximumClientsPerUser = maximumClientsPerUser
        self.queueLimit = queueLimit
        self.maximumLineLength = maximumLineLength
    }
}

public enum EventServerError: Error, CustomStringConvertible, Sendable {
    case alreadyRunning(path: String)
    case notASocket(path: String)
    case cannotBind(path: String, reason: String)
    case descriptorLimit(message: String)

    public var description: String {
        switch self {
        case .descriptorLimit(let message): message
        case .alreadyRunning(let path): "\(path): another scannerd is listening on this socket"
        case .notASocket(let path): "\(path): exists and is not a socket; refusing to remove it"
        case .cannotBind(let path, let reason): "\(path): cannot listen: \(reason)"
        }
    }
}

/// The Unix-socket server: every client gets `hello` with the current items, then the events (as
/// filtered by its `subscribe`), and may send requests. One task per client; a client that stops
/// reading is cut off by the event bus, never waited for.
public final class EventServer: Sendable {
    public let configuration: EventServerConfiguration
    let hub: EventHub
    let logger: Logger
    /// Answers the clients' requests (shared with the other transports).
    let requests: RequestHandler
    /// Where the server's tasks run: nil = Swift's global concurrent executor.
    let executor: ServerExecutor?

    /// Open channels, so that shutting down closes them instead of abandoning them: NIO requires
    /// every accepted `NIOAsyncChannel` to be run to its end.
    struct Channels {
        var listener: Channel?
        var clients: [ObjectIdentifier: Channel] = [:]
        /// The user of each admitted client (for the per-user limit).
        var users: [ObjectIdentifier: uid_t] = [:]
        var closing = false
        /// The socket file this server bound (device and inode): the only file it ever removes.
        var boundSocket: FileIdentity?
    }
    private let channels = Mutex(Channels())

    /// - Parameter requests: answers the clients' requests; nil: one with no controls (tests).
    public init(
        hub: EventHub, configuration: EventServerConfiguration, logger: Logger, executor: ServerExecutor? = nil,
        requests: RequestHandler? = nil
    ) {
        self.executor = executor
        self.requests = requests ?? RequestHandler(hub: hub, logger: logger)
        self.hub = hub
        self.configuration = configuration
        self.logger = logger
    }

    /// Removes a socket file left by a daemon that is gone; refuses when a daemon still answers on it,
    /// and never touches anything that is not a socket (a regular file, a link, a directory, a device).
    static func clearStaleSocket(at path: String) throws(EventServerError) {
        guard let found = FileIdentity(lstat: path) else { return }
        guard found.isSocket else { throw .notASocket(path: path) }
        if UnixSocket.canConnect(to: path) { throw .alreadyRunning(path: path) }
        // Checked again right before: between the look and the unlink the path may have been replaced.
        if FileIdentity(lstat: path) == found { unlink(path) }
    }

    /// Binds (or takes the socket systemd passed, `LISTEN_FDS`), then serves until the task is
    /// cancelled. `ready` is called once clients can connect.
    public func run(ready: @escaping @Sendable () -> Void = {}) async throws {
        try DescriptorBudget.ensure(maximumClients: configuration.maximumClients, httpConnections: configuration.httpConnections)
        let group = MultiThreadedEventLoopGroup.singleton
        let logger = self.logger
        let bootstrap = ServerBootstrap(group: group)
            .serverChannelOption(.backlog, value: 64)
            // Sits before NIO's own AcceptBackoffHandler (which waits a second after EMFILE/ENFILE
            // before accepting again, and says nothing): names the condition in the log, once per run
            // of failures.
            .serverChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture { try channel.pipeline.syncOperations.addHandler(AcceptErrorLogger(logger: logger)) }
            }
        let maximumLineLength = configuration.maximumLineLength
        let initializer: @Sendable (Channel) -> EventLoopFuture<NIOAsyncChannel<ByteBuffer, ByteBuffer>> = { channel in
            channel.eventLoop.makeCompletedFuture {
                try channel.pipeline.syncOperations.addHandler(ByteToMessageHandler(RequestLineDecoder(maximumLength: maximumLineLength)))
                // The deinit-finishing initializer, deliberately: a connection accepted while the
                // server shuts down is never handed to `serve`, and NIO traps (in release builds too)
                // when such a channel's writer is released unfinished. Everything that is handed over
                // is still run to its end by `executeThenClose`.
                return try NIOAsyncChannel<ByteBuffer, ByteBuffer>(synchronouslyWrapping: channel)
            }
        }
        let server: NIOAsyncChannel<NIOAsyncChannel<ByteBuffer, ByteBuffer>, Never>
        if let inherited = SocketActivation.listeningDescriptor() {
            server = try await bootstrap.bind(inherited, childChannelInitializer: initializer)
            logger.info("listening on the socket passed by systemd", metadata: ["fd": "\(inherited)"])
        } else {
            try Self.clearStaleSocket(at: configuration.path)
            // Owner-only until given its mode below: never wider than configured, even for a moment.
            let descriptor = try UnixSocket.listenOwnerOnly(path: configuration.path)
            // Recorded at once, so that the file is removed on the way out even if NIO refuses it.
            let bound = FileIdentity(lstat: configuration.path)
            channels.withLock { $0.boundSocket = bound }
            do {
                server = try await bootstrap.bind(descriptor, childChannelInitializer: initializer)
            } catch {
                throw EventServerError.cannotBind(path: configuration.path, reason: "\(error)")
            }
            chmod(configuration.path, configuration.mode)
            if let group = configuration.group, chown(configuration.path, uid_t.max, group) != 0 {
                logger.warning("cannot give the socket to its group", metadata: ["gid": "\(group)", "error": "\(String(cString: strerror(errno)))"])
            }
            logger.info("listening", metadata: ["socket": "\(configuration.path)"])
        }
        let closeNow = channels.withLock { state in
            state.listener = server.channel
            return state.closing
        }
        if closeNow { server.channel.close(promise: nil) }
        ready()
        // Cancelling the caller closes the channels; the accept loop itself runs uncancelled until
        // the listener is closed, so every connection it accepted is served to its end.
        // An unstructured task does not inherit the caller's executor preference: give it explicitly.
        let loop = Task(executorPreference: executor) {
            try await withThrowingDiscardingTaskGroup { tasks in
                try await server.executeThenClose { clients in
                    for try await client in clients {
                        tasks.addTask { await self.serve(client) }
                    }
                }
            }
        }
        try await withTaskCancellationHandler {
            try await loop.value
        } onCancel: {
            self.shutdown()
        }
    }

    /// Closes the listener and every client connection; `run` returns once they are done.
    public func shutdown() {
        let open = channels.withLock { state -> [Channel] in
            state.closing = true
            return (state.listener.map { [$0] } ?? []) + Array(state.clients.values)
        }
        for channel in open { channel.close(promise: nil) }
    }

    /// Graceful stop: no new connections; each client gets the events already queued for it (the
    /// pipeline's last `removed` and `end`) and is then closed; `run` returns when all are done.
    /// A client still open after `timeout` (one that stopped reading) is closed regardless.
    public func shutdownGracefully(timeout: Duration = .seconds(1)) {
        let listener = channels.withLock { state -> Channel? in
            state.closing = true
            return state.listener
        }
        listener?.close(promise: nil)
        hub.finishSubscribers()
        DispatchQueue.global().asyncAfter(deadline: .now() + timeout.inSeconds) { self.shutdown() }
    }

    /// Stops listening: removes the socket file this server bound, if it is still there (the caller
    /// cancels `run`). Whatever else sits at the path — another daemon's socket, a file that replaced
    /// ours, the file that made binding fail — stays. A socket systemd passed is systemd's to remove.
    public func removeSocketFile() {
        guard let bound = channels.withLock({ $0.boundSocket }) else { return }
        if FileIdentity(lstat: configuration.path) == bound { unlink(configuration.path) }
    }

    private func serve(_ client: NIOAsyncChannel<ByteBuffer, ByteBuffer>) async {
        let key = ObjectIdentifier(client.channel)
        let closing = channels.withLock { state in
            state.clients[key] = client.channel
            return state.closing
        }
        if closing { client.channel.close(promise: nil) }
        defer {
            channels.withLock { state in
                state.clients.removeValue(forKey: key)
                state.users.removeValue(forKey: key)
            }
        }
        do {
            try await client.executeThenClose { inbound, outbound in
                func send(_ line: String) async throws {
                    try await outbound.write(ByteBuffer(string: line + "\n"))
                }
                let peer = await peerCredentials(client.channel)
                if let refusal = accessRefusal(peer) {
                    logger.warning("client refused", metadata: ["reason": "\(refusal)"])
                    try await send(Reply.error(Request.Echo(), code: .accessDenied, message: refusal))
                    return
                }
                let privileged = isPrivileged(peer)
                let decision = channels.withLock { state -> Admission.Decision in
                    let sameUser = peer.map { uid in state.users.values.filter { $0 == uid.uid }.count } ?? 0
                    let decision = admission.decide(privileged: privileged, connected: state.users.count, connectedBySameUser: sameUser)
                    if decision == .admit { state.users[key] = peer?.uid ?? uid_t.max }
                    return decision
                }
                if case .refuse(let code, let message) = decision {
                    logger.warning("client refused", metadata: ["reason": "\(message)", "uid": "\(peer.map { "\($0.uid)" } ?? "?")"])
                    try await send(Reply.error(Request.Echo(), code: code, message: message))
                    return
                }
                let channel = client.channel
                let (id, hello, events) = hub.subscribe(queueLimit: configuration.queueLimit, byteLimit: configuration.byteLimit) {
                    // Cut off: its socket buffer is full, so the overflow notice may never get through;
                    // give it a second, then close regardless of what is still queued.
                    channel.eventLoop.scheduleTask(in: .seconds(1)) { channel.close(promise: nil) }
                }
                defer { hub.unsubscribe(id) }
                try await send(hello)
                try await withThrowingTaskGroup(of: Void.self) { group in
                    // Events out, as fast as this client reads them.
                    group.addTask {
                        for await outbound in events {
                            switch outbound {
                            case .line(let line, _), .reply(let line):
                                try await send(line)
                                self.hub.acknowledge(id)
                            case .overflow:
                                self.logger.warning(
                                    "client cut off: it stopped reading",
                                    metadata: ["queueLimit": "\(self.configuration.queueLimit)", "byteLimit": "\(self.configuration.byteLimit)"])
                                try? await send(Reply.overflow(queueLimit: self.configuration.queueLimit, byteLimit: self.configuration.byteLimit))
                                return
                            }
                        }
                    }
                    // Requests in, replies out.
                    group.addTask {
                        do {
                            // Replies go out in line with the events (`EventHub.reply`), and the next
                            // request is read once the reply is written: a client that stops reading
                            // holds one reply (one photo) here, not a queue of them.
                            for try await line in inbound {
                                guard await self.hub.replyAndWait(await self.answer(String(buffer: line), subscriber: id, peer: peer), to: id) else {
                                    return
                                }
                            }
                        } catch let tooLong as RequestLineDecoder.LineTooLong {
                            try? await send(
                                Reply.error(
                                    Request.Echo(), code: .lineTooLong, message: "request lines are limited to \(tooLong.limit) bytes; disconnecting")
                            )
                        }
                    }
                    // Whichever ends first (client gone, client cut off) ends the connection.
                    try await group.next()
                    group.cancelAll()
                }
            }
        } catch {
            logger.debug("client connection ended", metadata: ["reason": "\(error)"])
        }
    }

    /// The peer's user and groups (SO_PEERCRED), or nil when they cannot be read. Supplementary
    /// groups come from /proc/PID/status, read only when a group list is configured: reading another
    /// process's status file takes locks of that process and can wait on it (seen: a busy peer
    /// stalled the server's threads), so the default configuration never does.
    func peerCredentials(_ channel: Channel) async -> Peer? {
        guard let provider = channel as? SocketOptionProvider,
            let peer: PeerCredentials.Ucred = try? await provider.unsafeGetSocketOption(
                level: SocketOptionLevel(SOL_SOCKET), name: SocketOptionName(SO_PEERCRED)
            ).get()
        else { return nil }
        let c = configuration
        guard !(c.allowedGroups.isEmpty && c.controlGroups.isEmpty) else { return (peer.uid, [peer.gid]) }
        return (peer.uid, PeerCredentials.groups(pid: peer.pid, primary: peer.gid))
    }

    typealias Peer = (uid: uid_t, groups: Set<gid_t>)

    var admission: Admission {
        Admission(maximumClients: configuration.maximumClients, maximumClientsPerUser: configuration.maximumClientsPerUser)
    }

    static func permits(_ peer: Peer?, users: Set<uid_t>, groups: Set<gid_t>) -> Bool {
        guard !users.isEmpty || !groups.isEmpty else { return true }
        guard let peer else { return false }
        return users.contains(peer.uid) || !groups.isDisjoint(with: peer.groups)
    }

    /// Why the peer may not use the socket, or nil.
    func accessRefusal(_ peer: Peer?) -> String? {
        guard !Self.permits(peer, users: configuration.allowedUsers, groups: configuration.allowedGroups) else { return nil }
        guard let peer else { return "cannot read the peer's credentials" }
        return "user \(peer.uid) (groups \(peer.groups.sorted().map(String.init).joined(separator: ","))) may not use this socket"
    }

    /// Root, the daemon's own user, and the configured control users and groups: they may write
    /// files through `capture`, use the reserved connection slots, and are not held to the per-user
    /// limit.
    func isPrivileged(_ peer: Peer?) -> Bool {
        guard let peer else { return false }
        if peer.uid == 0 || peer.uid == geteuid() { return true }
        let c = configuration
        return c.controlUsers.contains(peer.uid) || !c.controlGroups.isDisjoint(with: peer.groups)
    }

    /// Who may `set`: privileged peers; and everybody let in when no control user or group is
    /// configured.
    func mayControl(_ peer: Peer?) -> Bool {
        (configuration.controlUsers.isEmpty && configuration.controlGroups.isEmpty) || isPrivileged(peer)
    }

    /// The reply to one request line. `peer` nil (tests, or credentials that cannot be read) is
    /// treated as unprivileged.
    func answer(_ line: String, subscriber: Int, peer: Peer?) async -> String {
        await requests.answer(
            line, subscriber: subscriber, rights: Rights(mayControl: mayControl(peer), mayWriteFiles: isPrivileged(peer)),
            client: peer.map { "uid \($0.uid)" } ?? "uid ?")
    }
}

/// Logs accept failures (EMFILE, ENFILE: out of descriptors) once per run of failures; NIO's
/// AcceptBackoffHandler after it does the waiting.
final class AcceptErrorLogger: ChannelInboundHandler, Sendable {
    typealias InboundIn = Channel
    let logger: Logger
    private let failing = Mutex(RepeatFilter())

    init(logger: Logger) { self.logger = logger }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let failed = failing.withLock { filter -> Int? in filter.current == nil ? nil : filter.clear() + 1 }
        if let failed { logger.notice("accepting clients again", metadata: ["failedAccepts": "\(failed)"]) }
        context.fireChannelRead(data)
    }

    func errorCaught(context: ChannelHandlerContext, error: Error) {
        if case .report(let previous) = failing.withLock({ $0.record("\(error)") }) {
            logger.error("cannot accept clients; retrying every second", metadata: ["error": "\(error)", "previousErrorRepeated": "\(previous)"])
        }
        context.fireErrorCaught(error)
    }
}

/// Who is at the other end of a Unix socket.
enum PeerCredentials {
    /// `struct ucred` (socket(7)), which Glibc's Swift module does not export (it needs _GNU_SOURCE).
    struct Ucred: Sendable {
        var pid: pid_t
        var uid: uid_t
        var gid: gid_t
    }

    /// The primary group and the supplementary ones (from /proc/PID/status: SO_PEERCRED carries only
    /// the primary group).
    static func groups(pid: pid_t, primary: gid_t) -> Set<gid_t> {
        var groups: Set<gid_t> = [primary]
        if let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8),
            let line = status.split(separator: "\n").first(where: { $0.hasPrefix("Groups:") })
        {
            for field in line.dropFirst("Groups:".count).split(separator: " ") {
                if let gid = gid_t(field.trimmingCharacters(in: .whitespaces)) { groups.insert(gid) }
            }
        }
        return groups
    }
}

/// systemd socket activation (sd_listen_fds(3)): the first passed descriptor is 3.
enum SocketActivation {
    static func listeningDescriptor() -> CInt? {
        let env = ProcessInfo.processInfo.environment
        guard let pid = env["LISTEN_PID"].flatMap(Int32.init), pid == getpid(),
            let count = env["LISTEN_FDS"].flatMap(Int.init), count >= 1
        else { return nil }
        return 3
    }
}

/// Which file a path names (lstat: a link is the link itself), to tell "still the one we made" apart
/// from a file that took its place.
struct FileIdentity: Equatable, Sendable {
    var device: UInt64
    var inode: UInt64
    var type: mode_t

    init?(lstat path: String) {
        var info = stat()
        guard Glibc.lstat(path, &info) == 0 else { return nil }
        device = UInt64(info.st_dev)
        inode = UInt64(info.st_ino)
        type = info.st_mode & S_IFMT
    }

    var isSocket: Bool { type == S_IFSOCK }
}

/// Plain blocking Unix-socket helpers (the stale-socket check, binding).
enum UnixSocket {
    /// A stream socket bound and listening at `path`, whose file is created with mode 0600 (less, if
    /// the umask says so).
    ///
    /// Linux creates a socket file with the mode of the socket's own inode minus the umask, and
    /// `fchmod` on the unbound socket sets that mode: the file is private from its first instant
    /// (with a umask of 0 it used to be 0777 until chmod, and a client watching for it saw that)
    /// without borrowing the process-wide umask, which other threads and every child started
    /// meanwhile share. It listens at once, before NIO takes it over: a client that sees the file may
    /// connect, and another daemon's stale-socket check finds it alive.
    static func listenOwnerOnly(path: String) throws(EventServerError) -> CInt {
        guard !path.hasPrefix("@"), let address = UnixSocketAddress(path: path) else {
            throw .cannotBind(path: path, reason: "not a file path of at most 107 bytes")
        }
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw .cannotBind(path: path, reason: String(cString: strerror(errno))) }
        guard fchmod(fd, 0o600) == 0, address.withSockaddr({ bind(fd, $0, $1) }) == 0, listen(fd, 64) == 0 else {
            let reason = String(cString: strerror(errno))
            close(fd)
            throw .cannotBind(path: path, reason: reason)
        }
        return fd
    }

    /// Whether something accepts connections at `path`.
    static func canConnect(to path: String) -> Bool {
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        guard let address = UnixSocketAddress(path: path) else { return false }
        return address.withSockaddr { connect(fd, $0, $1) } == 0
    }
}
