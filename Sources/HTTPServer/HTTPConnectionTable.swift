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
///   connections arrive; only streams and requests being answered are never taken over;
/// - an idle connection is closed after `idleTimeout`; one that started a request and has not
///   finished sending it after `requestTimeout` is closed too (a slowloris client); one whose
///   answer has not been taken after `responseTimeout` is closed (a client that asks and never
///   reads would otherwise hold its slot, and the answer, for ever). Streams have no timeout: they
///   are cut off by their queues.
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

        public init(maximum: Int, idleTimeout: Double, requestTimeout: Double, responseTimeout: Double = 60) {
            self.maximum = maximum
            self.idleTimeout = idleTimeout
            self.requestTimeout = requestTimeout
            self.responseTimeout = responseTimeout
        }
    }

    public enum Admission: Sendable, Equatable {
        case admit
        /// Admitted in place of this connection, which is to be closed.
        case admitClosing(Int)
        case refuse
    }

    struct Entry: Sendable, Equatable {
        var phase: Phase
        var since: Double
    }

    public let limits: Limits
    private(set) var entries: [Int: Entry] = [:]

    public init(limits: Limits) {
        self.limits = limits
    }

    public var count: Int { entries.count }

    public func phase(of id: Int) -> Phase? { entries[id]?.phase }

    public mutating func open(_ id: Int, at now: Double) -> Admission {
        guard entries.count >= max(1, limits.maximum) else {
            entries[id] = Entry(phase: .idle, since: now)
            return .admit
        }
        // The one waiting longest; the id breaks ties so the choice does not depend on hashing.
        let waiting = entries.filter { $0.value.phase == .idle || $0.value.phase == .reading }
        guard let oldest = waiting.min(by: { ($0.value.since, $0.key) < ($1.value.since, $1.key) })?.key else { return .refuse }
        entries[oldest] = nil
        entries[id] = Entry(phase: .idle, since: now)
        return .admitClosing(oldest)
    }

    /// The connection moved on. A stream stays a stream; staying in a phase keeps its start.
    public mutating func enter(_ phase: Phase, _ id: Int, at now: Double) {
        guard let entry = entries[id], entry.phase != .stream, entry.phase != phase else { return }
        entries[id] = Entry(phase: phase, since: now)
    }

    public mutating func close(_ id: Int) {
        entries[id] = nil
    }

    /// The connections to close now: idle past `idleTimeout`, still sending a request past
    /// `requestTimeout`, or still being answered past `responseTimeout`.
    public func expired(at now: Double) -> [Int] {
        entries.compactMap { id, entry in
            switch entry.phase {
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
