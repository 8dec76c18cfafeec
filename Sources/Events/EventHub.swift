import Foundation
import ScannerCore
import ScannerProtocol
import Synchronization
import Tracking

/// What a subscriber's queue delivers.
public enum Outbound: Sendable, Equatable {
    /// One JSON line (without the newline), and its event's `seq`.
    case line(String, seq: Int)
    /// The reply to one of the subscriber's requests (`EventHub.reply`), in line behind the events
    /// queued before it.
    case reply(String)
    /// The subscriber fell too far behind: tell it, then disconnect it.
    case overflow
}

/// The event bus: numbers and timestamps every event once, keeps the current items (for `hello` and
/// `items`), and fans events out to subscribers — each with a bounded queue, so a subscriber that stops
/// reading is cut off instead of holding up the pipeline or anyone else. `publish` never blocks.
public final class EventHub: Sendable {
    public static let protocolVersion = 1
    /// Bytes that may wait for one subscriber before it is cut off, whatever the count: 1024 events
    /// are ~0.5 MB; replies with photos are what this bounds (docs/security.md).
    public static let defaultByteLimit = 4 << 20

    struct Subscriber {
        var filter: EventFilter
        /// Its `repeat` rule's state (`filter.repeatPolicy`).
        var gate: RepeatGate
        var continuation: AsyncStream<Outbound>.Continuation
        /// The sizes (UTF-8 bytes) of the lines handed over but not yet acknowledged as written,
        /// oldest first: the writer acknowledges in order.
        var pending = SizeQueue()
        var limit: Int
        /// Bytes that may wait for this subscriber (a photo reply is ~1 MB; an event ~0.5 kB).
        var byteLimit: Int
        /// Lines ever handed over and ever acknowledged: a reply's ticket is its place in the first.
        var enqueued = 0
        var delivery = Delivery()
        var onCutOff: @Sendable () -> Void
    }

    struct State {
        var seq = 0
        var items: [UUID: TrackedItem] = [:]
        var sourceAvailable = false
        var paused = false
        var subscribers: [Int: Subscriber] = [:]
        var nextSubscriber = 0
        var overflows = 0
        var delivered = 0
        /// Shutting down: no new subscribers; the streams were finished.
        var closed = false
        /// The latest events, oldest first, at most `replayLimit` (`resume`).
        var recent: [Recent] = []
    }

    struct Recent {
        var seq: Int
        var line: String
        /// What filters judge it by (nil: every subscriber gets it).
        var item: RecognizedItem?
    }

    private let state = Mutex(State())
    /// Names this run of the daemon: `seq` starts again at 1 in every run, so an SSE client's
    /// `Last-Event-ID` carries this too, and one from another run gets a fresh `hello`.
    public let runID: String
    public let daemonVersion: String
    public let sourceName: String
    /// How many of the latest events are kept for subscribers that resume (`resume(after:…)`).
    public let replayLimit: Int

    /// Called with every published line, in order (the `--events-stdout` printer).
    private let mirror: @Sendable (String) -> Void
    /// Seconds, monotonic: the time `repeat` rules judge by.
    private let clock: @Sendable () -> Double

    /// Runs the removal of a subscriber whose stream ended, soon and on another thread. Not in the
    /// stream's termination handler itself: task cancellation runs that handler while it holds the
    /// consumer task's status lock, and `publish` resumes that task (`yield`) while it holds the
    /// hub's lock — taking the hub's lock in the handler inverts the order. That deadlocked the
    /// daemon under load (2026-11-22: one thread in `unsubscribe` from a cancelled client, the
    /// pipeline in `publish`; Swift's `withTaskCancellationHandler` documents the rule).
    private let later: @Sendable (@escaping @Sendable () -> Void) -> Void

    public init(
        daemonVersion: String, sourceName: String, replayLimit: Int = 0, mirror: @escaping @Sendable (String) -> Void = { _ in },
        later: @escaping @Sendable (@escaping @Sendable () -> Void) -> Void = { DispatchQueue.global().async(execute: $0) },
        clock: @escaping @Sendable () -> Double = { Double(DispatchTime.now().uptimeNanoseconds) / 1e9 },
        runID: String = EventHub.newRunID()
    ) {
        self.runID = runID
        self.clock = clock
        self.replayLimit = max(0, replayLimit)
        self.daemonVersion = daemonVersion
        self.sourceName = sourceName
        self.mirror = mirror
        self.later = later
    }

    /// Eight lowercase letters and digits, random: no two runs of a kiosk's daemon share one.
    public static func newRunID() -> String {
        let alphabet = Array("abcdefghijklmnopqrstuvwxyz0123456789")
        return String((0..<8).map { _ in alphabet.randomElement()! })
    }

    /// The current items, in reading order.
    public var items: [TrackedItem] {
        state.withLock { Array($0.items.values) }.sorted { RecognizedItem.readingOrder($0.item, $1.item) }
    }

    public var subscriberCount: Int { state.withLock { $0.subscribers.count } }
    /// Bytes queued for all subscribers together, not yet written (`stats`, the flood tests).
    public var queuedBytes: Int { state.withLock { $0.subscribers.values.reduce(0) { $0 + $1.pending.bytes } } }
    public var overflows: Int { state.withLock { $0.overflows } }
    /// Events numbered so far (the last `seq`).
    public var published: Int { state.withLock { $0.seq } }
    /// Whether recognition is paused (the last `recognition` event said so).
    public var isPaused: Bool { state.withLock { $0.paused } }

    /// Publishes a pipeline event to every subscriber whose filter accepts it; returns the JSON line.
    @discardableResult
    public func publish(_ event: ScannerEvent) -> String {
        // Finish cut-off streams after unlocking: finishing runs their termination handlers.
        let (line, cutOff) = state.withLock { state -> (String, [Subscriber]) in
            state.seq += 1
            var item: RecognizedItem? = nil
            var itemAction: TrackerAction? = nil
            let wire: Event
            switch event {
            case .sourceAvailable:
                state.sourceAvailable = true
                wire = .available
            case .sourceUnavailable(let reason):
                state.sourceAvailable = false
                wire = .unavailable(reason: reason)
            case .item(let action, let frame):
                let tracked = action.item
                switch action {
                case .added, .updated: state.items[tracked.id] = tracked
                case .removed: state.items[tracked.id] = nil
                }
                item = tracked.item
                itemAction = action
                switch action {
                case .added: wire = .added(Event.Item(tracked), frame: frame)
                case .updated: wire = .updated(Event.Item(tracked), frame: frame)
                case .removed: wire = .removed(Event.Item(tracked), frame: frame)
                }
            case .end(let frames):
                wire = .end(frames: frames)
            case .recognition(let paused):
                state.paused = paused
                wire = paused ? .paused : .resumed
            case .guidance(let change):
                wire = .guidance(change)
            }
            let line = EventLine(wire, seq: state.seq, time: Timestamp.string(Date())).encoded()
            mirror(line)
            remember(Recent(seq: state.seq, line: line, item: item), in: &state)
            let now = clock()
            return (
                line,
                Self.fanOut(line, seq: state.seq, to: &state) { subscriber in
                    guard let item, let itemAction else { return true }
                    return subscriber.filter.accepts(item) && subscriber.gate.admits(itemAction, at: now)
                }
            )
        }
        Self.finish(cutOff)
        return line
    }

    private static func finish(_ cutOff: [Subscriber]) {
        for subscriber in cutOff {
            subscriber.continuation.finish()
            subscriber.delivery.close()
            subscriber.onCutOff()
        }
    }

    /// Publishes the recognition settings now in force (`config`) to every subscriber.
    @discardableResult
    public func publish(config: Event.Configuration) -> String {
        let (line, cutOff) = state.withLock { state -> (String, [Subscriber]) in
            state.seq += 1
            let line = EventLine(.config(config), seq: state.seq, time: Timestamp.string(Date())).encoded()
            mirror(line)
            remember(Recent(seq: state.seq, line: line, item: nil), in: &state)
            return (line, Self.fanOut(line, seq: state.seq, to: &state) { _ in true })
        }
        Self.finish(cutOff)
        return line
    }

    /// Queues `line` for every subscriber whose filter `wants` it; returns those cut off because
    /// their queue was full (to be finished outside the lock).
    private func remember(_ event: Recent, in state: inout State) {
        guard replayLimit > 0 else { return }
        state.recent.append(event)
        if state.recent.count > replayLimit { state.recent.removeFirst(state.recent.count - replayLimit) }
    }

    private static func fanOut(_ line: String, seq: Int, to state: inout State, wants: (inout Subscriber) -> Bool) -> [Subscriber] {
        var cutOff: [Subscriber] = []
        for id in Array(state.subscribers.keys) {
            guard var subscriber = state.subscribers[id] else { continue }
            let wanted = wants(&subscriber)
            state.subscribers[id] = subscriber
            guard wanted else { continue }
            cutOff += enqueue(.line(line, seq: seq), for: id, in: &state)
        }
        return cutOff
    }

    /// Hands `outbound` to subscriber `id`, or cuts it off when its queue is full; returns it if cut off.
    private static func enqueue(_ outbound: Outbound, for id: Int, in state: inout State) -> [Subscriber] {
        guard let subscriber = state.subscribers[id] else { return [] }
        let size: Int
        switch outbound {
        case .line(let line, _), .reply(let line): size = line.utf8.count
        case .overflow: size = 0
        }
        // By count and by bytes; one line larger than the byte budget alone still goes to a
        // subscriber that has nothing waiting (a photo of a large frame), so no reply is undeliverable.
        let overBytes = subscriber.pending.bytes > 0 && subscriber.pending.bytes + size > subscriber.byteLimit
        if subscriber.pending.count >= subscriber.limit || overBytes {
            // Its queue is full: it stopped reading. Cut it off rather than wait for it or lose
            // events silently: it gets an overflow notice and is disconnected.
            subscriber.continuation.yield(.overflow)
            state.subscribers[id] = nil
            state.overflows += 1
            return [subscriber]
        }
        if case .terminated = subscriber.continuation.yield(outbound) {
            state.subscribers[id] = nil
            subscriber.delivery.close()
        } else {
            state.subscribers[id]?.pending.append(size)
            state.subscribers[id]?.enqueued += 1
            if case .line = outbound { state.delivered += 1 }
        }
        return []
    }

    /// A new subscriber: its `hello` (with the current items) and the stream of what follows, with no
    /// event lost or repeated in between. At most `queueLimit` lines may be outstanding: the consumer
    /// calls `acknowledge` for each line it has written out.
    /// `onCutOff` runs (outside the hub's lock) when the subscriber is cut off for falling behind: the
    /// server closes the connection then, even if the client never reads again.
    public func subscribe(
        filter: EventFilter = .all, queueLimit: Int = 1024, byteLimit: Int = EventHub.defaultByteLimit, onCutOff: @escaping @Sendable () -> Void = {}
    ) -> (id: Int, hello: String, events: AsyncStream<Outbound>) {
        let subscription = resume(after: nil, filter: filter, queueLimit: queueLimit, byteLimit: byteLimit, onCutOff: onCutOff)
        return (subscription.id, subscription.opening[0].line, subscription.events)
    }

    /// What a subscriber gets first, then the stream of what follows.
    public struct Subscription: Sendable {
        public var id: Int
        /// `hello` (its `seq`: the last event it includes), or the events after the one the
        /// subscriber last had.
        public var opening: [(seq: Int, line: String)]
        public var events: AsyncStream<Outbound>
        /// Whether `opening` is the missed events rather than a `hello`.
        public var resumed: Bool
    }

    /// A subscriber that had every event up to `seq` (an SSE client's `Last-Event-ID`): the events
    /// it missed since, when the hub still holds all of them (`replayLimit`), else a `hello` — as
    /// `subscribe` — so it starts again from the current items. Nothing is lost or repeated between
    /// the opening and the stream. A `seq` the hub never reached (a daemon restarted since) gets a
    /// `hello` too.
    public func resume(
        after seq: Int?, filter: EventFilter = .all, queueLimit: Int = 1024, byteLimit: Int = EventHub.defaultByteLimit,
        onCutOff: @escaping @Sendable () -> Void = {}
    ) -> Subscription {
        // Unbounded here because the limit is counted in `pending`: that way the overflow notice
        // itself always fits.
        let (stream, continuation) = AsyncStream<Outbound>.makeStream(bufferingPolicy: .unbounded)
        defer { if state.withLock({ $0.closed }) { continuation.finish() } }
        return state.withLock { state in
            let id = state.nextSubscriber
            state.nextSubscriber += 1
            let present = state.items.values.filter { filter.accepts($0.item) }
            state.subscribers[id] = Subscriber(
                filter: filter, gate: RepeatGate(policy: filter.repeatPolicy, present: Array(present)), continuation: continuation,
                limit: max(1, queueLimit), byteLimit: max(1, byteLimit), onCutOff: onCutOff)
            continuation.onTermination = { [weak self] _ in self?.later { [weak self] in self?.unsubscribe(id) } }
            if let seq, seq <= state.seq, seq == state.seq || (state.recent.first.map { $0.seq <= seq + 1 } ?? false) {
                let missed = state.recent.filter { $0.seq > seq && ($0.item.map(filter.accepts) ?? true) }
                return Subscription(id: id, opening: missed.map { ($0.seq, $0.line) }, events: stream, resumed: true)
            }
            let items = state.items.values.filter { filter.accepts($0.item) }.sorted { RecognizedItem.readingOrder($0.item, $1.item) }
            let hello = helloLine(items: items, available: state.sourceAvailable, paused: state.paused)
            return Subscription(id: id, opening: [(state.seq, hello)], events: stream, resumed: false)
        }
    }

    /// The subscriber wrote one line out (the oldest it was handed): one more may be queued for it.
    public func acknowledge(_ id: Int) {
        let progress = state.withLock { state -> (Delivery, Int)? in
            guard var subscriber = state.subscribers[id], subscriber.pending.count > 0 else { return nil }
            subscriber.pending.removeFirst()
            state.subscribers[id] = subscriber
            return (subscriber.delivery, subscriber.enqueued - subscriber.pending.count)
        }
        // Outside the hub's lock: resuming a waiter must not happen under it.
        if let (delivery, written) = progress { delivery.advance(to: written) }
    }

    /// Queues the reply to a subscriber's request behind the events already queued for it, instead
    /// of its connection writing it at once: a reply written at once could overtake events queued
    /// under the old filter, so a client that had just been told `ok` to a `subscribe` would still
    /// get an item the new filter excludes (seen: `scanctl wait --types telephoneNumber` printed the
    /// demo's QR code). In line, everything after the reply was queued under the new filter. A
    /// reply counts against the queue's limit like an event: a client that sends requests and
    /// reads nothing is cut off, not buffered for. False when the subscriber is gone or cut off.
    @discardableResult
    public func reply(_ line: String, to id: Int) -> Bool {
        queue(reply: line, to: id) != nil
    }

    /// As `reply`, then waits until the connection has written it out (or the subscriber is gone,
    /// or the caller is cancelled). A transport that reads its client's next request only after
    /// this holds at most one reply for a client that stops reading: a photo (~1 MB at 720p) per
    /// client, never a queue of them. False when the subscriber is gone or cut off.
    public func replyAndWait(_ line: String, to id: Int) async -> Bool {
        guard let (delivery, ticket) = queue(reply: line, to: id) else { return false }
        await delivery.wait(for: ticket)
        return state.withLock { $0.subscribers[id] != nil }
    }

    private func queue(reply line: String, to id: Int) -> (Delivery, Int)? {
        let (queued, cutOff) = state.withLock { state -> ((Delivery, Int)?, [Subscriber]) in
            let cutOff = Self.enqueue(.reply(line), for: id, in: &state)
            return (state.subscribers[id].map { ($0.delivery, $0.enqueued) }, cutOff)
        }
        Self.finish(cutOff)
        return queued
    }

    /// Changes what a subscriber hears from now on.
    public func setFilter(_ filter: EventFilter, for id: Int) {
        state.withLock { state in
            guard state.subscribers[id] != nil else { return }
            // A new `repeat` rule starts from what is in view now, which the subscriber has.
            if state.subscribers[id]?.filter.repeatPolicy != filter.repeatPolicy {
                state.subscribers[id]?.gate = RepeatGate(
                    policy: filter.repeatPolicy, present: Array(state.items.values.filter { filter.accepts($0.item) }))
            }
            state.subscribers[id]?.filter = filter
        }
    }

    /// Shutdown: every subscriber's stream ends after the lines already queued for it (the final
    /// `removed` and `end` events), so the server can flush them before closing; later subscribers get
    /// their `hello` and nothing more.
    public func finishSubscribers() {
        let subscribers = state.withLock { state -> [Subscriber] in
            state.closed = true
            return Array(state.subscribers.values)
        }
        for subscriber in subscribers {
            subscriber.continuation.finish()
            subscriber.delivery.close()
        }
    }

    public func unsubscribe(_ id: Int) {
        let subscriber = state.withLock { $0.subscribers.removeValue(forKey: id) }
        subscriber?.continuation.finish()
        subscriber?.delivery.close()
    }

    /// The `hello` object for stdout (no subscriber).
    public func hello() -> String {
        state.withLock { helloLine(items: Array($0.items.values), available: $0.sourceAvailable, paused: $0.paused) }
    }

    private func helloLine(items: [TrackedItem], available: Bool, paused: Bool) -> String {
        let hello = Event.Hello(
            version: Self.protocolVersion, daemon: daemonVersion, source: sourceName, cameraAvailable: available, paused: paused,
            items: items.map(Event.Item.init))
        return EventLine(.hello(hello), time: Timestamp.string(Date())).encoded()
    }
}

extension Event.Item {
    /// A tracked item as the wire carries it.
    public init(_ tracked: TrackedItem) {
        self.init(tracked.item, id: tracked.id, firstFrame: tracked.firstFrame, lastFrame: tracked.lastFrame)
    }
}
