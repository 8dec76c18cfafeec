/// The rule for a broker that takes the TCP connection and never answers it (issue #39): once a
/// connection to the broker is made, the broker has `limit` seconds to send its CONNACK (accepting
/// or refusing). Past that the connection is given up — said once per outage, in `stats` as
/// `lastError`, and tried again — instead of waiting silently for libmosquitto's keepalive, which a
/// retry resets before it ever runs out.
///
/// A pure value: the publisher tells it what it sees (the established connection, or none; a
/// CONNACK) with the time from its clock, so every rule is a unit test. Connections are told apart
/// by a number that differs between them (`MosquittoClient.establishedConnection`).
public struct ConnackWatch: Sendable, Equatable {
    /// Seconds a broker has to answer: 10 — a CONNACK takes milliseconds, a loaded broker or a TLS
    /// handshake over a slow link a few seconds — or the keepalive when that is shorter
    /// (libmosquitto itself closes an unanswered connection after one keepalive).
    public static func limit(keepalive: Int) -> Double { min(10, Double(max(1, keepalive))) }

    public let limit: Double
    /// The connection that owes its CONNACK, and since when.
    public private(set) var waiting: Waiting?
    /// The last connection a CONNACK came on (it may come before the connection is first seen).
    private var answered: Int?
    /// The last connection given up on (given up once).
    private var givenUp: Int?

    public struct Waiting: Sendable, Equatable {
        public var connection: Int
        public var since: Double
    }

    public init(limit: Double) {
        self.limit = limit
    }

    /// A CONNACK came on `connection` (accepted or refused: either way the broker answered).
    public mutating func answered(on connection: Int?) {
        answered = connection
        if waiting?.connection == connection { waiting = nil }
    }

    /// What the publisher sees at `now` (seconds): the established connection, or nil (none, or one
    /// still being made). True once for a connection that has owed its CONNACK for `limit` seconds:
    /// give it up and say so.
    public mutating func observe(_ connection: Int?, now: Double) -> Bool {
        guard let connection, connection != answered, connection != givenUp else {
            waiting = nil
            return false
        }
        guard let waiting, waiting.connection == connection else {
            self.waiting = Waiting(connection: connection, since: now)
            return false
        }
        guard now - waiting.since >= limit else { return false }
        self.waiting = nil
        givenUp = connection
        return true
    }
}
