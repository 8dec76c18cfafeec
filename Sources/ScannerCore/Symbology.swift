/// Barcode symbologies, named as Vision names them (`VNBarcodeSymbology`), lower camel case; the
/// three zxing-cpp adds (issue #17) as the issue named them: `datamatrix`, `aztec`, `microqr`.
public enum Symbology: String, Sendable, CaseIterable, Hashable, Comparable {
    case qr
    case ean13
    case ean8
    case upce
    case upca
    case code128
    case code39
    case code93
    case i2of5
    case codabar
    case gs1DataBar
    case gs1DataBarExpanded
    case pdf417
    case datamatrix
    case aztec
    case microqr

    /// Read along lines (1-D codes, and PDF417's stacked rows): a misread can pass the check digit
    /// (EAN's mod 10 misses two compensating errors), and zxing-cpp 1.4 has decoded camera noise as
    /// a PDF417 "AA", so readings are voted on by place, like text. QR codes' error correction and
    /// finder patterns make one decode enough, as do DataMatrix's, Aztec's and Micro QR's
    /// Reed–Solomon codes.
    public var isLinear: Bool {
        switch self {
        case .qr, .datamatrix, .aztec, .microqr: false
        default: true
        }
    }

    public static func < (a: Symbology, b: Symbology) -> Bool {
        allCases.firstIndex(of: a)! < allCases.firstIndex(of: b)!
    }
}

/// What a piece of recognized text *is* (Vision's `textContentType`).
public enum TextContentType: String, Sendable, CaseIterable, Hashable {
    case telephoneNumber
    case url
    case emailAddress
}

/// The scanning quality level (VisionKit's `QualityLevel`). Each maps to concrete recognizer settings:
/// see `docs/recognition.md`.
public enum QualityLevel: String, Sendable, CaseIterable {
    case fast
    case balanced
    case accurate
}
