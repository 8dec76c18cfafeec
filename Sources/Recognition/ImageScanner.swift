import BarcodeRecognition
import ContentTypes
import LineNetwork
import PayloadParsing
import ScannerCore
import TextDetection
import TextRecognition

/// What to scan for and how: VisionKit's scanner configuration for one image.
public struct ScanOptions: Sendable, Equatable {
    public var types: RecognitionTypes
    public var quality: QualityLevel
    /// Only this part of the image is scanned; bounds are still reported in whole-image coordinates.
    public var regionOfInterest: NormalizedRect
    /// Region for phone numbers written without a country code (ISO 3166, e.g. "US").
    public var phoneRegion: String
    /// Tesseract languages.
    public var languages: [String]

    public init(
        types: RecognitionTypes = .all, quality: QualityLevel = .balanced, regionOfInterest: NormalizedRect = .full,
        phoneRegion: String = "US", languages: [String] = ["eng"]
    ) {
        self.types = types
        self.quality = quality
        self.regionOfInterest = regionOfInterest
        self.phoneRegion = phoneRegion
        self.languages = languages
    }

    /// Refuses options no scan can follow (a region of interest outside the image).
    public func validate() throws(ScannerError) {
        if let problem = regionOfInterest.validationProblem {
            throw .invalidArgument(name: "roi", value: regionOfInterest.description, reason: problem)
        }
    }
}

/// Runs every requested recognizer over one still image and turns what they find into
/// `RecognizedItem`s with normalized whole-image bounds: Vision's `VNImageRequestHandler` for Linux
/// (`scannerd scan`). The live pipeline's stages hold their recognizers themselves (a
/// `BarcodeRecognizer`, a `TextReader`).
///
/// Owns its barcode recognizer and its text reader (a network or Tesseract, initialised once,
/// reused): not thread-safe, use one per thread.
public final class ImageScanner {
    public let options: ScanOptions
    public let settings: QualitySettings
    private let barcodes: BarcodeRecognizer
    /// The text half: lines found, read and typed.
    public let text: TextReader

    /// - Parameter lineModel: the text networks' model directory (`make deps`); lines are then read by
    ///   PP-OCRv6's recognizer (`QualitySettings.readsWithNetwork`). Nil: by Tesseract.
    /// - Parameter lineDetection: which detector finds the lines; `.network` needs `lineModel`
    ///   (without it, the classical detector).
    public convenience init(
        options: ScanOptions, tessdataPath: String? = nil, lineModel: String? = nil, lineDetection: TextReader.LineDetection = .classical
    ) throws(ScannerError) {
        try self.init(
            text: TextReader(options: options, tessdataPath: tessdataPath, lineModel: lineModel, lineDetection: lineDetection, live: false))
    }

    /// A scanner that finds lines with `lineDetector` and reads them with `recognizers`
    /// (`TextReader.init(options:lineDetector:recognizers:faintDetector:)`): a test's fakes included.
    public convenience init(
        options: ScanOptions, lineDetector: any LineDetector, recognizers: [any LineRecognizer],
        faintDetector: any LineDetector = ClassicalLineDetector(minimumGlyphs: TextReader.liveMinimumGlyphs)
    ) throws(ScannerError) {
        try self.init(text: TextReader(options: options, lineDetector: lineDetector, recognizers: recognizers, faintDetector: faintDetector))
    }

    /// The scanner for `text`'s options (checked by `TextReader`): its barcodes beside its text.
    init(text: TextReader) throws(ScannerError) {
        self.options = text.options
        self.settings = text.settings
        self.barcodes = try BarcodeRecognizer(symbologies: options.types.symbologies, settings: settings, live: false)
        self.text = text
    }

    /// Every recognized item in `image`, in reading order (top to bottom, then left to right).
    public func scan(_ image: GrayImage) -> [RecognizedItem] {
        scan(image, until: nil).items
    }

    /// What `scan(_:until:)` found, and whether it looked everywhere before its deadline.
    public struct StillScan: Sendable {
        public var items: [RecognizedItem]
        /// False: the deadline passed first; `items` is what was found by then.
        public var complete: Bool
    }

    /// Every recognized item in `image` within the region of interest, in reading order, looking no
    /// longer than `deadline` allows: it is checked between barcode tiles and zbar's places
    /// (`BarcodeRecognizer.recognizeStill`), between the text detector's tiles and between text
    /// lines, so one step may end past it.
    public func scan(_ image: GrayImage, until deadline: ContinuousClock.Instant?) -> StillScan {
        let (region, toImage) = Self.region(options.regionOfInterest, of: image)
        let isPast = { deadline?.hasPassed == true }

        let barcodeReading = barcodes.recognizeStill(region, until: deadline)
        var items = Self.items(barcodeReading.found, at: toImage)
        var complete = barcodeReading.complete
        // The whole still is all there is to read: print anywhere in it counts (a receipt on a
        // flat-bed page is ink on a few per cent of it), not the image's spread as a whole.
        if let fusion = text.fusion, region.largestBlockContrastSpread() >= settings.minimumContrastForText {
            let typed = { (reading: LineReading) in self.text.items(in: reading, still: true) }
            var read: [RecognizedItem] = []
            let lines = isPast() ? nil : text.lineDetector.lines(in: region, until: deadline)
            // Past the deadline now, the detector may have stopped before its last tile.
            complete = complete && lines != nil && !isPast()
            for line in lines ?? [] {
                guard !isPast() else {
                    complete = false
                    break
                }
                read += fusion.still(line.quad, in: region, items: typed).map { item in
                    var item = item
                    item.bounds = item.bounds.map(toImage)
                    return item
                }
            }
            items += Self.text(Self.joiningLines(read).map(\.item), outside: items.map(\.bounds))
        }
        return StillScan(items: items.sorted(by: RecognizedItem.readingOrder), complete: complete)
    }

    /// `items` with what the line detector cut apart joined: a street to the locality on the line
    /// under it (streets and localities left alone dropped: `StreetAddresses.assembled`), a date to
    /// the time right after it (`DateTimes.assembled`); each with the indices of `items` it was made of.
    public static func joiningLines(_ items: [RecognizedItem]) -> [(item: RecognizedItem, parts: [Int])] {
        let addresses = StreetAddresses.assembled(items)
        return DateTimes.assembled(addresses.map(\.item)).map { joined in
            (joined.item, joined.parts.flatMap { addresses[$0].parts })
        }
    }

    /// `area` of `image` cut out, and the map from its pixel coordinates to normalized coordinates in `image`.
    static func region(_ area: NormalizedRect, of image: GrayImage) -> (GrayImage, (Point) -> Point) {
        let roi = area.pixelRect(width: image.width, height: image.height)
        let toImage = { (p: Point) in
            Point(x: (p.x + Double(roi.x)) / Double(image.width), y: (p.y + Double(roi.y)) / Double(image.height))
        }
        return (image.cropped(to: roi), toImage)
    }

    static func items(_ observations: [BarcodeObservation], at toImage: (Point) -> Point) -> [RecognizedItem] {
        observations.map { observation in
            RecognizedItem(
                kind: .barcode, symbology: observation.symbology, payload: observation.payload,
                bounds: observation.corners.map(toImage), confidence: confidence(of: observation), details: details(of: observation))
        }
    }

    /// A barcode's confidence: 1, or 0.5 for a 1-D reading zbar alone made that zxing-cpp did not
    /// confirm (`BarcodeObservation.uncorroborated`): the tracker lets such reads contest a reading,
    /// not support one.
    static func confidence(of observation: BarcodeObservation) -> Double {
        observation.uncorroborated ? uncorroboratedConfidence : 1
    }

    public static let uncorroboratedConfidence = 0.5

    /// What the decoder said beside the payload, and what the payload means (`PayloadParser`).
    static func details(of observation: BarcodeObservation) -> PayloadDetails {
        PayloadDetails(
            symbologyIdentifier: observation.symbologyIdentifier, payloadBase64: observation.payloadBase64,
            parsed: PayloadParser.parse(observation.payload, symbology: observation.symbology, symbologyIdentifier: observation.symbologyIdentifier))
    }

    /// The text items whose centre lies outside every barcode: digits printed under an EAN/UPC symbol
    /// are the barcode, not a phone number.
    static func text(_ items: [RecognizedItem], outside barcodes: [Quad]) -> [RecognizedItem] {
        items.filter { item in !barcodes.contains { $0.contains(item.bounds.center) } }
    }
}

extension BarcodeRecognizer {
    /// The barcode recognizer `settings` ask for, on still images or on a camera's frames (`live`):
    /// the one home of that choice, for `ImageScanner` and the pipeline's barcode stage alike.
    public convenience init(symbologies: Set<Symbology>, settings: QualitySettings, live: Bool) throws(ScannerError) {
        try self.init(
            symbologies: symbologies, zxingEffort: ZXingReader.Effort(tryInvert: settings.testInvertedBarcodes),
            testInverted: settings.testInvertedBarcodes && !live,
            scanDensity: live ? settings.liveBarcodeScanDensity : settings.barcodeScanDensity)
        if !live {
            enlargedRead = settings.stillEnlargedBarcodeRead
            tiles = BarcodeTiles()
        }
    }

    /// The symbols in `area` of `image`, as items in `image`'s normalized coordinates, in reading order.
    public func items(in image: GrayImage, area: NormalizedRect, thorough: Bool) -> [RecognizedItem] {
        let (region, toImage) = ImageScanner.region(area, of: image)
        return ImageScanner.items(recognize(region, thorough: thorough), at: toImage).sorted(by: RecognizedItem.readingOrder)
    }
}
