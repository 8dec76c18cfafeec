import Foundation
import ScannerCore

/// What a decoded barcode's payload means (`ParsedPayload`), from the payload, the symbology and the
/// symbology identifier (`]C1` says a Code 128 carries GS1 element strings; the same digits without it
/// are just digits).
///
/// Every parser here is strict and total: a payload that does not follow its format has no parsed
/// form (nil), never a partial one, and no input makes a parser trap. Payloads are small — a QR code
/// holds at most 7089 characters, a PDF417 about 1850 — and every parser is linear in them.
public enum PayloadParser {
    public static func parse(_ payload: String, symbology: Symbology, symbologyIdentifier: String? = nil) -> ParsedPayload? {
        if symbology == .gs1DataBar || symbology == .gs1DataBarExpanded || SymbologyIdentifier.marksGS1(symbologyIdentifier) {
            return GS1ElementString.parse(payload).map(ParsedPayload.gs1)
        }
        if symbology == .pdf417, AAMVA.looksLikeLicense(payload) {
            return AAMVA.parse(payload).map(ParsedPayload.aamva)
        }
        if hasPrefix(payload, "WIFI:") { return WiFiCode.parse(payload).map(ParsedPayload.wifi) }
        if hasPrefix(payload, "MECARD:") { return MECARD.parse(payload).map(ParsedPayload.contact) }
        if hasPrefix(payload, "BEGIN:VCARD") { return VCard.parse(payload).map(ParsedPayload.contact) }
        if hasPrefix(payload, "http://") || hasPrefix(payload, "https://") { return webLink(payload).map(ParsedPayload.url) }
        return nil
    }

    /// A payload that is one http(s) URL and nothing else (no spaces, no control characters), with a
    /// host. Parsed by Foundation's `URLComponents` (RFC 3986).
    static func webLink(_ payload: String) -> WebLink? {
        guard payload.utf8.count <= 4096, !payload.unicodeScalars.contains(where: { $0.value <= 0x20 || $0.value == 0x7F }),
            let components = URLComponents(string: payload), let scheme = components.scheme?.lowercased(),
            scheme == "http" || scheme == "https", let host = components.host, !host.isEmpty
        else { return nil }
        return WebLink(url: payload, scheme: scheme, host: host.lowercased())
    }

    /// Case-insensitive ASCII prefix.
    static func hasPrefix(_ text: String, _ prefix: String) -> Bool {
        let bytes = Array(text.utf8.prefix(prefix.utf8.count))
        return bytes.count == prefix.utf8.count && zip(bytes, prefix.utf8).allSatisfy { $0 | 0x20 == $1 | 0x20 }
    }
}

/// ISO/IEC 15424 symbology identifiers ("]" + code letter + modifier), which say how data is to be read.
enum SymbologyIdentifier {
    /// Identifiers of GS1 data: Code 128 (`]C1`), DataMatrix (`]d2`), QR (`]Q3`), DataBar (`]e0`),
    /// Aztec (`]z1`: FNC1 in first position).
    static func marksGS1(_ identifier: String?) -> Bool {
        guard let identifier else { return false }
        return ["]C1", "]d2", "]Q3", "]e0", "]z1"].contains(identifier)
    }
}
