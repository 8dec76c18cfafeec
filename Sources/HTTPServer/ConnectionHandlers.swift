import HummingbirdCore
import Logging
import NIOCore
import NIOHTTP1
import ScannerProtocol

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
    /// Bytes written and not yet taken by the kernel.
    var waiting = 0
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
/// request; once it is a WebSocket, every client frame must be masked. Outgoing, it tells the
/// connections whether the client is taking what is written for it (`HTTPConnectionTable.sent`).
final class ConnectionBytesHandler: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer
    typealias OutboundIn = IOData
    typealias OutboundOut = IOData
    let slot: ConnectionSlot
    /// NIO completes a write when the whole buffer has reached the kernel: a 400 kB photo would
    /// show no progress until its last byte. Written in pieces this size, each piece taken is
    /// progress (~0.1 s apiece on a 1 Mbit/s link).
    static let piece = 16 * 1024

    init(slot: ConnectionSlot) { self.slot = slot }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        guard case .byteBuffer(var buffer) = unwrapOutboundIn(data), buffer.readableBytes > 0 else {
            context.write(data, promise: promise)
            return
        }
        if slot.waiting == 0 { slot.connections.sending(slot.id) }
        slot.waiting += buffer.readableBytes
        var last: EventLoopFuture<Void>?
        while let piece = buffer.readSlice(length: min(Self.piece, buffer.readableBytes)), piece.readableBytes > 0 {
            let taken = context.eventLoop.makePromise(of: Void.self)
            taken.futureResult.whenSuccess { [slot] in
                slot.waiting -= piece.readableBytes
                slot.connections.sent(slot.id, drained: slot.waiting == 0)
            }
            context.write(wrapOutboundOut(.byteBuffer(piece)), promise: taken)
            last = taken.futureResult
        }
        if let promise, let last { last.cascade(to: promise) }
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        if slot.isWebSocket {
            let buffer = unwrapInboundIn(data)
            guard slot.frames.feed(buffer.readableBytesView) else {
                protocolError(context)
                return
            }
            context.fireChannelRead(data)
            return
        }
        if slot.requests == 0 { slot.connections.enter(.reading, slot.id) }
        let buffer = unwrapInboundIn(data)
        context.fireChannelRead(data)  // the HTTP decoder runs now, and the parts handler with it
        // This read held the WebSocket request: RFC 6455 §4.1 has the client wait for the 101
        // before it sends anything more, and frames sent with the request would reach the
        // WebSocket unchecked (the upgrade keeps them aside and replays them after this handler).
        if slot.isWebSocket, Self.bytesAfterHead(tail: tail, buffer.readableBytesView) > 0 {
            protocolError(context)
            return
        }
        tail = Array((tail + buffer.readableBytesView.suffix(3)).suffix(3))
    }

    /// The last bytes of the previous read: a head's `\r\n\r\n` may be cut between reads.
    private var tail: [UInt8] = []

    /// Bytes after the first `\r\n\r\n` in `tail` + `bytes`, or 0 when there is none.
    static func bytesAfterHead(tail: [UInt8], _ bytes: some Collection<UInt8>) -> Int {
        let all = tail + bytes
        guard all.count >= 4 else { return 0 }
        for end in 3..<all.count where all[end - 3] == 13 && all[end - 2] == 10 && all[end - 1] == 13 && all[end] == 10 {
            return all.count - end - 1
        }
        return 0
    }

    /// Close frame with status 1002 (protocol error), then the connection.
    private func protocolError(_ context: ChannelHandlerContext) {
        context.writeAndFlush(wrapOutboundOut(.byteBuffer(ByteBuffer(bytes: [0x88, 0x02, 0x03, 0xEA]))), promise: nil)
        context.close(promise: nil)
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
            if Self.asksForWebSocket(head) {
                // A WebSocket from here on, or a refusal and the connection's end. Leave the pipeline
                // now, before the upgrade takes the HTTP decoder away and raw frames would reach a
                // handler typed for HTTP parts. Being answered until the WebSocket's handler says it
                // is a stream (`HTTPConnections.enterStream`): if no WebSocket comes of it, the
                // response timeout ends it, no slot is held for ever.
                slot.isWebSocket = true
                slot.connections.enter(.responding, slot.id)
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
            // On the channel's event loop, where this handler runs: `context` may be used there.
            context.writeAndFlush(data).assumeIsolated().whenComplete { result in
                promise?.completeWith(result)
                Self.linger(context)
            }
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

    /// What NIO's WebSocket upgrader takes (RFC 6455 §4.2.1): GET, `Connection: upgrade`,
    /// `Upgrade: websocket`, a key and version 13. Other `Upgrade` requests (`h2c`, …) stay HTTP.
    static func asksForWebSocket(_ head: HTTPRequestHead) -> Bool {
        func tokens(_ name: String) -> [String] {
            head.headers[name].flatMap { $0.split(separator: ",") }.map { $0.trimmingCharacters(in: .whitespaces).lowercased() }
        }
        return head.method == .GET && tokens("Connection").contains("upgrade") && tokens("Upgrade").contains("websocket")
            && !head.headers["Sec-WebSocket-Key"].isEmpty && head.headers["Sec-WebSocket-Version"].first == "13"
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        guard error is HTTPParserError else {
            context.fireErrorCaught(error)
            return
        }
        guard !refused else { return }
        refuse(context, "malformed HTTP request (\(error))")
    }

    /// `400` with the protocol's error JSON, then close. Behind a response still being written, no
    /// 400 (it would land inside that response): the connection ends once that one is written.
    private func refuse(_ context: ChannelHandlerContext, _ message: String) {
        refused = true
        slot.mark?.set()
        guard slot.requests == 0 || slot.readingRequest else {
            closeWhenAnswered = true
            return
        }
        let body = Reply.error(Request.Echo(), code: .malformed, message: message) + "\n"
        var headers = HTTPHeaders()
        headers.add(name: "Content-Type", value: "application/json")
        headers.add(name: "Content-Length", value: "\(body.utf8.count)")
        headers.add(name: "Connection", value: "close")
        context.write(wrapOutboundOut(.head(HTTPResponseHead(version: .http1_1, status: .badRequest, headers: headers))), promise: nil)
        context.write(wrapOutboundOut(.body(.byteBuffer(ByteBuffer(string: body)))), promise: nil)
        context.writeAndFlush(wrapOutboundOut(.end(nil))).assumeIsolated().whenComplete { _ in Self.linger(context) }
    }

    /// How long a refused connection's client may go on sending before it is closed regardless.
    static let lingering: TimeAmount = .seconds(2)

    /// The refusal written: the server stops writing (a FIN: the client reads the answer and its end),
    /// and reads and drops what the client is still sending until it closes, at most `lingering`.
    /// Closing with the rest of a request unread would send a reset, and the client's stack may drop
    /// the answer with it (headers past the limit sent in one write: nginx's lingering close).
    static func linger(_ context: ChannelHandlerContext) {
        let channel = context.channel
        let halfClosed = context.eventLoop.makePromise(of: Void.self)
        context.close(mode: .output, promise: halfClosed)
        halfClosed.futureResult.whenComplete { result in
            guard case .success = result else { return channel.close(promise: nil) }
            channel.eventLoop.scheduleTask(in: lingering) { channel.close(promise: nil) }
        }
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
        // Admitted first: a connection in the waiting room is not registered yet, so nothing it sends
        // is read until then (NIO registers a child channel once this setup has completed).
        connections.open(channel).flatMap { id in
            // The kernel's send buffer grows to megabytes on its own: a client that stopped reading
            // would absorb thousands of events there before its queue (`server.queue-limit`) noticed.
            channel.setOption(ChannelOptions.socketOption(.so_sndbuf), value: GuardedChannel.sendBuffer).map { id }
        }.flatMap { id in
            base.setup(channel: channel, logger: logger).map { (id, $0) }
        }.flatMapThrowing { id, value in
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
