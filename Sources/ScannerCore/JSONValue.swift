/// A JSON value whose objects keep their keys in the order they were built.
///
/// Why not `JSONEncoder`: on Linux it emits keys in a different order on every run (measured with
/// Swift 6.3), and the event lines are read by people and diffed by tests. Writing JSON is small;
/// *reading* it (client requests) is `JSONDecoder`'s job, through the `Decodable` conformance below.
public enum JSONValue: Sendable, Equatable {
    case null
    case bool(Bool)
    /// A number printed with at most `decimals` fractional digits (trailing zeros trimmed).
    case number(Double, decimals: Int = 6)
    case integer(Int)
    case string(String)
    case array([JSONValue])
    case object([(String, JSONValue)])

    public static func == (a: JSONValue, b: JSONValue) -> Bool { a.serialized() == b.serialized() }

    /// Compact, single-line JSON text.
    public func serialized() -> String {
        var out = ""
        write(to: &out)
        return out
    }

    public func write(to out: inout String) {
        switch self {
        case .null: out += "null"
        case .bool(let b): out += b ? "true" : "false"
        case .integer(let i): out += String(i)
        case .number(let d, let decimals): out += Self.format(d, decimals: decimals)
        case .string(let s): Self.writeString(s, to: &out)
        case .array(let values):
            out += "["
            for (i, v) in values.enumerated() {
                if i > 0 { out += "," }
                v.write(to: &out)
            }
            out += "]"
        case .object(let fields):
            out += "{"
            for (i, (key, value)) in fields.enumerated() {
                if i > 0 { out += "," }
                Self.writeString(key, to: &out)
                out += ":"
                value.write(to: &out)
            }
            out += "}"
        }
    }

    static func format(_ value: Double, decimals: Int) -> String {
        guard value.isFinite else { return "null" }  // JSON has no NaN/Infinity
        var scale = 1.0
        for _ in 0..<decimals { scale *= 10 }
        let rounded = (value * scale).rounded() / scale
        if rounded == rounded.rounded(), abs(rounded) < 1e15 {
            return String(Int64(rounded))
        }
        var text = String(rounded)
        if text.contains("e") { return text }
        while text.hasSuffix("0") { text.removeLast() }
        if text.hasSuffix(".") { text.removeLast() }
        return text
    }

    /// Runs that need no escape are appended whole: a photo's base64 (~800 kB at 720p) went one
    /// scalar at a time, and a dozen clients asking at once held up other clients' pings
    /// (docs/benchmarks.md, "Floods"). Runs are cut at ASCII bytes, so
    /// they are whole scalars; they are sliced as scalars, not characters (a `"` may begin a
    /// grapheme with the combining mark after it).
    static func writeString(_ s: String, to out: inout String) {
        out += "\""
        let utf8 = s.utf8
        var runStart = utf8.startIndex
        var index = runStart
        while index != utf8.endIndex {
            let byte = utf8[index]
            guard byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") else {
                index = utf8.index(after: index)
                continue
            }
            out += Substring(s.unicodeScalars[runStart..<index])
            switch byte {
            case UInt8(ascii: "\""): out += "\\\""
            case UInt8(ascii: "\\"): out += "\\\\"
            case UInt8(ascii: "\n"): out += "\\n"
            case UInt8(ascii: "\r"): out += "\\r"
            case UInt8(ascii: "\t"): out += "\\t"
            default:
                let hex = String(byte, radix: 16)
                out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            }
            index = utf8.index(after: index)
            runStart = index
        }
        out += Substring(s.unicodeScalars[runStart..<utf8.endIndex])
        out += "\""
    }
}

extension JSONValue: Decodable {
    /// Strict about types, as `JSONDecoder` is: `true` is a boolean and never the number 1, `1` is a
    /// number and never `true`. (An object's keys come back sorted: the decoder gives no order.)
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() {
            self = .null
        } else if let bool = try? container.decode(Bool.self) {
            self = .bool(bool)
        } else if let integer = try? container.decode(Int.self) {
            self = .integer(integer)
        } else if let number = try? container.decode(Double.self) {
            self = .number(number, decimals: 17)
        } else if let string = try? container.decode(String.self) {
            self = .string(string)
        } else if let array = try? container.decode([JSONValue].self) {
            self = .array(array)
        } else {
            let object = try container.decode([String: JSONValue].self)
            self = .object(object.sorted { $0.key < $1.key }.map { ($0.key, $0.value) })
        }
    }

    /// The value of `key` when this is an object that has it.
    public subscript(key: String) -> JSONValue? {
        guard case .object(let fields) = self else { return nil }
        return fields.first { $0.0 == key }?.1
    }

    /// The number, whether it was written as an integer or not.
    public var doubleValue: Double? {
        switch self {
        case .integer(let i): Double(i)
        case .number(let d, _): d
        default: nil
        }
    }
}
