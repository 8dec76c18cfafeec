import Foundation
import ScannerCore

/// The documents a person holds up, as items with ids and a lifecycle (issue #43): a pure state
/// machine — each detection pass's quadrilaterals (normalized 0…1) and its time in, `added` /
/// `updated` / `removed` out.
///
/// A sighting continues a document when it overlaps it (intersection over union of their bounding
/// boxes at least `sameDocument`); a new one is added once seen on `confirmations` passes in a row
/// (one pass's quadrilateral may be a desk's edge and a shadow's), updated when a corner moves by
/// more than the items' `moveThreshold` (of the frame's size) from what clients were told, and
/// removed when not seen for their `gracePeriod` seconds (`TrackerConfiguration`, one lifecycle for
/// items and documents). A move is told only when two passes in a row agree on the new place, the
/// second not moved from the first by that rule: one pass's corners on a
/// motion-blurred frame may be off by more than the document moved, and a kiosk acts on what it is
/// told; a sighting that does not agree still keeps the document alive. (The add is not held back
/// so: asking agreement there too delayed adds past 15 frames on six of the footage's clips,
/// docs/benchmarks.md.)
public struct DocumentTracker: Sendable {
    public struct Configuration: Sendable, Equatable {
        public var confirmations = 2
        public var sameDocument = 0.5
        /// The items' lifecycle (`TrackerConfiguration`): a document is told to have moved
        /// (`moved(from:to:)`), and is gone (`gracePeriod`), when any item would be.
        public var lifecycle: TrackerConfiguration

        public init(items: TrackerConfiguration = TrackerConfiguration()) {
            lifecycle = items
        }
    }

    struct Track {
        var id: UUID
        var bounds: Quad
        /// The pass before's corners (nil: seen once).
        var previous: Quad?
        var confidence: Double
        var seen: Int
        var lastSeen: Double
        var firstFrame: Int
        var lastFrame: Int
        /// The corners clients were last told; nil until added.
        var told: Quad?
    }

    public let configuration: Configuration
    private var tracks: [Track] = []
    private let makeID: @Sendable () -> UUID

    public init(configuration: Configuration = Configuration(), makeID: @escaping @Sendable () -> UUID = { UUID() }) {
        self.configuration = configuration
        self.makeID = makeID
    }

    /// The documents clients have been told about.
    public var live: [TrackedItem] { tracks.filter { $0.told != nil }.map(Self.item) }

    /// One detection pass: the documents it found (normalized corners, with their scores).
    public mutating func update(_ found: [(quad: Quad, score: Double)], frame: Int, time: Double) -> [TrackerAction] {
        var actions: [TrackerAction] = []
        var continued = Set<Int>()
        for sighting in found {
            let match = tracks.indices.filter { !continued.contains($0) }
                .map { ($0, Self.overlap(tracks[$0].bounds, sighting.quad)) }
                .filter { $0.1 >= configuration.sameDocument }
                .max { $0.1 < $1.1 }?.0
            guard let index = match else {
                tracks.append(
                    Track(
                        id: makeID(), bounds: sighting.quad, previous: nil, confidence: sighting.score, seen: 1, lastSeen: time,
                        firstFrame: frame,
                        lastFrame: frame, told: nil))
                continued.insert(tracks.count - 1)
                if configuration.confirmations <= 1 { actions += tell(tracks.count - 1) }
                continue
            }
            continued.insert(index)
            tracks[index].previous = tracks[index].bounds
            tracks[index].bounds = sighting.quad
            tracks[index].confidence = sighting.score
            tracks[index].seen += 1
            tracks[index].lastSeen = time
            tracks[index].lastFrame = frame
            actions += tell(index)
        }
        // Not seen on this pass: a pending one starts over; a live one waits out its grace period.
        for index in tracks.indices where !continued.contains(index) && tracks[index].told == nil { tracks[index].seen = 0 }
        let grace = configuration.lifecycle.gracePeriod
        let gone = { (track: Track) in time - track.lastSeen > grace || track.told == nil && track.seen == 0 }
        actions += tracks.filter { gone($0) && $0.told != nil }.map { .removed(Self.item($0)) }
        tracks.removeAll(where: gone)
        return actions
    }

    /// Every document is gone (the source ended, recognition paused).
    public mutating func removeAll() -> [TrackerAction] {
        defer { tracks = [] }
        return live.map { .removed($0) }
    }

    /// `added` when a pending track is confirmed, `updated` when a live one moved; nothing otherwise.
    private mutating func tell(_ index: Int) -> [TrackerAction] {
        let track = tracks[index]
        // Two passes agree when the second did not move from the first by the items' rule: a held
        // card's jitter between passes (0.1 s apart) stays within it on the footage.
        let agreed = track.previous.map { !configuration.lifecycle.moved(from: $0, to: track.bounds) } ?? false
        guard let told = track.told else {
            // Confirmed, and where the last two passes agree; or, entering in a hurry, one pass later.
            guard track.seen >= configuration.confirmations,
                agreed || track.seen > configuration.confirmations || configuration.confirmations <= 1
            else { return [] }
            tracks[index].told = track.bounds
            return [.added(Self.item(tracks[index]))]
        }
        guard configuration.lifecycle.moved(from: told, to: track.bounds), agreed else { return [] }
        tracks[index].told = track.bounds
        return [.updated(Self.item(tracks[index]))]
    }

    /// The track as clients know it: at the corners they were told (an unconfirmed pass's corners are
    /// not what `/items`, a capture or a removal speak of).
    static func item(_ track: Track) -> TrackedItem {
        TrackedItem(
            id: track.id,
            item: RecognizedItem(kind: .document, payload: "document", bounds: track.told ?? track.bounds, confidence: track.confidence),
            firstFrame: track.firstFrame, lastFrame: track.lastFrame)
    }

    /// Intersection over union of the two quadrilaterals' bounding boxes.
    static func overlap(_ a: Quad, _ b: Quad) -> Double {
        let p = a.boundingBox
        let q = b.boundingBox
        let width = max(0, min(p.maxX, q.maxX) - max(p.minX, q.minX))
        let height = max(0, min(p.maxY, q.maxY) - max(p.minY, q.minY))
        let intersection = width * height
        let union = (p.maxX - p.minX) * (p.maxY - p.minY) + (q.maxX - q.minX) * (q.maxY - q.minY) - intersection
        return union > 0 ? intersection / union : 0
    }
}
