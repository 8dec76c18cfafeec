/// A value as written, before the key's parser reads it: from a YAML node, an environment variable
/// or a command-line flag.
public enum SettingValue: Sendable, Equatable, CustomStringConvertible {
    /// `~`, `null` or nothing: back to the default.
    case null
    case scalar(String)
    case list([String])
    /// `name: value` pairs, in the order written (camera controls).
    case map([Pair])

    public struct Pair: Sendable, Equatable {
        public var key: String
        public var value: String
        public init(_ key: String, _ value: String) {
            self.key = key
            self.value = value
        }
    }

    public var description: String {
        switch self {
        case .null: "null"
        case .scalar(let s): s
        case .list(let items): "[" + items.joined(separator: ", ") + "]"
        case .map(let pairs): "{" + pairs.map { "\($0.key): \($0.value)" }.joined(separator: ", ") + "}"
        }
    }
}

/// Where a value came from, for error messages and `check-config --effective`.
public enum SettingOrigin: Sendable, Equatable, CustomStringConvertible {
    case defaultValue
    /// A configuration file, 1-based line.
    case file(path: String, line: Int)
    /// An environment variable.
    case environment(String)
    /// A command-line option.
    case commandLine(String)

    public var description: String {
        switch self {
        case .defaultValue: "default"
        case .file(let path, let line): "\(path):\(line)"
        case .environment(let name): "environment \(name)"
        case .commandLine(let flag): flag
        }
    }
}

/// One value for one key from one layer.
public struct SettingEntry: Sendable, Equatable {
    public var key: String
    public var value: SettingValue
    public var origin: SettingOrigin

    public init(key: String, value: SettingValue, origin: SettingOrigin) {
        self.key = key
        self.value = value
        self.origin = origin
    }
}
