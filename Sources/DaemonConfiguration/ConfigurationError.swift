/// What is wrong with a configuration, naming the key, the value and where it was written.
public enum ConfigurationError: Error, Sendable, Equatable, CustomStringConvertible {
    case unreadable(path: String, reason: String)
    /// The file is not valid YAML.
    case syntax(path: String, line: Int, column: Int, problem: String)
    /// The file breaks a limit that bounds the cost of reading it (docs/security.md).
    case limit(path: String, line: Int, column: Int, problem: String)
    /// More problems than are worth listing.
    case more(count: Int)
    /// Something other than a `key: value` mapping where one was expected.
    case notAMapping(key: String?, origin: SettingOrigin)
    case unknownKey(key: String, origin: SettingOrigin, suggestion: String?)
    case badValue(key: String, value: String, origin: SettingOrigin, reason: String)
    case duplicateKey(key: String, origin: SettingOrigin)
    /// Two keys that exclude each other, both given in one layer.
    case conflict(keys: [String], origin: SettingOrigin)
    /// A value that is fine alone but not with the others (`http.listen` off loopback without
    /// `http.token-file`): what `run` would refuse at start, refused here so `check-config` does too.
    case combination(key: String, origin: SettingOrigin, problem: String)

    /// A value as an error line quotes it: whole when short, its start when not, and on one line —
    /// control characters (a newline in an environment variable, an escape sequence) are written as
    /// `\u{…}`, so a value can neither split the line nor drive a terminal.
    static func shortened(_ value: String) -> String {
        let short = value.count > 60 ? String(value.prefix(57)) + "…" : value
        guard short.unicodeScalars.contains(where: isControl) else { return short }
        return short.unicodeScalars.map { isControl($0) ? "\\u{" + String($0.value, radix: 16, uppercase: true) + "}" : String($0) }.joined()
    }

    private static func isControl(_ scalar: Unicode.Scalar) -> Bool {
        scalar.value <= 0x1F || (0x7F...0x9F).contains(scalar.value)
    }

    public var description: String {
        switch self {
        case .unreadable(let path, let reason):
            "\(path): cannot read the configuration: \(reason)"
        case .syntax(let path, let line, let column, let problem):
            "\(path):\(line):\(column): not valid YAML: \(problem)"
        case .limit(let path, let line, let column, let problem):
            "\(path):\(line):\(column): refused: \(problem)"
        case .more(let count):
            "… and \(count) more problems"
        case .notAMapping(let key, let origin):
            "\(origin): \(key.map { "'\($0)' must be" } ?? "the file must be") a mapping of keys to values"
        case .unknownKey(let key, let origin, let suggestion):
            "\(origin): unknown key '\(Self.shortened(key))'" + (suggestion.map { " (did you mean '\($0)'?)" } ?? "")
        case .badValue(let key, let value, let origin, let reason):
            "\(origin): \(key): invalid value '\(Self.shortened(value))': \(reason)"
        case .duplicateKey(let key, let origin):
            "\(origin): '\(key)' is given twice"
        case .conflict(let keys, let origin):
            "\(origin): give only one of \(keys.map { "'\($0)'" }.joined(separator: " or "))"
        case .combination(let key, let origin, let problem):
            "\(origin): \(key): \(problem)"
        }
    }
}

/// Every problem found, so that one `check-config` run lists them all.
public struct ConfigurationErrors: Error, Sendable, Equatable, CustomStringConvertible {
    public var errors: [ConfigurationError]

    /// Problems listed at most; the rest are counted. (Each costs a closest-key search, and nobody
    /// reads the thousandth.)
    public static let listed = 20

    public init(_ errors: [ConfigurationError]) {
        self.errors = errors.count <= Self.listed ? errors : Array(errors.prefix(Self.listed)) + [.more(count: errors.count - Self.listed)]
    }

    public var description: String { errors.map(\.description).joined(separator: "\n") }
}
