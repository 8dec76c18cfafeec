import CZBar
import CZXing
import Foundation
import ScannerCore

/// A barcode found by a recognizer, in the pixel coordinates of the image it was given.
public struct BarcodeObservation: Sendable, Equatable {
    public var symbology: Symbology
    public var payload: String
    public var corners: Quad
    /// zbar's relative quality: how many scan lines agreed. Only comparable within one symbol.
    public var quality: Int
    /// The ISO/IEC 15424 symbology identifier (`]C1`: a Code 128 that starts with FNC1, GS1 data).
    public var symbologyIdentifier: String?
    /// The data, base64, when it is not UTF-8 text; `payload` then holds it decoded lossily.
    public var payloadBase64: String?
    /// zbar alone read this 1-D code, and zxing-cpp, which reads its symbology, did not read it there
    /// (`crossChecked`): it may be one of zbar's misreads, which pass the check digit.
    public var uncorroborated: Bool

    public init(
        symbology: Symbology, payload: String, corners: Quad, quality: Int, symbologyIdentifier: String? = nil, payloadBase64: String? = nil,
        uncorroborated: Bool = false
    ) {
        self.symbology = symbology
        self.payload = payload
        self.corners = corners
        self.quality = quality
        self.symbologyIdentifier = symbologyIdentifier
        self.payloadBase64 = payloadBase64
        self.uncorroborated = uncorroborated
    }

    /// The payload of `bytes`, and their base64 when they are not valid UTF-8.
    static func payload(of bytes: UnsafeBufferPointer<UInt8>) -> (text: String, base64: String?) {
        if let text = String(validating: bytes, as: UTF8.self) { return (text, nil) }
        return (String(decoding: bytes, as: UTF8.self), Data(bytes).base64EncodedString())
    }
}

/// zbar's image scanner configured for exactly the requested symbologies: every decoder left enabled
/// is work done on every scan line, so fewer symbologies scan faster.
///
/// One recognizer owns one `zbar_image_scanner_t`; it is not thread-safe, use one per thread.
public final class BarcodeRecognizer {
    private var scanner: OpaquePointer
    private let settings: Settings
    public let symbologies: Set<Symbology>

    /// zbar's decoders by symbology. PDF417 is absent: zbar's PDF417 decoder was never completed
    /// (github.com/mchehab/zbar/issues/3), so PDF417 goes to zxing-cpp instead.
    static let zbarTypes: [Symbology: zbar_symbol_type_t] = [
        .qr: ZBAR_QRCODE, .ean13: ZBAR_EAN13, .ean8: ZBAR_EAN8, .upce: ZBAR_UPCE, .upca: ZBAR_UPCA,
        .code128: ZBAR_CODE128, .code39: ZBAR_CODE39, .code93: ZBAR_CODE93, .i2of5: ZBAR_I25,
        .codabar: ZBAR_CODABAR, .gs1DataBar: ZBAR_DATABAR, .gs1DataBarExpanded: ZBAR_DATABAR_EXP,
    ]

    /// Symbologies this recognizer can decode.
    public static var supported: Set<Symbology> { Set(zbarTypes.keys).union(zxingFormats.keys) }

    /// - Parameters:
    ///   - symbologies: what to decode; unsupported ones are ignored (see `supported`).
    ///   - testInverted: when a scan finds nothing, scan the inverted image too (light-on-dark codes,
    ///     e.g. a phone in dark mode). It doubles the cost of frames with no code in them.
    ///   - scanDensity: scan every n-th row and column (zbar's X/Y density). 1 finds the smallest
    ///     codes; 2 halves the cost and still finds codes more than a few dozen pixels tall.
    ///   - renewAfterSymbols: replace the zbar scanner after this many decoded symbols (see
    ///     `defaultRenewal`); nil never does, as zbar is shipped (benchmarks only).
    ///   - zxingFirst: zxing-cpp reads first, zbar only where it read no 1-D code. For a camera
    ///     frame at full resolution: see `zxingFirst`.
    public init(
        symbologies: Set<Symbology>, testInverted: Bool = false, scanDensity: Int = 1,
        renewAfterSymbols: Int? = BarcodeRecognizer.defaultRenewal, zxingFirst: Bool = false
    ) throws(ScannerError) {
        self.symbologies = symbologies.intersection(Self.supported)
        self.renewAfterSymbols = renewAfterSymbols.map { max(1, $0) }
        self.zxingFirst = zxingFirst
        settings = Settings(
            zbarTypes: self.symbologies.compactMap { Self.zbarTypes[$0] }, upca: self.symbologies.contains(.upca),
            // Full resolution (`zxingFirst`) is for small codes, which are printed dark on light.
            testInverted: testInverted && !zxingFirst, density: Int32(max(1, scanDensity)))
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

    /// Scans `image` and returns every symbol of the configured symbologies: zbar's finds in zbar's
    /// order, then zxing-cpp's.
    public func recognize(_ image: GrayImage) -> [BarcodeObservation] {
        if zxingFirst {
            let formats = symbologies.reduce(Int32(0)) { $0 | (Self.zxingFallbackFormats[$1] ?? 0) }
            var found = formats == 0 ? [] : Self.zxingRead(image, formats: formats, offsetX: 0, offsetY: 0)
            // No 1-D code read: zbar looks too. zxing-cpp 1.4 does not read an EAN-13 whose leading
            // digit sits in its quiet zone, as printed (the EAN-13 fixture); zbar does.
            let wantsLinear = symbologies.contains { $0.isLinear && Self.zbarTypes[$0] != nil }
            if wantsLinear, !found.contains(where: { $0.symbology.isLinear }) {
                found += Self.crossChecked(scanWithZBar(image), in: image).filter { code in
                    !found.contains { $0.symbology == code.symbology && $0.payload == code.payload }
                }
            }
            return found + scanWithZXingOnly(image)
        }
        var found = symbologies.contains(where: { Self.zbarTypes[$0] != nil }) ? scanWithZBar(image) : []
        if crossCheckLinear { found = Self.crossChecked(found, in: image) }
        // What zbar missed, zxing-cpp may read (its QR detector and 1-D readers find symbols zbar's
        // do not, and the other way round: zxing-cpp's blackbox samples, docs/benchmarks.md).
        // A QR code both read: zbar guesses a text's character set (Shift-JIS read as GB2312) and
        // drops segments where zxing-cpp 1.4 reads them (zxing-cpp's blackbox samples, qrcode-1 and
        // -2): where they disagree about one symbol, zxing-cpp's reading is taken.
        if zxingFallbackEvery != nil, found.contains(where: { $0.symbology == .qr }) {
            let zxingQR = Self.zxingRead(image, formats: Int32(CZX_QRCODE), offsetX: 0, offsetY: 0)
            for index in found.indices where found[index].symbology == .qr {
                if let other = zxingQR.first(where: { found[index].corners.contains($0.corners.center) }), other.payload != found[index].payload {
                    found[index].payload = other.payload
                    found[index].payloadBase64 = other.payloadBase64
                    found[index].symbologyIdentifier = other.symbologyIdentifier
                }
            }
        }
        let missed = symbologies.intersection(Self.zxingFallbackFormats.keys).subtracting(found.map(\.symbology))
        if !missed.isEmpty, let every = zxingFallbackEvery {
            scansWithoutZBarFind += 1
            if scansWithoutZBarFind % max(1, every) == 0 {
                let formats = missed.reduce(Int32(0)) { $0 | (Self.zxingFallbackFormats[$1] ?? 0) }
                found += Self.zxingRead(image, formats: formats, offsetX: 0, offsetY: 0).filter { missed.contains($0.symbology) }
            }
        }
        return found + scanWithZXingOnly(image)
    }

    /// The symbologies only zxing-cpp reads (PDF417, DataMatrix, Aztec, Micro QR).
    private func scanWithZXingOnly(_ image: GrayImage) -> [BarcodeObservation] {
        let zxing = symbologies.intersection(Self.zxingFormats.keys)
        guard !zxing.isEmpty else { return [] }
        let tiles = nextDataMatrixTiles(width: image.width, height: image.height)
        let decoded = Self.scanWithZXing(image, zxing, tiles: tiles)
        // zxing-cpp 1.4 has no "try inverted": a light-on-dark code is found in the negative.
        if decoded.isEmpty, settings.testInverted { return Self.scanWithZXing(image.inverted(), zxing, tiles: tiles) }
        return decoded
    }

    /// zxing-cpp reads, alone, what it can (`init(zxingFirst:)`): on a camera frame at full
    /// resolution (1280×720) of the generated footage's shipping labels (seeds 1–3, 270 frames),
    /// zbar with every symbology took 49–191 ms a frame (57 with QR and EAN-13 only; noise gives its
    /// decoders work on every scan line) and zxing-cpp 16–26 ms, and zxing-cpp found the EAN-13 and
    /// the QR code on as many frames as zbar, without zbar's misreads (2026-11-23, AMD EPYC VM).
    /// So the live pipeline's full-resolution scans are zxing-cpp's first; zbar looks too only
    /// where zxing-cpp read no 1-D code (zxing-cpp 1.4 misses EAN-13s printed with their leading
    /// digit in the quiet zone, and does not read GS1 DataBar), not inverted.
    public let zxingFirst: Bool

    /// How many DataMatrix tiles (`dataMatrixTiles`) one scan looks at, taking turns; nil: all of them.
    /// All 21 cost 3.2 ms at 640×480 (docs/benchmarks.md): a still image pays that once, a camera
    /// at 30 fps takes a few a frame and covers the image every few frames.
    public var dataMatrixTilesPerScan: Int?
    private var tileCursor = 0

    private func nextDataMatrixTiles(width: Int, height: Int) -> [PixelRect] {
        guard symbologies.contains(.datamatrix) else { return [] }
        let all = Self.dataMatrixTiles(width: width, height: height)
        guard let perScan = dataMatrixTilesPerScan, perScan < all.count, !all.isEmpty else { return all }
        let chosen = (0..<max(1, perScan)).map { all[(tileCursor + $0) % all.count] }
        tileCursor = (tileCursor + max(1, perScan)) % all.count
        return chosen
    }

    /// Whether zbar's 1-D readings are read again by zxing-cpp (`crossChecked`). Off only to measure
    /// what it costs and gains (benchmarks).
    public var crossCheckLinear = true

    /// zbar's 1-D readings, each place read again by zxing-cpp.
    ///
    /// zbar decodes a blurred or tilted EAN-13 wrongly, with a valid check digit, and often next to
    /// the right reading in the same frame: on the shipping label of the generated footage (seed 1,
    /// 1280×720) it read a wrong EAN-13 on 60 of the 76 frames it read the code on. zxing-cpp, whose
    /// 1-D readers want two scan lines to agree, read the right one on 70 of those frames and never a
    /// wrong one. So zbar's readings at one place (one symbol: the same symbology, centres closer
    /// than three quarters of its length) are read again by zxing-cpp in a square around them:
    /// - zxing-cpp's reading there stands for the place (one observation, zbar's widest bounds);
    /// - where it reads nothing, zbar's one reading stays, `uncorroborated`;
    /// - zbar's two different readings with no zxing-cpp reading to decide are contested: dropped.
    /// Symbologies zxing-cpp does not read (GS1 DataBar) and QR codes are left as they are. A square
    /// costs about a millisecond (zxing-cpp on ~300×300 px).
    public static func crossChecked(_ found: [BarcodeObservation], in image: GrayImage) -> [BarcodeObservation] {
        var kept: [BarcodeObservation] = []
        var places: [[BarcodeObservation]] = []
        for observation in found {
            guard observation.symbology.isLinear, zxingFallbackFormats[observation.symbology] != nil else {
                kept.append(observation)
                continue
            }
            if let i = places.firstIndex(where: { place in
                place[0].symbology == observation.symbology
                    && place[0].corners.center.distance(to: observation.corners.center)
                        <= 0.75 * max(place[0].corners.boxLength, observation.corners.boxLength)
            }) {
                places[i].append(observation)
            } else {
                places.append([observation])
            }
        }
        for place in places {
            let widest = place.max { $0.corners.boxArea < $1.corners.boxArea }!
            let points = place.flatMap(\.corners.corners)
            let (minX, maxX) = (points.map(\.x).min()!, points.map(\.x).max()!)
            let (minY, maxY) = (points.map(\.y).min()!, points.map(\.y).max()!)
            // A square around the readings, large enough for the whole symbol and its quiet zones
            // when zbar's scan lines covered only part of it.
            let side = max(2.5 * max(maxX - minX, maxY - minY), 0.2 * Double(min(image.width, image.height)))
            let centre = Point(x: (minX + maxX) / 2, y: (minY + maxY) / 2)
            // Clamped to the image in floating point, so no Int conversion can trap: a place outside
            // it leaves nothing to read; corners that are no numbers clamp to the whole image.
            let x0 = max(0, centre.x - side / 2), x1 = min(Double(image.width), centre.x + side / 2)
            let y0 = max(0, centre.y - side / 2), y1 = min(Double(image.height), centre.y + side / 2)
            let square = x1 - x0 >= 1 && y1 - y0 >= 1
                ? PixelRect(x: Int(x0), y: Int(y0), width: Int(x1 - x0), height: Int(y1 - y0))
                : nil
            let format = zxingFallbackFormats[widest.symbology]!
            let reread = square.flatMap { square in
                zxingRead(image.cropped(to: square), formats: format, offsetX: square.x, offsetY: square.y)
            }?
                .filter { $0.symbology == widest.symbology }
                .min { $0.corners.center.distance(to: centre) < $1.corners.center.distance(to: centre) }
            if let reread {
                var observation = place.first { $0.payload == reread.payload } ?? widest
                observation.payload = reread.payload
                observation.payloadBase64 = reread.payloadBase64
                observation.symbologyIdentifier = reread.symbologyIdentifier ?? observation.symbologyIdentifier
                observation.corners = widest.corners
                observation.quality = place.filter { $0.payload == reread.payload }.map(\.quality).reduce(0, +)
                kept.append(observation)
            } else if Set(place.map(\.payload)).count == 1 {
                var observation = widest
                observation.uncorroborated = true
                kept.append(observation)
            }
        }
        return kept
    }

    /// zxing-cpp's formats for the symbologies zbar reads first.
    static let zxingFallbackFormats: [Symbology: Int32] = [
        .qr: Int32(CZX_QRCODE), .ean13: Int32(CZX_EAN13), .ean8: Int32(CZX_EAN8), .upca: Int32(CZX_UPCA), .upce: Int32(CZX_UPCE),
        .code128: Int32(CZX_CODE128), .code39: Int32(CZX_CODE39), .code93: Int32(CZX_CODE93), .i2of5: Int32(CZX_ITF),
        .codabar: Int32(CZX_CODABAR),
    ]

    /// zxing-cpp reads what zbar missed on every n-th scan where zbar missed something asked for;
    /// nil: never. A still image is worth it every time; a camera frame costs more (docs/benchmarks.md).
    public var zxingFallbackEvery: Int? = 1
    private var scansWithoutZBarFind = 0

    /// The symbologies zxing-cpp reads where zbar missed them.
    public static var zxingFallbackSymbologies: Set<Symbology> { Set(zxingFallbackFormats.keys) }

    /// zxing-cpp alone on `image`, for the symbologies zbar reads first (benchmarks: the naive way).
    public static func zxingAlone(_ image: GrayImage, _ symbologies: Set<Symbology>) -> [BarcodeObservation] {
        let formats = symbologies.reduce(Int32(0)) { $0 | (zxingFallbackFormats[$1] ?? 0) }
        return zxingRead(image, formats: formats, offsetX: 0, offsetY: 0)
    }

    /// zxing-cpp's formats by symbology.
    static let zxingFormats: [Symbology: Int32] = [
        .pdf417: Int32(CZX_PDF417), .datamatrix: Int32(CZX_DATAMATRIX), .aztec: Int32(CZX_AZTEC), .microqr: Int32(CZX_MICROQR),
    ]

    /// The symbols of `symbologies` zxing-cpp finds in `image`, with the symbols' own corners.
    ///
    /// zxing-cpp 1.4 finds a DataMatrix only where the image's centre lines cross it, and at most one
    /// per image (zxing-cpp#189, #386); measured on the fixtures, only the horizontal line reliably
    /// (a strip a third of the image wide and its full height missed a symbol its vertical centre
    /// line crossed), and only a symbol wholly inside the image it is given. So DataMatrix is also
    /// looked for in `tiles` (`dataMatrixTiles`: horizontal centre lines an eighth of the image height
    /// apart). Duplicates (one symbol seen in several tiles) are dropped by payload and place.
    public static func scanWithZXing(_ image: GrayImage, _ symbologies: Set<Symbology>, tiles: [PixelRect]) -> [BarcodeObservation] {
        let formats = symbologies.reduce(Int32(0)) { $0 | (zxingFormats[$1] ?? 0) }
        var found = zxingRead(image, formats: formats, offsetX: 0, offsetY: 0)
        guard symbologies.contains(.datamatrix) else { return found }
        for tile in tiles {
            for observation in zxingRead(image.cropped(to: tile), formats: Int32(CZX_DATAMATRIX), offsetX: tile.x, offsetY: tile.y)
            where !found.contains(where: { $0.payload == observation.payload && $0.corners.contains(observation.corners.center) }) {
                found.append(observation)
            }
        }
        return found
    }

    /// Tiles whose horizontal centre lines are at every eighth of the image height, each up to half
    /// the image high (less at the top and bottom, so that its centre line stays where it should be),
    /// half the image wide at every quarter of its width. A symbol from an eighth to a quarter of the
    /// image high (60–120 px at 640×480) and at most a quarter wide lies wholly inside a tile whose
    /// centre line crosses it; larger ones are found in the whole image.
    public static func dataMatrixTiles(width: Int, height: Int) -> [PixelRect] {
        guard width >= 64, height >= 64 else { return [] }
        return (1..<8).flatMap { row -> [PixelRect] in
            let centre = row * height / 8
            let half = min(height / 4, centre, height - centre)
            return (0..<3).map { column in PixelRect(x: column * width / 4, y: centre - half, width: width / 2, height: 2 * half) }
        }
    }

    /// Reads zxing-cpp abandoned on a failed internal assertion (`czx_read`), in this process.
    public static var zxingAborts: Int { Int(czx_aborts()) }

    static func zxingRead(_ image: GrayImage, formats: Int32, offsetX: Int, offsetY: Int) -> [BarcodeObservation] {
        let sink = ZXingSink(offset: Point(x: Double(offsetX), y: Double(offsetY)))
        let callback: czx_symbol_callback = { context, symbol in
            guard let context, let symbol else { return }
            Unmanaged<ZXingSink>.fromOpaque(context).takeUnretainedValue().add(symbol.pointee)
        }
        _ = image.pixels.withUnsafeBufferPointer { pixels in
            withExtendedLifetime(sink) {
                czx_read(
                    pixels.baseAddress, Int32(image.width), Int32(image.height), Int32(image.stride), formats, callback,
                    Unmanaged.passUnretained(sink).toOpaque())
            }
        }
        // A 1-D code's place is the few scan lines that read it: grown to its bars' height.
        let offset = Point(x: Double(offsetX), y: Double(offsetY))
        return sink.observations.map { observation in
            guard observation.symbology.isLinear else { return observation }
            var grown = observation
            grown.corners = BarExtent.grown(observation.corners.map { $0 - offset }, in: image).map { $0 + offset }
            return grown
        }
    }

    private func scanWithZBar(_ image: GrayImage) -> [BarcodeObservation] {
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
        guard let symbology = Self.zbarTypes.first(where: { $0.value == type })?.key, symbologies.contains(symbology)
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

/// Collects zxing-cpp's symbols during one `czx_read` call, in the whole image's pixel coordinates.
private final class ZXingSink {
    var observations: [BarcodeObservation] = []
    let offset: Point

    init(offset: Point) { self.offset = offset }

    func add(_ symbol: czx_symbol) {
        guard let text = symbol.text,
            let symbology = (BarcodeRecognizer.zxingFormats.first { $0.value == symbol.format } ?? BarcodeRecognizer.zxingFallbackFormats.first { $0.value == symbol.format })?.key
        else { return }
        var payload = text.withMemoryRebound(to: UInt8.self, capacity: Int(symbol.text_length)) {
            String(decoding: UnsafeBufferPointer(start: $0, count: Int(symbol.text_length)), as: UTF8.self)
        }
        var base64: String? = nil
        if symbol.binary != 0, let bytes = symbol.bytes {
            let raw = BarcodeObservation.payload(of: UnsafeBufferPointer(start: bytes, count: Int(symbol.bytes_length)))
            payload = raw.text
            base64 = raw.base64
        }
        var identifier = symbol.identifier
        let name = withUnsafeBytes(of: &identifier) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
        let c = symbol.corners
        let corners = [(c.0, c.1), (c.2, c.3), (c.4, c.5), (c.6, c.7)].map { Point(x: Double($0.0) + offset.x, y: Double($0.1) + offset.y) }
        observations.append(BarcodeObservation(
            symbology: symbology, payload: payload,
            corners: Quad(topLeft: corners[0], topRight: corners[1], bottomRight: corners[2], bottomLeft: corners[3]),
            quality: 1, symbologyIdentifier: name.isEmpty ? nil : name, payloadBase64: base64))
    }
}
