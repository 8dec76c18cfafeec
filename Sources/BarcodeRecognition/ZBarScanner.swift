internal import CZBar
import ScannerCore

/// zbar's image scanner configured for exactly the requested symbologies (every decoder left enabled
/// is work done on every scan line, so fewer symbologies scan faster). `BarcodeRecognizer` asks it for
/// what zxing-cpp missed.
///
/// One scanner owns one `zbar_image_scanner_t`; it is not thread-safe, use one per thread.
public final class ZBarScanner {
    private var scanner: OpaquePointer
    private let settings: Settings
    public let symbologies: Set<Symbology>

    /// zbar's decoders by symbology (zbar reads no 2-D code but QR: its PDF417 decoder was never
    /// completed, github.com/mchehab/zbar/issues/3).
    static let types: [Symbology: zbar_symbol_type_t] = [
        .qr: ZBAR_QRCODE, .ean13: ZBAR_EAN13, .ean8: ZBAR_EAN8, .upce: ZBAR_UPCE, .upca: ZBAR_UPCA,
        .code128: ZBAR_CODE128, .code39: ZBAR_CODE39, .code93: ZBAR_CODE93, .i2of5: ZBAR_I25,
        .codabar: ZBAR_CODABAR, .gs1DataBar: ZBAR_DATABAR, .gs1DataBarExpanded: ZBAR_DATABAR_EXP,
    ]

    /// The symbologies zbar reads.
    public static var readable: Set<Symbology> { Set(types.keys) }

    /// - Parameters:
    ///   - symbologies: what to decode; those zbar does not read are ignored (see `readable`).
    ///   - testInverted: when a scan finds nothing, scan the inverted image too (light-on-dark codes).
    ///     It doubles the cost of frames with no code in them.
    ///   - scanDensity: scan every n-th row and column (zbar's X/Y density). 1 finds the smallest
    ///     codes; 2 halves the cost and still finds codes more than a few dozen pixels tall.
    ///   - renewAfterSymbols: replace the zbar scanner after this many decoded symbols (see
    ///     `defaultRenewal`); nil never does, as zbar is shipped (benchmarks only).
    public init(
        symbologies: Set<Symbology>, testInverted: Bool = false, scanDensity: Int = 1,
        renewAfterSymbols: Int? = ZBarScanner.defaultRenewal
    ) throws(ScannerError) {
        self.symbologies = symbologies.intersection(Self.types.keys)
        self.renewAfterSymbols = renewAfterSymbols.map { max(1, $0) }
        settings = Settings(
            zbarTypes: self.symbologies.compactMap { Self.types[$0] }, upca: self.symbologies.contains(.upca),
            testInverted: testInverted, density: Int32(max(1, scanDensity)))
        scanner = try Self.makeScanner(settings)
    }

    /// What a zbar scanner is configured with, kept to make an identical one (`renewScannerIfDue`).
    private struct Settings {
        var zbarTypes: [zbar_symbol_type_t]
        var upca: Bool
        var testInverted: Bool
        var density: Int32
    }

    private static func makeScanner(_ settings: Settings) throws(ScannerError) -> OpaquePointer {
        guard let scanner = zbar_image_scanner_create() else {
            throw .libraryFailure(library: "zbar", reason: "zbar_image_scanner_create failed")
        }
        // Symbology 0 (ZBAR_NONE) addresses every decoder: start from nothing enabled.
        zbar_image_scanner_set_config(scanner, ZBAR_NONE, ZBAR_CFG_ENABLE, 0)
        for type in settings.zbarTypes {
            zbar_image_scanner_set_config(scanner, type, ZBAR_CFG_ENABLE, 1)
        }
        if settings.upca {
            // zbar decodes UPC-A inside its EAN-13 decoder, which must run for UPC-A to be found at all
            // (measured: with UPC-A alone enabled nothing decodes). Real EAN-13 symbols it then finds
            // are dropped in `observation(from:)` unless EAN-13 was asked for.
            zbar_image_scanner_set_config(scanner, ZBAR_EAN13, ZBAR_CFG_ENABLE, 1)
        }
        zbar_image_scanner_set_config(scanner, ZBAR_NONE, ZBAR_CFG_TEST_INVERTED, settings.testInverted ? 1 : 0)
        // zbar's video "uncertainty" cache stays off: evidence over frames is the item tracker's.
        zbar_image_scanner_enable_cache(scanner, 0)
        zbar_image_scanner_set_config(scanner, ZBAR_NONE, ZBAR_CFG_X_DENSITY, settings.density)
        zbar_image_scanner_set_config(scanner, ZBAR_NONE, ZBAR_CFG_Y_DENSITY, settings.density)
        return scanner
    }

    /// zbar keeps every symbol it decodes for reuse, in buckets by data size, but its QR decoder always
    /// asks for a symbol with no data and grows it afterwards: a QR symbol is never reused, and the
    /// buckets grow by one symbol per QR code decoded until the scanner is destroyed
    /// (github.com/mchehab/zbar/issues/258, open; Debian 12 ships 0.23.92). A kiosk decoding a QR code
    /// on every frame grew ~60 kB per 1000 scans, 130–170 kB/min in the soak (docs/benchmarks.md). So
    /// after this many decoded symbols the scanner is replaced by an identical one, which frees them.
    /// Making one costs microseconds.
    public static let defaultRenewal = 256

    /// Decoded symbols after which the zbar scanner is replaced; nil: never.
    public let renewAfterSymbols: Int?

    /// Symbols decoded by the current zbar scanner.
    private var symbolsSinceRenewal = 0

    /// How many times the zbar scanner was replaced (see `renewAfterSymbols`).
    public private(set) var renewals = 0

    private func renewScannerIfDue() {
        guard let renewAfterSymbols, symbolsSinceRenewal >= renewAfterSymbols, let fresh = try? Self.makeScanner(settings)
        else { return }
        zbar_image_scanner_destroy(scanner)
        scanner = fresh
        symbolsSinceRenewal = 0
        renewals += 1
    }

    deinit { zbar_image_scanner_destroy(scanner) }

    /// Every symbol of the configured symbologies zbar decodes in `image`, in zbar's order.
    public func scan(_ image: GrayImage) -> [BarcodeObservation] {
        // zbar's Y800 input has no stride: repack if the decoder left padding.
        let packed = image.isPacked ? image : image.packed()
        guard let zimage = zbar_image_create() else { return [] }
        // The image holds a reference to its symbols, which the scanner recycles: destroy the image,
        // and only then, if due, the scanner.
        defer {
            zbar_image_destroy(zimage)
            renewScannerIfDue()
        }
        zbar_image_set_format(zimage, czbar_fourcc_y800())
        zbar_image_set_size(zimage, UInt32(packed.width), UInt32(packed.height))
        return packed.pixels.withUnsafeBytes { bytes -> [BarcodeObservation] in
            // No cleanup handler: the bytes belong to `packed`, which outlives the scan.
            zbar_image_set_data(zimage, bytes.baseAddress, UInt(packed.width * packed.height), nil)
            let decoded = zbar_scan_image(scanner, zimage)
            guard decoded > 0 else { return [] }
            symbolsSinceRenewal += Int(decoded)
            var observations: [BarcodeObservation] = []
            var symbol = zbar_image_first_symbol(zimage)
            while let current = symbol {
                if let observation = observation(from: current) { observations.append(observation) }
                symbol = zbar_symbol_next(current)
            }
            return observations
        }
    }

    private func observation(from symbol: OpaquePointer) -> BarcodeObservation? {
        let type = zbar_symbol_get_type(symbol)
        // zbar may report a related symbology it decodes on the way (EAN-13 for a UPC-A, ISBN): only
        // what was asked for counts.
        guard let symbology = Self.types.first(where: { $0.value == type })?.key, symbologies.contains(symbology)
        else { return nil }
        let length = Int(zbar_symbol_get_data_length(symbol))
        guard let data = zbar_symbol_get_data(symbol) else { return nil }
        let (payload, base64) = data.withMemoryRebound(to: UInt8.self, capacity: length) {
            BarcodeObservation.payload(of: UnsafeBufferPointer(start: $0, count: length))
        }
        // zbar does not give the identifier, but flags a symbol that starts with FNC1 (GS1).
        let gs1 = zbar_symbol_get_modifiers(symbol) & (1 << ZBAR_MOD_GS1.rawValue) != 0
        var points: [Point] = []
        for i in 0..<zbar_symbol_get_loc_size(symbol) {
            points.append(Point(x: Double(zbar_symbol_get_loc_x(symbol, i)), y: Double(zbar_symbol_get_loc_y(symbol, i))))
        }
        guard !points.isEmpty else { return nil }
        // Interleaved 2 of 5 has no check digit and no start pattern to speak of: zbar finds one in
        // any run of regular stripes (desk clutter, a keyboard's edge). A real symbol is decoded on
        // more than one scan line; one scan line's worth is not a symbol (2026-11-22: "091373" on the
        // footage's desk, a single point, reported at realtime as an item).
        if symbology == .i2of5, zbar_symbol_get_quality(symbol) < 2 { return nil }
        return BarcodeObservation(
            symbology: symbology, payload: payload,
            corners: Self.corners(of: points, symbology: symbology, orientation: zbar_symbol_get_orientation(symbol)),
            quality: Int(zbar_symbol_get_quality(symbol)), symbologyIdentifier: Self.identifier(symbology, gs1: gs1), payloadBase64: base64)
    }

    /// The ISO/IEC 15424 identifier of a symbol zbar decoded.
    static func identifier(_ symbology: Symbology, gs1: Bool) -> String? {
        switch symbology {
        case .qr: gs1 ? "]Q3" : "]Q1"
        case .ean13, .upca, .upce: "]E0"
        case .ean8: "]E4"
        case .code128: gs1 ? "]C1" : "]C0"
        case .code39: "]A0"
        case .code93: "]G0"
        case .i2of5: "]I0"
        case .codabar: "]F0"
        case .gs1DataBar, .gs1DataBarExpanded: "]e0"
        default: nil
        }
    }

    /// Four corners from zbar's location polygon.
    ///
    /// For QR codes zbar reports exactly the four corners of the code, in the order top-left,
    /// bottom-left, bottom-right, top-right *of the code* (qrdectxt.c), so a rotated code keeps its
    /// own corner names. For linear codes the polygon is the end points of every scan line that
    /// decoded: we take their minimum-area rectangle and name its corners from zbar's orientation.
    static func corners(of points: [Point], symbology: Symbology, orientation: zbar_orientation_t) -> Quad {
        if symbology == .qr, points.count == 4 {
            return Quad(topLeft: points[0], topRight: points[3], bottomRight: points[2], bottomLeft: points[1])
        }
        let rectangle = ConvexGeometry.minimumAreaRectangle(points)
        let quarterTurns: Int
        switch orientation {
        case ZBAR_ORIENT_RIGHT: quarterTurns = 1
        case ZBAR_ORIENT_DOWN: quarterTurns = 2
        case ZBAR_ORIENT_LEFT: quarterTurns = 3
        default: quarterTurns = 0
        }
        return ConvexGeometry.label(rectangle, quarterTurns: quarterTurns)
    }
}
