import Foundation
import ScannerCore

/// A vCard (RFC 2426 v3.0, RFC 6350 v4.0, and the v2.1 that phones still write) in a QR code:
/// `BEGIN:VCARD` … `END:VCARD`, one property per line, folded lines continued by a leading space or tab.
enum VCard {
    /// Lines in a card; a QR code holds at most 7089 characters, so a real card is far below this.
    static let maximumLines = 500

    static func parse(_ payload: String) -> Contact? {
        // Unfold (RFC 6350 §3.2): CRLF or LF followed by one space or tab continues the line.
        var lines: [String] = []
        for line in payload.split(omittingEmptySubsequences: false, whereSeparator: { $0 == "\n" || $0 == "\r\n" }) {
            var line = Substring(line)
            if line.hasSuffix("\r") { line = line.dropLast() }
            if let first = line.first, first == " " || first == "\t", !lines.isEmpty {
                lines[lines.count - 1] += line.dropFirst()
            } else {
                lines.append(String(line))
            }
            guard lines.count <= maximumLines else { return nil }
        }
        while lines.last?.isEmpty == true { lines.removeLast() }
        guard lines.count >= 3, lines.first!.uppercased() == "BEGIN:VCARD", lines.last!.uppercased() == "END:VCARD" else { return nil }
        var contact = Contact()
        var version: String?
        var structuredName: String?
        for line in lines.dropFirst().dropLast() {
            guard !line.isEmpty else { continue }
            guard let property = Property(line) else { return nil }
            // Quoted-printable (v2.1) and base64 (a photo) values are not text to show: skipped.
            if property.parameters.contains(where: { $0.hasPrefix("ENCODING=") || $0 == "QUOTED-PRINTABLE" || $0 == "BASE64" || $0 == "B" }) {
                continue
            }
            switch property.name {
            case "BEGIN", "END": return nil  // a nested or second card
            case "VERSION":
                guard version == nil, ["2.1", "3.0", "4.0"].contains(property.value) else { return nil }
                version = property.value
            case "FN": contact.name = nonEmpty(TaggedFields.unescape(property.value.replacingNewlineEscapes))
            case "N":
                // Family;Given;Additional;Prefixes;Suffixes → "Prefixes Given Additional Family Suffixes".
                let parts = TaggedFields.split(property.value, at: ";").map { $0.trimmingCharacters(in: .whitespacesAndNewlines) }
                let order = [3, 1, 2, 0, 4].compactMap { $0 < parts.count ? nonEmpty(parts[$0]) : nil }
                structuredName = order.isEmpty ? nil : order.joined(separator: " ")
            case "TEL": appendNonEmpty(&contact.phones, property.value.hasPrefix("tel:") ? String(property.value.dropFirst(4)) : property.value)
            case "EMAIL": appendNonEmpty(&contact.emails, TaggedFields.unescape(property.value))
            case "URL": appendNonEmpty(&contact.urls, TaggedFields.unescape(property.value))
            case "ORG":
                contact.organization = nonEmpty(
                    TaggedFields.split(property.value, at: ";").map { $0.trimmingCharacters(in: .whitespacesAndNewlines) }.filter { !$0.isEmpty }
                        .joined(separator: ", "))
            case "TITLE": contact.title = nonEmpty(TaggedFields.unescape(property.value.replacingNewlineEscapes))
            case "ADR":
                if contact.address == nil {
                    contact.address = nonEmpty(
                        TaggedFields.split(property.value.replacingNewlineEscapes, at: ";").map { $0.trimmingCharacters(in: .whitespacesAndNewlines) }
                            .filter { !$0.isEmpty }
                            .joined(separator: ", "))
                }
            default: break
            }
        }
        guard version != nil else { return nil }  // required in every version
        if contact.name == nil { contact.name = structuredName }
        guard contact.name != nil || !contact.phones.isEmpty || !contact.emails.isEmpty else { return nil }
        return contact
    }

    /// `[group.]NAME[;PARAM…]:value`.
    struct Property {
        var name: String
        var parameters: [String]
        var value: String

        init?(_ line: String) {
            guard let colon = line.firstIndex(of: ":") else { return nil }
            let head = line[..<colon].split(separator: ";", omittingEmptySubsequences: false).map(String.init)
            var name = head[0]
            if let dot = name.lastIndex(of: ".") { name = String(name[name.index(after: dot)...]) }  // "item1.TEL"
            guard !name.isEmpty, name.utf8.count <= 64, name.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-") }) else {
                return nil
            }
            self.name = name.uppercased()
            parameters = head.dropFirst().map { $0.uppercased() }
            value = String(line[line.index(after: colon)...])
        }
    }

    static func nonEmpty(_ text: String) -> String? {
        let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
        return trimmed.isEmpty ? nil : trimmed
    }

    static func appendNonEmpty(_ list: inout [String], _ value: String) {
        if let value = nonEmpty(value) { list.append(value) }
    }
}

extension String {
    /// vCard's `\n` (and `\N`) escape for a line break inside a value, as a space: `parsed` fields
    /// are one line each.
    var replacingNewlineEscapes: String {
        replacingOccurrences(of: "\\n", with: ", ").replacingOccurrences(of: "\\N", with: ", ")
    }
}
