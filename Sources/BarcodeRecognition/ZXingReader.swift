internal import CZXing
import Foundation
import ScannerCore

/// zxing-cpp 3.x (built from its release source, `make deps`) through its C API: every symbol of the
/// requested symbologies in an image, each with its own corners, ISO/IEC 15424 identifier and, for
/// binary data, its bytes.
///
/// The options are made once; a read keeps no state in zxing-cpp, but counts its failures here, so a
/// reader is owned by one thread at a time, like the `BarcodeRecognizer` that holds it.
public final class ZXingReader {
    public let symbologies: Set<Symbology>
    private let options: OpaquePointer

    /// What the reader tries beyond the plain image (zxing-cpp's `ReaderOptions`; its defaults are all on).
    public struct Effort: Sendable, Equatable {
        /// More scan lines for 1-D codes, more finder-pattern searches for 2-D ones.
        public var tryHarder = true
        /// 1-D codes turned by 90° (and 2-D codes' detectors at every angle regardless).
        public var tryRotate = true
        /// Light-on-dark codes (a phone in dark mode), read in the negative.
        public var tryInvert = true
        /// Large images also read scaled down (a code too large for the binarizer's window).
        public var tryDownscale = true

        public init(tryHarder: Bool = true, tryRotate: Bool = true, tryInvert: Bool = true, tryDownscale: Bool = true) {
            self.tryHarder = tryHarder
            self.tryRotate = tryRotate
            self.tryInvert = tryInvert
            self.tryDownscale = tryDownscale
        }
    }

    /// What a camera frame's quick scan tries (`BarcodeRecognizer.recognize(_:thorough:)`): codes upright or
    /// tilted, dark on light, at the frame's size. Turning 1-D codes by 90° costs as much again as
    /// the rest of the read, and light-on-dark a fifth more (footage frames, docs/benchmarks.md).
    public static let quickEffort = Effort(tryHarder: true, tryRotate: false, tryInvert: false, tryDownscale: true)

    /// The most symbols one read returns: zxing-cpp counts them in a byte. An image that holds more is
    /// read in tiles (`BarcodeRecognizer.recognizeStill`).
    public static let maximumSymbols = 255

    public init(symbologies: Set<Symbology>, effort: Effort = Effort()) {
        self.symbologies = symbologies
        options = ZXing_ReaderOptions_new()
        // Plain: the bytes as text, GS1's FNC1 separators as U+001D (ParsedPayload's GS1 parser reads them),
        // not zxing-cpp's default "human readable" form with the application identifiers in brackets.
        ZXing_ReaderOptions_setTextMode(options, ZXing_TextMode_Plain)
        ZXing_ReaderOptions_setTryHarder(options, effort.tryHarder)
        ZXing_ReaderOptions_setTryRotate(options, effort.tryRotate)
        ZXing_ReaderOptions_setTryInvert(options, effort.tryInvert)
        ZXing_ReaderOptions_setTryDownscale(options, effort.tryDownscale)
        ZXing_ReaderOptions_setMaxNumberOfSymbols(options, Int32(Self.maximumSymbols))
        var formats = Self.formats(for: symbologies)
        ZXing_ReaderOptions_setFormats(options, &formats, Int32(formats.count))
    }

    deinit { ZXing_ReaderOptions_delete(options) }

    /// zxing-cpp's version ("3.1.1").
    public static var version: String { String(cString: ZXing_Version()) }

    /// Reads zxing-cpp could not make (its error, e.g. out of memory), and the last one's message.
    public private(set) var failures = 0
    public private(set) var lastFailure: String?

    /// The symbols in `image` (or in `region` of it), in the whole image's pixel coordinates. A 1-D
    /// code's place, the scan lines that read it, is grown across its bars (`BarExtent`).
    public func read(_ image: GrayImage, in region: PixelRect? = nil) -> [BarcodeObservation] {
        guard !symbologies.isEmpty, image.width > 0, image.height > 0 else { return [] }
        // zxing-cpp's checked view wants every row whole, the last one too; a `GrayImage` may end at the
        // last row's width.
        let image = image.pixels.count >= image.height * image.stride ? image : image.packed()
        let area = region?.clamped(width: image.width, height: image.height) ?? PixelRect(x: 0, y: 0, width: image.width, height: image.height)
        guard area.width > 0, area.height > 0 else { return [] }
        let found: [BarcodeObservation]? = image.pixels.withUnsafeBufferPointer { pixels -> [BarcodeObservation]? in
            guard
                let view = ZXing_ImageView_new_checked(
                    pixels.baseAddress, Int32(clamping: pixels.count), Int32(image.width), Int32(image.height), ZXing_ImageFormat_Lum,
                    Int32(image.stride), 1)
            else { return nil }
            defer { ZXing_ImageView_delete(view) }
            if area.width != image.width || area.height != image.height {
                ZXing_ImageView_crop(view, Int32(area.x), Int32(area.y), Int32(area.width), Int32(area.height))
            }
            guard let barcodes = ZXing_ReadBarcodes(view, options) else { return nil }
            defer { ZXing_Barcodes_delete(barcodes) }
            let offset = Point(x: Double(area.x), y: Double(area.y))
            return (0..<ZXing_Barcodes_size(barcodes)).compactMap { index in
                ZXing_Barcodes_at(barcodes, index).flatMap { observation(of: $0, offset: offset) }
            }
        }
        guard let found else {
            failures += 1
            lastFailure =
                ZXing_LastErrorMsg().map { message in
                    defer { ZXing_free(message) }
                    return String(cString: message)
                } ?? "zxing-cpp read nothing and gave no reason"
            return []
        }
        return found.map { observation in
            guard observation.symbology.isLinear else { return observation }
            var grown = observation
            grown.corners = BarExtent.grown(observation.corners, in: image)
            return grown
        }
    }

    private func observation(of barcode: OpaquePointer, offset: Point) -> BarcodeObservation? {
        guard ZXing_Barcode_isValid(barcode), var symbology = Self.symbology(of: ZXing_Barcode_format(barcode)) else { return nil }
        var length: Int32 = 0
        let bytes = ZXing_Barcode_bytes(barcode, &length)
        defer { ZXing_free(bytes) }
        let data = UnsafeBufferPointer(start: bytes, count: bytes == nil ? 0 : Int(max(0, length)))
        var (payload, base64) = BarcodeObservation.payload(of: data)
        if ZXing_Barcode_contentType(barcode) != ZXing_ContentType_Binary, let text = ZXing_Barcode_text(barcode) {
            // The text as zxing-cpp decoded it (its character set from the ECI or its guess), not the bytes.
            payload = String(cString: text)
            base64 = nil
            ZXing_free(text)
        }
        // zxing-cpp gives every EAN/UPC as 13 digits (ISO/IEC 15420's content for `]E0`), a UPC-A as an
        // EAN-13 whenever EAN-13 is read, and a UPC-E's own 8 digits as an extra. Reported here as zbar and
        // Vision report them: UPC-A as 12 digits where UPC-A is asked for, UPC-E as its 8.
        if symbology == .ean13 || symbology == .upca, payload.count == 13, payload.hasPrefix("0"), symbologies.contains(.upca) {
            symbology = .upca
            payload.removeFirst()
        } else if symbology == .upce, let upce = ZXing_Barcode_extra(barcode, "UPCE") {
            let digits = String(cString: upce)
            ZXing_free(upce)
            if digits.count == 8 { payload = digits }
        }
        guard symbologies.contains(symbology) else { return nil }
        let identifier = ZXing_Barcode_symbologyIdentifier(barcode).map { pointer in
            defer { ZXing_free(pointer) }
            return String(cString: pointer)
        }
        let p = ZXing_Barcode_position(barcode)
        func point(_ q: ZXing_PointI) -> Point { Point(x: Double(q.x) + offset.x, y: Double(q.y) + offset.y) }
        return BarcodeObservation(
            symbology: symbology, payload: payload,
            corners: Quad(topLeft: point(p.topLeft), topRight: point(p.topRight), bottomRight: point(p.bottomRight), bottomLeft: point(p.bottomLeft)),
            quality: Int(max(1, ZXing_Barcode_lineCount(barcode))), symbologyIdentifier: identifier?.isEmpty == false ? identifier : nil,
            payloadBase64: base64)
    }

    /// zxing-cpp's formats to look for: each symbology's own variants, so that asking for QR codes does
    /// not also look for Micro QR and rMQR (zxing-cpp's `QRCode` is the family).
    static func formats(for symbologies: Set<Symbology>) -> [ZXing_BarcodeFormat] {
        symbologies.sorted().flatMap { symbology -> [ZXing_BarcodeFormat] in
            switch symbology {
            case .qr: [ZXing_BarcodeFormat_QRCodeModel1, ZXing_BarcodeFormat_QRCodeModel2]
            case .microqr: [ZXing_BarcodeFormat_MicroQRCode]
            case .rmqr: [ZXing_BarcodeFormat_RMQRCode]
            case .datamatrix: [ZXing_BarcodeFormat_DataMatrix]
            case .aztec: [ZXing_BarcodeFormat_AztecCode, ZXing_BarcodeFormat_AztecRune]
            case .maxicode: [ZXing_BarcodeFormat_MaxiCode]
            case .pdf417: [ZXing_BarcodeFormat_PDF417, ZXing_BarcodeFormat_CompactPDF417]
            case .micropdf417: [ZXing_BarcodeFormat_MicroPDF417]
            case .ean13: [ZXing_BarcodeFormat_EAN13, ZXing_BarcodeFormat_ISBN]
            case .ean8: [ZXing_BarcodeFormat_EAN8]
            case .upca: [ZXing_BarcodeFormat_UPCA]
            case .upce: [ZXing_BarcodeFormat_UPCE]
            case .code128: [ZXing_BarcodeFormat_Code128]
            case .code39: [ZXing_BarcodeFormat_Code39]
            case .code93: [ZXing_BarcodeFormat_Code93]
            case .i2of5: [ZXing_BarcodeFormat_ITF]
            case .codabar: [ZXing_BarcodeFormat_Codabar]
            case .telepen: [ZXing_BarcodeFormat_Telepen]
            case .gs1DataBar: [ZXing_BarcodeFormat_DataBarOmni, ZXing_BarcodeFormat_DataBarStk, ZXing_BarcodeFormat_DataBarStkOmni]
            case .gs1DataBarExpanded: [ZXing_BarcodeFormat_DataBarExp, ZXing_BarcodeFormat_DataBarExpStk]
            case .gs1DataBarLimited: [ZXing_BarcodeFormat_DataBarLtd]
            }
        }
    }

    /// The symbology of a format zxing-cpp returned (always one variant: `ISBN`, `Code39Ext`, `ITF14`, …),
    /// from its symbology and variant keys; nil for what no symbology here names (EAN-2/5 add-ons alone,
    /// DX film edge).
    static func symbology(of format: ZXing_BarcodeFormat) -> Symbology? {
        let key = UInt8(truncatingIfNeeded: format.rawValue)
        let variant = UInt8(truncatingIfNeeded: format.rawValue >> 8)
        switch (Character(Unicode.Scalar(key)), Character(Unicode.Scalar(variant))) {
        case ("Q", "m"): return .microqr
        case ("Q", "r"): return .rmqr
        case ("Q", _): return .qr
        case ("d", _): return .datamatrix
        case ("z", _): return .aztec
        case ("U", _): return .maxicode
        case ("L", "m"): return .micropdf417
        case ("L", _): return .pdf417
        case ("E", "1"), ("E", "i"): return .ean13
        case ("E", "8"): return .ean8
        case ("E", "a"): return .upca
        case ("E", "e"): return .upce
        case ("C", _): return .code128
        case ("A", _): return .code39
        case ("G", _): return .code93
        case ("I", _): return .i2of5
        case ("F", _): return .codabar
        case ("B", _): return .telepen
        case ("e", "l"): return .gs1DataBarLimited
        case ("e", "e"), ("e", "E"): return .gs1DataBarExpanded
        case ("e", _): return .gs1DataBar
        default: return nil
        }
    }
}
