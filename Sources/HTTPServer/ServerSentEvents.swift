import Hummingbird
import HummingbirdWebSocket
import NIOCore

/// The `text/event-stream` framing (the HTML standard's server-sent events).
enum ServerSentEvents {
    /// One event: its `id` (the event's `seq`, which a reconnecting `EventSource` sends back as
    /// `Last-Event-ID`) and its JSON as the data. No `event:` field: every event reaches
    /// `onmessage`, and the JSON names it, as on the socket. A JSON line holds no newline, so it is
    /// one `data:` line.
    static func frame(_ line: String, id: String?) -> String {
        (id.map { "id: \($0)\n" } ?? "") + "data: \(line)\n\n"
    }

    /// A comment: keeps proxies and the browser from closing an idle stream, and shows the server
    /// a client that went away.
    static let keepAlive = ": keep-alive\n\n"

    /// An event's `id`: the run, then its `seq` (`k3x9p2aq-57`). `seq` starts again at 1 when the
    /// daemon restarts; the run tells a browser's `Last-Event-ID` from before a restart apart.
    static func eventID(_ seq: Int, run: String) -> String { "\(run)-\(seq)" }

    /// `Last-Event-ID`: the `seq` it names if it is this run's (`RUN-SEQ`, digits bounded);
    /// anything else — another run's, a bare number, garbage — starts afresh with a `hello`.
    static func lastEventID(_ value: String?, run: String) -> Int? {
        guard let value, value.utf8.count <= run.utf8.count + 19, value.hasPrefix(run + "-") else { return nil }
        let digits = value.utf8.dropFirst(run.utf8.count + 1)
        guard !digits.isEmpty, digits.count <= 18, digits.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) else { return nil }
        return Int(String(decoding: digits, as: UTF8.self))
    }
}

/// Hummingbird's request context with the connection's channel: an event stream that is cut off
/// closes its connection (`HTTPServer.events`).
struct ScannerRequestContext: RequestContext, WebSocketRequestContext {
    var coreContext: CoreRequestContextStorage
    let webSocket: WebSocketHandlerReference<Self>
    let channel: any Channel

    init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
        webSocket = .init()
        channel = source.channel
    }
}
