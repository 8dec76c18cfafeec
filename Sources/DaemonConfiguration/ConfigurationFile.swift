import Foundation
import Yams

/// Reads a YAML configuration file into entries, each with the line it was written on.
///
/// The file is two levels deep: sections (`camera`, `recognition`, …) holding keys. Values are read as
/// written (the scalar's text), never through YAML's implicit typing, so `socket-mode: 0660` stays
/// octal text and `phone-region: NO` stays Norway; each key's parser decides what its text means.
public enum ConfigurationFile {
    public static func entries(path: String) throws(ConfigurationErrors) -> [SettingEntry] {
        try entries(yaml: read(path), path: path)
    }

    public static func entries(yaml text: String, path: String) throws(ConfigurationErrors) -> [SettingEntry] {
        let (entries, errors) = parse(yaml: text, path: path)
        if !errors.isEmpty { throw ConfigurationErrors(errors) }
        return entries
    }

    /// The entries that could be read, and the problems with the rest: the loader checks the entries'
    /// keys and values too, so one run reports everything.
    static func parse(path: String) -> ([SettingEntry], [ConfigurationError]) {
        do {
            let text = try read(path)
            return parse(yaml: text, path: path)
        } catch {
            return ([], error.errors)
        }
    }

    /// The file's text, read only if it is a regular file of at most `YAMLLimits.maximumBytes`: a
    /// FIFO would block the reader, a device or a huge file would exhaust it.
    static func read(_ path: String) throws(ConfigurationErrors) -> String {
        func unreadable(_ reason: String) -> ConfigurationErrors { ConfigurationErrors([.unreadable(path: path, reason: reason)]) }
        let bytes: [UInt8]
        do throws(RegularFile.Failure) {
            bytes = try RegularFile.read(path, limit: YAMLLimits.maximumBytes)
        } catch {
            throw unreadable(error.description)
        }
        guard let text = String(validating: bytes, as: UTF8.self) else { throw unreadable("not UTF-8 text") }
        return text
    }

    static func parse(yaml text: String, path: String) -> ([SettingEntry], [ConfigurationError]) {
        if text.utf8.count > YAMLLimits.maximumBytes {
            return ([], [.unreadable(path: path, reason: "too large (more than \(YAMLLimits.maximumBytes >> 20) MiB)")])
        }
        if let refused = YAMLLimits.check(text, path: path) { return ([], [refused]) }
        let root: Node?
        do {
            root = try Yams.compose(yaml: text)
        } catch let error as YamlError {
            return ([], [syntaxError(error, path: path)])
        } catch {
            return ([], [.syntax(path: path, line: 1, column: 1, problem: "\(error)")])
        }
        // An empty file (or only comments) is a valid configuration: all defaults.
        guard let root else { return ([], []) }
        func origin(_ node: Node) -> SettingOrigin { .file(path: path, line: node.mark?.line ?? 1) }
        guard let sections = root.mapping else { return ([], [.notAMapping(key: nil, origin: origin(root))]) }
        var entries: [SettingEntry] = []
        var errors: [ConfigurationError] = []
        var seen = Set<String>()
        for (sectionNode, body) in sections {
            let section = sectionNode.scalar?.string ?? summary(sectionNode)
            guard SettingsSchema.keys.contains(where: { $0.name.hasPrefix(section + ".") }) else {
                errors.append(.unknownKey(key: section, origin: origin(sectionNode), suggestion: ConfigurationLoader.suggestion(for: section)))
                continue
            }
            guard let keys = body.mapping else {
                errors.append(.notAMapping(key: section, origin: origin(body)))
                continue
            }
            for (keyNode, valueNode) in keys {
                let name = section + "." + (keyNode.scalar?.string ?? summary(keyNode))
                if !seen.insert(name).inserted {
                    errors.append(.duplicateKey(key: name, origin: origin(keyNode)))
                    continue
                }
                do {
                    entries.append(SettingEntry(key: name, value: try value(valueNode), origin: origin(valueNode.mark == nil ? keyNode : valueNode)))
                } catch {
                    errors.append(.badValue(key: name, value: summary(valueNode), origin: origin(keyNode), reason: error.reason))
                }
            }
        }
        return (entries, errors)
    }

    /// A node as an error message shows it: a scalar's text (shortened), or what kind of node it is;
    /// never a dump of the tree.
    static func summary(_ node: Node) -> String {
        switch node {
        case .scalar(let scalar): ConfigurationError.shortened(scalar.string)
        case .sequence: "(a list)"
        case .mapping: "(a mapping)"
        case .alias: "(an alias)"
        }
    }

    private static func value(_ node: Node) throws(ValueProblem) -> SettingValue {
        switch node {
        case .scalar(let scalar):
            // Plain `~`, `null` or nothing; a quoted "null" is the text null.
            if scalar.style == .plain, ["", "~", "null", "Null", "NULL"].contains(scalar.string) { return .null }
            return .scalar(scalar.string)
        case .sequence(let sequence):
            return .list(
                try sequence.map { item throws(ValueProblem) in
                    guard let s = item.scalar?.string else { throw ValueProblem("expected a list of single values") }
                    return s
                })
        case .mapping(let mapping):
            return .map(
                try mapping.map { pair throws(ValueProblem) in
                    guard let k = pair.key.scalar?.string, let v = pair.value.scalar?.string else {
                        throw ValueProblem("expected name: value pairs")
                    }
                    return SettingValue.Pair(k, v)
                })
        case .alias:
            throw ValueProblem("aliases are not supported")
        }
    }

    private static func syntaxError(_ error: YamlError, path: String) -> ConfigurationError {
        switch error {
        case .scanner(let context, let problem, let mark, _), .parser(let context, let problem, let mark, _),
            .composer(let context, let problem, let mark, _):
            let text = [context?.text, problem].compactMap { $0 }.filter { !$0.isEmpty }.joined(separator: " ")
            return .syntax(path: path, line: mark.line, column: mark.column, problem: text)
        case .duplicatedKeysInMapping(let duplicates, let context):
            return .syntax(
                path: path, line: context.mark.line, column: context.mark.column,
                problem: "duplicated keys: \(duplicates.joined(separator: ", "))")
        default:
            return .syntax(path: path, line: 1, column: 1, problem: "\(error)")
        }
    }
}
