import Foundation
import ScannerCore

/// The settings in force and where each came from.
public struct LoadedConfiguration: Sendable, Equatable {
    public var settings: DaemonSettings
    /// Key → the layer that set it last (keys not listed are defaults).
    public var origins: [String: SettingOrigin]

    /// Keys whose value differs between `self` and `other`.
    public func changedKeys(from other: LoadedConfiguration) -> [SettingKey] {
        SettingsSchema.keys.filter { $0.value(in: settings) != $0.value(in: other.settings) }
    }
}

/// Builds the settings from four layers, each overriding the one before: the defaults, the
/// configuration file, the environment (`SCANNERD_SECTION_KEY`) and the command line. Every problem
/// in every layer is collected, so one run names them all.
public struct ConfigurationLoader: Sendable {
    /// The file, or nil for none.
    public var filePath: String?
    public var environment: [String: String]
    /// The command line's options, already turned into keys by the executable.
    public var commandLine: [SettingEntry]

    /// Variables with the prefix that are not keys: the file's own path.
    public static let reservedEnvironment: Set<String> = ["SCANNERD_CONFIG"]
    /// Where the daemon looks when neither --config nor SCANNERD_CONFIG says.
    public static let defaultPath = "/etc/scannerd/scannerd.conf"

    public init(filePath: String?, environment: [String: String] = ProcessInfo.processInfo.environment, commandLine: [SettingEntry] = []) {
        self.filePath = filePath
        self.environment = environment
        self.commandLine = commandLine
    }

    public func load() throws(ConfigurationErrors) -> LoadedConfiguration {
        var errors: [ConfigurationError] = []
        var layers: [[SettingEntry]] = []
        if let filePath {
            let (entries, problems) = ConfigurationFile.parse(path: filePath)
            layers.append(entries)
            errors += problems
        }
        layers.append(environmentEntries(&errors))
        layers.append(commandLine)
        var loaded = LoadedConfiguration(settings: DaemonSettings(), origins: [:])
        for layer in layers {
            Self.apply(layer, to: &loaded, errors: &errors)
        }
        errors += Self.combinationProblems(loaded)
        if !errors.isEmpty { throw ConfigurationErrors(errors) }
        return loaded
    }

    /// What the keys' values refuse together, checked once every layer is in: the rules `run` would
    /// otherwise apply only at start, so `check-config`, `run` and a reload refuse the same
    /// settings with the same line. (The servers keep their own checks too.)
    static func combinationProblems(_ loaded: LoadedConfiguration) -> [ConfigurationError] {
        var problems: [ConfigurationError] = []
        let s = loaded.settings
        // Off loopback without a token, any host on the network could watch and `set` (docs/http.md).
        if let listen = s.httpListen, s.httpTokenFile == nil, !LoopbackAddress.isLoopback(listen.host) {
            problems.append(
                .combination(
                    key: "http.listen", origin: loaded.origins["http.listen"] ?? .defaultValue,
                    problem: "\(listen) is not loopback: set http.token-file so that only clients with the token are served"))
        }
        // Event streams and WebSockets may hold `server.max-clients` connections and are never made
        // to give their place: with no more connections than that, they could shut `/items` out.
        if s.httpListen != nil, s.httpMaxConnections <= s.maximumClients {
            problems.append(
                .combination(
                    key: "http.max-connections",
                    origin: loaded.origins["http.max-connections"] ?? loaded.origins["server.max-clients"] ?? .defaultValue,
                    problem:
                        "\(s.httpMaxConnections) leaves no room for requests beside \(s.maximumClients) event streams (server.max-clients): set it above that"
                ))
        }
        return problems
    }

    private func environmentEntries(_ errors: inout [ConfigurationError]) -> [SettingEntry] {
        let byVariable = Dictionary(uniqueKeysWithValues: SettingsSchema.keys.map { ($0.environmentName, $0) })
        var entries: [SettingEntry] = []
        for (name, value) in environment.sorted(by: { $0.key < $1.key }) where name.hasPrefix("SCANNERD_") {
            guard !Self.reservedEnvironment.contains(name) else { continue }
            guard let key = byVariable[name] else {
                let suggestion = Self.closest(name, among: byVariable.keys.sorted())
                errors.append(.unknownKey(key: name, origin: .environment(name), suggestion: suggestion))
                continue
            }
            entries.append(SettingEntry(key: key.name, value: value.isEmpty ? .null : .scalar(value), origin: .environment(name)))
        }
        return entries
    }

    static func apply(_ layer: [SettingEntry], to loaded: inout LoadedConfiguration, errors: inout [ConfigurationError]) {
        let given = layer.filter { SettingsSchema.exclusive.contains($0.key) && $0.value != .null }
        if given.count > 1 {
            errors.append(.conflict(keys: given.map(\.key), origin: given[1].origin))
        }
        for entry in layer {
            guard let key = SettingsSchema.key(entry.key) else {
                errors.append(.unknownKey(key: entry.key, origin: entry.origin, suggestion: suggestion(for: entry.key)))
                continue
            }
            do throws(ValueProblem) {
                try key.read(entry.value, &loaded.settings)
                loaded.origins[key.name] = entry.origin
                // The two inputs are one setting: choosing one replaces the other.
                if SettingsSchema.exclusive.contains(key.name), entry.value != .null {
                    for other in SettingsSchema.exclusive where other != key.name { loaded.origins[other] = entry.origin }
                }
            } catch {
                errors.append(.badValue(key: key.name, value: key.quoted(entry.value), origin: entry.origin, reason: error.reason))
            }
        }
    }

    /// The known key (or section) closest to a misspelt one, if it is close.
    static func suggestion(for name: String) -> String? {
        let candidates = SettingsSchema.keys.map(\.name) + Set(SettingsSchema.keys.map { String($0.name.split(separator: ".")[0]) }).sorted()
        return closest(name, among: candidates)
    }

    static func closest(_ name: String, among candidates: [String]) -> String? {
        // The search is quadratic in the name's length; no key is longer than 40 characters.
        guard name.count <= 64 else { return nil }
        let scored = candidates.map { ($0, editDistance(name.lowercased(), $0.lowercased())) }.min { $0.1 < $1.1 }
        guard let (best, distance) = scored, distance <= max(2, name.count / 5) else { return nil }
        return best
    }

    static func editDistance(_ a: String, _ b: String) -> Int {
        let a = Array(a)
        let b = Array(b)
        var row = Array(0...b.count)
        for i in 1...max(a.count, 1) where !a.isEmpty {
            var previous = row[0]
            row[0] = i
            for j in stride(from: 1, through: b.count, by: 1) {
                let current = row[j]
                row[j] = min(row[j] + 1, row[j - 1] + 1, previous + (a[i - 1] == b[j - 1] ? 0 : 1))
                previous = current
            }
        }
        return a.isEmpty ? b.count : row[b.count]
    }
}
