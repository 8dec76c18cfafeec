import Foundation
import HummingbirdCore
import Logging
import NIOCore
import NIOHTTP1
import ScannerCore
import ScannerProtocol
import Synchronization

/// The HTTP port's open connections: `HTTPConnectionTable`'s decisions carried out on channels
/// (admitting, closing the one that gives its place, closing the expired ones every second).
final class HTTPConnections: Sendable {
    struct State {
        var table: HTTPConnectionTable
        var channels: [Int: any Channel] = [:]
        /// Each open connection's mark, by channel (`GuardedChannel.handle` looks it up).
        var marks: [ObjectIdentifier: ClosedForLimits] = [:]
        /// Each admitted connection's id, by channel (`enterStream`).
        var ids: [ObjectIdentifier: Int] = [:]
        var next = 0
        /// Since the last report in the log.
        var tookOver = 0
        var refused = 0
        var timedOut = 0
        var lastReport = -Double.infinity
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

    /// Registers a new connection; nil when it was refused (and is being closed).
    func open(_ channel: any Channel) -> Int? {
        let now = clock()
        let mark = ClosedForLimits()
        let key = ObjectIdentifier(channel)
        let (id, closing) = state.withLock { s -> (Int?, (any Channel)?) in
            let id = s.next
            s.next += 1
            s.marks[key] = mark
            switch s.table.open(id, at: now) {
            case .admit:
                s.channels[id] = channel
                s.ids[key] = id
                return (id, nil)
            case .admitClosing(let old):
                s.channels[id] = channel
                s.ids[key] = id
                s.tookOver += 1
                let closing = s.channels.removeValue(forKey: old)
                closing.flatMap { s.marks[ObjectIdentifier($0)] }?.set()
                return (id, closing)
            case .refuse:
                s.refused += 1
                mark.set()
                return (nil, nil)
            }
        }
        closing?.close(promise: nil)
        channel.closeFuture.whenComplete { [self] _ in
            state.withLock { s in
                guard let id else { return }
                s.ids[key] = nil
                s.table.close(id)
                s.channels[id] = nil
            }
        }
        guard let id else {
            channel.close(promise: nil)
            return nil
        }
        return id
    }

    func enter(_ phase: HTTPConnectionTable.Phase, _ id: Int) {
        let now = clock()
        state.withLock { $0.table.enter(phase, id, at: now) }
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

    /// Sweeps every second until cancelled.
    func sweepEverySecond() async {
        while !Task.isCancelled {
            try? await Task.sleep(for: .seconds(1))
            sweep()
        }
    }
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

/// What the two handlers of one connection share; touched only on the channel's event loop.
final class ConnectionSlot: @unchecked Sendable {
    let id: Int
    let connections: HTTPConnections
    /// Requests whose head has arrived and whose response has not ended.
    var requests = 0
    /// A request's head has arrived and its end not yet.
    var readingRequest = false
    var isWebSocket = false
    var frames = ClientFrameCheck()
    /// Set when the server closes the connection by its own rules (`refuse`).
    let mark: ClosedForLimits?

    init(id: Int, connections: HTTPConnections, mark: ClosedForLimits?) {
        self.id = id
        self.connections = connections
        self.mark = mark
    }

    var phase: HTTPConnectionTable.Phase { requests == 0 ? .idle : readingRequest ? .reading : .responding }
}

/// First in the pipeline, on raw bytes: a connection that receives bytes while idle is reading a
/// request; once it is a WebSocket, every client frame must be masked.
final class ConnectionBytesHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer
    typealias OutboundOut = ByteBuffer
    let slot: ConnectionSlot

    init(slot: ConnectionSlot) { self.slot = slot }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        if slot.isWebSocket {
            let buffer = unwrapInboundIn(data)
            guard slot.frames.feed(buffer.readableBytesView) else {
                // Close frame, status 1002 (protocol error), then the connection.
                context.writeAndFlush(wrapOutboundOut(ByteBuffer(bytes: [0x88, 0x02, 0x03, 0xEA])), promise: nil)
                context.close(promise: nil)
                return
            }
        } else if slot.requests == 0 {
            slot.connections.enter(.reading, slot.id)
        }
        context.fireChannelRead(data)
    }
}

/// Right after the HTTP decoder: follows each request to its response's end (the connection's
/// phase), answers what Hummingbird would not — `400` to a request the decoder cannot parse or one
/// without exactly one `Host` (RFC 9112 §3.2) — and leaves the pipeline when the client asks to
/// become a WebSocket.
final class ConnectionPartsHandler: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias InboundOut = HTTPServerRequestPart
    typealias OutboundIn = HTTPServerResponsePart
    typealias OutboundOut = HTTPServerResponsePart
    let slot: ConnectionSlot
    /// Refused: whatever else arrives is dropped until the connection is closed.
    private var refused = false
    /// A malformed request came in behind one being answered: close once it is.
    private var closeWhenAnswered = false

    init(slot: ConnectionSlot) { self.slot = slot }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard !refused else { return }
        let part = unwrapInboundIn(data)
        switch part {
        case .head(let head):
            let hosts = head.headers["Host"].count
            if hosts > 1 || (hosts == 0 && head.version.major == 1 && head.version.minor >= 1) {
                refuse(context, hosts == 0 ? "a request must name its Host" : "a request must name one Host, not \(hosts)")
                return
            }
            if head.headers.contains(name: "Upgrade") {
                // A WebSocket from here on (or, refused, a response and the connection's end). Leave
                // the pipeline now, before the upgrade takes the HTTP decoder away and raw frames
                // would reach a handler typed for HTTP parts.
                slot.isWebSocket = true
                slot.connections.enter(.stream, slot.id)
                context.fireChannelRead(data)
                context.pipeline.syncOperations.removeHandler(context: context, promise: nil)
                return
            }
            slot.requests += 1
            slot.readingRequest = true
        case .body: break
        case .end: slot.readingRequest = false
        }
        slot.connections.enter(slot.phase, slot.id)
        context.fireChannelRead(data)
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        let part = unwrapOutboundIn(data)
        guard case .end = part else {
            context.write(data, promise: promise)
            return
        }
        if closeWhenAnswered {
            context.writeAndFlush(data, promise: promise)
            context.close(promise: nil)
            return
        }
        // Answered when the end has reached the kernel, not when it was handed to NIO: an answer
        // the client does not read waits in NIO's buffer, and must still count as being answered
        // (its `responseTimeout`), not as an idle connection.
        let written = context.eventLoop.makePromise(of: Void.self)
        if let promise { written.futureResult.cascade(to: promise) }
        written.futureResult.whenSuccess { [slot] in
            slot.requests = max(0, slot.requests - 1)
            slot.connections.enter(slot.phase, slot.id)
        }
        context.write(data, promise: written)
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        guard error is HTTPParserError else {
            context.fireErrorCaught(error)
            return
        }
        guard !refused else { return }
        // A response under way is finished first; the connection ends after it, with no 400 (the
        // client reads responses in order, and the broken request has none).
        guard slot.requests == 0 || slot.readingRequest else {
            refused = true
            closeWhenAnswered = true
            return
        }
        refuse(context, "malformed HTTP request (\(error))")
    }

    /// `400` with the protocol's error JSON, then close.
    private func refuse(_ context: ChannelHandlerContext, _ message: String) {
        refused = true
        slot.mark?.set()
        let body = Reply.error(Request.Echo(), code: .malformed, message: message) + "\n"
        var headers = HTTPHeaders()
        headers.add(name: "Content-Type", value: "application/json")
        headers.add(name: "Content-Length", value: "\(body.utf8.count)")
        headers.add(name: "Connection", value: "close")
        context.write(wrapOutboundOut(.head(HTTPResponseHead(version: .http1_1, status: .badRequest, headers: headers))), promise: nil)
        context.write(wrapOutboundOut(.body(.byteBuffer(ByteBuffer(string: body)))), promise: nil)
        context.writeAndFlush(wrapOutboundOut(.end(nil))).whenComplete { _ in context.close(promise: nil) }
    }
}

/// Hummingbird's HTTP/1 + WebSocket channel with `HTTPConnections` in front: every accepted
/// connection is admitted (or closed) before Hummingbird sees it, and its two handlers are put in
/// place around the HTTP decoder.
struct GuardedChannel<Base: ServerChildChannel>: ServerChildChannel {
    typealias Value = Base.Value
    /// Bytes (the kernel doubles it): a 720p snapshot still goes out at LAN speed.
    static var sendBuffer: Int { 64 * 1024 }
    let base: Base
    let connections: HTTPConnections

    func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<Value> {
        let id = connections.open(channel)
        // The kernel's send buffer grows to megabytes on its own: a client that stopped reading
        // would absorb thousands of events there before its queue (`server.queue-limit`) noticed.
        let bounded = channel.setOption(ChannelOptions.socketOption(.so_sndbuf), value: GuardedChannel.sendBuffer)
        return bounded.flatMap { base.setup(channel: channel, logger: logger) }.flatMapThrowing { value in
            guard let id else { return value }  // refused: already closing
            let slot = ConnectionSlot(id: id, connections: connections, mark: connections.mark(of: channel))
            let pipeline = channel.pipeline.syncOperations
            try pipeline.addHandler(ConnectionBytesHandler(slot: slot), position: .first)
            let decoder = try pipeline.context(handlerType: ByteToMessageHandler<HTTPRequestDecoder>.self)
            try pipeline.addHandler(ConnectionPartsHandler(slot: slot), position: .after(decoder.handler))
            return value
        }.flatMapErrorThrowing { error in
            connections.forget(channel)  // never handled
            throw error
        }
    }

    func handle(value: Value, logger: Logger) async {
        defer { connections.forget(value.channel) }
        var logger = logger
        if let mark = connections.mark(of: value.channel) { logger.handler = QuietWhenClosedForLimits(base: logger.handler, mark: mark) }
        await base.handle(value: value, logger: logger)
    }
}
