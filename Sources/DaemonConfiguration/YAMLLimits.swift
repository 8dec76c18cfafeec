import CYaml
import Foundation

/// Bounds a configuration file's cost before Yams builds a tree of it (docs/security.md).
///
/// Yams resolves an alias to a second reference to the anchored node, so a few hundred bytes of
/// nested aliases ("billion laughs") stand for billions of nodes: composing them is cheap, but every
/// walk over the tree — Yams' own duplicate-key check hashes keys, an error message prints a value —
/// visits them all, and the process hangs while its memory grows. The configuration format needs no
/// anchors, aliases or deep nesting, so they are refused here, from libyaml's event stream, which
/// costs time and memory in proportion to the file's size.
///
/// The events come from the libyaml that Yams builds (its `CYaml` module), so the check and the
/// parser that follows read the text the same way, and the process holds one libyaml.
enum YAMLLimits {
    /// The shipped file, every key at its default, is 7 kB with about 110 nodes.
    static let maximumBytes = 1 << 20
    static let maximumNodes = 10_000
    /// Sections hold keys, keys hold values, a value may be a list or a map: 3. A margin on top.
    static let maximumDepth = 8

    /// The first limit `text` breaks, or nil. A syntax error is not reported here: Yams reports it,
    /// with its own wording, when it parses the same text.
    static func check(_ text: String, path: String) -> ConfigurationError? {
        var bytes = Array(text.utf8)
        return bytes.withUnsafeMutableBufferPointer { buffer -> ConfigurationError? in
            var parser = yaml_parser_t()
            guard yaml_parser_initialize(&parser) == 1 else { return nil }
            defer { yaml_parser_delete(&parser) }
            yaml_parser_set_input_string(&parser, buffer.baseAddress, buffer.count)
            var nodes = 0
            var depth = 0
            while true {
                var event = yaml_event_t()
                guard yaml_parser_parse(&parser, &event) == 1 else { return nil }
                defer { yaml_event_delete(&event) }
                let line = Int(event.start_mark.line) + 1
                let column = Int(event.start_mark.column) + 1
                func limit(_ problem: String) -> ConfigurationError { .limit(path: path, line: line, column: column, problem: problem) }
                switch event.type {
                case YAML_STREAM_END_EVENT:
                    return nil
                case YAML_ALIAS_EVENT:
                    return limit("aliases (*name) are not supported")
                case YAML_SCALAR_EVENT, YAML_SEQUENCE_START_EVENT, YAML_MAPPING_START_EVENT:
                    let anchor =
                        switch event.type {
                        case YAML_SCALAR_EVENT: event.data.scalar.anchor
                        case YAML_SEQUENCE_START_EVENT: event.data.sequence_start.anchor
                        default: event.data.mapping_start.anchor
                        }
                    if anchor != nil { return limit("anchors (&name) are not supported") }
                    nodes += 1
                    if nodes > maximumNodes { return limit("more than \(maximumNodes) values") }
                    if event.type != YAML_SCALAR_EVENT {
                        depth += 1
                        if depth > maximumDepth { return limit("nested more than \(maximumDepth) levels deep") }
                    }
                case YAML_SEQUENCE_END_EVENT, YAML_MAPPING_END_EVENT:
                    depth -= 1
                default:
                    break
                }
            }
        }
    }
}
