import Foundation  // trimmingCharacters(in:)

/// What to look for: VisionKit's `recognizedDataTypes`.
///
/// Fewer types means less work: zbar is configured for exactly `symbologies`, and Tesseract is not run
/// at all when no text type is requested.
public struct RecognitionTypes: Sendable, Equatable {
    public var symbologies: Set<Symbology>
    public var contentTypes: Set<TextContentType>
    /// Report every line of text, not only phone numbers, URLs and e-mail addresses.
    public var plainText: Bool
    /// Report the page, card or label held up as a `document` item (its four corners). Off unless
    /// named: it costs a detection several times a second.
    public var documents: Bool

    public init(symbologies: Set<Symbology>, contentTypes: Set<TextContentType>, plainText: Bool = false, documents: Bool = false) {
        self.symbologies = symbologies
        self.contentTypes = contentTypes
        self.plainText = plainText
        self.documents = documents
    }

    /// Every symbology and the standard content types (`TextContentType.standard`); plain text lines
    /// and the other content types are not reported by default.
    public static let all = RecognitionTypes(symbologies: Set(Symbology.allCases), contentTypes: TextContentType.standard)

    public var wantsText: Bool { plainText || !contentTypes.isEmpty }
    public var wantsBarcodes: Bool { !symbologies.isEmpty }

    /// Parses a comma-separated list of names: symbologies (`qr`, `ean13`, …), content types
    /// (`telephoneNumber`, `url`, `emailAddress`, `shipmentTrackingNumber`), the symbology groups
    /// (`Symbology.groups`: `barcodes` for every symbology, `matrix`, `linear`, `retail`), `contentTypes`
    /// (the standard content types: phone numbers, links, e-mail addresses), `text`
    /// (every line of text) and `document` (the page or card held up).
    public init(parsing list: String) throws(ScannerError) {
        var types = RecognitionTypes(symbologies: [], contentTypes: [])
        let names = list.split(separator: ",").map { String($0).trimmingCharacters(in: .whitespaces) }
        guard !names.isEmpty else {
            throw .invalidArgument(name: "types", value: list, reason: "the list is empty")
        }
        for name in names where !name.isEmpty {
            if let s = Symbology(rawValue: name) {
                types.symbologies.insert(s)
            } else if let c = TextContentType(rawValue: name) {
                types.contentTypes.insert(c)
            } else if let group = Symbology.groups[name] {
                types.symbologies.formUnion(group)
            } else if name == "contentTypes" {
                types.contentTypes.formUnion(TextContentType.standard)
            } else if name == "text" {
                types.plainText = true
            } else if name == Self.documentName {
                types.documents = true
            } else {
                throw .invalidArgument(
                    name: "types", value: name,
                    reason: "unknown type; known: \(Self.knownNames.joined(separator: ", "))")
            }
        }
        self = types
    }

    /// The types as `init(parsing:)` reads them back, groups for what is whole ("barcodes",
    /// "contentTypes"), in a stable order.
    public var names: [String] {
        if self == .all { return ["barcodes", "contentTypes"] }
        var names: [String] = []
        if symbologies == Set(Symbology.allCases) { names.append("barcodes") } else { names += symbologies.sorted().map(\.rawValue) }
        if contentTypes.isSuperset(of: TextContentType.standard) {
            names.append("contentTypes")
            names += contentTypes.subtracting(TextContentType.standard).map(\.rawValue).sorted()
        } else {
            names += contentTypes.map(\.rawValue).sorted()
        }
        if plainText { names.append("text") }
        if documents { names.append(Self.documentName) }
        return names
    }

    public static var knownNames: [String] {
        Symbology.allCases.map(\.rawValue) + TextContentType.allCases.map(\.rawValue)
            + Symbology.groups.keys.sorted() + ["contentTypes", "text", documentName]
    }

    /// The type name of documents, as of their items' `kind`.
    public static let documentName = "document"
}

/// What the person at the kiosk should do so that what they hold can be read (VisionKit tells the
/// user itself; scannerd tells the kiosk app, which shows it): the `guidance` event's `hint`.
public enum GuidanceHint: String, Sendable, CaseIterable {
    case tooDark
    case tooBright
    case glare
    case blurry
    case moveCloser
    case holdStill
}

/// What clients are told about guidance: a hint, or that the last one no longer holds. On the wire
/// the `guidance` event's `hint` is the hint's name or `cleared`.
public enum Guidance: Sendable, Equatable, CustomStringConvertible {
    case hint(GuidanceHint)
    case cleared

    /// Its name on the wire.
    public var description: String {
        switch self {
        case .hint(let hint): hint.rawValue
        case .cleared: "cleared"
        }
    }

    /// The guidance a wire name says; nil for a name no daemon of this version sends.
    public init?(_ name: String) {
        if name == "cleared" {
            self = .cleared
        } else if let hint = GuidanceHint(rawValue: name) {
            self = .hint(hint)
        } else {
            return nil
        }
    }
}
