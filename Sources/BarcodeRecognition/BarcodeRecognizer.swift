import Foundation
import ScannerCore

/// A barcode found by a recognizer, in the pixel coordinates of the image it was given.
public struct BarcodeObservation: Sendable, Equatable {
    public var symbology: Symbology
    public var payload: String
    public var corners: Quad
    /// How many scan lines agreed (zbar's quality, zxing-cpp's line count; 1 for 2-D codes). Only
    /// comparable within one symbol.
    public var quality: Int
    /// The ISO/IEC 15424 symbology identifier (`]C1`: a Code 128 that starts with FNC1, GS1 data).
    public var symbologyIdentifier: String?
    /// The data, base64, when it is not UTF-8 text; `payload` then holds it decoded lossily.
    public var payloadBase64: String?
    /// zbar alone read this 1-D code, and zxing-cpp, which reads its symbology, did not read it there
    /// (`BarcodeRecognizer.complemented`): it may be one of zbar's misreads, which pass the check digit.
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

    /// Whether two observations are one symbol's place: either's centre inside the other.
    func samePlace(as other: BarcodeObservation) -> Bool {
        corners.contains(other.corners.center) || other.corners.contains(corners.center)
    }
}

/// The barcode policy (issue #41): zxing-cpp reads every symbol of every requested symbology; zbar
/// looks for what zxing-cpp did not read, and its readings pass one rule (`complemented`) before they
/// count.
///
/// Owned by one thread at a time (zbar's scanner is not thread-safe).
public final class BarcodeRecognizer {
    public let symbologies: Set<Symbology>
    public let zxing: ZXingReader
    /// zbar, for the asked-for symbologies of `zbarComplements`; nil when there are none.
    private let zbar: ZBarScanner?

    /// The symbologies zbar looks for: where it reads what zxing-cpp misses. On zxing-cpp's blackbox
    /// samples (docs/benchmarks.md) zbar added EAN-13, UPC-A and UPC-E readings (their first digit
    /// printed in the quiet zone zxing-cpp wants clear) and QR codes, and nothing in any other set;
    /// its GS1 DataBar decoder read receipt text as a `01…` GTIN on the footage.
    public static let zbarComplements: Set<Symbology> = [.ean13, .upca, .upce, .qr]

    /// zxing-cpp for quick scans (`recognize(_:thorough:)`): upright codes dark on light only.
    private let quick: ZXingReader
    /// Whether zbar looks on thorough scans (off: zxing-cpp alone, for benchmarks).
    public var zbarLooks = true

    /// - Parameters:
    ///   - symbologies: what to decode.
    ///   - zxingEffort: what zxing-cpp tries beyond the plain image on thorough scans (all of it by default).
    ///   - testInverted: zbar scans the inverted image too when it finds nothing.
    ///   - scanDensity: zbar scans every n-th row and column.
    ///   - renewAfterSymbols: zbar's scanner is replaced after this many symbols (`ZBarScanner.defaultRenewal`).
    public init(
        symbologies: Set<Symbology>, zxingEffort: ZXingReader.Effort = .init(), testInverted: Bool = false, scanDensity: Int = 1,
        renewAfterSymbols: Int? = ZBarScanner.defaultRenewal
    ) throws(ScannerError) {
        self.symbologies = symbologies
        zxing = ZXingReader(symbologies: symbologies, effort: zxingEffort)
        quick = ZXingReader(symbologies: symbologies, effort: ZXingReader.quickEffort)
        let zbarSymbologies = symbologies.intersection(Self.zbarComplements)
        zbar =
            zbarSymbologies.isEmpty
            ? nil
            : try ZBarScanner(
                symbologies: zbarSymbologies, testInverted: testInverted, scanDensity: scanDensity, renewAfterSymbols: renewAfterSymbols)
    }

    /// A still image is read again enlarged by this factor (bilinear) when its longer side is at most
    /// `enlargedReadLargestSide`; nil: never (camera frames, whose time is the frame's). zxing-cpp's
    /// detectors miss codes of about two pixels a module that they read enlarged: a DataMatrix of the
    /// code sheet, EAN/UPC of the blackbox samples (docs/benchmarks.md, "Barcodes on zxing-cpp 3.1").
    public var enlargedRead: Double?
    public static let enlargedReadLargestSide = 2048

    /// Every symbol of the requested symbologies in `image`: zxing-cpp's, then what zbar adds.
    /// - Parameter thorough: false: a quick scan, zxing-cpp alone on upright codes dark on light
    ///   (`ZXingReader.quickEffort`, half the cost; a camera's frames take turns, `BarcodeCadence`).
    public func recognize(_ image: GrayImage, thorough: Bool = true) -> [BarcodeObservation] {
        guard thorough else { return quick.read(image) }
        return complementedByZBar(readWhole(image), in: image)
    }

    /// zxing-cpp's reading of the whole image, and of it enlarged (`enlargedRead`) where it is small.
    private func readWhole(_ image: GrayImage) -> [BarcodeObservation] {
        var found = zxing.read(image)
        if let factor = enlargedRead, factor > 1, max(image.width, image.height) <= Self.enlargedReadLargestSide {
            for observation in zxing.read(image.scaled(by: factor)) {
                var placed = observation
                placed.corners = observation.corners.map { Point(x: $0.x / factor, y: $0.y / factor) }
                if !found.contains(where: { $0.samePlace(as: placed) }) { found.append(placed) }
            }
        }
        return found
    }

    private func complementedByZBar(_ found: [BarcodeObservation], in image: GrayImage) -> [BarcodeObservation] {
        guard let zbar, zbarLooks else { return found }
        return found + Self.complemented(found, with: zbar.scan(image), in: image, reader: zxing)
    }

    /// Stills with more codes than one read returns are read in tiles too (`BarcodeTiles`) by
    /// `recognizeStill`; nil: whole, whatever they hold.
    public var tiles: BarcodeTiles?

    /// What a still's reading found, and whether it looked everywhere before its deadline.
    public struct StillReading: Sendable, Equatable {
        public var found: [BarcodeObservation]
        /// False: the deadline passed first; `found` is what was read by then.
        public var complete: Bool
    }

    /// Every symbol in a still image: read whole, and where that read came back full (more codes than
    /// zxing-cpp returns from one read), by zxing-cpp in `tiles` too and by zbar once over the whole
    /// image (its scan lines cost the same however many codes there are), stopping between tiles and
    /// between zbar's places once `deadline` has passed.
    public func recognizeStill(_ image: GrayImage, until deadline: ContinuousClock.Instant? = nil) -> StillReading {
        let whole = readWhole(image)
        guard let tiles, whole.count >= ZXingReader.maximumSymbols, tiles.tiling.side < max(image.width, image.height) else {
            return StillReading(found: complementedByZBar(whole, in: image), complete: true)
        }
        let looks = tiles.looks(width: image.width, height: image.height)
        var levels = [1: image]
        for reduction in Set(looks.map(\.reduction)).sorted() where reduction > 1 {
            levels[reduction] = levels[reduction / 2]!.scaled(by: 0.5)
        }
        // The whole read's codes first: a code too long for any tile (a 1-D code of many modules) is
        // read whole there or not at all.
        var readings = whole
        for look in looks {
            guard deadline?.hasPassed != true else { return StillReading(found: tiles.merged(readings), complete: false) }
            let level = levels[look.reduction]!
            readings += BarcodeTiles.placed(zxing.read(level, in: look.tile), of: look, width: level.width, height: level.height)
        }
        let found = tiles.merged(readings)
        guard let zbar, zbarLooks else { return StillReading(found: found, complete: true) }
        guard deadline?.hasPassed != true else { return StillReading(found: found, complete: false) }
        let added = Self.complementing(
            found, with: zbar.scan(image), in: image, reader: zxing, largestSquare: Double(tiles.tiling.side), until: deadline)
        return StillReading(found: found + added.added, complete: added.complete)
    }

    /// Reads zxing-cpp could not make (it returned an error: out of memory, an image it refused), and
    /// the reason it last gave; such a read found nothing.
    public var zxingFailures: (count: Int, last: String?) {
        (zxing.failures + quick.failures, zxing.lastFailure ?? quick.lastFailure)
    }

    /// How many times zbar's scanner was replaced (`ZBarScanner.renewAfterSymbols`).
    public var zbarRenewals: Int { zbar?.renewals ?? 0 }

    /// What zbar's readings add to zxing-cpp's, by one rule for every symbology.
    ///
    /// zbar decodes a blurred or tilted EAN-13 wrongly, with a valid check digit, often next to the
    /// right reading in the same frame, and reads a part of a label's EAN-13 as a UPC-E (`08407818`
    /// for a whole EAN-13, added as items at realtime). zxing-cpp's 1-D readers want two scan lines to
    /// agree. So zbar's readings are grouped by place (the same symbology, centres closer than three
    /// quarters of its length), and for each place:
    /// - where zxing-cpp read any code, zxing-cpp's reading stands: zbar's adds nothing;
    /// - else zxing-cpp reads a square around the place again (a crop is binarized on its own): what it
    ///   reads there stands for the place (zbar's widest bounds);
    /// - else a QR code, or zbar's one reading of a 1-D code, is kept, the 1-D one `uncorroborated`;
    /// - zbar's two different readings with nothing to decide between them are contested: dropped.
    public static func complemented(
        _ zxingFound: [BarcodeObservation], with zbarFound: [BarcodeObservation], in image: GrayImage, reader: ZXingReader
    ) -> [BarcodeObservation] {
        complementing(zxingFound, with: zbarFound, in: image, reader: reader).added
    }

    /// `complemented`, each square read again at most `largestSquare` on a side (a large still's
    /// tile), stopping between places once `deadline` has passed (`complete` false: the places left
    /// add nothing). The readings are found by place through `PlaceIndex`: thousands of them take
    /// time in proportion, not its square.
    static func complementing(
        _ zxingFound: [BarcodeObservation], with zbarFound: [BarcodeObservation], in image: GrayImage, reader: ZXingReader,
        largestSquare: Double = .infinity, until deadline: ContinuousClock.Instant? = nil
    ) -> (added: [BarcodeObservation], complete: Bool) {
        var read = PlaceIndex(sizedFor: (zxingFound + zbarFound).map(\.corners), width: image.width, height: image.height)
        for (index, observation) in zxingFound.enumerated() { read.insert(index, at: observation.corners) }
        var places: [[BarcodeObservation]] = []
        var placeIndex = PlaceIndex(cell: read.cell, width: image.width, height: image.height)
        for observation in zbarFound
        where !read.near(observation.corners).contains(where: { zxingFound[$0].samePlace(as: observation) }) {
            let reach = 0.75 * observation.corners.boxLength
            if let i = placeIndex.near(observation.corners, margin: reach).first(where: { i in
                places[i][0].symbology == observation.symbology
                    && places[i][0].corners.center.distance(to: observation.corners.center)
                        <= 0.75 * max(places[i][0].corners.boxLength, observation.corners.boxLength)
            }) {
                places[i].append(observation)
            } else {
                placeIndex.insert(places.count, at: observation.corners, margin: reach)
                places.append([observation])
            }
        }
        var added: [BarcodeObservation] = []
        for place in places {
            if deadline?.hasPassed == true { return (added, false) }
            let widest = place.max { $0.corners.boxArea < $1.corners.boxArea }!
            let points = place.flatMap(\.corners.corners)
            let (minX, maxX) = (points.map(\.x).min()!, points.map(\.x).max()!)
            let (minY, maxY) = (points.map(\.y).min()!, points.map(\.y).max()!)
            // A square around the readings, large enough for the whole symbol and its quiet zones
            // when zbar's scan lines covered only part of it.
            let side = min(max(2.5 * max(maxX - minX, maxY - minY), 0.2 * Double(min(image.width, image.height))), largestSquare)
            let centre = Point(x: (minX + maxX) / 2, y: (minY + maxY) / 2)
            // Clamped to the image in floating point, so no Int conversion can trap: a place outside
            // it leaves nothing to read; corners that are no numbers clamp to the whole image.
            let x0 = max(0, centre.x - side / 2)
            let x1 = min(Double(image.width), centre.x + side / 2)
            let y0 = max(0, centre.y - side / 2)
            let y1 = min(Double(image.height), centre.y + side / 2)
            let square =
                x1 - x0 >= 1 && y1 - y0 >= 1
                ? PixelRect(x: Int(x0), y: Int(y0), width: Int(x1 - x0), height: Int(y1 - y0))
                : nil
            let reread = square.flatMap { reader.read(image, in: $0) }?
                .filter { $0.symbology == widest.symbology }
                .min { $0.corners.center.distance(to: centre) < $1.corners.center.distance(to: centre) }
            if let reread {
                let known = read.near(reread.corners).contains { i in
                    let other = i < zxingFound.count ? zxingFound[i] : added[i - zxingFound.count]
                    return other.payload == reread.payload && other.symbology == reread.symbology && other.samePlace(as: reread)
                }
                guard !known else { continue }
                var observation = place.first { $0.payload == reread.payload } ?? widest
                observation.payload = reread.payload
                observation.payloadBase64 = reread.payloadBase64
                observation.symbologyIdentifier = reread.symbologyIdentifier ?? observation.symbologyIdentifier
                observation.corners = widest.corners
                observation.quality = place.filter { $0.payload == reread.payload }.map(\.quality).reduce(0, +)
                read.insert(zxingFound.count + added.count, at: observation.corners)
                added.append(observation)
            } else if Set(place.map(\.payload)).count == 1 {
                var observation = widest
                observation.uncorroborated = widest.symbology.isLinear
                read.insert(zxingFound.count + added.count, at: observation.corners)
                added.append(observation)
            }
        }
        return (added, true)
    }
}
