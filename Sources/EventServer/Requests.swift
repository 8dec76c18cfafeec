import Events
import Foundation
import ScannerCore
import ScannerProtocol

/// A client's request line, parsed; or why it could not be.
///
/// Lines are decoded by `JSONDecoder` into `JSONValue`, so types are strict: `"single": 1` is not a
/// boolean, `"annotate": "yes"` is not either, and an `id` must be a string or a number.
enum Request: Equatable {
    case ping
    case items
    case stats
    case subscribe(EventFilter)
    case set(ConfigChange)
    /// `path` nil: the photo goes back in the reply. `overwrite`: an existing file at `path` may be
    /// replaced, and only if it is a regular file of the daemon's own (docs/security.md).
    case capture(path: String?, annotate: Bool, overwrite: Bool)

    struct Failure: Error, Equatable {
        var code: ErrorCode
        var message: String

        static func badArgument(_ message: String) -> Failure { Failure(code: .badArgument, message: message) }
    }

    /// What a reply echoes of the request: its name and its `id`, when they could be read.
    struct Echo: Equatable {
        var name: String?
        var id: JSONValue?
    }

    /// Parses one line.
    static func parse(_ line: String) -> (echo: Echo, result: Result<Request, Failure>) {
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
            return (echo, .failure(Failure(code: .malformed, message: "missing \"request\" (ping, items, stats, subscribe, set, capture)")))
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
            return .capture(path: path, annotate: try flag(object, "annotate") ?? false, overwrite: overwrite)
        default:
            throw Failure(code: .unknownRequest, message: "unknown request '\(name)' (ping, items, stats, subscribe, set, capture)")
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
            guard let k = RecognizedItem.Kind(rawValue: kind) else { throw .badArgument("unknown kind '\(kind)' (barcode, text)") }
            filter.kinds.insert(k)
        }
        for name in try names(object, "symbologies") {
            guard let s = Symbology(rawValue: name) else { throw .badArgument("unknown symbology '\(name)'") }
            filter.symbologies.insert(s)
        }
        for name in try names(object, "contentTypes") {
            guard let c = TextContentType(rawValue: name) else {
                throw .badArgument("unknown content type '\(name)' (telephoneNumber, url, emailAddress)")
            }
            filter.contentTypes.insert(c)
        }
        return filter
    }
}

/// What a `set` request changes; nil fields stay as they are.
public struct ConfigChange: Sendable, Equatable {
    public var regionOfInterest: NormalizedRect?
    public var quality: QualityLevel?
    public var types: RecognitionTypes?
    public var singleItem: Bool?

    public init() {}
}

/// Reply lines.
enum Reply {
    static func ok(_ echo: Request.Echo, _ fields: [(String, JSONValue)] = []) -> String {
        JSONValue.object(head(echo) + [("ok", .bool(true))] + fields).serialized()
    }

    static func error(_ echo: Request.Echo, code: ErrorCode, message: String) -> String {
        JSONValue.object(
            head(echo) + [
                ("ok", .bool(false)),
                ("error", .object([("code", .string(code.rawValue)), ("message", .string(message))])),
            ]).serialized()
    }

    /// The request's name and the client's id, echoed as given (the parser lets only strings and
    /// numbers through).
    private static func head(_ echo: Request.Echo) -> [(String, JSONValue)] {
        [("reply", echo.name.map { .string($0) } ?? .null)] + (echo.id.map { [("id", $0)] } ?? [])
    }
}
