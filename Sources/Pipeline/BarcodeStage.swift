import BarcodeRecognition
import Recognition
import ScannerCore

/// Barcodes for one frame, skipping the scan when the frame equals the last one scanned.
///
/// zxing-cpp reads the frame at full resolution (`SequenceConfiguration.barcodesAtFullResolution`):
/// every code of a page, each on every scan (issue #41). Before zxing-cpp 3, zbar read the reduced
/// processing image and the full frame was scanned every fourth scan and in a few spots around codes
/// found there, which cannot follow thirty codes at once.
/// Owned by one thread at a time (`Pipeline`: the caller's thread, every frame; or the barcode thread, newest frame).
final class BarcodeStage: @unchecked Sendable {
    private let recognizer: BarcodeRecognizer
    /// Only this part of a frame is scanned.
    private let area: NormalizedRect
    private var gate: SceneChangeGate
    private let fullResolution: Bool
    private var cadence: BarcodeCadence
    private var lastResult: [RecognizedItem] = []
    var scans = 0
    var reused = 0
    /// Scans of the frame at full resolution.
    var fullResolutionScans = 0
    /// Scans only around the codes found before (`BarcodeCadence.Scan.around`).
    var aroundScans = 0
    /// Reads zxing-cpp failed, and why it last did (`BarcodeRecognizer.zxingFailures`).
    var readFailures: (count: Int, last: String?) { recognizer.zxingFailures }
    /// Consecutive frames that matched the last scanned one.
    private(set) var unchangedStreak = 0

    init(options: ScanOptions, sceneChange: SceneChangeGate.Configuration = .init(), fullResolution: Bool = false) throws(ScannerError) {
        try options.validate()
        let settings = QualitySettings(options.quality)
        recognizer = try BarcodeRecognizer(symbologies: options.types.symbologies, settings: settings, live: true)
        area = options.regionOfInterest
        gate = SceneChangeGate(configuration: sceneChange)
        self.fullResolution = fullResolution
        cadence = BarcodeCadence(thoroughEvery: settings.liveThoroughBarcodeScanEvery)
    }

    convenience init(configuration: SequenceConfiguration) throws(ScannerError) {
        try self.init(
            options: configuration.options, sceneChange: configuration.sceneChange, fullResolution: configuration.barcodesAtFullResolution)
    }

    /// - Parameters:
    ///   - look: the frame's look (`FrameLooker`); its thumbnail tells a still scene.
    ///   - detail: the frame at full resolution (decoded only when scanned at full resolution).
    func scan(_ image: GrayImage, look: FrameLook, time: Double, detail: () -> GrayImage? = { nil }) -> [RecognizedItem] {
        // A static scene (a kiosk with nobody in front of it) costs a thumbnail, not a scan.
        let thumbnail = look.thumbnail
        let changed = !gate.isUnchanged(thumbnail)
        if changed {
            unchangedStreak = 0
            gate.rebase(on: thumbnail)
        } else {
            unchangedStreak += 1
        }
        let next = cadence.next(sceneChanged: changed, heldUp: look.heldUpRegion, time: time)
        guard next != .reuse else {
            reused += 1
            return lastResult
        }
        scans += 1
        var source = image
        if fullResolution, let full = detail(), full.width > image.width {
            fullResolutionScans += 1
            source = full
        }
        var found: [RecognizedItem]
        if next == .around {
            aroundScans += 1
            found = Self.neighbourhoods(of: lastResult, within: area).reduce(into: []) { found, place in
                found = Self.merge(found, recognizer.items(in: source, area: place, thorough: true))
            }
        } else {
            found = recognizer.items(in: source, area: area, thorough: next == .thorough)
        }
        let lostAny =
            next == .around && lastResult.contains { code in !found.contains { $0.symbology == code.symbology && $0.payload == code.payload } }
        cadence.scanned(foundAnything: !found.isEmpty, lostAny: lostAny)
        // Come to rest: the thorough look adds to what the last scan of this scene found.
        if !changed { found = Self.merge(lastResult, found) }
        lastResult = found
        return found
    }

    /// Where to look again for `items` (`BarcodeCadence.Scan.around`): each one's bounding box widened
    /// on every side by `FrameLook.stillRegionTolerance` — as far as a held card may move without
    /// counting as moved —, clipped to `area`, overlapping ones joined into one.
    static func neighbourhoods(of items: [RecognizedItem], within area: NormalizedRect) -> [NormalizedRect] {
        let margin = FrameLook.stillRegionTolerance
        let widened = items.compactMap { item in
            let box = item.bounds.boundingBox
            return NormalizedRect(
                x: box.minX - margin, y: box.minY - margin, width: box.maxX - box.minX + 2 * margin, height: box.maxY - box.minY + 2 * margin
            ).intersection(area)
        }
        // The places kept never overlap: each new one takes in every place it overlaps, as it grows.
        var places: [NormalizedRect] = []
        for var place in widened {
            while let overlapping = places.firstIndex(where: { $0.intersection(place) != nil }) {
                place = place.union(places.remove(at: overlapping))
            }
            places.append(place)
        }
        return places
    }

    /// `found` plus what `more` found that `found` does not already hold at the same place (one
    /// symbol must not become two observations in one frame).
    static func merge(_ found: [RecognizedItem], _ more: [RecognizedItem]) -> [RecognizedItem] {
        found
            + more.filter { item in
                !found.contains { $0.symbology == item.symbology && $0.payload == item.payload && $0.bounds.contains(item.bounds.center) }
            }
    }
}
