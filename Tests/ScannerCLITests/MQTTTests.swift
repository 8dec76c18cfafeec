import Foundation
import ScannerCore
import ScannerProtocol
import TestSupport
import TestTraits
import Testing

/// A real mosquitto broker on a free loopback port, in a directory of its own, with persistence (a
/// persistent subscriber's session survives a restart of the broker). Started and stopped by the test.
final class Broker: @unchecked Sendable {
    private(set) var port = 0
    let directory: TemporaryDirectory
    private var process: Subprocess.Running?

    init(users: [String: String] = [:]) throws {
        directory = try TemporaryDirectory("scannerd-broker")
        var settings = ["persistence true", "persistence_location \(directory.path)/", "log_dest stdout", "log_type all"]
        // Started as root, mosquitto would become user mosquitto, who cannot read this test's files
        // (mosquitto_passwd makes the password file 0600).
        if geteuid() == 0 { settings.append("user root") }
        if users.isEmpty {
            settings.append("allow_anonymous true")
        } else {
            let passwords = directory.file("passwords")
            FileManager.default.createFile(atPath: passwords, contents: nil)
            for (user, password) in users {
                let made = try Subprocess.run("/usr/bin/mosquitto_passwd", ["-b", passwords, user, password])
                try #require(made.status == 0, "\(made.stderr)")
            }
            settings += ["allow_anonymous false", "password_file \(passwords)"]
        }
        // A free port may be taken by a test running alongside before the broker binds it: another one.
        for attempt in 1...3 {
            port = try freeLoopbackPort()
            _ = try directory.write("mosquitto.conf", (["listener \(port) 127.0.0.1"] + settings).joined(separator: "\n") + "\n")
            if try start(required: attempt == 3) { break }
        }
    }

    /// Starts it on the same port (after `stop`); false (or a failed expectation, when `required`) if
    /// it does not come up.
    @discardableResult
    func start(required: Bool = true) throws -> Bool {
        // Line-buffered, so its log can be waited on (stdbuf execs mosquitto: same process).
        let broker = try Subprocess.Running("/usr/bin/stdbuf", ["-oL", "/usr/sbin/mosquitto", "-c", directory.file("mosquitto.conf")])
        let running = broker.waitFor(timeout: 10) { $0.contains { $0.hasSuffix(" running") } }
        if required { try #require(running, "\(broker.output)") }
        guard running else {
            _ = broker.stop(signal: SIGKILL)
            return false
        }
        process = broker
        return true
    }

    /// Stops it as an operator would (SIGTERM: it saves its sessions first).
    func stop() {
        _ = process?.stop(signal: SIGTERM)
        process = nil
    }

    /// The broker's log so far.
    var log: [String] { process?.output ?? [] }
    var processForWaiting: Subprocess.Running? { process }

    /// A subscriber (mosquitto_sub), printing "topic payload" lines; `id` makes its session persistent.
    func subscribe(_ topic: String, id: String? = nil) throws -> Subprocess.Running {
        var arguments = ["-h", "127.0.0.1", "-p", "\(port)", "-t", topic, "-v", "-q", "1"]
        if let id { arguments += ["-c", "-i", id] }
        return try Subprocess.Running("/usr/bin/mosquitto_sub", arguments)
    }

    /// The message retained on `topic`, if any, within a few seconds.
    func retained(_ topic: String) throws -> String? {
        let result = try Subprocess.run(
            "/usr/bin/mosquitto_sub", ["-h", "127.0.0.1", "-p", "\(port)", "-t", topic, "-C", "1", "-W", "3", "--retained-only"], timeout: 10)
        return result.stdout.split(separator: "\n").first.map(String.init)
    }

    deinit { stop() }
}

/// The seq of each event line a subscriber printed ("topic {json}").
func eventSeqs(_ lines: [String], topic: String) -> [Int] {
    lines.filter { $0.hasPrefix(topic + " ") }.compactMap { JSONLines.object(String($0.dropFirst(topic.count + 1)))["seq"]?.int }
}

/// `scannerd run --mqtt`: the events through a real broker, as a fleet's dashboard gets them.
@Suite(.offThePool(minutes: 3), .serialized) struct MQTTTests {
    let scannerd = Subprocess.executable("scannerd")

    @Test func eventsArriveAndTheStatusIsRetainedOnlineThenOfflineWhenTheDaemonDies() async throws {
        try await blocking {
            let broker = try Broker()
            let subscriber = try broker.subscribe("kiosk/7/#")
            defer { _ = subscriber.stop(signal: SIGKILL) }
            let daemon = try Subprocess.Running(
                scannerd,
                [
                    "run", "--no-socket", "--source", "demo", "--loop", "--types", "qr", "--mqtt", "mqtt://127.0.0.1:\(broker.port)", "--mqtt-topic",
                    "kiosk/7",
                ],
                environment: ["SCANNERD_MQTT_KEEPALIVE": "5"])
            defer { _ = daemon.stop(signal: SIGKILL) }
            #expect(
                subscriber.waitFor(timeout: 30) { lines in lines.contains { $0.hasPrefix("kiosk/7/events ") && $0.contains(#""event":"added""#) } },
                "\(subscriber.output.suffix(5))")
            #expect(try broker.retained("kiosk/7/status")?.contains(#""state":"online""#) == true)
            #expect(try broker.retained("kiosk/7/items")?.hasPrefix(#"{"items":["#) == true, "the current items, retained")
            // Killed, with no chance to say goodbye: the broker publishes the will within 1.5 keepalives.
            _ = daemon.stop(signal: SIGKILL)
            #expect(
                subscriber.waitFor(timeout: 20) { lines in lines.contains { $0.hasPrefix("kiosk/7/status ") && $0.contains(#""state":"offline""#) } },
                "\(subscriber.output.suffix(3))")
            #expect(try broker.retained("kiosk/7/status")?.contains(#""state":"offline""#) == true, "the will is retained")
        }
    }

    /// The broker goes away for 5 s while the demo plays and comes back: a persistent QoS 1
    /// subscriber gets every seq the daemon emitted, in order, none twice.
    @Test func aBrokerAwayForFiveSecondsLosesNothing() async throws {
        try await blocking {
            let broker = try Broker()
            // The subscriber's session first, so the broker keeps what it misses.
            let subscriber = try broker.subscribe("fleet/a/events", id: "dashboard")
            defer { _ = subscriber.stop(signal: SIGKILL) }
            try #require(broker.waitForLog("dashboard"), "\(broker.log.suffix(5))")
            let daemon = try Subprocess.Running(
                scannerd,
                [
                    "run", "--no-socket", "--source", "demo", "--loop", "--types", "qr", "--events-stdout", "--mqtt",
                    "mqtt://127.0.0.1:\(broker.port)",
                    "--mqtt-topic", "fleet/a",
                ])
            defer { _ = daemon.stop(signal: SIGKILL) }
            #expect(subscriber.waitFor(timeout: 30) { eventSeqs($0, topic: "fleet/a/events").count >= 5 })
            broker.stop()
            // The scenario: away for 5 s while events keep coming (the demo adds and removes items each 3 s).
            Thread.sleep(forTimeInterval: 5)
            try broker.start()
            let target = (daemon.output.compactMap { JSONLines.object($0)["seq"]?.int }.max() ?? 0) + 3
            #expect(subscriber.waitFor(timeout: 60) { eventSeqs($0, topic: "fleet/a/events").max() ?? 0 >= target }, "\(subscriber.output.suffix(3))")
            #expect(daemon.stop() == 0)
            let emitted = daemon.output.compactMap { JSONLines.object($0)["seq"]?.int }
            #expect(
                subscriber.waitFor(timeout: 30) { eventSeqs($0, topic: "fleet/a/events").last == emitted.last },
                "the daemon's last event, published at shutdown")
            let received = eventSeqs(subscriber.output, topic: "fleet/a/events")
            // Lost once in a full run on a busy machine (seqs 45–64, as many as the broker's default
            // max_inflight_messages); not reproduced alone or beside busy loops. The evidence is
            // printed should it happen again: what the restarted broker and the daemon said.
            #expect(
                received == emitted,
                """
                missing: \(Set(emitted).subtracting(received).sorted()), twice: \(received.count - Set(received).count)
                broker after the restart (packets aside): \(broker.log.filter { !$0.contains("PUB") && !$0.contains("PING") }.suffix(40).joined(separator: "\n"))
                daemon: \(daemon.stderr.split(separator: "\n").filter { $0.contains("mqtt") }.joined(separator: "\n"))
                """)
        }
    }

    /// With the broker away, the queue holds the latest `queue-limit` events: older ones are dropped,
    /// counted in `stats` and said once in the log; when the broker is back the queue drains.
    @Test func aFullQueueDropsTheOldestAndSaysSo() async throws {
        try await blocking {
            let broker = try Broker()
            broker.stop()
            let scratch = try TemporaryDirectory("scannerd-mqtt-queue")
            let socket = scratch.file("s.sock")
            let daemon = try Subprocess.Running(
                scannerd, ["run", "--socket", socket, "--source", "demo", "--loop", "--types", "qr", "--mqtt", "mqtt://127.0.0.1:\(broker.port)"],
                environment: ["SCANNERD_MQTT_QUEUE_LIMIT": "3"])
            defer { _ = daemon.stop(signal: SIGKILL) }
            try #require(waitForSocket(socket), "\(daemon.stderr)")
            // The socket's file exists from its bind, a moment before the daemon listens (a connection then
            // is refused: seen once in a full run on a busy machine): try again for a few seconds.
            var connected: ScannerClientProbe?
            for _ in 0..<100 where connected == nil {
                connected = try? ScannerClientProbe(path: socket)
                if connected == nil { Thread.sleep(forTimeInterval: 0.05) }
            }
            let probe = try #require(connected, "\(daemon.stderr)")
            func mqtt() throws -> JSONValue { JSONLines.object(try probe.ask(#"{"request":"stats"}"#))["mqtt"] ?? .null }
            var stats = try mqtt()
            let deadline = Date().addingTimeInterval(30)
            while Date() < deadline, (stats["dropped"]?.int ?? 0) < 2 { stats = try mqtt() }
            #expect(stats["connected"]?.bool == false && stats["queued"]?.int == 3 && (stats["dropped"]?.int ?? 0) >= 2, "\(stats)")
            try broker.start()
            let drained = Date().addingTimeInterval(30)
            while Date() < drained, !(stats["connected"]?.bool == true && stats["queued"]?.int == 0) { stats = try mqtt() }
            #expect(stats["connected"]?.bool == true && stats["queued"]?.int == 0, "\(stats)")
            _ = daemon.stop()
            let said = daemon.stderr.split(separator: "\n").filter { $0.contains("mqtt queue full") }
            #expect(said.count == 1 && said.first?.contains("queueLimit=3") == true, "\(daemon.stderr)")
        }
    }

    @Test func refusedCredentialsGiveOneClearLinePerOutage() async throws {
        try await blocking {
            let broker = try Broker(users: ["kiosk": "right"])
            let scratch = try TemporaryDirectory("scannerd-mqtt-credentials")
            let password = try scratch.write("password", "wrong\n")
            let daemon = try Subprocess.Running(
                scannerd, ["run", "--no-socket", "--source", "demo", "--loop", "--types", "qr", "--mqtt", "mqtt://127.0.0.1:\(broker.port)"],
                environment: ["SCANNERD_MQTT_USERNAME": "kiosk", "SCANNERD_MQTT_PASSWORD_FILE": password])
            // libmosquitto retries (1 s, 2 s, …): wait until the broker has turned it away three times.
            #expect(broker.waitForLog(count: 3, "not authorised"), "\(broker.log.suffix(5))")
            _ = daemon.stop()
            let refusals = daemon.stderr.split(separator: "\n").filter { $0.contains("mqtt broker refused the connection") }
            #expect(refusals.count == 1, "\(daemon.stderr)")
            #expect(refusals.first?.contains("not authorised") == true || refusals.first?.contains("Connection Refused") == true, "\(refusals)")
            #expect(!daemon.stderr.contains("wrong"), "the password is never logged")
        }
    }
}

extension Broker {
    /// Waits until the broker's log has `count` lines containing `text`.
    func waitForLog(count: Int = 1, _ text: String, timeout: Double = 30) -> Bool {
        guard let process = processForWaiting else { return false }
        return process.waitFor(timeout: timeout) { $0.filter { $0.contains(text) }.count >= count }
    }
}

/// A "broker" that takes TCP connections and never says a word (issue #39): it accepts each one,
/// counts it and keeps it open, unread.
final class SilentBroker: @unchecked Sendable {
    let port: Int
    private let fd: Int32
    private let lock = NSLock()
    private var connections: [Int32] = []
    private var closed = false

    init() throws {
        let (listening, port) = try loopbackSocket(listening: true)
        fd = listening
        self.port = port
        let thread = Thread { [self] in
            while true {
                let connection = accept(listening, nil, nil)
                guard connection >= 0 else { return }  // closed
                lock.lock()
                if closed { Glibc.close(connection) } else { connections.append(connection) }
                lock.unlock()
            }
        }
        thread.name = "silent-broker"
        thread.start()
    }

    /// Connections taken so far.
    var accepted: Int {
        lock.lock()
        defer { lock.unlock() }
        return connections.count
    }

    func close() {
        lock.lock()
        closed = true
        let open = connections
        connections = []
        lock.unlock()
        // shutdown wakes the thread blocked in accept.
        shutdown(fd, Int32(SHUT_RDWR))
        Glibc.close(fd)
        open.forEach { Glibc.close($0) }
    }

    deinit { if !closed { close() } }
}

/// Issue #39: a broker that never answers is said, once, in the log and in `stats`, and tried again.
@Suite(.offThePool(minutes: 2)) struct SilentBrokerTests {
    let scannerd = Subprocess.executable("scannerd")

    @Test func aBrokerThatTakesTheConnectionButNeverAnswersIsSaidOnceAndTriedAgain() async throws {
        try await blocking {
            let silent = try SilentBroker()
            defer { silent.close() }
            let scratch = try TemporaryDirectory("scannerd-mqtt-silent")
            let socket = scratch.file("s.sock")
            // The default keepalive (30 s): the daemon gives up after 10 s, not after libmosquitto's 30.
            let daemon = try Subprocess.Running(
                scannerd, ["run", "--socket", socket, "--source", "demo", "--loop", "--types", "qr", "--mqtt", "mqtt://127.0.0.1:\(silent.port)"])
            defer { _ = daemon.stop(signal: SIGKILL) }
            try #require(waitForSocket(socket), "\(daemon.stderr)")
            let probe = try ScannerClientProbe(path: socket)
            func mqtt() throws -> JSONValue { JSONLines.object(try probe.ask(#"{"request":"stats"}"#))["mqtt"] ?? .null }
            var stats = try mqtt()
            let deadline = Date().addingTimeInterval(45)
            while Date() < deadline, !((stats["lastError"]?.string) != nil && silent.accepted >= 2) {
                Thread.sleep(forTimeInterval: 0.5)
                stats = try mqtt()
            }
            #expect(stats["connected"]?.bool == false)
            #expect(
                stats["lastError"]?.string == "the broker accepted the connection but did not answer (no CONNACK within 10 s)", "\(stats)")
            #expect(silent.accepted >= 2, "tried again after giving up")
            // Another give-up or two, still one line.
            let more = silent.accepted + 1
            let later = Date().addingTimeInterval(20)
            while Date() < later, silent.accepted < more { Thread.sleep(forTimeInterval: 0.5) }
            #expect(daemon.stop() == 0)
            let said = daemon.stderr.split(separator: "\n").filter { $0.contains("mqtt broker did not answer") }
            #expect(said.count == 1, "once per outage, however often retried: \(daemon.stderr)")
            #expect(said.first?.contains("no CONNACK within 10 s") == true, "\(said)")
        }
    }
}
