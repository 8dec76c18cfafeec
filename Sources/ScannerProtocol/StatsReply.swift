import ScannerCore

/// The `stats` reply's figures (docs/protocol.md), typed, with the one home of their wire names: the
/// daemon's parts fill them in (`DaemonStatistics`: the source and the stages; the MQTT publisher;
/// the request handler: the event hub's), and `fields` is what the reply carries after `ok`.
public struct StatsReply: Sendable, Equatable {
    /// The source's frames since the start.
    public struct Capture: Sendable, Equatable {
        public var source: String
        public var available: Bool
        /// Every frame the source took: decoded ones, ones dropped for a newer frame, ones skipped
        /// undecoded while the scene is still, and corrupt ones.
        public var frames: Int
        public var decoded: Int
        public var dropped: Int
        public var idleSkipped: Int
        public var corrupt: Int
        public var reconnects: Int
        public var fps: Double

        public init(
            source: String, available: Bool, frames: Int, decoded: Int, dropped: Int, idleSkipped: Int, corrupt: Int, reconnects: Int,
            fps: Double
        ) {
            (self.source, self.available, self.frames, self.decoded) = (source, available, frames, decoded)
            (self.dropped, self.idleSkipped, self.corrupt, self.reconnects, self.fps) = (dropped, idleSkipped, corrupt, reconnects, fps)
        }
    }

    /// One stage's runs: how many since the start (real recognizer runs, not reused results), how
    /// many a second lately, and how long they took (ms; nil before the first).
    public struct Stage: Sendable, Equatable {
        public var runs: Int
        public var perSecond: Double
        public var latencyP50: Double?
        public var latencyP99: Double?

        public init(runs: Int, perSecond: Double, latencyP50: Double?, latencyP99: Double?) {
            (self.runs, self.perSecond, self.latencyP50, self.latencyP99) = (runs, perSecond, latencyP50, latencyP99)
        }
    }

    /// What the source and the pipeline measured.
    public struct Daemon: Sendable, Equatable {
        /// Seconds since the start.
        public var uptime: Double
        public var capture: Capture
        /// Barcode scans, and those zxing-cpp failed on.
        public var barcodes: Stage
        public var barcodeFailures: Int
        /// Text passes; the lines the detector or the recognizers failed on; why the text networks
        /// did not load, when Tesseract reads instead.
        public var text: Stage
        public var detectionFailures: Int
        public var readFailures: Int
        public var textModelFailure: String?
        /// The document stage's looks (none unless `document` is asked for).
        public var documents: Stage

        public init(
            uptime: Double, capture: Capture, barcodes: Stage, barcodeFailures: Int, text: Stage, detectionFailures: Int, readFailures: Int,
            textModelFailure: String?, documents: Stage
        ) {
            (self.uptime, self.capture, self.barcodes, self.barcodeFailures) = (uptime, capture, barcodes, barcodeFailures)
            (self.text, self.detectionFailures, self.readFailures) = (text, detectionFailures, readFailures)
            (self.textModelFailure, self.documents) = (textModelFailure, documents)
        }
    }

    /// The MQTT publisher's state, when MQTT is configured.
    public struct MQTT: Sendable, Equatable {
        public var connected: Bool
        /// Waiting in the queue, not yet handed to libmosquitto.
        public var queued: Int
        /// Handed to libmosquitto and not yet acknowledged by the broker.
        public var unacknowledged: Int
        public var published: Int
        public var dropped: Int
        public var lastError: String?

        public init(connected: Bool, queued: Int, unacknowledged: Int, published: Int, dropped: Int, lastError: String?) {
            (self.connected, self.queued, self.unacknowledged) = (connected, queued, unacknowledged)
            (self.published, self.dropped, self.lastError) = (published, dropped, lastError)
        }
    }

    /// The event hub's: items live, clients subscribed, clients cut off for falling behind, events
    /// published, and bytes waiting for all clients together (what the per-client budgets bound).
    public struct Events: Sendable, Equatable {
        public var items: Int
        public var clients: Int
        public var overflows: Int
        public var published: Int
        public var queuedBytes: Int

        public init(items: Int = 0, clients: Int = 0, overflows: Int = 0, published: Int = 0, queuedBytes: Int = 0) {
            (self.items, self.clients, self.overflows, self.published, self.queuedBytes) = (items, clients, overflows, published, queuedBytes)
        }
    }

    /// Nil in a request handler with no pipeline behind it (tests).
    public var daemon: Daemon?
    public var mqtt: MQTT?
    public var events: Events

    public init(daemon: Daemon? = nil, mqtt: MQTT? = nil, events: Events = Events()) {
        self.daemon = daemon
        self.mqtt = mqtt
        self.events = events
    }

    /// The reply's fields after `ok`, in the documented order.
    public var fields: [(String, JSONValue)] {
        func milliseconds(_ value: Double?) -> JSONValue { value.map { .number($0, decimals: 2) } ?? .null }
        func stage(_ s: Stage, runs: String, _ more: [(String, JSONValue)] = []) -> JSONValue {
            .object(
                [
                    (runs, .integer(s.runs)), ("perSecond", .number(s.perSecond, decimals: 2)), ("latencyP50", milliseconds(s.latencyP50)),
                    ("latencyP99", milliseconds(s.latencyP99)),
                ] + more)
        }
        var fields: [(String, JSONValue)] = []
        if let d = daemon {
            let c = d.capture
            fields += [
                ("uptime", .number(d.uptime, decimals: 1)),
                (
                    "capture",
                    .object([
                        ("source", .string(c.source)), ("available", .bool(c.available)), ("frames", .integer(c.frames)),
                        ("decoded", .integer(c.decoded)), ("dropped", .integer(c.dropped)), ("idleSkipped", .integer(c.idleSkipped)),
                        ("corrupt", .integer(c.corrupt)), ("reconnects", .integer(c.reconnects)), ("fps", .number(c.fps, decimals: 1)),
                    ])
                ),
                ("barcodes", stage(d.barcodes, runs: "scans", [("failures", .integer(d.barcodeFailures))])),
                (
                    "text",
                    stage(
                        d.text, runs: "passes",
                        [("detectionFailures", .integer(d.detectionFailures)), ("readFailures", .integer(d.readFailures))]
                            + (d.textModelFailure.map { [("modelFailure", JSONValue.string($0))] } ?? []))
                ),
                ("documents", stage(d.documents, runs: "passes")),
            ]
        }
        if let m = mqtt {
            fields.append(
                (
                    "mqtt",
                    .object([
                        ("connected", .bool(m.connected)), ("queued", .integer(m.queued)), ("unacknowledged", .integer(m.unacknowledged)),
                        ("published", .integer(m.published)), ("dropped", .integer(m.dropped)),
                        ("lastError", m.lastError.map { .string($0) } ?? .null),
                    ])
                ))
        }
        let e = events
        fields.append(
            (
                "events",
                .object([
                    ("items", .integer(e.items)), ("clients", .integer(e.clients)), ("overflows", .integer(e.overflows)),
                    ("published", .integer(e.published)), ("queuedBytes", .integer(e.queuedBytes)),
                ])
            ))
        return fields
    }
}
