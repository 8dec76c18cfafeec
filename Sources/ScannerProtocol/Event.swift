import Foundation
import ScannerCore

/// What the daemon tells its clients (docs/protocol.md, "Events"): the one type of every event line,
/// with its one encoder and its one decoder here (issue #42: lines were assembled from key-value
/// pairs in several modules, and clients and tests read them as untyped dictionaries).
public enum Event: Sendable, Equatable {
    /// The first line a client gets: the daemon, the source and the items in view.
    case hello(Hello)
    /// The source (re)opened and delivers frames.
    case available
    /// The source stopped delivering, with the reason.
    case unavailable(reason: String)
    /// An item was added, updated or removed; `frame` is the source frame that caused it.
    case added(Item, frame: Int)
    case updated(Item, frame: Int)
    case removed(Item, frame: Int)
    /// A file source ended (after `removed` for what was left).
    case end(frames: Int)
    /// Recognition was paused (after `removed` for everything) or resumed.
    case paused
    case resumed
    /// What the person at the kiosk should do (`tooDark`, `holdStill`, …), or `cleared`.
    case guidance(Guidance)
    /// The recognition settings in force changed (a `set`, a reload).
    case config(Configuration)
    /// The client fell too far behind: it missed events and is disconnected.
    case overflow(message: String)

    /// The name on the wire (`"event"`).
    public var name: String {
        switch self {
        case .hello: "hello"
        case .available: "available"
        case .unavailable: "unavailable"
        case .added: "added"
        case .updated: "updated"
        case .removed: "removed"
        case .end: "end"
        case .paused: "paused"
        case .resumed: "resumed"
        case .guidance: "guidance"
        case .config: "config"
        case .overflow: "overflow"
        }
    }

    /// The item of `added`, `updated` and `removed`.
    public var item: Item? {
        switch self {
        case .added(let item, _), .updated(let item, _), .removed(let item, _): item
        default: nil
        }
    }

    /// The frame of `added`, `updated` and `removed`.
    public var frame: Int? {
        switch self {
        case .added(_, let frame), .updated(_, let frame), .removed(_, let frame): frame
        default: nil
        }
    }

    /// `hello`'s fields after `event` and `time`.
    public struct Hello: Sendable, Equatable {
        public var version: Int
        public var daemon: String
        public var source: String
        public var cameraAvailable: Bool
        public var paused: Bool
        public var items: [Item]

        public init(version: Int, daemon: String, source: String, cameraAvailable: Bool, paused: Bool, items: [Item]) {
            self.version = version
            self.daemon = daemon
            self.source = source
            self.cameraAvailable = cameraAvailable
            self.paused = paused
            self.items = items
        }
    }

    /// The recognition settings in force, as the `config` event and the `set` reply carry them.
    public struct Configuration: Sendable, Equatable {
        public var regionOfInterest: NormalizedRect
        public var quality: QualityLevel
        /// The type names, as `--types` takes them.
        public var types: [String]
        public var single: Bool
        /// Set when a reload made the change: the keys it applied and those that need a restart.
        public var reload: Reload?

        public struct Reload: Sendable, Equatable {
            public var changed: [String]
            public var restartRequired: [String]

            public init(changed: [String], restartRequired: [String]) {
                self.changed = changed
                self.restartRequired = restartRequired
            }
        }

        public init(regionOfInterest: NormalizedRect, quality: QualityLevel, types: [String], single: Bool, reload: Reload? = nil) {
            self.regionOfInterest = regionOfInterest
            self.quality = quality
            self.types = types
            self.single = single
            self.reload = reload
        }

        /// The fields in wire order (the `set` reply carries them too).
        public var fields: [(String, JSONValue)] {
            let roi = regionOfInterest
            var fields: [(String, JSONValue)] = [
                ("roi", .array([roi.x, roi.y, roi.width, roi.height].map { .number($0, decimals: 4) })),
                ("quality", .string(quality.rawValue)),
                ("types", .array(types.map { .string($0) })),
                ("single", .bool(single)),
            ]
            if let reload {
                fields += [
                    ("reason", .string("reload")), ("changed", .array(reload.changed.map { .string($0) })),
                    ("restartRequired", .array(reload.restartRequired.map { .string($0) })),
                ]
            }
            return fields
        }
    }

    /// One item as the wire carries it: what was recognized, where, and, for a tracked item, its id
    /// and the frames it was first and last seen in (`scannerd scan` prints items without those).
    public struct Item: Sendable, Equatable {
        public var id: UUID?
        public var kind: RecognizedItem.Kind
        public var symbology: Symbology?
        public var symbologyIdentifier: String?
        public var contentType: TextContentType?
        public var payload: String
        public var payloadBase64: String?
        /// The payload's meaning (`ParsedPayload`), as its JSON.
        public var parsed: JSONValue?
        public var transcript: String?
        public var bounds: Quad
        public var confidence: Double
        public var firstFrame: Int?
        public var lastFrame: Int?

        /// `item` as recognized; with `id` and frames when it is tracked.
        public init(_ item: RecognizedItem, id: UUID? = nil, firstFrame: Int? = nil, lastFrame: Int? = nil) {
            self.id = id
            kind = item.kind
            symbology = item.symbology
            symbologyIdentifier = item.details?.symbologyIdentifier
            contentType = item.contentType
            payload = item.payload
            payloadBase64 = item.details?.payloadBase64
            parsed = item.details?.parsed?.json
            transcript = item.transcript
            bounds = item.bounds
            confidence = item.confidence
            self.firstFrame = firstFrame
            self.lastFrame = lastFrame
        }

        /// The ordered JSON object (docs/protocol.md, "Items").
        public var json: JSONValue {
            var fields: [(String, JSONValue)] = []
            if let id { fields.append(("id", .string(id.uuidString.lowercased()))) }
            fields.append(("kind", .string(kind.rawValue)))
            if let symbology { fields.append(("symbology", .string(symbology.rawValue))) }
            if let symbologyIdentifier { fields.append(("symbologyIdentifier", .string(symbologyIdentifier))) }
            if let contentType { fields.append(("contentType", .string(contentType.rawValue))) }
            fields.append(("payload", .string(payload)))
            if let payloadBase64 { fields.append(("payloadBase64", .string(payloadBase64))) }
            if let parsed { fields.append(("parsed", parsed)) }
            if let transcript { fields.append(("transcript", .string(transcript))) }
            fields.append(("bounds", Self.json(bounds)))
            fields.append(("confidence", .number(confidence, decimals: 3)))
            if let firstFrame { fields.append(("firstFrame", .integer(firstFrame))) }
            if let lastFrame { fields.append(("lastFrame", .integer(lastFrame))) }
            return .object(fields)
        }

        /// `{"topLeft":[x,y],…}` with 4 decimals (a tenth of a pixel at 1920 px).
        static func json(_ quad: Quad) -> JSONValue {
            func point(_ p: Point) -> JSONValue { .array([.number(p.x, decimals: 4), .number(p.y, decimals: 4)]) }
            return .object([
                ("topLeft", point(quad.topLeft)), ("topRight", point(quad.topRight)),
                ("bottomRight", point(quad.bottomRight)), ("bottomLeft", point(quad.bottomLeft)),
            ])
        }
    }
}

/// One event line: the event, its number (`seq`, every event but `hello` and `overflow`) and its
/// time (ISO 8601 UTC with milliseconds; every event but `overflow`).
public struct EventLine: Sendable, Equatable {
    public var event: Event
    public var seq: Int?
    public var time: String?

    public init(_ event: Event, seq: Int? = nil, time: String? = nil) {
        self.event = event
        self.seq = seq
        self.time = time
    }

    /// The line (without its newline): `event`, `seq`, `frame`, `time`, then the event's fields.
    public func encoded() -> String {
        var object: [(String, JSONValue)] = [("event", .string(event.name))]
        if let seq { object.append(("seq", .integer(seq))) }
        if let frame = event.frame { object.append(("frame", .integer(frame))) }
        if let time { object.append(("time", .string(time))) }
        switch event {
        case .hello(let hello):
            object += [
                ("version", .integer(hello.version)), ("daemon", .string(hello.daemon)), ("source", .string(hello.source)),
                ("camera", .string(hello.cameraAvailable ? "available" : "unavailable")),
                ("recognition", .string(hello.paused ? "paused" : "running")), ("items", .array(hello.items.map(\.json))),
            ]
        case .available, .paused, .resumed: break
        case .unavailable(let reason): object.append(("reason", .string(reason)))
        case .added(let item, _), .updated(let item, _), .removed(let item, _): object.append(("item", item.json))
        case .end(let frames): object.append(("frames", .integer(frames)))
        case .guidance(let guidance): object.append(("hint", .string(guidance.description)))
        case .config(let configuration): object += configuration.fields
        case .overflow(let message): object.append(("message", .string(message)))
        }
        return JSONValue.object(object).serialized()
    }

    /// Why a line is not an event this client understands.
    public struct DecodingError: Error, Sendable, Equatable, CustomStringConvertible {
        public var description: String
    }

    /// The event of one line from the daemon. Throws for a line that is not JSON, a reply, an event
    /// this client does not know (a newer daemon's), or one whose fields are missing or malformed.
    public init(decoding line: String) throws(DecodingError) {
        guard let value = try? JSONDecoder().decode(JSONValue.self, from: Data(line.utf8)), case .object = value else {
            throw DecodingError(description: "not a JSON object")
        }
        try self.init(value)
    }

    /// The event of one decoded line (`init(decoding:)`).
    public init(_ value: JSONValue) throws(DecodingError) {
        let fields = Fields(value, context: "event")
        let name = try fields.string("event")
        seq = try fields.optionalInt("seq")
        time = try fields.optionalString("time")
        switch name {
        case "hello":
            let items = try fields.array("items").map { value throws(DecodingError) in try Event.Item(value) }
            event = .hello(
                Event.Hello(
                    version: try fields.int("version"), daemon: try fields.string("daemon"), source: try fields.string("source"),
                    cameraAvailable: try fields.string("camera") == "available", paused: try fields.string("recognition") == "paused",
                    items: items))
        case "available": event = .available
        case "unavailable": event = .unavailable(reason: try fields.string("reason"))
        case "added", "updated", "removed":
            guard let itemValue = value["item"] else { throw DecodingError(description: "\(name): no item") }
            let item = try Event.Item(itemValue)
            let frame = try fields.int("frame")
            event = name == "added" ? .added(item, frame: frame) : name == "updated" ? .updated(item, frame: frame) : .removed(item, frame: frame)
        case "end": event = .end(frames: try fields.int("frames"))
        case "paused": event = .paused
        case "resumed": event = .resumed
        case "guidance":
            let hint = try fields.string("hint")
            guard let guidance = Guidance(hint) else { throw DecodingError(description: "guidance: unknown hint \(hint)") }
            event = .guidance(guidance)
        case "config": event = .config(try Event.Configuration(value))
        case "overflow": event = .overflow(message: try fields.string("message"))
        default: throw DecodingError(description: "unknown event \"\(name)\"")
        }
    }
}

extension Event.Item {
    /// An item decoded from its JSON object (`json`).
    public init(_ value: JSONValue) throws(EventLine.DecodingError) {
        let fields = Fields(value, context: "item")
        guard let kind = RecognizedItem.Kind(rawValue: try fields.string("kind")) else {
            throw EventLine.DecodingError(description: "item: unknown kind")
        }
        self.kind = kind
        id = try fields.optionalString("id").map { text throws(EventLine.DecodingError) in
            guard let id = UUID(uuidString: text) else { throw EventLine.DecodingError(description: "item: id is not a UUID") }
            return id
        }
        symbology = try fields.optionalString("symbology").map { text throws(EventLine.DecodingError) in
            guard let symbology = Symbology(rawValue: text) else { throw EventLine.DecodingError(description: "item: unknown symbology \(text)") }
            return symbology
        }
        contentType = try fields.optionalString("contentType").map { text throws(EventLine.DecodingError) in
            guard let type = TextContentType(rawValue: text) else { throw EventLine.DecodingError(description: "item: unknown content type \(text)") }
            return type
        }
        symbologyIdentifier = try fields.optionalString("symbologyIdentifier")
        payload = try fields.string("payload")
        payloadBase64 = try fields.optionalString("payloadBase64")
        parsed = value["parsed"]
        transcript = try fields.optionalString("transcript")
        bounds = try Self.quad(value["bounds"])
        confidence = try fields.double("confidence")
        firstFrame = try fields.optionalInt("firstFrame")
        lastFrame = try fields.optionalInt("lastFrame")
    }

    private static func quad(_ value: JSONValue?) throws(EventLine.DecodingError) -> Quad {
        func point(_ key: String) throws(EventLine.DecodingError) -> Point {
            guard case .array(let xy)? = value?[key], xy.count == 2, let x = xy[0].doubleValue, let y = xy[1].doubleValue else {
                throw EventLine.DecodingError(description: "item: bounds.\(key) is not [x, y]")
            }
            return Point(x: x, y: y)
        }
        return Quad(
            topLeft: try point("topLeft"), topRight: try point("topRight"), bottomRight: try point("bottomRight"), bottomLeft: try point("bottomLeft")
        )
    }
}

extension Event.Configuration {
    /// The configuration of a `config` event or a `set` reply.
    public init(_ value: JSONValue) throws(EventLine.DecodingError) {
        let fields = Fields(value, context: "config")
        guard case .array(let roi)? = value["roi"], roi.count == 4, case let numbers = roi.compactMap(\.doubleValue), numbers.count == 4 else {
            throw EventLine.DecodingError(description: "config: roi is not [x, y, width, height]")
        }
        guard let quality = QualityLevel(rawValue: try fields.string("quality")) else {
            throw EventLine.DecodingError(description: "config: unknown quality")
        }
        self.init(
            regionOfInterest: NormalizedRect(x: numbers[0], y: numbers[1], width: numbers[2], height: numbers[3]), quality: quality,
            types: try fields.strings("types"), single: try fields.bool("single"))
        if try fields.optionalString("reason") == "reload" {
            reload = Reload(changed: try fields.strings("changed"), restartRequired: try fields.strings("restartRequired"))
        }
    }
}

/// Typed reads of an object's fields, each failure naming the field.
struct Fields {
    let value: JSONValue
    let context: String

    init(_ value: JSONValue, context: String) {
        self.value = value
        self.context = context
    }

    private func missing(_ key: String, _ what: String) -> EventLine.DecodingError {
        EventLine.DecodingError(description: "\(context): \(key) is \(value[key] == nil ? "missing" : "not \(what)")")
    }

    func string(_ key: String) throws(EventLine.DecodingError) -> String {
        guard case .string(let text)? = value[key] else { throw missing(key, "a string") }
        return text
    }

    func optionalString(_ key: String) throws(EventLine.DecodingError) -> String? {
        value[key] == nil ? nil : try string(key)
    }

    func int(_ key: String) throws(EventLine.DecodingError) -> Int {
        guard case .integer(let number)? = value[key] else { throw missing(key, "an integer") }
        return number
    }

    func optionalInt(_ key: String) throws(EventLine.DecodingError) -> Int? {
        value[key] == nil ? nil : try int(key)
    }

    func double(_ key: String) throws(EventLine.DecodingError) -> Double {
        guard let number = value[key]?.doubleValue else { throw missing(key, "a number") }
        return number
    }

    func bool(_ key: String) throws(EventLine.DecodingError) -> Bool {
        guard case .bool(let flag)? = value[key] else { throw missing(key, "true or false") }
        return flag
    }

    func array(_ key: String) throws(EventLine.DecodingError) -> [JSONValue] {
        guard case .array(let values)? = value[key] else { throw missing(key, "a list") }
        return values
    }

    func strings(_ key: String) throws(EventLine.DecodingError) -> [String] {
        try array(key).map { element throws(EventLine.DecodingError) in
            guard case .string(let text) = element else { throw missing(key, "a list of strings") }
            return text
        }
    }
}
