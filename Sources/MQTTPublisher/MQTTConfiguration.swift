/// Where and how to publish (config section `mqtt`, docs/mqtt.md).
public struct MQTTConfiguration: Sendable, Equatable {
    public var host: String
    public var port: Int
    /// `mqtts://`: TLS, verified against `caFile` (or the system's certificates).
    public var tls: Bool
    /// Topics are `topic/events`, `topic/status` and `topic/items`.
    public var topic: String
    public var clientID: String
    public var username: String?
    public var password: String?
    public var caFile: String?
    /// Seconds between pings when idle; the broker declares the daemon gone (and publishes its will,
    /// `offline`) after 1.5 times this without a word.
    public var keepalive: Int
    public var qos: Int
    public var queueLimit: Int

    public init(
        host: String, port: Int, tls: Bool = false, topic: String, clientID: String, username: String? = nil, password: String? = nil,
        caFile: String? = nil, keepalive: Int = 30, qos: Int = 1, queueLimit: Int = 10_000
    ) {
        self.host = host
        self.port = port
        self.tls = tls
        self.topic = topic
        self.clientID = clientID
        self.username = username
        self.password = password
        self.caFile = caFile
        self.keepalive = keepalive
        self.qos = qos
        self.queueLimit = queueLimit
    }
}
