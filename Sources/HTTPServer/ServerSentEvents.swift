/// The `text/event-stream` framing (the HTML standard's server-sent events).
enum ServerSentEvents {
    /// One event: its `id` (the event's `seq`, which a reconnecting `EventSource` sends back as
    /// `Last-Event-ID`) and its JSON as the data. No `event:` field: every event reaches
    /// `onmessage`, and the JSON names it, as on the socket. A JSON line holds no newline, so it is
    /// one `data:` line.
    static func frame(_ line: String, id: Int?) -> String {
        (id.map { "id: \($0)\n" } ?? "") + "data: \(line)\n\n"
    }

    /// A comment: keeps proxies and the browser from closing an idle stream, and shows the server
    /// a client that went away.
    static let keepAlive = ": keep-alive\n\n"

    /// `Last-Event-ID`: a `seq` (digits only, bounded); anything else starts afresh.
    static func lastEventID(_ value: String?) -> Int? {
        guard let value, !value.isEmpty, value.utf8.count <= 18, value.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) else { return nil }
        return Int(value)
    }
}
