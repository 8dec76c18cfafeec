import Foundation
import ScannerCore

/// What the recognizers reported for one frame. A recognizer that did not run on this frame (OCR runs
/// on some frames only) reports nil, which is not the same as "ran and saw nothing".
public struct FrameObservations: Sendable {
    public var frame: Int
    /// Seconds on the tracker's clock (injected: frame index / fps for deterministic replays).
    public var time: Double
    public var barcodes: [RecognizedItem]?
    public var text: [RecognizedItem]?
    /// The text is the previous reading carried over to an unchanged frame: it keeps the items alive
    /// but is no new evidence (the same pixels read again would only repeat any misreading).
    public var textIsRepeat: Bool
    /// Text seen on this pass but not read again (a line read before, found again where it moved
    /// to): it keeps its item alive and moves its bounds, but is no new evidence.
    public var textCarried: [RecognizedItem]
    /// When the text pass in progress began (nil: none is): text is judged as of the frame that pass
    /// reads, so no text item is removed past this time until the pass reports. A pass can take most
    /// of a second (a slow machine, many lines), and the barcode
    /// thread's updates would otherwise remove text items in view for not being seen by a pass that
    /// had not finished looking.
    public var textPassStarted: Double?

    public init(
        frame: Int, time: Double, barcodes: [RecognizedItem]?, text: [RecognizedItem]?, textIsRepeat: Bool = false,
        textCarried: [RecognizedItem] = [], textPassStarted: Double? = nil
    ) {
        self.frame = frame
        self.time = time
        self.barcodes = barcodes
        self.text = text
        self.textIsRepeat = textIsRepeat
        self.textCarried = textCarried
        self.textPassStarted = textPassStarted
    }
}

/// Gives every real item one id for its whole life and says when it was added, updated and removed.
/// A pure state machine: observations and time in, actions out; no threads, no clock of its own.
public struct ItemTracker: Sendable {
    struct Track: Sendable {
        var id: UUID
        var item: RecognizedItem
        var firstFrame: Int
        var lastFrame: Int
        var lastSeen: Double
        var live: Bool
        /// Bounds as last reported to clients (movement is measured against these).
        var reportedBounds: Quad
        var reportedPayload: String
        var reportedTranscript: String?
        /// The reads that vote on the payload: text, and codes read along lines (nil for QR codes).
        var evidence: TextEvidence?
        var matchedThisFrame = false
        /// Where and when it was first seen (a pending code that is a live one moved on: `takenOver`).
        var firstCenter: Point
        var firstSeen: Double
        /// A 1-D code's longest decode of late (`recentLinearLength`) and when it was made. zbar's
        /// bounds are the scan lines that decoded, often only a part of the symbol: a decode at one
        /// end and one at the other lie further apart than three quarters of either's length.
        var longestLength: Double
        var longestSeen: Double

        var isText: Bool { item.kind == .text }
    }

    /// Changing it applies from the next observations; tracks and their evidence are kept.
    public var configuration: TrackerConfiguration
    private var tracks: [Track] = []
    private let makeID: @Sendable () -> UUID

    public init(configuration: TrackerConfiguration, makeID: @escaping @Sendable () -> UUID = { UUID() }) {
        self.configuration = configuration
        self.makeID = makeID
    }

    /// The items clients know about, in reading order.
    public var liveItems: [TrackedItem] {
        tracks.filter(\.live).map(Self.tracked).sorted { RecognizedItem.readingOrder($0.item, $1.item) }
    }

    /// Feeds one frame's observations; returns what changed, removals first.
    public mutating func update(_ observations: FrameObservations) -> [TrackerAction] {
        for i in tracks.indices { tracks[i].matchedThisFrame = false }
        var actions: [TrackerAction] = []
        if let barcodes = observations.barcodes {
            for observation in barcodes { actions += observeBarcode(observation, observations) }
        }
        if let text = observations.text, observations.textIsRepeat {
            for observation in text + observations.textCarried {
                actions += refreshText(observation, observations).actions
            }
        } else if let text = observations.text {
            let before = Set(tracks.indices.filter { tracks[$0].isText })
            var matched = Set<Int>()
            for observation in text {
                let (index, result) = observeText(observation, weight: Self.textWeight, observations)
                matched.insert(index)
                actions += result
            }
            for observation in observations.textCarried {
                let (index, result) = refreshText(observation, observations)
                if let index { matched.insert(index) }
                actions += result
            }
            // An OCR pass that did not see a line is a vote against it.
            for index in before.subtracting(matched) { tracks[index].evidence?.record(nil) }
        }
        actions = expire(at: observations.time, text: min(observations.time, observations.textPassStarted ?? observations.time)) + actions
        return actions
    }

    /// Ends every item (the source ended or the daemon stops): `removed` for each live one.
    public mutating func removeAll() -> [TrackerAction] {
        let removed = tracks.filter(\.live).map { TrackerAction.removed(Self.tracked($0)) }
        tracks = []
        return removed
    }

    // MARK: Barcodes

    private mutating func observeBarcode(_ observation: RecognizedItem, _ frame: FrameObservations) -> [TrackerAction] {
        if observation.symbology?.isLinear == true { return observeLinear(observation, frame) }
        guard let index = nearest(sameReading(as: observation), to: observation) else {
            tracks.append(newTrack(observation, frame))
            return promoteIfReady(tracks.count - 1, frame)
        }
        tracks[index].item.bounds = observation.bounds
        touch(index, frame)
        return promoteIfReady(index, frame)
    }

    /// A 1-D code joins the track of its symbology at the same place whatever it decoded to, and
    /// its decodes vote like text reads: two different payloads for one symbol (zbar on a blurred or
    /// tilted EAN-13, each with a valid check digit) never become two items, and a decode is believed
    /// only when it leads the others at its place. Several decodes of one symbol in one frame (zbar
    /// reads each scan line) all vote.
    private mutating func observeLinear(_ observation: RecognizedItem, _ frame: FrameObservations) -> [TrackerAction] {
        // The track reading the same within a plausible jump is the symbol itself, before any track
        // at its place: a sheet of codes carried away moves a row's height between two scans, the
        // code above slid into a code's place and took its track, and the code itself, found a row
        // lower, became a second item (the footage's sheet at realtime, seed 2: four codes).
        // A track that took a sighting this frame takes no other from away from its place: two
        // identical codes side by side are two tracks (`sameReading`).
        var candidates = tracks.indices.filter { i in
            let t = tracks[i]
            guard t.item.kind == .barcode && t.item.symbology == observation.symbology && t.item.payload == observation.payload else {
                return false
            }
            let distance = t.item.bounds.center.distance(to: observation.bounds.center)
            return distance <= Self.reach(of: t, observation.bounds) || (!t.matchedThisFrame && distance <= configuration.maximumJump)
        }
        // Else the track at its place, within `reach` of its centre: a misread lands on the track of
        // what it misreads, to be voted out there.
        if candidates.isEmpty {
            candidates = tracks.indices.filter { i in
                let t = tracks[i]
                return t.item.kind == .barcode && t.item.symbology == observation.symbology
                    && t.item.bounds.center.distance(to: observation.bounds.center) <= Self.reach(of: t, observation.bounds)
            }
        }
        let read = TextEvidence.Read(
            payload: observation.payload, transcript: nil, confidence: observation.confidence, details: observation.details,
            weight: Self.linearWeight(of: observation))
        guard let index = nearest(candidates, to: observation) else {
            var track = newTrack(observation, frame)
            track.evidence = TextEvidence(window: configuration.linearWindow, memory: configuration.linearMemory)
            track.evidence?.record(read)
            tracks.append(track)
            return promoteIfReady(tracks.count - 1, frame)
        }
        tracks[index].evidence?.record(read)
        // The widest decode of the symbol gives its bounds (a scan line near an edge gives a sliver),
        // and a decode of less than 0.6 of the symbol's recent length none: it is a part of it (on the
        // footage, decodes of one half of a label's EAN-13 came between whole ones).
        let length = observation.bounds.boxLength
        if length >= tracks[index].longestLength || frame.time - tracks[index].longestSeen > Self.recentLinearLength {
            tracks[index].longestLength = length
            tracks[index].longestSeen = frame.time
        }
        if (!tracks[index].matchedThisFrame || observation.bounds.boxArea > tracks[index].item.bounds.boxArea)
            && length >= 0.6 * tracks[index].longestLength
        {
            tracks[index].item.bounds = observation.bounds
        }
        touch(index, frame)
        return promoteIfReady(index, frame)
    }

    /// How long a 1-D code's longest decode stands for its length (seconds): longer than the gaps
    /// between whole decodes of a code at rest, shorter than the time it takes to be carried away.
    static let recentLinearLength = 1.0

    /// How far from a 1-D track's centre a decode of its symbology is at its place: three quarters
    /// of the symbol's length (its bounds', the decode's or its longest recent decode's). zbar's
    /// bounds of a 1-D code are the ends of the scan lines that decoded, so one scan line gives a box
    /// of no height, and two decodes of one symbol on different rows need not overlap at all.
    static func reach(of track: Track, _ bounds: Quad) -> Double {
        0.75 * max(track.item.bounds.boxLength, bounds.boxLength, track.longestLength)
    }

    /// A 1-D decode's votes, in half decodes: 2 for one both barcode readers agree on, 1 for one
    /// zbar alone made (confidence under 1: zxing-cpp did not confirm it).
    ///
    /// zbar's unconfirmed readings still vote: some symbols only zbar reads (an EAN-13 whose leading
    /// digit sits in its quiet zone, as BWIPP and most printers place it, zxing-cpp 1.4 does not
    /// read at all). But they count half: on the generated label (1280×720, seed 1) zbar alone read
    /// `2781278637676` for `1781958637676` on two frames running while the code was still too
    /// blurred to read, and at realtime those two were all the barcode thread scanned, so the wrong
    /// payload was added; zxing-cpp confirmed the right one two frames later.
    static func linearWeight(of observation: RecognizedItem) -> Int {
        observation.confidence < 1 ? halfVote : wholeVote
    }

    /// Evidence is counted in half votes: a read or decode the recognizers agree on casts
    /// `wholeVote`, one a single recognizer made where the other could have confirmed it
    /// `halfVote` (`linearWeight`).
    static let wholeVote = 2
    static let halfVote = 1

    /// Tracks of the same symbology and payload, not yet matched in this frame, within a plausible
    /// jump. Two identical codes side by side are two tracks: each track takes one sighting per frame.
    private func sameReading(as observation: RecognizedItem) -> [Int] {
        tracks.indices.filter { i in
            let t = tracks[i]
            return !t.matchedThisFrame && t.item.kind == .barcode && t.item.symbology == observation.symbology
                && t.item.payload == observation.payload
                && t.item.bounds.center.distance(to: observation.bounds.center) <= configuration.maximumJump
        }
    }

    /// The one of `candidates` whose centre is nearest the observation's.
    private func nearest(_ candidates: [Int], to observation: RecognizedItem) -> Int? {
        nearest(candidates, to: observation.bounds.center)
    }

    /// The one of `candidates` whose centre is nearest `point`.
    private func nearest(_ candidates: [Int], to point: Point) -> Int? {
        let distance = { (i: Int) in self.tracks[i].item.bounds.center.distance(to: point) }
        return candidates.min { distance($0) < distance($1) }
    }

    // MARK: Text

    /// A text read's votes, in half reads: one recognizer reads a line in a frame
    /// (`ReadingFusion.frame`), and its reading is a whole vote.
    static let textWeight = wholeVote

    /// The text track a reading belongs to: one of its content type, not matched in this frame, whose
    /// bounds overlap it by more than 0.3. Text is matched by place, not by payload: a misread must
    /// land on the same track to be voted out. The item clients know about takes a reading at its
    /// place before a pending track does, then the track it overlaps most: a pending one there (an
    /// earlier read placed a little apart) that took the readings would starve the item until it
    /// was removed in view, and be added in its place, a duplicate (1280×720 label seed 2 replayed
    /// with PP-OCRv6 reading: its phone number added at frame 55, removed at 85, added at 88).
    private func textTrack(at observation: RecognizedItem) -> Int? {
        let candidates = tracks.indices.filter { i in
            !tracks[i].matchedThisFrame && tracks[i].isText && tracks[i].item.contentType == observation.contentType
                && tracks[i].item.bounds.boxOverlap(observation.bounds) > 0.3
        }
        return candidates.max {
            (tracks[$0].live ? 1 : 0, tracks[$0].item.bounds.boxOverlap(observation.bounds))
                < (tracks[$1].live ? 1 : 0, tracks[$1].item.bounds.boxOverlap(observation.bounds))
        }
    }

    private mutating func observeText(_ observation: RecognizedItem, weight: Int, _ frame: FrameObservations) -> (Int, [TrackerAction]) {
        // With what the content typing parsed (a tracking number's carrier, an amount's currency): the
        // consensus is always one actual read, so its details go with its payload.
        let read = TextEvidence.Read(
            payload: observation.payload, transcript: observation.transcript, confidence: observation.confidence, details: observation.details,
            weight: weight)
        guard let index = textTrack(at: observation) else {
            var track = newTrack(observation, frame)
            track.evidence?.record(read)
            tracks.append(track)
            return (tracks.count - 1, promoteIfReady(tracks.count - 1, frame))
        }
        tracks[index].evidence?.record(read)
        tracks[index].item.bounds = observation.bounds
        touch(index, frame)
        return (index, promoteIfReady(index, frame))
    }

    /// A reading repeated or carried over keeps the matching track alive and moves it, nothing more:
    /// no evidence is recorded, so a misreading carried along never confirms itself.
    private mutating func refreshText(_ observation: RecognizedItem, _ frame: FrameObservations) -> (index: Int?, actions: [TrackerAction]) {
        guard let index = textTrack(at: observation) else { return (nil, []) }
        tracks[index].item.bounds = observation.bounds
        touch(index, frame)
        guard tracks[index].live else { return (index, []) }
        guard configuration.moved(from: tracks[index].reportedBounds, to: tracks[index].item.bounds) else { return (index, []) }
        markReported(&tracks[index])
        return (index, [.updated(Self.tracked(tracks[index]))])
    }

    // MARK: Lifecycle

    private func newTrack(_ observation: RecognizedItem, _ frame: FrameObservations) -> Track {
        Track(
            id: makeID(), item: observation, firstFrame: frame.frame, lastFrame: frame.frame, lastSeen: frame.time,
            live: false, reportedBounds: observation.bounds, reportedPayload: observation.payload,
            reportedTranscript: observation.transcript,
            evidence: observation.kind == .text
                ? TextEvidence(window: configuration.textWindow, voteConfidence: configuration.textVoteConfidence) : nil,
            matchedThisFrame: true, firstCenter: observation.bounds.center, firstSeen: frame.time,
            longestLength: observation.bounds.boxLength, longestSeen: frame.time)
    }

    private mutating func touch(_ index: Int, _ frame: FrameObservations) {
        tracks[index].lastFrame = frame.frame
        tracks[index].lastSeen = frame.time
        tracks[index].matchedThisFrame = true
    }

    /// Adds a pending track once its evidence suffices (a QR code, which has no vote — error
    /// correction and finder patterns — on its first decode); for a live one, reports movement or a
    /// better reading.
    private mutating func promoteIfReady(_ index: Int, _ frame: FrameObservations) -> [TrackerAction] {
        var track = tracks[index]
        if let evidence = track.evidence {
            guard let consensus = evidence.consensus(preferring: track.live ? track.reportedPayload : nil) else { return [] }
            // Added when enough reads agree and no competing reading at the same place comes close;
            // a live item's payload changes only on the same terms (one symbol never flips between
            // two payloads on evidence that is split).
            // Reads and decodes vote in halves (`wholeVote`).
            let agreement = Self.wholeVote * (track.isText ? configuration.textAgreement : configuration.weakBarcodeConfirmations)
            let decisive = min(consensus.support, consensus.lead) >= agreement
            if !track.live && !decisive { return [] }
            // A live 1-D code changes its payload only to what its decodes have said more often
            // of late (`TextEvidence.outweighs`): a run of misreads is not enough.
            let changes = decisive && evidence.outweighs(consensus.read.payload, track.reportedPayload)
            if !track.live || changes || consensus.read.payload == track.reportedPayload {
                // A live item's transcript changes with its payload only: the network spaces a
                // number differently from read to read (`+44 20 7946 0958`, `+44 20 79460958`), and
                // a client told the same number again learns nothing.
                let samePayload = track.live && consensus.read.payload == track.reportedPayload
                track.item.payload = consensus.read.payload
                track.item.transcript = samePayload ? track.reportedTranscript : consensus.read.transcript
                track.item.confidence = consensus.read.confidence
                track.item.details = consensus.read.details
            }
        }
        if !track.live, track.item.kind == .barcode, let live = sharingPlace(with: track) {
            // The live item is here too, read as the same code: one symbol, one item. (Two tracks
            // of one code at one place: a decode whose bounds fell far from the item's, a sliver at
            // one end, started a track of its own, and both went on taking decodes.)
            tracks[live].lastFrame = max(tracks[live].lastFrame, track.lastFrame)
            tracks[live].lastSeen = max(tracks[live].lastSeen, track.lastSeen)
            tracks[live].matchedThisFrame = true
            tracks.remove(at: index)
            return []
        }
        if !track.live, track.item.kind == .barcode, let live = takenOver(by: track) {
            // The live item, moved on: it takes the new track's place and evidence, and no second
            // item is added.
            tracks[live].item.bounds = track.item.bounds
            tracks[live].item.confidence = track.item.confidence
            tracks[live].evidence = track.evidence
            tracks[live].lastFrame = track.lastFrame
            tracks[live].lastSeen = track.lastSeen
            tracks[live].matchedThisFrame = true
            tracks.remove(at: index)
            return promoteIfReady(live > index ? live - 1 : live, frame)
        }
        defer { tracks[index] = track }
        if !track.live {
            track.live = true
            markReported(&track)
            return [.added(Self.tracked(track))]
        }
        let moved = configuration.moved(from: track.reportedBounds, to: track.item.bounds)
        let reread = track.item.payload != track.reportedPayload || track.item.transcript != track.reportedTranscript
        guard moved || reread else { return [] }
        markReported(&track)
        return [.updated(Self.tracked(track))]
    }

    /// The live code `pending` is, moved faster than its sightings could follow: the same symbology
    /// and payload, last seen before `pending` was first seen (so not a second copy in view beside
    /// it) and within a plausible jump of where `pending` was first seen (`maximumJump`, and
    /// `maximumSpeed` for the time between). A label swept into view moves further between two
    /// barcode scans than a 1-D code is tall, and is blurred past reading on its way: a first
    /// sighting that zbar misread started a track of its own at the new place, whose votes then
    /// settled on the live item's payload, and a label read entering and again at rest a third of a
    /// second later was a second item (the generated label at realtime).
    private func takenOver(by pending: Track) -> Int? {
        let candidates = liveItems(readAs: pending).filter { i in
            let t = tracks[i]
            let reach = configuration.maximumJump + configuration.maximumSpeed * max(0, pending.firstSeen - t.lastSeen)
            return t.lastFrame < pending.firstFrame && t.item.bounds.center.distance(to: pending.firstCenter) <= reach
        }
        return nearest(candidates, to: pending.firstCenter)
    }

    /// A live code of `pending`'s symbology and payload at `pending`'s place (`reach`, as a decode
    /// joins a track in `observeLinear`).
    private func sharingPlace(with pending: Track) -> Int? {
        let candidates = liveItems(readAs: pending).filter { i in
            let t = tracks[i]
            let reach = max(Self.reach(of: t, pending.item.bounds), Self.reach(of: pending, t.item.bounds))
            return t.item.bounds.center.distance(to: pending.item.bounds.center) <= reach
        }
        return nearest(candidates, to: pending.item.bounds.center)
    }

    /// The live codes of `pending`'s symbology and payload.
    private func liveItems(readAs pending: Track) -> [Int] {
        tracks.indices.filter { i in
            let t = tracks[i]
            return t.live && t.item.kind == .barcode && t.item.symbology == pending.item.symbology && t.item.payload == pending.item.payload
        }
    }

    private func markReported(_ track: inout Track) {
        track.reportedBounds = track.item.bounds
        track.reportedPayload = track.item.payload
        track.reportedTranscript = track.item.transcript
    }

    /// Removes what has not been seen for its grace period; forgets pending tracks likewise. Text is
    /// judged at `textTime` (`FrameObservations.textPassStarted`).
    private mutating func expire(at time: Double, text textTime: Double) -> [TrackerAction] {
        var removed: [TrackerAction] = []
        tracks.removeAll { track in
            let (now, grace) = track.isText ? (textTime, configuration.textGracePeriod) : (time, configuration.gracePeriod)
            guard now - track.lastSeen > grace else { return false }
            if track.live { removed.append(.removed(Self.tracked(track))) }
            return true
        }
        return removed
    }

    static func tracked(_ track: Track) -> TrackedItem {
        TrackedItem(id: track.id, item: track.item, firstFrame: track.firstFrame, lastFrame: track.lastFrame)
    }
}
