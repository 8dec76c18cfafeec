import Foundation
import ScannerCore

/// The `KEY:value;KEY:value;;` grammar of `WIFI:` and `MECARD:` codes (ZXing's "Barcode Contents",
/// after NTT docomo's MeCard): a value runs to the next unescaped `;`, a backslash escapes the next
/// character (`\;`, `\:`, `\,`, `\\`, `\"`), and an empty field (`;;`) ends the list.
enum TaggedFields {
    /// A field's key and its value with escapes still in (MECARD's `N:` splits on unescaped commas).
    struct Field: Equatable {
        var key: String
        var raw: String
    }

    /// The fields after `prefix` (matched case-insensitively), or nil when the text does not follow the
    /// grammar: a key that is not 1–8 letters, digits or `-`, a value not closed by `;`, a backslash
    /// at the very end, or anything but whitespace after the closing `;;`.
    static func parse(_ text: String, prefix: String) -> [Field]? {
        guard PayloadParser.hasPrefix(text, prefix) else { return nil }
        let chars = Array(text.unicodeScalars.dropFirst(prefix.unicodeScalars.count))
        var fields: [Field] = []
        var i = 0
        while i < chars.count {
            if chars[i] == ";" {
                // The closing empty field: only whitespace may follow.
                return chars[(i + 1)...].allSatisfy({ $0.properties.isWhitespace }) ? fields : nil
            }
            var key = ""
            while i < chars.count, chars[i] != ":" {
                let c = chars[i]
                guard c.isASCII, c.properties.isAlphabetic || ("0"..."9").contains(c) || c == "-", key.count < 8 else { return nil }
                key.unicodeScalars.append(c)
                i += 1
            }
            guard i < chars.count, !key.isEmpty else { return nil }
            i += 1  // ":"
            var raw = String.UnicodeScalarView()
            var closed = false
            while i < chars.count {
                let c = chars[i]
                if c == "\\" {
                    guard i + 1 < chars.count else { return nil }
                    raw.append(c)
                    raw.append(chars[i + 1])
                    i += 2
                    continue
                }
                i += 1
                if c == ";" {
                    closed = true
                    break
                }
                raw.append(c)
            }
            guard closed else { return nil }
            fields.append(Field(key: key.uppercased(), raw: String(raw)))
        }
        // Ended after a field's ";" without the empty field: accepted (many generators write one ";").
        return fields
    }

    /// `raw` with its escapes resolved.
    static func unescape(_ raw: String) -> String {
        var out = String.UnicodeScalarView()
        var escaped = false
        for c in raw.unicodeScalars {
            if escaped || c != "\\" {
                out.append(c)
                escaped = false
            } else {
                escaped = true
            }
        }
        return String(out)
    }

    /// `raw` split at unescaped `separator`s, each part unescaped.
    static func split(_ raw: String, at separator: Unicode.Scalar) -> [String] {
        var parts: [String] = []
        var current = String.UnicodeScalarView()
        var escaped = false
        for c in raw.unicodeScalars {
            if escaped {
                current.append(c)
                escaped = false
            } else if c == "\\" {
                escaped = true
            } else if c == separator {
                parts.append(String(current))
                current = String.UnicodeScalarView()
            } else {
                current.append(c)
            }
        }
        parts.append(String(current))
        return parts
    }
}

/// `WIFI:T:WPA;S:network;P:secret;H:false;;` — the code a router's sticker or a guest card shows.
enum WiFiCode {
    /// Keys of the format: T (security), S (SSID), P (password), H (hidden); E, A, I, PH2 for
    /// WPA2-Enterprise; R for WPA3's transition-disable flag.
    static let knownKeys: Set<String> = ["T", "S", "P", "H", "E", "A", "I", "PH2", "R"]

    static func parse(_ payload: String) -> WiFiNetwork? {
        guard let fields = TaggedFields.parse(payload, prefix: "WIFI:") else { return nil }
        var values: [String: String] = [:]
        for field in fields {
            // Each key once: two SSIDs are two guesses.
            guard knownKeys.contains(field.key), values.updateValue(TaggedFields.unescape(field.raw), forKey: field.key) == nil
            else { return nil }
        }
        guard var ssid = values["S"], !ssid.isEmpty else { return nil }
        // An SSID that could be read as hex is written in double quotes.
        if ssid.count >= 2, ssid.hasPrefix("\""), ssid.hasSuffix("\"") { ssid = String(ssid.dropFirst().dropLast()) }
        guard !ssid.isEmpty, ssid.utf8.count <= 32 else { return nil }  // IEEE 802.11: at most 32 octets
        let security = values["T"].flatMap { $0.isEmpty ? nil : $0 } ?? "nopass"
        guard security.count <= 16, security.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-") }) else { return nil }
        let hidden: Bool
        switch values["H"]?.lowercased() {
        case nil, "false": hidden = false
        case "true": hidden = true
        default: return nil
        }
        return WiFiNetwork(ssid: ssid, security: security, hidden: hidden)
    }
}

/// `MECARD:N:Doe,John;TEL:+15555550100;EMAIL:john@example.com;;` (NTT docomo).
enum MECARD {
    static let knownKeys: Set<String> = ["N", "SOUND", "TEL", "TEL-AV", "EMAIL", "NOTE", "BDAY", "ADR", "URL", "NICKNAME", "ORG", "TITLE"]

    static func parse(_ payload: String) -> Contact? {
        guard let fields = TaggedFields.parse(payload, prefix: "MECARD:"), fields.allSatisfy({ knownKeys.contains($0.key) }) else { return nil }
        var contact = Contact()
        for field in fields {
            let value = TaggedFields.unescape(field.raw).trimmingCharacters(in: .whitespacesAndNewlines)
            switch field.key {
            case "N":
                guard contact.name == nil else { return nil }
                // "Family,Given" → "Given Family".
                let parts = TaggedFields.split(field.raw, at: ",").map { $0.trimmingCharacters(in: .whitespacesAndNewlines) }.filter { !$0.isEmpty }
                guard !parts.isEmpty, parts.count <= 2 else { return nil }
                contact.name = parts.reversed().joined(separator: " ")
            case "TEL": if !value.isEmpty { contact.phones.append(value) }
            case "EMAIL": if !value.isEmpty { contact.emails.append(value) }
            case "URL": if !value.isEmpty { contact.urls.append(value) }
            case "ORG": if !value.isEmpty { contact.organization = value }
            case "TITLE": if !value.isEmpty { contact.title = value }
            case "ADR":
                if !value.isEmpty {
                    contact.address = TaggedFields.split(field.raw, at: ",").map { $0.trimmingCharacters(in: .whitespacesAndNewlines) }.filter {
                        !$0.isEmpty
                    }.joined(separator: ", ")
                }
            default: break
            }
        }
        guard contact.name != nil else { return nil }  // N is the format's one required field
        return contact
    }
}
