import ScannerCore
import ScannerProtocol

/// A list of type names as a person writes it (`qr,telephoneNumber`, `barcode`, `url`): kinds,
/// symbologies and content types, meaning "any of these".
public enum TypeList {
    /// The `subscribe` request for `types`: only items named by one of the names pass.
    ///
    /// A `subscribe` filter's lists narrow their own kind of item only (`symbologies` says nothing of
    /// text, `contentTypes` nothing of barcodes), so the kinds are named too: `qr` alone must not let
    /// a phone number through, nor `telephoneNumber` a QR code (seen: `scanctl wait --types
    /// telephoneNumber` printed the demo's QR code when it came back into view first). Names the
    /// client does not know go to the daemon as symbologies, for its `bad-argument`.
    public static func subscription(_ types: String) -> JSONValue {
        var kinds: Set<String> = []
        var symbologies: [JSONValue] = []
        var contentTypes: [JSONValue] = []
        for name in types.split(separator: ",").map({ $0.trimmingCharacters(in: .whitespaces) }) where !name.isEmpty {
            if name == "barcode" || name == "text" || name == RecognitionTypes.documentName {
                kinds.insert(name)
            } else if TextContentType(rawValue: name) != nil {
                contentTypes.append(.string(name))
            } else {
                symbologies.append(.string(name))
            }
        }
        // A whole kind named stands for all of it (its narrower names add nothing); a narrower name
        // alone names its kind.
        if kinds.contains("barcode") { symbologies = [] } else if !symbologies.isEmpty { kinds.insert("barcode") }
        if kinds.contains("text") { contentTypes = [] } else if !contentTypes.isEmpty { kinds.insert("text") }
        var fields: [(String, JSONValue)] = [("request", .string("subscribe"))]
        if !kinds.isEmpty { fields.append(("kinds", .array(kinds.sorted().map(JSONValue.string)))) }
        if !symbologies.isEmpty { fields.append(("symbologies", .array(symbologies))) }
        if !contentTypes.isEmpty { fields.append(("contentTypes", .array(contentTypes))) }
        return .object(fields)
    }
}
