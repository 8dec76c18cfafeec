/// The HTTP port's connections as a pure state machine: what each is doing and since when in,
/// which to admit, which to close out (docs/security.md, "HTTP").
///
/// A connection is opened before anything about its client is known: the token, the Host, even
/// whether it will ever send a request. So the port is bounded the way nginx bounds it, not by who
/// connects:
/// - at most `maximum` connections are held (they count against the descriptor budget together
///   with the socket's clients, whose reserved control slots they never take);
/// - when all are held, the connection that has waited longest for a request (idle, or still
///   sending one) is closed to make room: a new `/items` is served even while thousands of idle
///   connections arrive; with none of those, the answer or stream whose client has taken no byte
///   for longest, at least `stalledAfter` (bytes waiting for it): a new `/items` is served even
///   while every slot holds a photo its client never reads. An answer or stream that is being
///   taken is never closed for a new connection;
/// - with none of those either (every slot holds an answer still being made: a burst of photo
///   requests waiting for the next frame), the new connection waits, unread, in a room of
///   `waitingRoom` for up to `admissionTimeout`, and is admitted as soon as a slot frees or a
///   candidate appears (`promote`); past the room, or the timeout, it is closed;
/// - an idle connection is closed after `idleTimeout`; one that started a request and has not
///   finished sending it after `requestTimeout` is closed too (a slowloris client); one whose
///   client has taken no byte of what waits for it for `sendTimeout` is closed (nginx's
///   `send_timeout`: progress, not patience), a stream too; an answer not wholly taken after
///   `responseTimeout` is closed however slowly it goes (the outer bound). Streams have no other
///   timeout: they are cut off by their queues.
public struct HTTPConnectionTable: Sendable {
    public enum Phase: Sendable, Equatable {
        /// Waiting for a request (just opened, or between keep-alive requests).
        case idle
        /// A request has begun arriving and is not complete.
        case reading
        /// A request is being answered (the answer may wait on a client that does not read it).
        case responding
        /// An event stream or a WebSocket: counted as a stream (`maximumStreams`), never timed out.
        case stream
    }

    public struct Limits: Sendable, Equatable {
        public var maximum: Int
        /// Seconds.
        public var idleTimeout: Double
        public var requestTimeout: Double
        public var responseTimeout: Double
        public var sendTimeout: Double
        /// An answer or stream whose client has taken nothing for this long may be closed for a new
        /// connection: one just handed to the kernel is not (its first bytes are on their way).
        public var stalledAfter: Double
        /// Connections that may wait to be admitted, beyond `maximum`, and for how long.
        public var waitingRoom: Int
        public var admissionTimeout: Double

        public init(
            maximum: Int, idleTimeout: Double, requestTimeout: Double, responseTimeout: Double = 60, sendTimeout: Double = 10,
            stalledAfter: Double = 1, waitingRoom: Int = 16, admissionTimeout: Double = 5
        ) {
            self.maximum = maximum
            self.stalledAfter = stalledAfter
            self.waitingRoom = waitingRoom
            self.admissionTimeout = admissionTimeout
            self.sendTimeout = sendTimeout
            self.idleTimeout = idleTimeout
            self.requestTimeout = requestTimeout
            self.responseTimeout = responseTimeout
        }
    }

    public enum Admission: Sendable, Equatable {
        case admit
        /// Admitted in place of this connection, which is to be closed.
        case admitClosing(Int)
        /// Not yet: in the waiting room (`promote`).
        case wait
        case refuse
    }

    /// What `promote` decided for a connection in the waiting room.
    public enum Promotion: Sendable, Equatable {
        case admit(Int)
        /// Admitted in place of the second, which is to be closed.
        case admitClosing(Int, Int)
        /// Waited `admissionTimeout` in vain: to be closed.
        case refuse(Int)
    }

    struct Entry: Sendable, Equatable {
        var phase: Phase
        var since: Double
        /// Bytes wait for the client, which has taken none of them since then; nil when none wait.
        var waitingSince: Double?
    }

    public let limits: Limits
    private(set) var entries: [Int: Entry] = [:]
    /// The waiting room, first come first: each connection's id and when it came.
    private(set) var room: [(id: Int, since: Double)] = []

    public init(limits: Limits) {
        self.limits = limits
    }

    public var count: Int { entries.count }

    public func phase(of id: Int) -> Phase? { entries[id]?.phase }

    public mutating func open(_ id: Int, at now: Double) -> Admission {
        if let admission = admit(id, at: now) { return admission }
        guard room.count < limits.waitingRoom else { return .refuse }
        room.append((id, now))
        return .wait
    }

    /// `id` admitted now (nil: no slot and no candidate to close for it, `sparing` aside).
    private mutating func admit(_ id: Int, at now: Double, sparing: Set<Int> = []) -> Admission? {
        guard entries.count >= max(1, limits.maximum) else {
            entries[id] = Entry(phase: .idle, since: now)
            return .admit
        }
        guard let candidate = candidate(at: now, sparing: sparing) else { return nil }
        entries[candidate] = nil
        entries[id] = Entry(phase: .idle, since: now)
        return .admitClosing(candidate)
    }

    /// The connection to close for a new one: the one waiting longest for a request, else the one
    /// whose client has taken no byte for longest, at least `stalledAfter`; the id breaks ties so
    /// the choice does not depend on hashing.
    private func candidate(at now: Double, sparing: Set<Int>) -> Int? {
        let requests = entries.filter { ($0.value.phase == .idle || $0.value.phase == .reading) && !sparing.contains($0.key) }
        if let oldest = requests.min(by: { ($0.value.since, $0.key) < ($1.value.since, $1.key) }) { return oldest.key }
        let stalled = entries.compactMap { id, entry in
            entry.waitingSince.flatMap { now - $0 >= limits.stalledAfter ? (since: $0, id: id) : nil }
        }
        return stalled.min(by: { ($0.since, $0.id) < ($1.since, $1.id) })?.id
    }

    /// The waiting room, first come first, admitted where a slot is free or a candidate has
    /// appeared since, and refused past `admissionTimeout`.
    public mutating func promote(at now: Double) -> [Promotion] {
        var promotions: [Promotion] = []
        // Not one admitted in this round: it has not had the time to send its request.
        var admitted: Set<Int> = []
        admitting: while let first = room.first {
            if now - first.since >= limits.admissionTimeout {
                promotions.append(.refuse(first.id))
            } else {
                switch admit(first.id, at: now, sparing: admitted) {
                case .admitClosing(let old)?: promotions.append(.admitClosing(first.id, old))
                case .some: promotions.append(.admit(first.id))
                case nil: break admitting
                }
                admitted.insert(first.id)
            }
            room.removeFirst()
        }
        // Behind one still waiting, those whose time is up.
        room.removeAll { entry in
            guard now - entry.since >= limits.admissionTimeout else { return false }
            promotions.append(.refuse(entry.id))
            return true
        }
        return promotions
    }

    /// Connections in the waiting room.
    public var waitingCount: Int { room.count }

    /// The connection moved on. A stream stays a stream; staying in a phase keeps its start.
    public mutating func enter(_ phase: Phase, _ id: Int, at now: Double) {
        guard let entry = entries[id], entry.phase != .stream, entry.phase != phase else { return }
        entries[id] = Entry(phase: phase, since: now, waitingSince: entry.waitingSince)
    }

    /// Bytes were handed over for the client: its clock starts unless some were waiting already.
    public mutating func sending(_ id: Int, at now: Double) {
        guard entries[id] != nil, entries[id]?.waitingSince == nil else { return }
        entries[id]?.waitingSince = now
    }

    /// The client took bytes (they reached the kernel): its clock starts again, or stops when
    /// nothing more waits.
    public mutating func sent(_ id: Int, drained: Bool, at now: Double) {
        guard entries[id] != nil else { return }
        entries[id]?.waitingSince = drained ? nil : now
    }

    public mutating func close(_ id: Int) {
        entries[id] = nil
        room.removeAll { $0.id == id }
    }

    /// The connections to close now: idle past `idleTimeout`, still sending a request past
    /// `requestTimeout`, still being answered past `responseTimeout`, or with bytes waiting that
    /// the client has not taken for `sendTimeout`.
    public func expired(at now: Double) -> [Int] {
        entries.compactMap { id, entry in
            if let waiting = entry.waitingSince, now - waiting >= limits.sendTimeout { return id }
            return switch entry.phase {
            case .idle: now - entry.since >= limits.idleTimeout ? id : nil
            case .reading: now - entry.since >= limits.requestTimeout ? id : nil
            case .responding: now - entry.since >= limits.responseTimeout ? id : nil
            case .stream: nil
            }
        }.sorted()
    }
}

/// Whether every frame a WebSocket client sends is masked (RFC 6455 §5.1: a server must close the
/// connection on an unmasked one; a client that does not mask is not a browser, and an unmasked
/// frame through a proxy is how cache poisoning works). Fed the raw bytes as they arrive; reads
/// only frame headers and skips payloads.
struct ClientFrameCheck: Sendable {
    private var header: [UInt8] = []
    private var skip: UInt64 = 0

    /// False at the first frame without a mask.
    mutating func feed(_ bytes: some Collection<UInt8>) -> Bool {
        var index = bytes.startIndex
        while index != bytes.endIndex {
            if skip > 0 {
                let n = Int(min(UInt64(bytes.distance(from: index, to: bytes.endIndex)), skip))
                index = bytes.index(index, offsetBy: n)
                skip -= UInt64(n)
                continue
            }
            header.append(bytes[index])
            index = bytes.index(after: index)
            guard header.count >= 2 else { continue }
            guard header[1] & 0x80 != 0 else { return false }
            let short = header[1] & 0x7F
            let extended = short == 126 ? 2 : short == 127 ? 8 : 0
            guard header.count == 2 + extended + 4 else { continue }
            skip = extended == 0 ? UInt64(short) : header[2..<(2 + extended)].reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
            header = []
        }
        return true
    }
}
