/// One thing found in an image: a barcode or a piece of text.
public struct RecognizedItem: Sendable, Equatable {
    public enum Kind: String, Sendable {
        case barcode
        case text
        /// A page, card or label held up (issue #43): its four corners; payload `document`.
        case document
    }

    public var kind: Kind
    /// Set for barcodes.
    public var symbology: Symbology?
    /// Set for text that was recognized as a phone number, URL or e-mail address; nil for plain text.
    public var contentType: TextContentType?
    /// The value: a barcode's decoded data; for text the normalized value (E.164 phone number,
    /// URL with scheme, e-mail address) or the line as read for plain text.
    public var payload: String
    /// For text: the characters as read, before normalization.
    public var transcript: String?
    /// Corners in normalized whole-image coordinates (0…1, top-left origin).
    public var bounds: Quad
    /// 0…1. Barcodes decoded by zbar report 1; text reports the recognizer's mean word confidence.
    public var confidence: Double
    /// For barcodes: what the decoder says beside the text (identifier, raw bytes, parsed form).
    public var details: PayloadDetails?

    public init(
        kind: Kind, symbology: Symbology? = nil, contentType: TextContentType? = nil, payload: String,
        transcript: String? = nil, bounds: Quad, confidence: Double, details: PayloadDetails? = nil
    ) {
        self.kind = kind
        self.symbology = symbology
        self.contentType = contentType
        self.payload = payload
        self.transcript = transcript
        self.bounds = bounds
        self.confidence = confidence
        self.details = details
    }
}

/// What a barcode decoder says about a payload besides its text. Kept with every reading of a
/// symbol, so that when readings are voted on, the one chosen brings its own.
public struct PayloadDetails: Sendable, Equatable {
    /// The ISO/IEC 15424 symbology identifier: `]Q1` a QR code, `]C1` a GS1-128, `]d2` a GS1 DataMatrix.
    public var symbologyIdentifier: String?
    /// The raw bytes, base64, when they are not UTF-8 text (the payload then holds them decoded
    /// with U+FFFD for every invalid sequence).
    public var payloadBase64: String?
    /// The payload's meaning, when it follows a known format (`PayloadParsing`).
    public var parsed: ParsedPayload?

    public init(symbologyIdentifier: String? = nil, payloadBase64: String? = nil, parsed: ParsedPayload? = nil) {
        self.symbologyIdentifier = symbologyIdentifier
        self.payloadBase64 = payloadBase64
        self.parsed = parsed
    }
}

extension RecognizedItem {
    /// Reading order: top to bottom by the items' top edges, left to right when two start on the same
    /// line (tops within 1% of the image height).
    public static func readingOrder(_ a: RecognizedItem, _ b: RecognizedItem) -> Bool {
        let boxA = a.bounds.boundingBox
        let boxB = b.bounds.boundingBox
        if abs(boxA.minY - boxB.minY) > 0.01 { return boxA.minY < boxB.minY }
        return boxA.minX < boxB.minX
    }
}
