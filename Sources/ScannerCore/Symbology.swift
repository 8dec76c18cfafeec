/// Barcode symbologies, named as Vision names them (`VNBarcodeSymbology`), lower camel case; the
/// ones zxing-cpp adds (issues #17, #41) as the issues named them: `datamatrix`, `aztec`, `microqr`,
/// `micropdf417`, `maxicode`, `rmqr`, `telepen`.
public enum Symbology: String, Sendable, CaseIterable, Hashable, Comparable {
    case qr
    case microqr
    case rmqr
    case datamatrix
    case aztec
    case maxicode
    case pdf417
    case micropdf417
    case ean13
    case ean8
    case upce
    case upca
    case code128
    case code39
    case code93
    case i2of5
    case codabar
    case telepen
    case gs1DataBar
    case gs1DataBarExpanded
    case gs1DataBarLimited

    /// Read along lines (1-D codes, and PDF417's and MicroPDF417's stacked rows): a misread can pass
    /// the check digit (EAN's mod 10 misses two compensating errors), and zxing-cpp 1.4 has decoded
    /// camera noise as a PDF417 "AA", so readings are voted on by place, like text. The matrix codes'
    /// Reed–Solomon error correction and finder patterns make one decode enough.
    public var isLinear: Bool {
        switch self {
        case .qr, .microqr, .rmqr, .datamatrix, .aztec, .maxicode: false
        default: true
        }
    }

    /// The groups `--types` and the `set` request accept beside single names (docs/cli.md).
    public static let groups: [String: Set<Symbology>] = [
        "barcodes": Set(allCases),
        // Two-dimensional codes, read as a whole.
        "matrix": Set(allCases.filter { !$0.isLinear }),
        // Codes read along lines: 1-D codes and the stacked PDF417s.
        "linear": Set(allCases.filter(\.isLinear)),
        // What is printed on goods at a till: EAN/UPC and GS1 DataBar.
        "retail": [.ean13, .ean8, .upca, .upce, .gs1DataBar, .gs1DataBarExpanded, .gs1DataBarLimited],
    ]

    public static func < (a: Symbology, b: Symbology) -> Bool {
        allCases.firstIndex(of: a)! < allCases.firstIndex(of: b)!
    }
}

/// What a piece of recognized text *is* (Vision's `textContentType`).
public enum TextContentType: String, Sendable, CaseIterable, Hashable {
    case telephoneNumber
    case url
    case emailAddress
    /// A parcel's tracking number (UPS, FedEx, USPS, DHL Express, UPU S10), by its check digit.
    case shipmentTrackingNumber
    /// An amount of money with its currency (a symbol or an ISO 4217 code printed beside it).
    case currency
    /// A date, a time, a range of them or a duration, with its ISO 8601 value.
    case dateTimeDuration
    /// An IATA airline designator and flight number (`LH400`), on a line that says it is a flight.
    case flightNumber
    /// A street address with its locality (`5250 York Blvd, Los Angeles, CA 90042`), on one line or
    /// two.
    case fullStreetAddress

    /// Whether a payload of this type carries a check digit that was verified: a misread passes it
    /// only by chance (one in 7 to 11), so one reading that passes it is evidence another reading
    /// agreeing would be for a type without one (`ReadingFusion.agreed`).
    public var carriesCheckDigit: Bool { self == .shipmentTrackingNumber }

    /// The types recognized unless others are asked for, and what the `contentTypes` group names.
    /// The others are asked for by name: where they would add noise (a receipt's numbers), off by default.
    public static let standard: Set<TextContentType> = [.telephoneNumber, .url, .emailAddress]
}

/// The scanning quality level (VisionKit's `QualityLevel`). Each maps to concrete recognizer settings:
/// see `docs/recognition.md`.
public enum QualityLevel: String, Sendable, CaseIterable {
    case fast
    case balanced
    case accurate
}
