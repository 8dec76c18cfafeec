import Foundation
import ScannerCore

/// Which item events a subscriber wants (a `subscribe` request). Empty sets mean "all".
public struct EventFilter: Sendable, Equatable {
    public var kinds: Set<RecognizedItem.Kind>
    public var symbologies: Set<Symbology>
    public var contentTypes: Set<TextContentType>
    /// What the subscriber hears of an item that comes back.
    public var repeatPolicy: RepeatPolicy

    public init(
        kinds: Set<RecognizedItem.Kind> = [], symbologies: Set<Symbology> = [], contentTypes: Set<TextContentType> = [],
        repeatPolicy: RepeatPolicy = .always
    ) {
        self.kinds = kinds
        self.symbologies = symbologies
        self.contentTypes = contentTypes
        self.repeatPolicy = repeatPolicy
    }

    public static let all = EventFilter()

    public func accepts(_ item: RecognizedItem) -> Bool {
        if !kinds.isEmpty && !kinds.contains(item.kind) { return false }
        if !symbologies.isEmpty, item.kind == .barcode, let s = item.symbology, !symbologies.contains(s) { return false }
        if !contentTypes.isEmpty, item.kind == .text {
            guard let c = item.contentType, contentTypes.contains(c) else { return false }
        }
        return true
    }
}

/// What a subscriber hears of an item that comes back — the same kind, symbology or content type and
/// payload added again (a card shown twice, a code that left the frame and returned): a kiosk that
/// acts once per code does not want the second `added` (a `subscribe` request's `repeat`).
public enum RepeatPolicy: Sendable, Equatable {
    /// Every time (the default).
    case always
    /// Only once it has been gone this many seconds (since the last time it was removed).
    case after(seconds: Double)
    /// Once per connection.
    case oncePerSession

    /// The longest `after` accepted: a day.
    public static let longestAfter = 86_400.0
}

/// A client's request line, parsed; or why it could not be.
///
/// Lines are decoded by `JSONDecoder` into `JSONValue`, so types are strict: `"single": 1` is not a
/// boolean, `"annotate": "yes"` is not either, and an `id` must be a string or a number.
/// What a `capture` asks for: the frame as the camera sent it, the frame with the current items
/// drawn on it, or the document held up in it, its perspective taken out (issue #43).
public enum PhotoContent: String, Sendable, Equatable {
    case frame
    case annotated
    case document
}

public enum Request: Sendable, Equatable {
    case ping
    case items
    case stats
    case subscribe(EventFilter)
    case set(ConfigChange)
    /// `path` nil: the photo goes back in the reply. `overwrite`: an existing file at `path` may be
    /// replaced, and only if it is a regular file of the daemon's own (docs/security.md).
    case capture(path: String?, content: PhotoContent, overwrite: Bool)
    /// Stop recognition (the camera stays open) until `resume`.
    case pause
    case resume

    public struct Failure: Error, Sendable, Equatable {
        public var code: ErrorCode
        public var message: String

        public init(code: ErrorCode, message: String) {
            self.code = code
            self.message = message
        }

        static func badArgument(_ message: String) -> Failure { Failure(code: .badArgument, message: message) }
    }

    /// What a reply echoes of the request: its name and its `id`, when they could be read.
    public struct Echo: Sendable, Equatable {
        public var name: String?
        public var id: JSONValue?

        public init(name: String? = nil, id: JSONValue? = nil) {
            self.name = name
            self.id = id
        }
    }

    /// Parses one line.
    public static func parse(_ line: String) -> (echo: Echo, result: Result<Request, Failure>) {
        guard let object = try? JSONDecoder().decode(JSONValue.self, from: Data(line.utf8)), case .object = object else {
            return (Echo(), .failure(Failure(code: .malformed, message: "a request is one JSON object per line")))
        }
        var echo = Echo()
        if let name = object["request"], case .string(let text) = name { echo.name = text }
        switch object["id"] {
        case nil: break
        case .string?, .integer?, .number?: echo.id = object["id"]
        default:
            return (echo, .failure(.badArgument("\"id\" must be a string or a number")))
        }
        guard let name = echo.name else {
            return (
                echo, .failure(Failure(code: .malformed, message: "missing \"request\" (ping, items, stats, subscribe, set, capture, pause, resume)"))
            )
        }
        do throws(Failure) {
            return (echo, .success(try request(name, object)))
        } catch {
            return (echo, .failure(error))
        }
    }

    private static func request(_ name: String, _ object: JSONValue) throws(Failure) -> Request {
        switch name {
        case "ping": return .ping
        case "items": return .items
        case "stats": return .stats
        case "pause": return .pause
        case "resume": return .resume
        case "subscribe": return .subscribe(try filter(object))
        case "set": return .set(try change(object))
        case "capture":
            var path: String?
            if let value = object["path"] {
                guard case .string(let text) = value, text.hasPrefix("/"), !text.hasSuffix("/"), !text.utf8.contains(0) else {
                    throw .badArgument("\"path\" must be an absolute file path")
                }
                path = text
            }
            let overwrite = try flag(object, "overwrite") ?? false
            if overwrite && path == nil { throw .badArgument("\"overwrite\" goes with \"path\"") }
            let annotate = try flag(object, "annotate") ?? false
            let document = try flag(object, "document") ?? false
            if annotate && document { throw .badArgument("\"annotate\" and \"document\" do not go together") }
            return .capture(path: path, content: document ? .document : annotate ? .annotated : .frame, overwrite: overwrite)
        default:
            throw Failure(code: .unknownRequest, message: "unknown request '\(name)' (ping, items, stats, subscribe, set, capture, pause, resume)")
        }
    }

    /// A boolean field: absent → nil; anything but `true`/`false` is refused.
    private static func flag(_ object: JSONValue, _ key: String) throws(Failure) -> Bool? {
        guard let value = object[key] else { return nil }
        guard case .bool(let flag) = value else { throw .badArgument("\"\(key)\" must be true or false") }
        return flag
    }

    /// A list of names: absent → empty.
    private static func names(_ object: JSONValue, _ key: String) throws(Failure) -> [String] {
        guard let value = object[key] else { return [] }
        guard case .array(let items) = value else { throw .badArgument("\"\(key)\" must be a list of names") }
        var names: [String] = []
        for item in items {
            guard case .string(let name) = item else { throw .badArgument("\"\(key)\" must be a list of names") }
            names.append(name)
        }
        return names
    }

    static func change(_ object: JSONValue) throws(Failure) -> ConfigChange {
        var change = ConfigChange()
        if let roi = object["roi"] {
            if roi == .null {
                change.regionOfInterest = .full
            } else {
                guard case .array(let items) = roi, items.count == 4, case let values = items.compactMap(\.doubleValue), values.count == 4 else {
                    throw .badArgument("\"roi\" must be [x, y, width, height] (normalized) or null")
                }
                let rect = NormalizedRect(x: values[0], y: values[1], width: values[2], height: values[3])
                if let problem = rect.validationProblem { throw .badArgument("roi: \(problem)") }
                change.regionOfInterest = rect
            }
        }
        if let quality = object["quality"] {
            guard case .string(let name) = quality, let level = QualityLevel(rawValue: name) else {
                throw .badArgument("\"quality\" must be fast, balanced or accurate")
            }
            change.quality = level
        }
        if object["types"] != nil {
            let names = try names(object, "types")
            do {
                change.types = try RecognitionTypes(parsing: names.joined(separator: ","))
            } catch {
                throw .badArgument(error.description)
            }
        }
        change.singleItem = try flag(object, "single")
        guard change != ConfigChange() else {
            throw .badArgument("set needs at least one of roi, quality, types, single")
        }
        return change
    }

    static func filter(_ object: JSONValue) throws(Failure) -> EventFilter {
        var filter = EventFilter()
        for kind in try names(object, "kinds") {
            guard let k = RecognizedItem.Kind(rawValue: kind) else { throw .badArgument("unknown kind '\(kind)' (barcode, text, document)") }
            filter.kinds.insert(k)
        }
        for name in try names(object, "symbologies") {
            if let group = Symbology.groups[name] {
                filter.symbologies.formUnion(group)
                continue
            }
            guard let s = Symbology(rawValue: name) else {
                throw .badArgument(
                    "unknown symbology '\(name)' (a name such as qr or ean13, or a group: \(Symbology.groups.keys.sorted().joined(separator: ", ")))")
            }
            filter.symbologies.insert(s)
        }
        for name in try names(object, "contentTypes") {
            guard let c = TextContentType(rawValue: name) else {
                throw .badArgument("unknown content type '\(name)' (telephoneNumber, url, emailAddress)")
            }
            filter.contentTypes.insert(c)
        }
        if let value = object["repeat"] { filter.repeatPolicy = try repeatPolicy(value) }
        return filter
    }

    /// `"always"`, `"oncePerSession"` or `{"after": SECONDS}`.
    static func repeatPolicy(_ value: JSONValue) throws(Failure) -> RepeatPolicy {
        let usage = "\"repeat\" must be \"always\", \"oncePerSession\" or {\"after\": seconds}"
        switch value {
        case .string("always"): return .always
        case .string("oncePerSession"): return .oncePerSession
        case .object(let fields):
            guard fields.count == 1, fields[0].0 == "after", let seconds = fields[0].1.doubleValue else { throw .badArgument(usage) }
            guard seconds > 0, seconds <= RepeatPolicy.longestAfter else {
                throw .badArgument("\"repeat\": \"after\" must be more than 0 and at most \(Int(RepeatPolicy.longestAfter)) seconds")
            }
            return .after(seconds: seconds)
        default: throw .badArgument(usage)
        }
    }
}

/// What a `set` request changes; nil fields stay as they are.
public struct ConfigChange: Sendable, Equatable {
    public var regionOfInterest: NormalizedRect?
    public var quality: QualityLevel?
    public var types: RecognitionTypes?
    public var singleItem: Bool?

    public init(regionOfInterest: NormalizedRect? = nil, quality: QualityLevel? = nil, types: RecognitionTypes? = nil, singleItem: Bool? = nil) {
        self.regionOfInterest = regionOfInterest
        self.quality = quality
        self.types = types
        self.singleItem = singleItem
    }
}

extension ConfigChange {
    /// The request's names of what this change sets (`roi`, `quality`, `types`, `single`), as
    /// `Request.line()` writes them and the `config` event and reply name them.
    public var wireKeys: Set<String> {
        var keys: Set<String> = []
        if regionOfInterest != nil { keys.insert(Request.Key.roi.stringValue) }
        if quality != nil { keys.insert(Request.Key.quality.stringValue) }
        if types != nil { keys.insert(Request.Key.types.stringValue) }
        if singleItem != nil { keys.insert(Request.Key.single.stringValue) }
        return keys
    }
}

/// Reply lines.
public enum Reply {
    public static func ok(_ echo: Request.Echo, _ fields: [(String, JSONValue)] = []) -> String {
        JSONValue.object(head(echo) + [("ok", .bool(true))] + fields).serialized()
    }

    public static func error(_ echo: Request.Echo, code: ErrorCode, message: String) -> String {
        JSONValue.object(
            head(echo) + [
                ("ok", .bool(false)),
                ("error", .object([("code", .string(code.rawValue)), ("message", .string(message))])),
            ]
        ).serialized()
    }

    /// The last line a client that fell too far behind gets before it is disconnected: more than
    /// `queueLimit` lines, or more than `byteLimit` bytes, were waiting for it.
    public static func overflow(queueLimit: Int, byteLimit: Int) -> String {
        EventLine(.overflow(message: "more than \(queueLimit) events or \(byteLimit >> 10) KiB were waiting for this client; disconnecting"))
            .encoded()
    }

    /// The request's name and the client's id, echoed as given (the parser lets only strings and
    /// numbers through).
    private static func head(_ echo: Request.Echo) -> [(String, JSONValue)] {
        [("reply", echo.name.map { .string($0) } ?? .null)] + (echo.id.map { [("id", $0)] } ?? [])
    }
}

/// Requests as clients send them: the same type the server parses, so the two cannot drift
/// (`Request.parse(request.line()) == request`).
extension Request: Encodable {
    enum Key: String, CodingKey {
        case request, kinds, symbologies, contentTypes, roi, quality, types, single, annotate, document, path, overwrite
        case `repeat`
    }

    enum AfterKey: String, CodingKey {
        case after
    }

    public var name: String {
        switch self {
        case .ping: "ping"
        case .items: "items"
        case .stats: "stats"
        case .subscribe: "subscribe"
        case .set: "set"
        case .capture: "capture"
        case .pause: "pause"
        case .resume: "resume"
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: Key.self)
        try c.encode(name, forKey: .request)
        switch self {
        case .ping, .items, .stats, .pause, .resume: break
        case .subscribe(let filter):
            if !filter.kinds.isEmpty { try c.encode(filter.kinds.map(\.rawValue).sorted(), forKey: .kinds) }
            if !filter.symbologies.isEmpty { try c.encode(filter.symbologies.sorted().map(\.rawValue), forKey: .symbologies) }
            if !filter.contentTypes.isEmpty { try c.encode(filter.contentTypes.map(\.rawValue).sorted(), forKey: .contentTypes) }
            switch filter.repeatPolicy {
            case .always: break
            case .oncePerSession: try c.encode("oncePerSession", forKey: .repeat)
            case .after(let seconds):
                var after = c.nestedContainer(keyedBy: AfterKey.self, forKey: .repeat)
                try after.encode(seconds, forKey: .after)
            }
        case .set(let change):
            if let roi = change.regionOfInterest {
                // The whole frame is `null`, as the server reads it.
                if roi == .full { try c.encodeNil(forKey: .roi) } else { try c.encode([roi.x, roi.y, roi.width, roi.height], forKey: .roi) }
            }
            try c.encodeIfPresent(change.quality?.rawValue, forKey: .quality)
            try c.encodeIfPresent(change.types?.names, forKey: .types)
            try c.encodeIfPresent(change.singleItem, forKey: .single)
        case .capture(let path, let content, let overwrite):
            try c.encode(content == .annotated, forKey: .annotate)
            if content == .document { try c.encode(true, forKey: .document) }
            try c.encodeIfPresent(path, forKey: .path)
            if overwrite { try c.encode(true, forKey: .overwrite) }
        }
    }

    /// The request as one line of JSON (keys sorted, so the same request is the same line).
    public func line() -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        // Strings, numbers, booleans and lists of them always encode.
        return String(decoding: (try? encoder.encode(self)) ?? Data(), as: UTF8.self)
    }
}
