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
    /// code sheet, EAN/UPC of the blackbox samples (docs/benchmarks.md, "Session 29").
    public var enlargedRead: Double?
    public static let enlargedReadLargestSide = 2048

    /// Every symbol of the requested symbologies in `image`: zxing-cpp's, then what zbar adds.
    /// - Parameter thorough: false: a quick scan, zxing-cpp alone on upright codes dark on light
    ///   (`ZXingReader.quickEffort`, half the cost; a camera's frames take turns, `BarcodeCadence`).
    public func recognize(_ image: GrayImage, thorough: Bool = true) -> [BarcodeObservation] {
        guard thorough else { return quick.read(image) }
        var found = zxing.read(image)
        if let factor = enlargedRead, factor > 1, max(image.width, image.height) <= Self.enlargedReadLargestSide {
            for observation in zxing.read(image.scaled(by: factor)) {
                var placed = observation
                placed.corners = observation.corners.map { Point(x: $0.x / factor, y: $0.y / factor) }
                if !found.contains(where: { $0.samePlace(as: placed) }) { found.append(placed) }
            }
        }
        guard let zbar, zbarLooks else { return found }
        return found + Self.complemented(found, with: zbar.scan(image), in: image, reader: zxing)
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
        var places: [[BarcodeObservation]] = []
        for observation in zbarFound where !zxingFound.contains(where: { $0.samePlace(as: observation) }) {
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
        var added: [BarcodeObservation] = []
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
                guard
                    !(zxingFound + added).contains(where: {
                        $0.payload == reread.payload && $0.symbology == reread.symbology && $0.samePlace(as: reread)
                    })
                else { continue }
                var observation = place.first { $0.payload == reread.payload } ?? widest
                observation.payload = reread.payload
                observation.payloadBase64 = reread.payloadBase64
                observation.symbologyIdentifier = reread.symbologyIdentifier ?? observation.symbologyIdentifier
                observation.corners = widest.corners
                observation.quality = place.filter { $0.payload == reread.payload }.map(\.quality).reduce(0, +)
                added.append(observation)
            } else if Set(place.map(\.payload)).count == 1 {
                var observation = widest
                observation.uncorroborated = widest.symbology.isLinear
                added.append(observation)
            }
        }
        return added
    }
}
