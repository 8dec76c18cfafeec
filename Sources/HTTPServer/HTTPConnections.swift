import Foundation
import Logging
import NIOCore
import ScannerCore
import Synchronization

/// The HTTP port's open connections: `HTTPConnectionTable`'s decisions carried out on channels
/// (admitting, closing the one that gives its place; 4 times a second, closing the expired ones
/// and admitting the waiting ones).
final class HTTPConnections: Sendable {
    struct State {
        var table: HTTPConnectionTable
        var channels: [Int: any Channel] = [:]
        /// Each open connection's mark, by channel (`GuardedChannel.handle` looks it up).
        var marks: [ObjectIdentifier: ClosedForLimits] = [:]
        /// Each admitted connection's id, by channel (`enterStream`).
        var ids: [ObjectIdentifier: Int] = [:]
        var next = 0
        /// The waiting room's connections, by id, and the promise that admits (or refuses) each.
        var waiters: [Int: (channel: any Channel, admitted: EventLoopPromise<Int?>)] = [:]
        /// Since the last report in the log.
        var tookOver = 0
        var refused = 0
        var timedOut = 0
        var lastReport = -Double.infinity

        mutating func held(_ id: Int, _ channel: any Channel) {
            channels[id] = channel
            ids[ObjectIdentifier(channel)] = id
        }

        /// `id`'s channel, closed by the caller to make room for a new connection.
        mutating func closeForLimits(_ id: Int) -> (any Channel)? {
            tookOver += 1
            let closing = channels.removeValue(forKey: id)
            closing.flatMap { marks[ObjectIdentifier($0)] }?.set()
            return closing
        }
    }

    private let state: Mutex<State>
    private let clock: @Sendable () -> Double
    private let logger: Logger
    /// At most one line this often about connections closed for the limits: a flood would
    /// otherwise write one per connection.
    static let reportInterval = 10.0

    init(limits: HTTPConnectionTable.Limits, logger: Logger, clock: @escaping @Sendable () -> Double = HTTPConnections.uptime) {
        state = Mutex(State(table: HTTPConnectionTable(limits: limits)))
        self.clock = clock
        self.logger = logger
    }

    static func uptime() -> Double { Double(DispatchTime.now().uptimeNanoseconds) / 1e9 }

    var count: Int { state.withLock { $0.table.count } }

    /// Registers a new connection: its id once admitted (at once, or from the waiting room), nil
    /// when it was refused (and is being closed).
    func open(_ channel: any Channel) -> EventLoopFuture<Int?> {
        let now = clock()
        let mark = ClosedForLimits()
        let key = ObjectIdentifier(channel)
        let waiter = channel.eventLoop.makePromise(of: Int?.self)
        // Decided under the lock; promises completed and channels closed outside it (their callbacks
        // may come back here).
        let (id, admitted, closing) = state.withLock { s -> (Int, Int??, (any Channel)?) in
            let id = s.next
            s.next += 1
            s.marks[key] = mark
            switch s.table.open(id, at: now) {
            case .admit:
                s.held(id, channel)
                return (id, .some(id), nil)
            case .admitClosing(let old):
                s.held(id, channel)
                return (id, .some(id), s.closeForLimits(old))
            case .wait:
                s.waiters[id] = (channel, waiter)
                return (id, nil, nil)
            case .refuse:
                s.refused += 1
                mark.set()
                return (id, .some(nil), nil)
            }
        }
        if let admitted { waiter.succeed(admitted) }
        closing?.close(promise: nil)
        channel.closeFuture.whenComplete { [self] _ in
            let waiting = state.withLock { s in
                s.ids[key] = nil
                s.table.close(id)
                s.channels[id] = nil
                return s.waiters.removeValue(forKey: id)
            }
            waiting?.admitted.succeed(nil)
            promote()
        }
        return waiter.futureResult.map { admitted in
            if admitted == nil { channel.close(promise: nil) }
            return admitted
        }
    }

    /// The waiting room's connections admitted where they now may be, or refused past their time
    /// (`HTTPConnectionTable.promote`).
    func promote() {
        let now = clock()
        let (admitted, refused, closing) = state.withLock { s -> ([(Int, EventLoopPromise<Int?>)], [EventLoopPromise<Int?>], [any Channel]) in
            guard s.table.waitingCount > 0 else { return ([], [], []) }
            var admitted: [(Int, EventLoopPromise<Int?>)] = []
            var refused: [EventLoopPromise<Int?>] = []
            var closing: [any Channel] = []
            for promotion in s.table.promote(at: now) {
                switch promotion {
                case .admit(let id), .admitClosing(let id, _):
                    guard let waiter = s.waiters.removeValue(forKey: id) else { continue }
                    s.held(id, waiter.channel)
                    admitted.append((id, waiter.admitted))
                    if case .admitClosing(_, let old) = promotion, let channel = s.closeForLimits(old) { closing.append(channel) }
                case .refuse(let id):
                    guard let waiter = s.waiters.removeValue(forKey: id) else { continue }
                    s.refused += 1
                    s.marks[ObjectIdentifier(waiter.channel)]?.set()
                    refused.append(waiter.admitted)
                }
            }
            return (admitted, refused, closing)
        }
        for channel in closing { channel.close(promise: nil) }
        for (id, waiter) in admitted { waiter.succeed(id) }
        for waiter in refused { waiter.succeed(nil) }
    }

    func enter(_ phase: HTTPConnectionTable.Phase, _ id: Int) {
        let now = clock()
        state.withLock { $0.table.enter(phase, id, at: now) }
    }

    /// Bytes handed over for the client (`HTTPConnectionTable.sending`).
    func sending(_ id: Int) {
        let now = clock()
        state.withLock { $0.table.sending(id, at: now) }
    }

    /// The client took bytes (`HTTPConnectionTable.sent`).
    func sent(_ id: Int, drained: Bool) {
        let now = clock()
        state.withLock { $0.table.sent(id, drained: drained, at: now) }
    }

    func phase(of id: Int) -> HTTPConnectionTable.Phase? { state.withLock { $0.table.phase(of: id) } }

    /// The connection's answer is an event stream: no response timeout (its queue cuts it off).
    func enterStream(_ channel: any Channel) {
        let now = clock()
        state.withLock { s in
            guard let id = s.ids[ObjectIdentifier(channel)] else { return }
            s.table.enter(.stream, id, at: now)
        }
    }

    /// The mark of a connection's channel, from `open` until `forget` (its handling ended): the
    /// limits may close it before Hummingbird handles it, and what it logs then is to be dropped.
    func mark(of channel: any Channel) -> ClosedForLimits? { state.withLock { $0.marks[ObjectIdentifier(channel)] } }

    func forget(_ channel: any Channel) {
        _ = state.withLock { $0.marks.removeValue(forKey: ObjectIdentifier(channel)) }
    }

    /// Closes what has expired; says in the log, at most every `reportInterval`, what the limits
    /// closed.
    func sweep() {
        promote()
        let now = clock()
        let (expired, report) = state.withLock { s -> ([any Channel], (Int, Int, Int)?) in
            let ids = s.table.expired(at: now)
            for id in ids { s.table.close(id) }
            let channels = ids.compactMap { s.channels.removeValue(forKey: $0) }
            for channel in channels { s.marks[ObjectIdentifier(channel)]?.set() }
            s.timedOut += channels.count
            guard s.tookOver + s.refused + s.timedOut > 0, now - s.lastReport >= Self.reportInterval else { return (channels, nil) }
            defer { (s.tookOver, s.refused, s.timedOut, s.lastReport) = (0, 0, 0, now) }
            return (channels, (s.tookOver, s.refused, s.timedOut))
        }
        for channel in expired { channel.close(promise: nil) }
        if let (tookOver, refused, timedOut) = report {
            logger.notice(
                "http connections closed for the limits",
                metadata: [
                    "waitingClosedForANewOne": "\(tookOver)", "refused": "\(refused)", "timedOut": "\(timedOut)",
                    "maximum": "\(state.withLock { $0.table.limits.maximum })",
                ])
        }
    }

    /// Sweeps every `sweepInterval` on `eventLoop` (the listening channel's) until the returned task
    /// is cancelled: a NIO timer, not a task on the cooperative pool, so that a pool kept busy
    /// elsewhere (two threads on a 2-core machine) cannot hold the timeouts back.
    func sweepRegularly(on eventLoop: any EventLoop) -> RepeatedTask {
        eventLoop.scheduleRepeatedTask(initialDelay: Self.sweepInterval, delay: Self.sweepInterval) { [self] _ in sweep() }
    }

    /// How often the timeouts and the waiting room are looked at: a connection waiting to be
    /// admitted waits for a stalled answer's `stalledAfter` and then at most this long.
    static let sweepInterval: TimeAmount = .milliseconds(250)
}

/// Set when the limits closed a connection, or a malformed request was refused with 400: what
/// Hummingbird then logs about it (at `error`, once per connection: "Error handling upgrade
/// result") is the rule working, not a fault, and a flood of connections would flood the log.
/// `HTTPConnections.sweep` reports the limits' closings, counted.
final class ClosedForLimits: Sendable {
    private let closed = Atomic(false)
    func set() { closed.store(true, ordering: .relaxed) }
    var isSet: Bool { closed.load(ordering: .relaxed) }
}

/// Drops a connection's log lines once the limits closed it.
struct QuietWhenClosedForLimits: LogHandler {
    var base: any LogHandler
    let mark: ClosedForLimits

    var metadata: Logger.Metadata {
        get { base.metadata }
        set { base.metadata = newValue }
    }
    var logLevel: Logger.Level {
        get { base.logLevel }
        set { base.logLevel = newValue }
    }
    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { base[metadataKey: key] }
        set { base[metadataKey: key] = newValue }
    }

    func log(event: LogEvent) {
        guard !mark.isSet else { return }
        base.log(event: event)
    }
}
