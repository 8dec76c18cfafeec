import ArgumentParser
import Recognition
import ScannerCore

/// The recognition options shared by `scan` and `run`.
struct RecognitionOptions: ParsableArguments {
    @Option(
        name: .long,
        help: ArgumentHelp(
            "Comma-separated types to recognize: symbologies (qr, ean13, …), telephoneNumber, url, emailAddress, shipmentTrackingNumber, currency, dateTimeDuration, flightNumber, fullStreetAddress, document (the page or card held up), or the groups barcodes, matrix, linear, retail, contentTypes (the first three), text.",
            valueName: "list"))
    var types: String?

    @Option(name: .long, help: "Quality level: fast, balanced or accurate (default balanced).")
    var quality: String?

    @Option(name: .long, help: ArgumentHelp("Region of interest as normalized x,y,w,h (top-left origin).", valueName: "x,y,w,h"))
    var roi: String?

    @Option(name: .long, help: ArgumentHelp("Region for phone numbers without a country code (ISO 3166; default US).", valueName: "CC"))
    var region: String?

    @Option(name: .long, help: ArgumentHelp("Tesseract languages, joined with + (default eng).", valueName: "langs"))
    var languages: String?

    func scanOptions() throws(ScannerError) -> ScanOptions {
        let quality = self.quality ?? QualityLevel.balanced.rawValue
        guard let level = QualityLevel(rawValue: quality) else {
            throw .invalidArgument(name: "quality", value: quality, reason: "expected fast, balanced or accurate")
        }
        return ScanOptions(
            types: try types.map { s throws(ScannerError) in try RecognitionTypes(parsing: s) } ?? .all,
            quality: level,
            regionOfInterest: try roi.map { s throws(ScannerError) in try NormalizedRect(parsing: s) } ?? .full,
            phoneRegion: region ?? "US",
            languages: (languages ?? "eng").split(separator: "+").map(String.init))
    }
}
