import ClientRequests
import Events
import Foundation
import HTTPServer
import Logging
import ScannerCore
import ScannerProtocol
import Synchronization
import TestSupport
import Testing
import Tracking

/// An HTTP server on a free loopback port, in this process, over its own hub.
final class RunningHTTPServer: @unchecked Sendable {
    let hub = EventHub(daemonVersion: "test", sourceName: "test", replayLimit: 4)
    let server: HTTPServer
    let port: Int
    private let task: Task<Void, Error>

    init(
        token: String? = nil, origins: Set<String> = [], queueLimit: Int = 1024, controlOpen: Bool = true, maximumStreams: Int = 64,
        maximumConnections: Int = 128, idleTimeout: Duration = .seconds(30), requestTimeout: Duration = .seconds(10),
        responseTimeout: Duration = .seconds(60), sendTimeout: Duration = .seconds(10), photoTakes: Duration = .zero
    ) async throws {
        let hub = hub
        let jpeg = Data([0xFF, 0xD8, 0xFF, 0xE0, 1, 2, 3, 0xFF, 0xD9])
        let requests = RequestHandler(
            hub: hub, logger: Logger(label: "test"),
            // As the daemon's settings control does: the change announced, then described.
            configure: { change in
                let applied = Event.Configuration(
                    regionOfInterest: NormalizedRect(x: 0, y: 0, width: 1, height: 1), quality: .balanced, types: ["qr"],
                    single: change.singleItem ?? false)
                hub.publish(config: applied)
                return .success(applied)
            },
            capture: { content in
                try? await Task.sleep(for: photoTakes)
                return switch content {
                case .frame: .success(.init(jpeg: jpeg, width: 4, height: 3))
                case .annotated: .success(.init(jpeg: jpeg + [0], width: 4, height: 3))
                case .document: .failure(.init("no document in view"))
                }
            })
        let server = try HTTPServer(
            hub: hub, requests: requests,
            configuration: HTTPServerConfiguration(
                host: "127.0.0.1", port: 0, token: token, allowedOrigins: origins, queueLimit: queueLimit, controlOpen: controlOpen,
                maximumStreams: maximumStreams, maximumConnections: maximumConnections, idleTimeout: idleTimeout, requestTimeout: requestTimeout,
                responseTimeout: responseTimeout, sendTimeout: sendTimeout),
            logger: Logger(label: "test"))
        self.server = server
        let ready = AsyncStream<Int>.makeStream()
        // Off the cooperative pool, which the test runner's blocking tests occupy (two threads here).
        task = Task(executorPreference: BlockingExecutor.shared) { try await server.run(ready: { ready.continuation.yield($0) }) }
        var iterator = ready.stream.makeAsyncIterator()
        port = await iterator.next() ?? 0
    }

    var url: String { "http://127.0.0.1:\(port)" }

    func stop() async {
        task.cancel()
        _ = try? await task.value
    }

    /// A real client: curl, streaming (`-N`), for at most 20 s. Stop it with SIGKILL: the test runner
    /// ignores SIGTERM, and its children inherit that.
    func stream(_ path: String, headers: [String] = []) throws -> Subprocess.Running {
        try Subprocess.Running("/usr/bin/curl", ["-s", "-N", "--max-time", "20"] + headers.flatMap { ["-H", $0] } + [url + path])
    }

    /// A real WebSocket client (python-websockets, Tests/Fixtures/clients/ws_client.py) on `/ws`.
    func webSocket(_ arguments: [String]) throws -> Subprocess.Running {
        let python = Fixtures.packageRoot.appendingPathComponent(".build/footage-venv/bin/python").path
        return try Subprocess.Running(python, ["Tests/Fixtures/clients/ws_client.py", "ws://127.0.0.1:\(port)/ws"] + arguments)
    }

    /// Status code and body of one request.
    func get(_ path: String, headers: [String] = []) throws -> (status: Int, body: String) {
        let result = try Subprocess.run(
            "/usr/bin/curl", ["-s", "--max-time", "10", "-w", "\n%{http_code}"] + headers.flatMap { ["-H", $0] } + [url + path], timeout: 20)
        var lines = result.stdout.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        let status = Int(lines.popLast() ?? "") ?? -1
        return (status, lines.joined(separator: "\n"))
    }
}

/// Server-sent events as a client reads them: (id, event name, seq) per event.
func sseEvents(_ lines: [String]) -> [(id: Int?, name: String, seq: Int?)] {
    var events: [(Int?, String, Int?)] = []
    var id: Int?
    for line in lines {
        // `id: RUN-SEQ`
        if line.hasPrefix("id: ") { id = line.split(separator: "-").last.flatMap { Int($0) } }
        if line.hasPrefix("data: ") {
            let event = try? EventLine(decoding: String(line.dropFirst(6)))
            events.append((id, event?.event.name ?? "?", event?.seq))
            id = nil
        }
    }
    return events
}

@Suite(.timeLimit(.minutes(2)), .serialized) struct HTTPServerTests {
    @Test func theEventStreamOpensWithHelloThenEveryEventWithItsSeqAsID() async throws {
        let running = try await RunningHTTPServer()
        defer { Task { await running.stop() } }
        try await blocking {
            running.hub.publish(.sourceAvailable)
            running.hub.publish(.item(.added(tracked("https://example.com/a")), frame: 1))
            let client = try running.stream("/events")
            #expect(client.waitFor(timeout: 10) { sseEvents($0).count >= 1 }, "hello: \(client.output)")
            running.hub.publish(.item(.added(tracked("+14155550123", kind: .text, id: 2)), frame: 2))
            running.hub.publish(.end(frames: 3))
            #expect(client.waitFor(timeout: 10) { sseEvents($0).count >= 3 }, "\(client.output)")
            let events = sseEvents(client.output)
            #expect(events.map(\.name) == ["hello", "added", "end"])
            // hello's id is the last event it includes; each event's id is its seq.
            #expect(events.map(\.id) == [2, 3, 4] && events.dropFirst().map(\.seq) == [3, 4])
            _ = client.stop(signal: SIGKILL)
        }
    }

    @Test func aClientReconnectingWithLastEventIDGetsWhatItMissedWithoutAGap() async throws {
        let running = try await RunningHTTPServer()
        defer { Task { await running.stop() } }
        try await blocking {
            for n in 1...6 { running.hub.publish(.item(.added(tracked("P\(n)", id: n)), frame: n)) }
            // The hub holds the last 4 (3…6): a client that had 3 gets 4, 5, 6, then what comes next.
            let run = running.hub.runID
            let client = try running.stream("/events", headers: ["Last-Event-ID: \(run)-3"])
            #expect(client.waitFor(timeout: 10) { sseEvents($0).count >= 3 }, "\(client.output)")
            running.hub.publish(.end(frames: 7))
            #expect(client.waitFor(timeout: 10) { sseEvents($0).count >= 4 }, "\(client.output)")
            #expect(sseEvents(client.output).map(\.seq) == [4, 5, 6, 7])
            _ = client.stop(signal: SIGKILL)
            // One that had only 1 missed more than the hub holds: a fresh hello with the current items.
            let late = try running.stream("/events", headers: ["Last-Event-ID: \(run)-1"])
            #expect(late.waitFor(timeout: 10) { sseEvents($0).count >= 1 })
            #expect(sseEvents(late.output).first?.name == "hello" && sseEvents(late.output).first?.id == 7)
            _ = late.stop(signal: SIGKILL)
            // A malformed id is no id; one from another run of the daemon (its seq counted from 1
            // again) or from before runs were named gets a fresh hello, not this run's later events.
            for id in ["\(run)-3; DROP", "zzzzzzzz-3", "3", "\(run)-", "\(run)3"] {
                let odd = try running.stream("/events", headers: ["Last-Event-ID: \(id)"])
                #expect(odd.waitFor(timeout: 10) { sseEvents($0).count >= 1 })
                #expect(sseEvents(odd.output).first?.name == "hello", "Last-Event-ID: \(id)")
                _ = odd.stop(signal: SIGKILL)
            }
        }
    }

    @Test func anotherSitesPagesAndHostsAreRefused() async throws {
        let running = try await RunningHTTPServer(origins: ["http://kiosk.local:8080"])
        defer { Task { await running.stop() } }
        try await blocking {
            let own = "Origin: http://127.0.0.1:\(running.port)"
            #expect(try running.get("/items").status == 200, "no Origin: not a page")
            #expect(try running.get("/items", headers: [own]).status == 200)
            #expect(try running.get("/items", headers: ["Origin: http://kiosk.local:8080"]).status == 200)
            let foreign = try running.get("/events", headers: ["Origin: http://evil.example"])
            #expect(foreign.status == 403 && foreign.body.contains("\"access-denied\"") && foreign.body.contains("evil.example"), "\(foreign)")
            // DNS rebinding: evil.example resolved to 127.0.0.1, the page's own origin is evil.example.
            let rebound = try running.get("/items", headers: ["Host: evil.example:\(running.port)", "Origin: http://evil.example:\(running.port)"])
            #expect(rebound.status == 403, "\(rebound)")
            #expect(try running.get("/items", headers: ["Host: localhost:\(running.port)"]).status == 200)
        }
    }

    @Test func withATokenEveryRequestMustCarryIt() async throws {
        let running = try await RunningHTTPServer(token: "s3cret-token")
        defer { Task { await running.stop() } }
        try await blocking {
            let none = try running.get("/items")
            #expect(none.status == 401 && none.body.contains("token"), "\(none)")
            #expect(try running.get("/items", headers: ["Authorization: Bearer wrong"]).status == 401)
            #expect(try running.get("/items", headers: ["Authorization: Bearer s3cret-token"]).status == 200)
            #expect(try running.get("/items?token=s3cret-token").status == 200, "EventSource and WebSocket cannot set headers")
            #expect(try running.get("/items?token=s3cret-toke").status == 401)
        }
    }

    @Test func itemsAndSnapshotAreWhatTheSocketWouldSay() async throws {
        let running = try await RunningHTTPServer()
        defer { Task { await running.stop() } }
        try await blocking {
            running.hub.publish(.item(.added(tracked("https://example.com/a")), frame: 1))
            let items = try running.get("/items")
            #expect(items.status == 200)
            let listed = JSONLines.object(items.body)["items"]?.array?.compactMap { $0["payload"]?.string }
            #expect(listed == ["https://example.com/a"])
            let path = FileManager.default.temporaryDirectory.appendingPathComponent("snap-\(UUID().uuidString).jpg").path
            defer { try? FileManager.default.removeItem(atPath: path) }
            for (query, bytes) in [("", 9), ("?annotate=1", 10)] {
                let result = try Subprocess.run(
                    "/usr/bin/curl",
                    ["-s", "--max-time", "10", "-o", path, "-w", "%{http_code} %{content_type}", running.url + "/snapshot.jpg" + query])
                #expect(result.stdout == "200 image/jpeg", "\(result.stdout)")
                let data = try Data(contentsOf: URL(fileURLWithPath: path))
                #expect(data.prefix(2) == Data([0xFF, 0xD8]) && data.count == bytes, "annotate asked for: \(query)")
            }
            #expect(try running.get("/nothing-here").status == 404)
        }
    }

    /// The socket's conversation over WebSocket: hello, events, and requests answered with the
    /// socket's replies (the same `RequestHandler`), in order.
    @Test func aWebSocketGetsTheEventsAndTheSocketsReplies() async throws {
        let running = try await RunningHTTPServer()
        defer { Task { await running.stop() } }
        running.hub.publish(.item(.added(tracked("https://example.com/a")), frame: 1))
        try await blocking {
            let client = try running.webSocket([
                "--send", #"{"request":"ping","id":7}"#, "--send", #"{"request":"items"}"#, "--send", #"{"request":"bogus"}"#,
                "--send", #"{"request":"set","single":true}"#, "--send", #"{"request":"capture","path":"/tmp/x.jpg"}"#,
                "--until", "done-marker", "--seconds", "15",
            ])
            defer { _ = client.stop(signal: SIGKILL) }
            // All five replies (the `set` also publishes a `config` event), then the marker.
            #expect(client.waitFor(timeout: 15) { $0.filter { $0.hasPrefix(#"{"reply":"#) }.count >= 5 }, "\(client.output)")
            running.hub.publish(.item(.added(tracked("done-marker", id: 2)), frame: 2))
            #expect(client.waitFor(timeout: 15) { $0.contains { $0.contains("done-marker") } }, "\(client.output)")
            let messages = client.output.map { JSONLines.object($0) }
            let events = JSONLines.events(client.output)
            guard case .hello(let hello)? = events.first else { throw ExpectedEvent("hello", client.output.first) }
            #expect(hello.items.first?.payload == "https://example.com/a")
            let replies = messages.filter { $0["ok"] != nil }
            try #require(replies.count == 5, "\(client.output)")
            #expect(replies[0]["ok"]?.bool == true && replies[0]["id"]?.int == 7)
            #expect(replies[1]["items"]?.array?.count == 1)
            #expect(replies[2]["error"]?["code"]?.string == "unknown-request")
            #expect(replies[3]["ok"]?.bool == true && replies[3]["single"]?.bool == true, "no control users: anyone may set")
            #expect(replies[4]["error"]?["code"]?.string == "access-denied", "never files for HTTP clients")
            // The set was announced to every subscriber, this one included.
            #expect(events.contains { $0.name == "config" })
            #expect(events.last?.name == "added")
        }
    }

    @Test func aWebSocketFromAnotherSiteIsRefusedAndControlFollowsTheSocketsRule() async throws {
        let running = try await RunningHTTPServer(controlOpen: false)
        defer { Task { await running.stop() } }
        try await blocking {
            let foreign = try running.webSocket(["--origin", "http://evil.example", "--seconds", "10"])
            _ = foreign.stop(timeout: 15)
            // hummingbird-websocket answers every refused upgrade with a bare 400; the refusal itself
            // (logged, with its reason) is the access rule's 403, which a plain request shows.
            #expect(foreign.output == ["status 400"], "\(foreign.output)")
            let plain = try running.get("/ws", headers: ["Origin: http://evil.example"])
            #expect(plain.status == 403 && plain.body.contains("evil.example"), "\(plain)")
            let own = try running.webSocket([
                "--origin", "http://127.0.0.1:\(running.port)", "--send", #"{"request":"set","single":true}"#, "--until", "\"ok\"", "--seconds", "10",
            ])
            _ = own.stop(timeout: 15)
            let reply = own.output.map { JSONLines.object($0) }.first { $0["ok"] != nil }
            #expect(reply?["error"]?["code"]?.string == "access-denied", "control users are configured: \(own.output)")
            // Binary frames are not requests.
            let binary = try running.webSocket(["--send", #"{"request":"ping"}"#, "--binary", "--until", "\"ok\"", "--seconds", "10"])
            _ = binary.stop(timeout: 15)
            let refused = binary.output.map { JSONLines.object($0) }.first { $0["ok"] != nil }
            #expect(refused?["error"]?["code"]?.string == "malformed", "\(binary.output)")
        }
    }

    /// Each stream holds a subscriber and its queue: at most `maximumStreams` at once, and a slot
    /// comes back when its stream ends.
    @Test func streamsAreBoundedAndTheirSlotsComeBack() async throws {
        let running = try await RunningHTTPServer(maximumStreams: 1)
        defer { Task { await running.stop() } }
        try await blocking {
            let first = try running.stream("/events")
            #expect(first.waitFor(timeout: 10) { sseEvents($0).count >= 1 })
            let second = try running.get("/events")
            #expect(second.status == 503 && second.body.contains("too-many-clients"), "\(second)")
            let socket = try running.webSocket(["--seconds", "5"])
            _ = socket.stop(timeout: 15)
            #expect(socket.output.first?.contains("too-many-clients") == true, "\(socket.output)")
            #expect(try running.get("/items").status == 200, "other endpoints are not streams")
            _ = first.stop(signal: SIGKILL)
            // The server notices the client gone at its next write: publish until a new stream gets in.
            var again: Subprocess.Running?
            let deadline = Date().addingTimeInterval(20)
            while Date() < deadline {
                running.hub.publish(.sourceAvailable)
                let attempt = try running.stream("/events")
                if attempt.waitFor(timeout: 2, { sseEvents($0).count >= 1 }) {
                    again = attempt
                    break
                }
                _ = attempt.stop(signal: SIGKILL)
            }
            #expect(again != nil, "the slot came back")
            _ = again?.stop(signal: SIGKILL)
        }
    }

    @Test func aNonLoopbackAddressWithoutATokenIsRefused() throws {
        let hub = EventHub(daemonVersion: "t", sourceName: "t")
        let requests = RequestHandler(hub: hub, logger: Logger(label: "t"))
        for host in ["0.0.0.0", "192.168.1.20", "::", "kiosk.local"] {
            #expect(throws: HTTPServerError.tokenRequired(host: host)) {
                try HTTPServer(hub: hub, requests: requests, configuration: HTTPServerConfiguration(host: host, port: 0), logger: Logger(label: "t"))
            }
        }
        _ = try HTTPServer(
            hub: hub, requests: requests, configuration: HTTPServerConfiguration(host: "0.0.0.0", port: 0, token: "t"), logger: Logger(label: "t"))
        for host in ["127.0.0.1", "127.1.2.3", "localhost", "::1"] {
            _ = try HTTPServer(hub: hub, requests: requests, configuration: HTTPServerConfiguration(host: host, port: 0), logger: Logger(label: "t"))
        }
    }
}

@Suite struct HTTPAccessTests {
    @Test func loopbackIsOnlyTheLoopbackNetwork() {
        #expect(
            HTTPAccess.isLoopback("127.0.0.1") && HTTPAccess.isLoopback("127.255.0.9") && HTTPAccess.isLoopback("::1")
                && HTTPAccess.isLoopback("LOCALHOST"))
        for host in ["0.0.0.0", "127.0.0", "127.0.0.1.evil.example", "128.0.0.1", "localhost.evil.example", "::", "127.0.0.256"] {
            #expect(!HTTPAccess.isLoopback(host), "\(host)")
        }
    }

    @Test func theRulesInOrder() {
        let open = HTTPAccess(token: nil, allowedOrigins: [], listenHost: "127.0.0.1", port: 8390)
        #expect(open.refusal(host: "127.0.0.1:8390", origin: nil, authorization: nil, queryToken: nil) == nil)
        #expect(open.refusal(host: "127.0.0.1:8391", origin: nil, authorization: nil, queryToken: nil) == .foreignHost("127.0.0.1:8391"))
        #expect(open.refusal(host: nil, origin: nil, authorization: nil, queryToken: nil) == .foreignHost("(none)"))
        #expect(open.refusal(host: "[::1]:8390", origin: "http://[::1]:8390", authorization: nil, queryToken: nil) == nil)
        #expect(
            open.refusal(host: "127.0.0.1:8390", origin: "https://127.0.0.1:8390", authorization: nil, queryToken: nil)
                == .foreignOrigin("https://127.0.0.1:8390"))
        #expect(open.refusal(host: "127.0.0.1:8390", origin: "null", authorization: nil, queryToken: nil) == .foreignOrigin("null"))
        // With a token any Host will do (a kiosk reached by name on the network), but not any Origin.
        let guarded = HTTPAccess(token: "abc", allowedOrigins: [], listenHost: "0.0.0.0", port: 8390)
        #expect(guarded.refusal(host: "kiosk.local:8390", origin: "http://kiosk.local:8390", authorization: "Bearer abc", queryToken: nil) == nil)
        #expect(
            guarded.refusal(host: "kiosk.local:8390", origin: "http://evil.example", authorization: "Bearer abc", queryToken: nil)
                == .foreignOrigin("http://evil.example"))
        #expect(guarded.refusal(host: "kiosk.local:8390", origin: nil, authorization: "bearer  abc", queryToken: nil) == nil)
        #expect(guarded.refusal(host: "kiosk.local:8390", origin: nil, authorization: "Basic abc", queryToken: nil) == .unauthorized)
        #expect(guarded.refusal(host: "kiosk.local:8390", origin: nil, authorization: "Bearer abcd", queryToken: "abc") == .unauthorized)
        #expect(guarded.refusal(host: "kiosk.local:8390", origin: nil, authorization: nil, queryToken: "") == .unauthorized)
    }
}
