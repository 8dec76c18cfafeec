import Events
import Foundation
import Logging
import ScannerCore
import ScannerProtocol
import Synchronization

/// Publishes the event hub to an MQTT broker (docs/mqtt.md): every event on `TOPIC/events`, the
/// current items retained on `TOPIC/items`, `online`/`offline` retained on `TOPIC/status` (the
/// latter also as the last will, so a dashboard learns of a kiosk that died).
///
/// The pipeline never waits for the broker: events go into a bounded queue (`PublishQueue`, the
/// oldest dropped and counted when full) and a thread of this publisher's own hands them to
/// libmosquitto while connected, in order. libmosquitto keeps what the broker has not acknowledged
/// and sends it again after a reconnect (a persistent session, QoS 1), so a subscriber with a
/// persistent session sees every `seq`.
public final class MQTTPublisher: @unchecked Sendable {
    struct State {
        var queue: PublishQueue<(seq: Int, line: String)>
        var connected = false
        var unacknowledged = 0
        var published = 0
        var lastError: String?
        /// The outage's error was logged (one line per outage, not one per retry).
        var errorLogged = false
        var itemsDue = false
        var statusDue = false
        var stopping = false
        /// Connected at least once (from then on libmosquitto reconnects by itself).
        var everConnected = false
        /// Whether a connection the broker took owes its CONNACK for too long.
        var connack: ConnackWatch
    }

    public let configuration: MQTTConfiguration
    let hub: EventHub
    let logger: Logger
    private let client: MosquittoClient
    private let state: Mutex<State>
    private let wake = NSCondition()
    private let statusFields: [(String, JSONValue)]
    /// At most this many messages are with libmosquitto unacknowledged; the rest wait in the queue
    /// (bounded, and counted in `stats`).
    static let maximumUnacknowledged = 100

    public init(configuration: MQTTConfiguration, hub: EventHub, logger: Logger, daemonVersion: String) throws(MQTTError) {
        self.configuration = configuration
        self.hub = hub
        self.logger = logger
        // The configuration refuses such a prefix already; a publisher made otherwise refuses it too
        // (libmosquitto would take a `$SYS/…` prefix, and the broker drop every event).
        if let problem = MQTTNames.topicProblem(configuration.topic) { throw MQTTError("topic '\(configuration.topic)': \(problem)") }
        state = Mutex(
            State(
                queue: PublishQueue(limit: configuration.queueLimit),
                connack: ConnackWatch(limit: ConnackWatch.limit(keepalive: configuration.keepalive))))
        statusFields = [("daemon", .string(daemonVersion)), ("source", .string(hub.sourceName)), ("client", .string(configuration.clientID))]
        client = try MosquittoClient(clientID: configuration.clientID, cleanSession: false)
        try client.setWill(topic: topic("status"), payload: status("offline"), qos: 1, retain: true)
        if let username = configuration.username { try client.setCredentials(username: username, password: configuration.password) }
        if configuration.tls { try client.setTLS(caFile: configuration.caFile) }
        client.callbacks.connected = { [weak self] result, reason in self?.connected(result: result, reason: reason) }
        client.callbacks.disconnected = { [weak self] result in self?.disconnected(result: result) }
        client.callbacks.published = { [weak self] _ in
            self?.state.withLock { $0.unacknowledged = max(0, $0.unacknowledged - 1) }
            self?.signal()
        }
    }

    func topic(_ leaf: String) -> String { configuration.topic + "/" + leaf }

    func status(_ state: String) -> String {
        JSONValue.object([("state", .string(state))] + statusFields + [("time", .string(Timestamp.string(Date())))]).serialized()
    }

    /// The publisher's state as the `stats` reply carries it.
    public var statistics: StatsReply.MQTT {
        state.withLock {
            StatsReply.MQTT(
                connected: $0.connected, queued: $0.queue.count, unacknowledged: $0.unacknowledged, published: $0.published,
                dropped: $0.queue.dropped, lastError: $0.lastError)
        }
    }

    /// Runs until `stop()`: subscribes to the hub and publishes what it hears.
    public func run() async throws {
        let (id, _, events) = hub.subscribe(queueLimit: Int.max / 2)
        defer { hub.unsubscribe(id) }
        if !(try client.start(host: configuration.host, port: configuration.port, keepalive: configuration.keepalive)) {
            state.withLock { $0.lastError = "cannot reach the broker" }
            logger.warning("mqtt broker not reachable; retrying", metadata: ["broker": "\(configuration.host):\(configuration.port)"])
        }
        let worker = Thread { [self] in publishLoop() }
        worker.name = "scannerd-mqtt"
        worker.start()
        for await outbound in events {
            guard case .line(let line, let seq) = outbound else { continue }
            let dropped = state.withLock { state -> Bool in
                let dropped = state.queue.enqueue((seq, line)) != nil
                state.itemsDue = true
                return dropped
            }
            if dropped, state.withLock({ $0.queue.dropped }) == 1 {
                logger.warning("mqtt queue full: dropping the oldest events", metadata: ["queueLimit": "\(configuration.queueLimit)"])
            }
            hub.acknowledge(id)
            signal()
        }
    }

    /// Graceful stop: what is queued is handed over for up to `timeout` while connected, then
    /// `offline` is published and the client disconnects.
    public func stop(timeout: Duration = .seconds(2)) {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline, state.withLock({ $0.connected && (!$0.queue.isEmpty || $0.unacknowledged > 0) }) {
            signal()
            Thread.sleep(forTimeInterval: 0.02)
        }
        state.withLock { $0.stopping = true }
        signal()
        if state.withLock({ $0.connected }) {
            _ = try? client.publish(topic: topic("status"), payload: status("offline"), qos: 1, retain: true)
            Thread.sleep(forTimeInterval: 0.1)
        }
        client.stop()
    }

    private func signal() {
        wake.lock()
        wake.broadcast()
        wake.unlock()
    }

    private func connected(result: Int32, reason: String) {
        // On libmosquitto's thread: the socket is the one this CONNACK came on.
        let connection = client.establishedConnection
        state.withLock { $0.connack.answered(on: connection) }
        guard result == 0 else {
            // Refused (bad credentials, not authorized): once per outage in the log, however often retried.
            let first = state.withLock { state -> Bool in
                state.lastError = "broker refused the connection: \(reason)"
                defer { state.errorLogged = true }
                return !state.errorLogged
            }
            if first {
                logger.error(
                    "mqtt broker refused the connection", metadata: ["broker": "\(configuration.host):\(configuration.port)", "reason": "\(reason)"])
            }
            return
        }
        state.withLock { state in
            state.connected = true
            state.everConnected = true
            state.errorLogged = false
            state.lastError = nil
            state.statusDue = true
            state.itemsDue = true
        }
        logger.notice("mqtt connected", metadata: ["broker": "\(configuration.host):\(configuration.port)", "topic": "\(configuration.topic)"])
        signal()
    }

    private func disconnected(result: Int32) {
        let (lost, neverAnswered) = state.withLock { state -> (Bool, Bool) in
            let wasConnected = state.connected
            state.connected = false
            if result != 0, wasConnected { state.lastError = "connection lost" }
            // libmosquitto gave up on a connection itself, a keepalive after it was made, with no
            // CONNACK yet (a keepalive shorter than `ConnackWatch`'s limit): the same finding.
            let silent = !wasConnected && result == MosquittoClient.keepaliveExpired && !state.stopping
            return (wasConnected && result != 0 && !state.stopping, silent)
        }
        if lost { logger.warning("mqtt connection lost; reconnecting", metadata: ["broker": "\(configuration.host):\(configuration.port)"]) }
        if neverAnswered { unanswered() }
    }

    /// The broker took the connection and did not answer in time: in `stats` until a connection is
    /// accepted, in the log once per outage, however often it happens again.
    private func unanswered() {
        let limit = state.withLock { $0.connack.limit }
        let seconds = limit == limit.rounded() ? String(Int(limit)) : String(limit)
        let reason = "the broker accepted the connection but did not answer (no CONNACK within \(seconds) s)"
        let first = state.withLock { state -> Bool in
            state.lastError = reason
            defer { state.errorLogged = true }
            return !state.errorLogged
        }
        if first {
            logger.warning(
                "mqtt broker did not answer; retrying", metadata: ["broker": "\(configuration.host):\(configuration.port)", "reason": "\(reason)"])
        }
    }

    /// Gives up a connection the broker took but has not answered within `ConnackWatch.limit`, says
    /// so, and connects again. Called about once a second while not connected.
    private func watchConnack() {
        guard !state.withLock({ $0.connected || $0.stopping }) else { return }
        let connection = client.establishedConnection
        let now = Double(Heartbeat.monotonicNanoseconds()) / 1e9
        guard state.withLock({ $0.connack.observe(connection, now: now) }) else { return }
        unanswered()
        client.retry()
    }

    /// The publisher's thread: status first after each connect, then events in order, then the items
    /// (coalesced: once per wake-up, however many item events came).
    private func publishLoop() {
        // Until the first connection: this thread tries again, 1 s then doubling up to 30 s.
        var retryDelay = 1.0
        var nextRetry = Date().addingTimeInterval(retryDelay)
        while true {
            wake.lock()
            while !state.withLock({ s in
                s.stopping || (s.connected && (s.statusDue || s.itemsDue || (!s.queue.isEmpty && s.unacknowledged < Self.maximumUnacknowledged)))
            }) {
                let retrying = !state.withLock { $0.everConnected || $0.stopping }
                _ = wake.wait(until: retrying ? min(nextRetry, Date().addingTimeInterval(1)) : Date().addingTimeInterval(1))
                // Not holding the lock while libmosquitto reconnects (it resolves the broker's name):
                // the callbacks' `signal()` must not wait for it. The condition is checked again below.
                wake.unlock()
                watchConnack()
                // A connection the broker took is left to `ConnackWatch`: connecting again would only
                // cut its answer short (a slow TLS handshake), and reset libmosquitto's keepalive.
                if retrying, Date() >= nextRetry, client.establishedConnection == nil {
                    client.retry()
                    retryDelay = min(30, retryDelay * 2)
                    nextRetry = Date().addingTimeInterval(retryDelay)
                }
                wake.lock()
            }
            wake.unlock()
            if state.withLock({ $0.stopping }) { return }
            if state.withLock({ s in
                defer { s.statusDue = false }
                return s.statusDue
            }) {
                send(topic("status"), status("online"), retain: true)
            }
            // Taken out of the queue only once libmosquitto has it: a publish refused (the connection
            // just went) leaves the event first in line.
            while let next = state.withLock({ s -> (seq: Int, line: String)? in
                guard s.connected, s.unacknowledged < Self.maximumUnacknowledged else { return nil }
                return s.queue.first
            }) {
                guard send(topic("events"), next.line, retain: false, qos: configuration.qos) else { break }
                state.withLock { s in
                    // Unless the queue, full meanwhile, dropped it as the oldest.
                    if s.queue.first?.seq == next.seq { _ = s.queue.dequeue() }
                }
            }
            if state.withLock({ s in
                defer { s.itemsDue = false }
                return s.itemsDue
            }) {
                let items = JSONValue.object([("items", .array(hub.items.map { Event.Item($0).json }))]).serialized()
                send(topic("items"), items, retain: true)
            }
        }
    }

    @discardableResult
    private func send(_ topic: String, _ payload: String, retain: Bool, qos: Int = 1) -> Bool {
        // Counted before it is handed over: the broker's acknowledgement may come back first.
        if qos > 0 { state.withLock { $0.unacknowledged += 1 } }
        do {
            _ = try client.publish(topic: topic, payload: payload, qos: qos, retain: retain)
            state.withLock { $0.published += 1 }
            return true
        } catch {
            state.withLock { s in
                if qos > 0 { s.unacknowledged -= 1 }
                s.lastError = error.description
            }
            return false
        }
    }
}
