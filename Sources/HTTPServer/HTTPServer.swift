import ClientRequests
import Events
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdCore
import HummingbirdWebSocket
import Logging
import NIOCore
import NIOHTTP1
import ScannerCore
import ScannerProtocol
import Synchronization

/// Where and how the HTTP server listens (docs/http.md).
public struct HTTPServerConfiguration: Sendable {
    /// A name or address to bind (default loopback) and a port (0: any free one).
    public var host: String
    public var port: Int
    public var token: String?
    public var allowedOrigins: Set<String>
    /// Events a client may fall behind by before it is cut off (as on the socket).
    public var queueLimit: Int
    /// An idle event stream gets a comment this often.
    public var keepAlive: Duration
    /// Whether anyone let in may `set` over the WebSocket (the socket's rule: no control users or
    /// groups configured). With a token, its holders may; files are never written for HTTP clients.
    public var controlOpen: Bool
    /// The longest request a WebSocket client may send (as the socket's line limit).
    public var maximumMessageSize: Int
    /// Event streams and WebSockets open at once (each holds a subscriber and its queue); more get
    /// 503 / `too-many-clients`, as the socket's `server.max-clients`.
    public var maximumStreams: Int
    /// Bytes that may wait for one stream or WebSocket before it is cut off (as on the socket).
    public var byteLimit: Int
    /// Connections held at once, streams included (`http.max-connections`); when all are held, the
    /// one that has waited longest for a request makes room (`HTTPConnectionTable`).
    public var maximumConnections: Int
    /// A connection with no request is closed after this (`http.idle-timeout`); one that has
    /// begun a request and not finished sending it, after `requestTimeout` (`http.request-timeout`).
    public var idleTimeout: Duration
    public var requestTimeout: Duration
    /// An answer (not a stream) the client has not taken after this is dropped with its connection.
    public var responseTimeout: Duration
    /// An answer or stream whose client takes no byte of what waits for it for this long is dropped
    /// with its connection (nginx's `send_timeout`).
    public var sendTimeout: Duration
    /// Connections that may wait, unread, beyond `maximumConnections` while every slot holds an
    /// answer still being made (`HTTPConnectionTable.promote`): the descriptor budget counts them.
    public static let waitingRoom = 16

    public init(
        host: String = "127.0.0.1", port: Int = 8390, token: String? = nil, allowedOrigins: Set<String> = [],
        queueLimit: Int = 1024, keepAlive: Duration = .seconds(15), controlOpen: Bool = true, maximumMessageSize: Int = 64 * 1024,
        maximumStreams: Int = 64, byteLimit: Int = EventHub.defaultByteLimit, maximumConnections: Int = 128,
        idleTimeout: Duration = .seconds(30), requestTimeout: Duration = .seconds(10), responseTimeout: Duration = .seconds(60),
        sendTimeout: Duration = .seconds(10)
    ) {
        self.responseTimeout = responseTimeout
        self.sendTimeout = sendTimeout
        self.byteLimit = byteLimit
        self.maximumConnections = maximumConnections
        self.idleTimeout = idleTimeout
        self.requestTimeout = requestTimeout
        self.maximumStreams = maximumStreams
        self.controlOpen = controlOpen
        self.maximumMessageSize = maximumMessageSize
        self.host = host
        self.port = port
        self.token = token
        self.allowedOrigins = allowedOrigins
        self.queueLimit = queueLimit
        self.keepAlive = keepAlive
    }
}

public enum HTTPServerError: Error, Equatable, CustomStringConvertible {
    /// A non-loopback address without a token: any host on the network could watch and control.
    case tokenRequired(host: String)

    public var description: String {
        switch self {
        case .tokenRequired(let host): "http.listen \(host) is not loopback: set http.token-file so that only clients with the token are served"
        }
    }
}

/// The events, the current items and a snapshot over HTTP, for browsers and web kiosks: the same
/// JSON as the socket (docs/protocol.md), answered by the same `RequestHandler`.
public final class HTTPServer: Sendable {
    public let configuration: HTTPServerConfiguration
    let hub: EventHub
    let requests: RequestHandler
    let logger: Logger
    /// `GET /metrics`: Prometheus text (nil: no such endpoint).
    let metrics: (@Sendable () -> String)?
    /// The port it listens on, once it does (the configured one may be 0).
    let boundPort = Mutex(0)
    /// Closes expired connections and admits waiting ones while the server runs (`HTTPConnections.sweepRegularly`).
    let sweeper = Mutex<RepeatedTask?>(nil)
    /// Event streams and WebSockets open now.
    let streams = Mutex(0)
    /// Every connection the port holds, and the limits on them.
    let connections: HTTPConnections

    /// Takes a stream slot; false when `maximumStreams` are open.
    func openStream() -> Bool {
        streams.withLock { open in
            guard open < configuration.maximumStreams else { return false }
            open += 1
            return true
        }
    }

    func closeStream() { streams.withLock { $0 -= 1 } }

    static let tooManyStreams = "too many event streams and WebSockets are open (server.max-clients)"

    /// Refuses a configuration that would serve the network without a token.
    public init(
        hub: EventHub, requests: RequestHandler, configuration: HTTPServerConfiguration, logger: Logger, metrics: (@Sendable () -> String)? = nil
    ) throws(HTTPServerError) {
        self.metrics = metrics
        guard configuration.token != nil || HTTPAccess.isLoopback(configuration.host) else {
            throw .tokenRequired(host: configuration.host)
        }
        self.hub = hub
        self.requests = requests
        self.configuration = configuration
        self.logger = logger
        connections = HTTPConnections(
            limits: HTTPConnectionTable.Limits(
                maximum: configuration.maximumConnections, idleTimeout: configuration.idleTimeout.inSeconds,
                requestTimeout: configuration.requestTimeout.inSeconds, responseTimeout: configuration.responseTimeout.inSeconds,
                sendTimeout: configuration.sendTimeout.inSeconds, waitingRoom: HTTPServerConfiguration.waitingRoom),
            logger: logger)
    }

    /// Connections held now (tests, `stats`).
    public var connectionCount: Int { connections.count }

    /// Serves until graceful shutdown (swift-service-lifecycle); `ready` gets the port it listens on.
    public func run(ready: @escaping @Sendable (Int) -> Void = { _ in }) async throws {
        let router = router()
        let webSocketResponder = router.buildResponder()
        let connections = self.connections
        // Hummingbird's HTTP/1 + WebSocket channel, behind `HTTPConnections`. Headers are bounded
        // before parsing (16 KiB, 100 fields: a browser sends ~1 KiB); text messages must be UTF-8.
        var http1 = HTTP1Channel.Configuration(
            httpDecoderConfiguration: .init(maxHeaderFieldSize: 8 * 1024, maxHeaderListSize: 16 * 1024, maxHeaderFieldCount: 100))
        http1.idleTimeout = nil  // HTTPConnections times connections out, from their first byte on
        let channelConfiguration = HTTP1WebSocketUpgradeChannel.Configuration(http1: http1, ws: WebSocketServerConfiguration(validateUTF8: true))
        let server = HTTPServerBuilder { responder in
            GuardedChannel(
                base: HTTP1WebSocketUpgradeChannel(responder: responder, webSocketResponder: webSocketResponder, configuration: channelConfiguration),
                connections: connections)
        }
        defer { sweeper.withLock { $0?.cancel() } }
        let app = Application(
            router: router,
            server: server,
            configuration: ApplicationConfiguration(address: .hostname(configuration.host, port: configuration.port), serverName: "scannerd"),
            onServerRunning: { [self] channel in
                let port = channel.localAddress?.port ?? 0
                boundPort.withLock { $0 = port }
                sweeper.withLock { $0 = connections.sweepRegularly(on: channel.eventLoop) }
                ready(port)
            },
            logger: logger)
        try await app.run()
    }

    func router() -> Router<ScannerRequestContext> {
        let router = Router(context: ScannerRequestContext.self)
        let access: @Sendable () -> HTTPAccess = { [self] in
            HTTPAccess(
                token: configuration.token, allowedOrigins: configuration.allowedOrigins, listenHost: configuration.host,
                port: boundPort.withLock { $0 })
        }
        router.add(middleware: AccessMiddleware(access: access, logger: logger))
        // Every GET route answers HEAD too (headers only); an event stream's HEAD opens no stream.
        func readable(_ path: RouterPath, _ handler: @escaping @Sendable (Request, ScannerRequestContext) async throws -> Response) {
            router.get(path, use: handler)
            router.head(path) { request, context in Self.headersOnly(try await handler(request, context)) }
        }
        readable("/") { _, _ -> Response in
            Response(
                status: .ok,
                headers: [
                    .contentType: "text/html; charset=utf-8", .cacheControl: "no-store",
                    .contentSecurityPolicy: PreviewPage.contentSecurityPolicy, .init("X-Content-Type-Options")!: "nosniff",
                ],
                body: ResponseBody(byteBuffer: ByteBuffer(string: PreviewPage.html)))
        }
        readable("preview.js") { _, _ -> Response in
            Response(
                status: .ok,
                headers: [.contentType: "text/javascript; charset=utf-8", .cacheControl: "no-store", .init("X-Content-Type-Options")!: "nosniff"],
                body: ResponseBody(byteBuffer: ByteBuffer(string: PreviewPage.script)))
        }
        readable("items") { [hub] _, _ -> Response in
            Self.json(.object([("items", .array(hub.items.map { Event.Item($0).json }))]))
        }
        readable("snapshot.jpg") { [requests] request, _ -> Response in
            let annotate = ["1", "true", "yes"].contains(request.uri.queryParameters.get("annotate") ?? "")
            return Self.photo(await requests.photo(annotate ? .annotated : .frame))
        }
        // The document held up, straightened (issue #43); 503 while none is in view.
        readable("document.jpg") { [requests] _, _ -> Response in Self.photo(await requests.photo(.document)) }
        router.get("events") { [self] request, context -> Response in
            events(
                lastEventID: ServerSentEvents.lastEventID(
                    request.headers[.lastEventID] ?? request.uri.queryParameters.get("lastEventId"), run: hub.runID),
                channel: context.channel)
        }
        router.head("events") { _, _ -> Response in Response(status: .ok, headers: Self.eventStreamHeaders) }
        if let metrics {
            readable("metrics") { _, _ -> Response in
                Response(
                    status: .ok, headers: [.contentType: "text/plain; version=0.0.4; charset=utf-8", .cacheControl: "no-store"],
                    body: ResponseBody(byteBuffer: ByteBuffer(string: metrics())))
            }
        }
        router.ws("ws") { [self] inbound, outbound, context in
            try await webSocket(inbound, outbound, channel: context.requestContext.channel)
        }
        return router
    }

    /// What a WebSocket client may do: control with the token, or as anyone on the socket may when no
    /// control user or group is configured; never have files written.
    var webSocketRights: Rights { Rights(mayControl: configuration.token != nil || configuration.controlOpen, mayWriteFiles: false) }

    /// `GET /ws`: the socket's conversation over WebSocket text messages — `hello`, then every event;
    /// each request message answered with its reply (docs/protocol.md), in order.
    func webSocket(_ inbound: WebSocketInboundStream, _ outbound: WebSocketOutboundWriter, channel: any Channel) async throws {
        guard openStream() else {
            try await outbound.write(.text(Reply.error(ScannerProtocol.Request.Echo(), code: .tooManyClients, message: Self.tooManyStreams)))
            try await outbound.close(.unknown(1013), reason: "too many clients")  // 1013: try again later (RFC 6455 registry)
            return
        }
        defer { closeStream() }
        connections.enterStream(channel)
        let (id, hello, events) = hub.subscribe(queueLimit: configuration.queueLimit, byteLimit: configuration.byteLimit) {
            // As for an event stream: its writes may wait on a full buffer for ever; close regardless.
            channel.eventLoop.scheduleTask(in: .seconds(1)) { channel.close(promise: nil) }
        }
        defer { hub.unsubscribe(id) }
        let (hub, requests, rights, queueLimit, byteLimit, maximum) = (
            hub, requests, webSocketRights, configuration.queueLimit, configuration.byteLimit, configuration.maximumMessageSize
        )
        try await outbound.write(.text(hello))
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask {
                for await event in events {
                    switch event {
                    case .line(let line, _), .reply(let line):
                        try await outbound.write(.text(line))
                        hub.acknowledge(id)
                    case .overflow:
                        try await outbound.write(.text(Reply.overflow(queueLimit: queueLimit, byteLimit: byteLimit)))
                        try await outbound.close(.policyViolation, reason: "too far behind")
                        return
                    }
                }
            }
            group.addTask {
                for try await message in inbound.messages(maxSize: maximum) {
                    guard case .text(let line) = message else {
                        guard
                            await hub.replyAndWait(
                                Reply.error(ScannerProtocol.Request.Echo(), code: .malformed, message: "requests are JSON text messages"), to: id)
                        else { return }
                        continue
                    }
                    // Replies go out in line with the events (`EventHub.reply`); the next message is
                    // read once this reply is written (one photo per client at most, as on the socket).
                    guard await hub.replyAndWait(await requests.answer(line, subscriber: id, rights: rights, client: "websocket"), to: id) else {
                        return
                    }
                }
            }
            // Whichever ends first (the client closed, or was cut off) ends the connection.
            try await group.next()
            group.cancelAll()
        }
    }

    /// `GET /events`: the opening (a `hello`, or what a reconnecting client missed), then every event
    /// as it is published, with keep-alive comments while nothing happens. A client that falls
    /// `queueLimit` events (or `byteLimit` bytes) behind gets the `overflow` event and the stream
    /// ends, as on the socket; its connection is closed a second later whether or not it read that,
    /// so the stream's slot is given back.
    func events(lastEventID: Int?, channel: any Channel) -> Response {
        // The slot is taken here; the subscription is made when the stream starts, so a client gone
        // before that leaves nothing behind.
        guard openStream() else { return Self.error(.serviceUnavailable, code: .tooManyClients, Self.tooManyStreams) }
        // The slot is given back by the body when it runs, or by the connection's close when the
        // body never runs (the client gone before the response's head could be written).
        let bodyStarted = StreamStart()
        channel.closeFuture.whenComplete { [self] _ in if bodyStarted.claim() { closeStream() } }
        let (hub, keepAlive, queueLimit, byteLimit) = (hub, configuration.keepAlive, configuration.queueLimit, configuration.byteLimit)
        let run = hub.runID
        enum Piece: Sendable {
            case outbound(Outbound)
            case tick
        }
        connections.enterStream(channel)
        let body = ResponseBody { [self] writer in
            guard bodyStarted.claim() else { return }  // the connection closed first: its slot is back
            defer { closeStream() }
            let subscription = hub.resume(after: lastEventID, queueLimit: queueLimit, byteLimit: byteLimit) {
                // Cut off while its writes wait on a full socket buffer: it may never read the
                // overflow notice, so close the connection regardless after a second.
                channel.eventLoop.scheduleTask(in: .seconds(1)) { channel.close(promise: nil) }
            }
            let id = subscription.id
            defer { hub.unsubscribe(id) }
            for (seq, line) in subscription.opening {
                try await writer.write(ByteBuffer(string: ServerSentEvents.frame(line, id: ServerSentEvents.eventID(seq, run: run))))
            }
            let (pieces, continuation) = AsyncStream<Piece>.makeStream()
            // A client gone ends the stream now, not at its next write (up to `keepAlive` later):
            // its slot and subscription come back at once.
            channel.closeFuture.whenComplete { _ in continuation.finish() }
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask {
                    for await outbound in subscription.events { continuation.yield(.outbound(outbound)) }
                    continuation.finish()
                }
                group.addTask {
                    while !Task.isCancelled {
                        try await Task.sleep(for: keepAlive)
                        continuation.yield(.tick)
                    }
                }
                defer { group.cancelAll() }
                for await piece in pieces {
                    switch piece {
                    case .tick:
                        try await writer.write(ByteBuffer(string: ServerSentEvents.keepAlive))
                    case .outbound(.line(let line, let seq)):
                        try await writer.write(ByteBuffer(string: ServerSentEvents.frame(line, id: ServerSentEvents.eventID(seq, run: run))))
                        hub.acknowledge(id)
                    case .outbound(.reply):
                        hub.acknowledge(id)  // a stream of server-sent events takes no requests
                    case .outbound(.overflow):
                        try await writer.write(
                            ByteBuffer(string: ServerSentEvents.frame(Reply.overflow(queueLimit: queueLimit, byteLimit: byteLimit), id: nil)))
                        return
                    }
                }
            }
            try await writer.finish(nil)
        }
        return Response(status: .ok, headers: Self.eventStreamHeaders, body: body)
    }

    static let eventStreamHeaders: HTTPFields = [.contentType: "text/event-stream", .cacheControl: "no-store", .init("X-Accel-Buffering")!: "no"]

    /// A GET's response as HEAD answers it: the same status and headers (its length included), no body.
    static func headersOnly(_ response: Response) -> Response {
        var response = response
        // The GET's length, and nothing written: Hummingbird sets Content-Length from the body's.
        response.body = ResponseBody(contentLength: response.body.contentLength ?? 0) { writer in try await writer.finish(nil) }
        return response
    }

    /// A photo as the answer, or why there is none.
    static func photo(_ result: Result<RequestHandler.CapturedPhoto, RequestHandler.Refusal>) -> Response {
        switch result {
        case .success(let photo):
            Response(
                status: .ok, headers: [.contentType: "image/jpeg", .cacheControl: "no-store"],
                body: ResponseBody(byteBuffer: ByteBuffer(bytes: photo.jpeg)))
        case .failure(let refusal):
            Self.error(.serviceUnavailable, code: .unavailable, refusal.message)
        }
    }

    static func json(_ value: JSONValue, status: HTTPResponse.Status = .ok) -> Response {
        Response(
            status: status, headers: [.contentType: "application/json", .cacheControl: "no-store"],
            body: ResponseBody(byteBuffer: ByteBuffer(string: value.serialized() + "\n")))
    }

    /// An error as the socket says it: `{"ok":false,"error":{"code":…,"message":…}}`.
    static func error(_ status: HTTPResponse.Status, code: ErrorCode, _ message: String) -> Response {
        json(.object([("ok", .bool(false)), ("error", .object([("code", .string(code.rawValue)), ("message", .string(message))]))]), status: status)
    }
}

/// Every request through `HTTPAccess` first: 401 without the token, 403 from another origin or host.
struct AccessMiddleware<Context: RequestContext>: RouterMiddleware {
    let access: @Sendable () -> HTTPAccess
    let logger: Logger

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let refusal = access().refusal(
            host: request.head.authority, origin: request.headers[.origin],
            authorization: request.headers[.authorization], queryToken: request.uri.queryParameters.get("token"),
            isPublic: ["/", "/preview.js"].contains(request.uri.path))
        guard let refusal else { return try await next(request, context) }
        guard refusal != .unauthorized else {
            logger.info("http request refused", metadata: ["reason": "\(refusal)", "path": "\(request.uri.path)"])
            var response = HTTPServer.error(.unauthorized, code: .accessDenied, refusal.description)
            response.headers[.wwwAuthenticate] = "Bearer"
            return response
        }
        logger.warning("http request refused", metadata: ["reason": "\(refusal)", "path": "\(request.uri.path)"])
        return HTTPServer.error(.forbidden, code: .accessDenied, refusal.description)
    }
}

extension HTTPField.Name {
    static let lastEventID = Self("Last-Event-ID")!
}

/// Whichever comes first — an event stream's body starting, or its connection closing — gives its
/// slot back; the other does nothing.
final class StreamStart: Sendable {
    private let taken = Atomic(false)
    /// True for the first caller only.
    func claim() -> Bool { !taken.exchange(true, ordering: .relaxed) }
}
