import EventServer
import Events
import Foundation
import Logging
import ScannerClient
import ScannerCore
import ScannerProtocol
import Synchronization
import TestSupport
import Testing
import Tracking

/// An event server on a fresh socket in a temporary directory.
final class RunningServer: @unchecked Sendable {
    let hub = EventHub(daemonVersion: "test", sourceName: "test")
    let path: String
    let server: EventServer
    private var task: Task<Void, Error>?

    init(queueLimit: Int = 1024, maximumClients: Int = 64, maximumLineLength: Int = 64 * 1024) async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("scannerd-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        path = directory.appendingPathComponent("s.sock").path
        server = EventServer(
            hub: hub,
            configuration: EventServerConfiguration(
                path: path, maximumClients: maximumClients, queueLimit: queueLimit, maximumLineLength: maximumLineLength),
            logger: Logger(label: "test"), executor: .shared)
        let ready = AsyncStream<Void>.makeStream()
        task = Task(executorPreference: ServerExecutor.shared) { [server] in try await server.run(ready: { ready.continuation.yield() }) }
        var iterator = ready.stream.makeAsyncIterator()
        _ = await iterator.next()
    }

    func connect() throws -> ScannerConnection { try ScannerConnection(path: path) }

    func stop() async {
        task?.cancel()
        _ = try? await task?.value
        server.removeSocketFile()
    }

    /// The directory goes with the value, not at `stop()`: tests look at the path after stopping.
    deinit { try? FileManager.default.removeItem(atPath: (path as NSString).deletingLastPathComponent) }
}

@Suite(.serialized, .timeLimit(.minutes(2))) struct EventServerTests {
    @Test func helloCarriesTheSnapshotThenEventsFollow() async throws {
        let server = try await RunningServer()
        server.hub.publish(.sourceAvailable)
        server.hub.publish(.item(.added(tracked("A")), frame: 3))
        try await blocking { [server] in
            let client = try server.connect()
            let line = try client.readLine(timeout: answerWithin)
            guard case .hello(let hello)? = try line.map({ try EventLine(decoding: $0).event }) else { throw ExpectedEvent("hello", line) }
            #expect(hello.cameraAvailable && hello.version == 1)
            #expect(hello.items.map(\.payload) == ["A"])
            server.hub.publish(.item(.added(tracked("B", id: 2)), frame: 4))
            let added = try EventLine(decoding: try client.readLine(timeout: answerWithin) ?? "")
            #expect(added.event.name == "added" && added.seq == 3 && added.event.frame == 4)
            #expect(added.event.item?.payload == "B")
        }
        await server.stop()
    }

    @Test func everyRequestAndErrorKeepsTheConnectionOpen() async throws {
        let server = try await RunningServer()
        server.hub.publish(.item(.added(tracked("A")), frame: 1))
        try await blocking { [server] in
            let client = try server.connect()
            _ = try client.readLine(timeout: answerWithin)
            func ask(_ line: String) throws -> JSONValue {
                try client.send(line)
                return JSONLines.object(try client.readLine(timeout: answerWithin))
            }
            let ping = try ask(#"{"request":"ping","id":7}"#)
            #expect(ping["reply"]?.string == "ping" && ping["ok"]?.bool == true && ping["id"]?.int == 7)
            #expect(try ask(#"{"request":"ping","id":"abc"}"#)["id"]?.string == "abc")
            #expect(try ask(#"{"request":"ping","id":1}"#)["id"]?.int == 1, "1 is a number, not true")
            // An id is a string or a number; anything else is refused, not echoed (issue #11).
            let boolean = try ask(#"{"request":"ping","id":true}"#)
            #expect(boolean["id"] == nil && boolean["error"]?["code"]?.string == "bad-argument")
            let items = try ask(#"{"request":"items"}"#)
            #expect(items["items"]?.array?.count == 1)
            let stats = try #require(try ask(#"{"request":"stats"}"#)["events"])
            #expect(stats["clients"]?.int == 1 && stats["items"]?.int == 1 && stats["overflows"]?.int == 0)
            #expect((stats["published"]?.int ?? 0) >= 1)
            for (line, code) in [
                ("not json", "malformed"), (#"{"id":1}"#, "malformed"), (#"[1,2]"#, "malformed"),
                (#"{"request":"explode"}"#, "unknown-request"),
                (#"{"request":"subscribe","kinds":["video"]}"#, "bad-argument"),
                (#"{"request":"subscribe","symbologies":"qr"}"#, "bad-argument"),
                (#"{"request":"subscribe","contentTypes":["fax"]}"#, "bad-argument"),
                (#"{"request":"set"}"#, "bad-argument"),
                (#"{"request":"set","roi":[0.5,0.5,0.9,0.9]}"#, "bad-argument"),
                (#"{"request":"set","quality":"best"}"#, "bad-argument"),
                (#"{"request":"set","types":["qrcode"]}"#, "bad-argument"),
                (#"{"request":"set","single":"yes"}"#, "bad-argument"),
                (#"{"request":"set","quality":"fast"}"#, "refused"),  // this test server has no pipeline to change
            ] {
                let reply = try ask(line)
                #expect(reply["ok"]?.bool == false, "\(line)")
                #expect(reply["error"]?["code"]?.string == code, "\(line) → \(reply)")
            }
            #expect(try ask(#"{"request":"ping"}"#)["ok"]?.bool == true, "still open after every error")
        }
        await server.stop()
    }

    @Test func subscribeFiltersItemEvents() async throws {
        let server = try await RunningServer()
        try await blocking { [server] in
            let client = try server.connect()
            _ = try client.readLine(timeout: answerWithin)
            try client.send(#"{"request":"subscribe","kinds":["text"],"contentTypes":["telephoneNumber"]}"#)
            #expect(JSONLines.object(try client.readLine(timeout: answerWithin))["ok"]?.bool == true)
            server.hub.publish(.item(.added(tracked("QR")), frame: 1))
            server.hub.publish(.item(.added(tracked("+14155550123", kind: .text, id: 2)), frame: 2))
            server.hub.publish(.sourceUnavailable(reason: "unplugged"))
            let first = try EventLine(decoding: try client.readLine(timeout: answerWithin) ?? "").event
            let second = try EventLine(decoding: try client.readLine(timeout: answerWithin) ?? "").event
            #expect(first.item?.payload == "+14155550123")
            #expect(second == .unavailable(reason: "unplugged"))
        }
        await server.stop()
    }

    @Test func subscribeBySymbologyLetsOnlyThoseCodesThrough() async throws {
        let server = try await RunningServer()
        try await blocking { [server] in
            let client = try server.connect()
            _ = try client.readLine(timeout: answerWithin)
            try client.send(#"{"request":"subscribe","symbologies":["ean13"]}"#)
            #expect(JSONLines.object(try client.readLine(timeout: answerWithin))["ok"]?.bool == true)
            var ean = tracked("4006381333931", id: 3)
            ean.item.symbology = .ean13
            server.hub.publish(.item(.added(tracked("QR")), frame: 1))
            server.hub.publish(.item(.added(tracked("+14155550123", kind: .text, id: 2)), frame: 2))
            server.hub.publish(.item(.added(ean), frame: 3))
            // Each list filters its own kind: symbologies the codes, contentTypes (empty: all) the text.
            let first = try EventLine(decoding: try client.readLine(timeout: answerWithin) ?? "").event
            let second = try EventLine(decoding: try client.readLine(timeout: answerWithin) ?? "").event
            #expect(first.item?.payload == "+14155550123", "\(first)")
            #expect(second.item?.payload == "4006381333931", "the QR code was filtered out: \(second)")
            try client.send(#"{"request":"subscribe","symbologies":["aztec-ish"]}"#)
            let bad = JSONLines.object(try client.readLine(timeout: answerWithin))
            #expect(bad["error"]?["code"]?.string == "bad-argument")
        }
        await server.stop()
    }

    @Test func anOverlongLineClosesThatConnectionOnly() async throws {
        let server = try await RunningServer(maximumLineLength: 1024)
        try await blocking { [server] in
            let bad = try server.connect()
            let good = try server.connect()
            _ = try bad.readLine(timeout: answerWithin)
            _ = try good.readLine(timeout: answerWithin)
            try bad.send(String(repeating: "x", count: 5000))
            let reply = JSONLines.object(try bad.readLine(timeout: answerWithin))
            #expect(reply["error"]?["code"]?.string == "line-too-long")
            #expect(try bad.readLine(timeout: answerWithin) == nil, "then closed")
            try good.send(#"{"request":"ping"}"#)
            #expect(JSONLines.object(try good.readLine(timeout: answerWithin))["ok"]?.bool == true)
        }
        await server.stop()
    }

    @Test func randomBytesNeverCrashTheServer() async throws {
        let server = try await RunningServer()
        try await blocking { [server] in
            var seed: UInt64 = 42
            func next() -> UInt8 {
                seed = seed &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
                return UInt8(truncatingIfNeeded: seed >> 33)
            }
            for _ in 0..<20 {
                let client = try server.connect()
                _ = try client.readLine(timeout: answerWithin)
                var lines = 0
                for _ in 0..<20 {
                    var bytes = (0..<Int(next() % 200)).map { _ in next() }.filter { $0 != 0x0A }
                    if next() % 4 == 0 { bytes = Array(#"{"request":"#.utf8) + bytes }  // almost-JSON
                    try client.send(String(decoding: bytes, as: UTF8.self))
                    lines += 1
                }
                for _ in 0..<lines {
                    let reply = JSONLines.object(try client.readLine(timeout: answerWithin))
                    #expect(reply["ok"]?.bool == false)
                }
            }
            let after = try server.connect()
            _ = try after.readLine(timeout: answerWithin)
            try after.send(#"{"request":"ping"}"#)
            #expect(JSONLines.object(try after.readLine(timeout: answerWithin))["ok"]?.bool == true)
        }
        await server.stop()
    }

    @Test func twoHundredClientsReceiveEveryEventInOrder() async throws {
        let server = try await RunningServer(maximumClients: 256)
        try await blocking { [server] in
            var clients: [ScannerConnection] = []
            for _ in 0..<200 {
                let client = try server.connect()
                _ = try client.readLine(timeout: answerWithin)
                clients.append(client)
            }
            for i in 0..<50 { server.hub.publish(.item(.updated(tracked("A")), frame: i)) }
            var inOrder = 0
            for client in clients {
                var frames: [Int] = []
                for _ in 0..<50 { frames.append(JSONLines.object(try client.readLine(timeout: answerWithin))["frame"]?.int ?? -1) }
                if frames == Array(0..<50) { inOrder += 1 }
            }
            #expect(inOrder == 200, "clients that got all 50 events in order")
            #expect(server.hub.subscriberCount == 200)
        }
        await server.stop()
    }

    @Test func aClientThatNeverReadsIsCutOffAndTheOthersGetEverything() async throws {
        let server = try await RunningServer(queueLimit: 64)
        let stalled = try server.connect()
        let reader = try server.connect()
        _ = try await blocking { try stalled.readLine(timeout: answerWithin) }
        _ = try await blocking { try reader.readLine(timeout: answerWithin) }
        // Big events, so the stalled client's socket buffer fills and its queue overflows.
        let big = tracked(String(repeating: "P", count: 4000))
        let received = Mutex(0)
        let readerTask = Task {
            try await blocking { () -> [Int] in
                var frames: [Int] = []
                while frames.count < 2000, let line = try reader.readLine(timeout: answerWithin) {
                    frames.append(JSONLines.object(line)["frame"]?.int ?? -1)
                    received.withLock { $0 = frames.count }
                }
                return frames
            }
        }
        // A burst far above a camera's rate (30 events/s at most), paced by the reader (never more
        // than 32 ahead of it, whatever the machine's load): it keeps up, the stalled one cannot.
        for i in 0..<2000 {
            server.hub.publish(.item(.updated(big), frame: i))
            let deadline = ContinuousClock.now + .seconds(20)
            while received.withLock({ $0 }) < i - 32 && ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(1)) }
        }
        let frames = try await readerTask.value
        #expect(frames.count == 2000 && frames == Array(0..<2000), "the reading client got every event, in order (got \(frames.count))")
        #expect(server.hub.overflows == 1)
        // The stalled client finds, when it looks, some events, maybe the notice, then the end.
        // …and the connection was closed (readLine's nil is the end of the stream; a time-out throws).
        let (count, lastEvent) = try await blocking { () -> (Int, String?) in
            var last: String?
            var count = 0
            while let line = try stalled.readLine(timeout: answerWithin) {
                last = (try? EventLine(decoding: line))?.event.name
                count += 1
            }
            return (count, last)
        }
        #expect(count < 2000, "it did not get everything: it was cut off")
        #expect(lastEvent == "overflow" || lastEvent == "updated")
        await server.stop()
    }

    @Test func tooManyClientsAreRefusedWithAReason() async throws {
        let server = try await RunningServer(maximumClients: 2)
        try await blocking { [server] in
            let a = try server.connect()
            let b = try server.connect()
            _ = try a.readLine(timeout: answerWithin)
            _ = try b.readLine(timeout: answerWithin)
            let c = try server.connect()
            #expect(JSONLines.object(try c.readLine(timeout: answerWithin))["error"]?["code"]?.string == "too-many-clients")
            #expect(try c.readLine(timeout: answerWithin) == nil)
        }
        await server.stop()
    }

    @Test func aStaleSocketFileIsReplacedALiveOneIsNot() async throws {
        let first = try await RunningServer()
        // A second server on the same path refuses to start.
        let second = EventServer(
            hub: EventHub(daemonVersion: "t", sourceName: "t"), configuration: EventServerConfiguration(path: first.path), logger: Logger(label: "t"))
        await #expect(throws: EventServerError.self) { try await second.run() }
        #expect(FileManager.default.fileExists(atPath: first.path), "the live socket is left alone")
        // The liveness probe was a real connection: let the first server take it before it stops.
        try await Task.sleep(for: .milliseconds(100))
        // Kill the first without cleaning up: its socket file stays behind, stale.
        let path = first.path
        await first.stop()
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            raw.copyBytes(from: Array(path.utf8))
            raw[path.utf8.count] = 0
        }
        _ = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        close(fd)  // bound, never listening, not unlinked: stale
        #expect(FileManager.default.fileExists(atPath: path))
        let hub = EventHub(daemonVersion: "t", sourceName: "t")
        let third = EventServer(hub: hub, configuration: EventServerConfiguration(path: path), logger: Logger(label: "t"), executor: .shared)
        let ready = AsyncStream<Void>.makeStream()
        let task = Task(executorPreference: ServerExecutor.shared) { try await third.run(ready: { ready.continuation.yield() }) }
        var iterator = ready.stream.makeAsyncIterator()
        _ = await iterator.next()
        let event = try await blocking {
            (try ScannerConnection(path: path).readLine(timeout: answerWithin)).flatMap { try? EventLine(decoding: $0).event.name }
        }
        #expect(event == "hello")
        task.cancel()
        // A regular file at the path is never removed.
        let file = path + ".txt"
        #expect(FileManager.default.createFile(atPath: file, contents: Data("keep".utf8)))
        let fourth = EventServer(hub: hub, configuration: EventServerConfiguration(path: file), logger: Logger(label: "t"))
        await #expect(throws: EventServerError.self) { try await fourth.run() }
        #expect(FileManager.default.fileExists(atPath: file))
        withExtendedLifetime(first) {}  // its directory holds the paths used above
    }
}
