import Events
import Foundation
import ScannerCore

/// A client's request line, parsed; or why it could not be.
enum Request {
    case ping
    case items
    case stats
    case subscribe(EventFilter)
    case set(ConfigChange)
    case capture(path: String?, annotate: Bool)

    struct Failure: Error {
        var code: String
        var message: String
    }

    /// Parses one line. `id` is whatever the client sent as "id" (echoed in the reply), if anything.
    static func parse(_ line: String) -> (id: Any?, name: String?, result: Result<Request, Failure>) {
        guard let data = line.data(using: .utf8),
            let object = try? JSONSerialization.jsonObject(with: data, options: [.fragmentsAllowed]) as? [String: Any]
        else {
            return (nil, nil, .failure(Failure(code: "malformed", message: "a request is one JSON object per line")))
        }
        let id = object["id"]
        guard let name = object["request"] as? String else {
            return (id, nil, .failure(Failure(code: "malformed", message: "missing \"request\" (ping, items, stats, subscribe)")))
        }
        switch name {
        case "ping": return (id, name, .success(.ping))
        case "items": return (id, name, .success(.items))
        case "stats": return (id, name, .success(.stats))
        case "subscribe":
            do {
                return (id, name, .success(.subscribe(try filter(object))))
            } catch let failure as Failure {
                return (id, name, .failure(failure))
            } catch {
                return (id, name, .failure(Failure(code: "bad-argument", message: "\(error)")))
            }
        case "capture":
            let path = object["path"]
            if let path, !(path is String) || !(path as! String).hasPrefix("/") {
                return (id, name, .failure(Failure(code: "bad-argument", message: "\"path\" must be an absolute file path")))
            }
            let annotate = object["annotate"]
            if let annotate, String(describing: type(of: annotate)).contains("Boolean") == false {
                return (id, name, .failure(Failure(code: "bad-argument", message: "\"annotate\" must be true or false")))
            }
            return (id, name, .success(.capture(path: path as? String, annotate: (annotate as? Bool) ?? false)))
        case "set":
            do {
                return (id, name, .success(.set(try change(object))))
            } catch let failure as Failure {
                return (id, name, .failure(failure))
            } catch {
                return (id, name, .failure(Failure(code: "bad-argument", message: "\(error)")))
            }
        default:
            return (id, name, .failure(Failure(code: "unknown-request", message: "unknown request '\(name)' (ping, items, stats, subscribe, set, capture)")))
        }
    }

    static func change(_ object: [String: Any]) throws -> ConfigChange {
        var change = ConfigChange()
        if let roi = object["roi"] {
            if roi is NSNull {
                change.regionOfInterest = .full
            } else {
                guard let values = roi as? [Double], values.count == 4 else {
                    throw Failure(code: "bad-argument", message: "\"roi\" must be [x, y, width, height] (normalized) or null")
                }
                let rect = NormalizedRect(x: values[0], y: values[1], width: values[2], height: values[3])
                if let problem = rect.validationProblem { throw Failure(code: "bad-argument", message: "roi: \(problem)") }
                change.regionOfInterest = rect
            }
        }
        if let quality = object["quality"] {
            guard let name = quality as? String, let level = QualityLevel(rawValue: name) else {
                throw Failure(code: "bad-argument", message: "\"quality\" must be fast, balanced or accurate")
            }
            change.quality = level
        }
        if let types = object["types"] {
            guard let names = types as? [String] else { throw Failure(code: "bad-argument", message: "\"types\" must be a list of names") }
            do {
                change.types = try RecognitionTypes(parsing: names.joined(separator: ","))
            } catch {
                throw Failure(code: "bad-argument", message: error.description)
            }
        }
        if let single = object["single"] {
            guard let flag = single as? Bool else { throw Failure(code: "bad-argument", message: "\"single\" must be true or false") }
            change.singleItem = flag
        }
        guard change != ConfigChange() else {
            throw Failure(code: "bad-argument", message: "set needs at least one of roi, quality, types, single")
        }
        return change
    }

    static func filter(_ object: [String: Any]) throws -> EventFilter {
        func names(_ key: String) throws -> [String] {
            guard let value = object[key] else { return [] }
            guard let list = value as? [String] else {
                throw Failure(code: "bad-argument", message: "\"\(key)\" must be a list of names")
            }
            return list
        }
        var filter = EventFilter()
        for kind in try names("kinds") {
            guard let k = RecognizedItem.Kind(rawValue: kind) else {
                throw Failure(code: "bad-argument", message: "unknown kind '\(kind)' (barcode, text)")
            }
            filter.kinds.insert(k)
        }
        for name in try names("symbologies") {
            guard let s = Symbology(rawValue: name) else {
                throw Failure(code: "bad-argument", message: "unknown symbology '\(name)'")
            }
            filter.symbologies.insert(s)
        }
        for name in try names("contentTypes") {
            guard let c = TextContentType(rawValue: name) else {
                throw Failure(code: "bad-argument", message: "unknown content type '\(name)' (telephoneNumber, url, emailAddress)")
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
    static func ok(_ name: String, id: Any?, _ fields: [(String, JSONValue)] = []) -> String {
        JSONValue.object([("reply", .string(name))] + idField(id) + [("ok", .bool(true))] + fields).serialized()
    }

    static func error(_ name: String?, id: Any?, code: String, message: String) -> String {
        JSONValue.object(
            [("reply", name.map { .string($0) } ?? .null)] + idField(id) + [
                ("ok", .bool(false)),
                ("error", .object([("code", .string(code)), ("message", .string(message))])),
            ]).serialized()
    }

    /// The client's id echoed back: strings and numbers as given, anything else as its JSON text.
    static func idField(_ id: Any?) -> [(String, JSONValue)] {
        // Foundation bridges JSON numbers and booleans to NSNumber, and NSNumber(1) also says it is a
        // Bool: tell booleans apart by their class (__NSCFBoolean), not by casting.
        switch id {
        case nil: []
        case let s as String: [("id", .string(s))]
        case let n as NSNumber where String(describing: type(of: n)).contains("Boolean"): [("id", .null)]
        case let n as NSNumber where n.doubleValue == n.doubleValue.rounded() && abs(n.doubleValue) < 1e15: [("id", .integer(n.intValue))]
        case let n as NSNumber: [("id", .number(n.doubleValue))]
        default: [("id", .null)]
        }
    }
}
