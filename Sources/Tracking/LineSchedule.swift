import ScannerCore

/// Which detected text lines an OCR pass reads, and what the lines it does not read still say.
///
/// Detecting lines is cheap (a few ms a frame); reading one costs Tesseract 6–18 ms. A business card
/// holds ten lines, a receipt thirty: reading all of them on every pass would make a pass take a
/// second. So lines are followed from pass to pass by their quads, and only the lines that need it are
/// read: new lines first, then lines whose reads do not yet agree, then, now and then, lines already
/// confirmed (a screen can change under a line that stays put). A line that is not read keeps its
/// last reading, which follows the line's quad, so an item's bounds move with every detection pass.
///
/// A pure state machine: detected quads and time in, the lines to read out; readings in.
public struct LineSchedule<Reading: Sendable>: Sendable {
    public struct Configuration: Sendable, Equatable {
        /// At most this many lines are read per pass. A pass looks before it reads, and a look of the
        /// detector network costs two to three reads of its lines (one look at 640×352 ~110 ms, a
        /// line's read 35–100 ms, one f32 thread): a card's six lines read three a pass waited for a
        /// second look. Measured at realtime on the footage (2026-11-29, 21 clips, 1280×720):
        /// 209 → 214 of 214 found at 6 (precision 210/210, 216/216), phone numbers added a median 30
        /// → 27 frames after legible; at 10, three duplicates. Unpaced the same (214/214).
        public var readsPerPass = 6
        /// A confirmed line is read again after this many seconds.
        public var rereadConfirmedAfter = 2.0
        /// A line whose reads agree that it says nothing is read again after this many seconds: it
        /// may have been read at the edge of legibility, blurred or too small, and be sharper now.
        /// Measured 2026-11-22 at realtime: a poster's URL read twice as nothing as it came into focus
        /// was not read again while legible in 5 of 6 runs with 2 s; 0 of 6 with 0.5 s (0.3 s: 1).
        /// They are read only when no new or unconfirmed line is waiting. A line whose agreeing reads
        /// of nothing were each confident (`confirmingPassConfidence`, no doubt) was read sharp, not
        /// at the edge of legibility: it waits `rereadConfirmedAfter` like any confirmed line. With
        /// 0.5 s a card at rest had its name and title read on every pass where passes come 0.5 s
        /// apart or more (a 2-core CPU in f32), and the text thread never rested.
        public var rereadNothingAfter = 0.5
        /// A line confirmed as plain text (saying nothing asked for, read with confidence) and not
        /// read for this long is read again as if it were new, by priority (`plan`), not only when
        /// nothing else is waiting.
        public var plainTextCompetesAfter = 1.5
        /// Reads in a row that were garbage after which a line is taken for clutter (confirmed as
        /// saying nothing). Measured 2026-11-22 at realtime: a poster's URL read twice as garbage
        /// while still blurred was confirmed as nothing and never read again while legible, behind
        /// the desk clutter that is new on every pass.
        public var garbageToClutter = 3
        /// A line missed on `forgetAfterPasses` passes in a row and not detected for this long (s) is
        /// forgotten: one blurred pass must not lose its reads, and neither must a slow pass. Counted
        /// in seconds alone, it lost every line where passes came more than 0.5 s apart (a pass of
        /// looks and six reads takes ~0.8 s on a 2-core CPU in f32): each pass read a card's lines
        /// as new, the confirmed ones too (the footage's card at realtime, 2026-11-29).
        public var forgetAfter = 0.5
        public var forgetAfterPasses = 2
        /// Two quads are the same line when either holds the other's centre and their heights and
        /// lengths differ by less than these factors. (Box overlap would not do: the boxes of
        /// neighbouring tilted lines overlap more than a line's box does with itself a moment later.)
        /// A line found whole on one pass and in two pieces on the next is not the same line: each
        /// piece is read, not given the whole line's reading.
        public var maximumHeightRatio = 1.6
        public var maximumLengthRatio = 1.25
        /// A line whose appearance (`plan`'s signatures) differs from when it was last read by more
        /// than this (mean absolute difference of the normalized signatures) is read again at once:
        /// new text in the same place, as when a phone screen changes.
        public var maximumAppearanceChange = 0.6
        /// A line is confirmed when this many of its latest reads agree (and what it says is
        /// believed, see `plan`).
        public var confirmingReads = 2
        /// A line awaits its confirming read on a confirming pass (`plan(…, confirmingOnly:)`) only
        /// when it was read with at least this confidence. The next frame's pixels are nearly the
        /// same, and so are its misreadings: on the footage (2026-11-22, 640×480 and
        /// 1280×720, three seeds each, every typed read of an unpaced run), typed reads at 0.9 or more
        /// were wrong 2 times in 137, at 0.8–0.9 3 in 67, below 0.8 75 in 177; confirming every typed
        /// read on the next frame made a business card's `q`/`g` misreading an item.
        public var confirmingPassConfidence = 0.9

        public init() {}
    }

    public struct Line: Sendable {
        public let id: Int
        /// Where it was detected last, in the caller's coordinates.
        public var quad: Quad
        /// The latest readings, newest last, with the keys they are compared by.
        public var reads: [(reading: Reading, key: [String], garbage: Bool, doubt: String?, confidence: Double)] = []
        public var lastRead: Double?
        public var lastSeen: Double
        /// Its appearance now, and when it was last read.
        public var signature: [Double] = []
        public var signatureRead: [Double] = []
        /// Passes it was found on (it counts up to `Self.persistenceCap`).
        public var passesSeen = 0
        /// Its latest reads in a row that were garbage (`Observation.unconfident`).
        public var garbageReads = 0
        /// The confidence of its latest read (`Observation.confidence`).
        public var confidence: Double { reads.last?.confidence ?? 0 }
        /// Its latest read that was neither garbage nor a part (`standing(forQuad:)`), and its key.
        public var lastClear: Reading?
        public var lastClearKey: [String] = []
        /// Its latest read said only a part of what it said before (`Observation.part`).
        public var saidPart = false
        /// How many times it was read (`record`).
        public var timesRead = 0
        /// Passes in a row it was not found on (`Configuration.forgetAfterPasses`).
        public var passesMissed = 0

        /// How many of its latest reads say what the newest says (counting back to the first that does not).
        /// A read of nothing that was garbage agrees only with garbage: a line read blurred as garbage,
        /// then sharper as plain text, has one read saying that it says nothing, not two (a poster's
        /// e-mail address, read so while it came into focus, was taken for plain text and, behind
        /// the desk's clutter, never read again while legible).
        /// Reads of nothing in doubt (`Observation.doubt`) agree only when they read the same text.
        public var agreement: Int {
            guard let newest = reads.last else { return 0 }
            return reads.reversed().prefix {
                $0.key == newest.key && (!$0.key.isEmpty || ($0.garbage == newest.garbage && $0.doubt == newest.doubt))
            }.count
        }

        public var latest: Reading? { reads.last?.reading }

        /// Its latest read said nothing asked for (plain text, garbage or nothing at all).
        var saysNothing: Bool { reads.last?.key.isEmpty == true }

        /// Its agreeing reads say nothing and each was read with at least `confidence`, not as
        /// garbage: plain text read sharp (reads in doubt agree only when they read the same text).
        func saysNothingSurely(_ confidence: Double) -> Bool {
            saysNothing && reads.suffix(agreement).allSatisfy { !$0.garbage && $0.confidence >= confidence }
        }
    }

    public var configuration: Configuration
    public private(set) var lines: [Line] = []
    /// The line each quad of the last `plan` call belongs to (indices into `lines`).
    public private(set) var current: [Int] = []
    /// The keys the caller believes (see `plan`); nil: every agreed reading is believed.
    private var believed: Set<String>?
    private var nextID = 0

    public init(configuration: Configuration = Configuration()) {
        self.configuration = configuration
    }

    /// Takes this pass's detected quads (top-left first, clockwise) and, optionally, a signature of
    /// each (see `LineReader.signature`), and returns the indices into `quads` to read now, most
    /// needed first.
    ///
    /// `priorities` (optional, higher first) order lines within the same need, e.g. a line's glyph
    /// count: of thirty new lines on a receipt, the long ones are read before specks and edges.
    ///
    /// `believed` (optional) are the keys the caller has come to believe, e.g. the payloads of the
    /// items the tracker has added. A line whose reads agree on something not believed is not
    /// confirmed: it is read on, first, until it is believed. Reads agreeing here need not be
    /// evidence enough there (measured on the 640×480 footage, 2026-11-22): a line detected with
    /// another quad for one pass is another line here but the same item there, so its misread
    /// contests the item there only; and small print read right with confidence too low to count
    /// there. Each left the line confirmed here, not read again for 2 s, and its item never added.
    ///
    /// `confirmingOnly`: return only the lines that said something and await the read that would
    /// confirm it (`awaitsConfirmation`), for a short pass between the regular ones.
    public mutating func plan(
        _ quads: [Quad], signatures: [[Double]] = [], priorities: [Double] = [], believed: Set<String>? = nil, time: Double,
        confirmingOnly: Bool = false
    ) -> [Int] {
        self.believed = believed
        precondition(signatures.isEmpty || signatures.count == quads.count)
        precondition(priorities.isEmpty || priorities.count == quads.count)
        lines.removeAll { $0.passesMissed >= configuration.forgetAfterPasses && time - $0.lastSeen > configuration.forgetAfter }
        // Greedy matching, best overlaps first: each known line takes at most one quad.
        var pairs: [(quad: Int, line: Int, distance: Double)] = []
        for (q, quad) in quads.enumerated() {
            for (l, line) in lines.enumerated() {
                let h = line.quad.meanHeight
                let hq = quad.meanHeight
                let length = line.quad.meanLength
                let lengthQ = quad.meanLength
                guard quad.contains(line.quad.center) || line.quad.contains(quad.center),
                    max(h, hq) / max(1e-9, min(h, hq)) < configuration.maximumHeightRatio,
                    max(length, lengthQ) / max(1e-9, min(length, lengthQ)) < configuration.maximumLengthRatio
                else { continue }
                pairs.append((q, l, quad.center.distance(to: line.quad.center)))
            }
        }
        pairs.sort { $0.distance < $1.distance }
        var lineOf = [Int?](repeating: nil, count: quads.count)
        var taken = Set<Int>()
        for pair in pairs where lineOf[pair.quad] == nil && !taken.contains(pair.line) {
            lineOf[pair.quad] = pair.line
            taken.insert(pair.line)
        }
        for l in lines.indices where !taken.contains(l) { lines[l].passesMissed += 1 }
        current = []
        for (q, quad) in quads.enumerated() {
            if let l = lineOf[q] {
                lines[l].quad = quad
                lines[l].lastSeen = time
                lines[l].passesMissed = 0
                current.append(l)
            } else {
                lines.append(Line(id: nextID, quad: quad, lastSeen: time))
                nextID += 1
                current.append(lines.count - 1)
            }
            if !signatures.isEmpty { lines[current[q]].signature = signatures[q] }
            lines[current[q]].passesSeen = min(Self.persistenceCap, lines[current[q]].passesSeen + 1)
        }
        // First the lines that said something and need a second read to be believed (what makes an
        // item appear); then, by priority × passes found over the reads they had, lines never read
        // and lines whose reads do not yet agree (a line misread once into nothing must not wait behind every new speck of a
        // cluttered desk moving behind the card: specks are new on every pass); then lines read
        // once, confidently, as saying nothing, for up to `rereadNothingAfter`; then confirmed lines
        // that are due.
        func rank(_ q: Int) -> (Int, Int, Double, Double) {
            let line = lines[current[q]]
            // A line found pass after pass weighs more than one found once: clutter behind a moving
            // card makes new "lines" on every pass, and by glyph count alone a wide strip of desk
            // texture outranked a poster's e-mail address, read once while blurred, for 2.7 s.
            let priority = priorities.isEmpty ? 0 : -priorities[q] * Double(line.passesSeen)
            // Its reads put a line behind the lines read fewer times: every line found on two passes
            // is read once before any is read again, but to confirm what it said. On a receipt held
            // up, its long lines of small print that read differently on every pass (dates, approval
            // codes: many digits, so in doubt) had been read five times each, by glyph count, while
            // its phone number's short line waited (1280×720, the development receipts: 10 items
            // found on every pass and never read). Its latest read does not count when it is in doubt
            // (it may have misread a phone number) and the line has had another: read in doubt again
            // and again, a line competes as one read a time less, but never before a line not read yet
            // (a card's address, its digits in doubt on every read, was read on every pass while its
            // phone number's shorter line waited two passes; the footage's card at realtime). A line
            // found on one pass only counts as read once: clutter, new on every pass, competes with
            // the lines read once, by priority, and seldom wins.
            let reads = line.timesRead - (line.reads.last?.doubt != nil && line.timesRead > 1 ? 1 : 0)
            let level = line.passesSeen < 2 ? max(1, reads) : reads
            let share = priority / (1 + Double(reads) / 2)
            guard let lastRead = line.lastRead else { return (1, level, priority, 0) }
            guard needsReading(line) else {
                // Plain text (not clutter) unread for long competes with the rest by priority: on a
                // cluttered desk new specks are due on every pass, and a line taken for plain text
                // while it came into focus would never be read again. It competes as a line read
                // once, whatever its reads: with the specks, by priority.
                if line.saysNothing, line.garbageReads == 0, time - lastRead >= configuration.plainTextCompetesAfter {
                    return (1, 1, share, lastRead)
                }
                return (3, 0, lastRead, priority)
            }
            if awaitsConfirmation(line) { return (0, 0, lastRead, priority) }
            // Plain text read well is seldom a misread phone number or address: its confirming read
            // can wait for the lines not read yet. At realtime a card's two longest lines, read as
            // plain text at 0.95, were read again before its phone number and URL were read at all:
            // the phone number was added two passes (~8 frames) later than it could have been.
            if line.saysNothing, line.reads.last?.doubt == nil, line.confidence >= configuration.confirmingPassConfidence,
                time - lastRead < configuration.rereadNothingAfter
            {
                return (2, 0, priority, lastRead)
            }
            return (1, level, share, lastRead)
        }
        let due = quads.indices.filter { q in
            let line = lines[current[q]]
            if confirmingOnly { return confirmsOnConfirmingPass(line) }
            guard !needsReading(line), let lastRead = line.lastRead else { return true }
            let unsure = line.saysNothing && !line.saysNothingSurely(configuration.confirmingPassConfidence)
            let after = unsure ? configuration.rereadNothingAfter : configuration.rereadConfirmedAfter
            return time - lastRead >= after
        }
        return Array(due.sorted { rank($0) < rank($1) }.prefix(configuration.readsPerPass))
    }

    /// One read of a line: what it read as and how the reader judged it.
    public struct Observation: Sendable {
        public var reading: Reading
        /// What reads must share to agree (e.g. the typed payloads).
        public var key: [String]
        /// It read as garbage (nothing, at low confidence): such reads confirm nothing until
        /// `garbageToClutter` of them come in a row (`isConfirmed`).
        public var unconfident: Bool
        /// The read's confidence, 0–1 (see `Configuration.confirmingPassConfidence`).
        public var confidence: Double
        /// It read only a part of what the line said before, up to a cut end (the caller's judgement,
        /// e.g. `…/i` of a link ending `…/info` when the detector split the line there): the line is
        /// still taken to say what it said (`standing`), for as long as its reads are such parts.
        /// `key` is what the read itself says, so such reads agree with each other.
        public var part: Bool
        /// It said nothing asked for but may be a misread of something that is (the caller's
        /// judgement, e.g. many digits): its text. Reads in doubt agree only when they read the same,
        /// and such a read is not plain text read well, whose next read may wait (`plan`):
        /// `Questions7 17555-0142` and `Questions? 1-737-55-0142` (both 0.91), read while a receipt
        /// came into focus, agreed that its phone number's line said nothing, and it was read again
        /// 1.5 s later (1280×720, receipt seed 1, the detector network, 2026-11-26).
        public var doubt: String?

        public init(
            _ reading: Reading, key: [String], unconfident: Bool = false, confidence: Double = 0, part: Bool = false, doubt: String? = nil
        ) {
            self.reading = reading
            self.key = key
            self.unconfident = unconfident
            self.confidence = confidence
            self.part = part
            self.doubt = doubt
        }
    }

    /// What the line of quad `index` (of the last `plan`) read as, at `time`.
    public mutating func record(_ read: Observation, forQuad index: Int, time: Double) {
        let l = current[index]
        lines[l].garbageReads = read.unconfident ? lines[l].garbageReads + 1 : 0
        lines[l].saidPart = read.part
        lines[l].reads.append((read.reading, read.key, read.unconfident, read.key.isEmpty ? read.doubt : nil, read.confidence))
        if !read.unconfident, !read.part {
            lines[l].lastClear = read.reading
            lines[l].lastClearKey = read.key
        }
        if lines[l].reads.count > configuration.confirmingReads { lines[l].reads.removeFirst() }
        lines[l].lastRead = time
        lines[l].timesRead += 1
        lines[l].signatureRead = lines[l].signature
    }

    /// Whether any line of the last `plan` still needs reading.
    public var hasPendingLines: Bool {
        // Not a line whose reads are garbage: the same pixels would read as the same garbage.
        current.contains { needsReading(lines[$0]) && lines[$0].garbageReads == 0 }
    }

    /// Whether a line of the last `plan` said something that one more read could confirm.
    /// (`plan(…, confirmingOnly:)` would read one.)
    public var hasLinesAwaitingConfirmation: Bool {
        current.contains { confirmsOnConfirmingPass(lines[$0]) }
    }

    /// It awaits confirmation and was read confidently enough for a confirming pass.
    func confirmsOnConfirmingPass(_ line: Line) -> Bool {
        awaitsConfirmation(line) && line.confidence >= configuration.confirmingPassConfidence
    }

    /// Its latest read said something (typed text), or it still carries what an earlier read said
    /// (`carries`: a misread or garbage since), and it is not confirmed yet. A receipt's phone number
    /// read right once, then misread (in doubt, taken as garbage), had waited behind every line read
    /// fewer times and was not read again while legible (1280×720, the development receipts).
    func awaitsConfirmation(_ line: Line) -> Bool {
        line.lastRead != nil && (!line.saysNothing || (carries(line) && !line.lastClearKey.isEmpty)) && needsReading(line)
    }

    /// Whether the line's reading is in question: its latest read said something not confirmed yet,
    /// or said nothing but may be a misread of something that does (`Observation.doubt`). Its next read
    /// is the one that matters, so the caller gathers its frames for that read (`LineStack`).
    public func isInQuestion(_ line: Line) -> Bool {
        awaitsConfirmation(line) || (line.lastRead != nil && line.reads.last?.doubt != nil && needsReading(line))
    }

    /// Its latest reads agree, on something believed.
    public func isConfirmed(_ line: Line) -> Bool {
        guard line.agreement >= configuration.confirmingReads else { return false }
        // Garbage agrees with garbage: reads of nothing at low confidence (a line still blurred as
        // it comes into focus) confirm nothing until there are `garbageToClutter` of them in a row.
        if line.saysNothing, (1..<configuration.garbageToClutter).contains(line.garbageReads) { return false }
        guard let believed, let key = line.reads.last?.key else { return true }
        return key.allSatisfy(believed.contains)
    }

    /// Passes seen beyond this add no weight: a line found three times running is no longer clutter.
    static var persistenceCap: Int { 3 }

    /// Not read yet, its reads do not agree yet, or it looks different from when it was last read.
    func needsReading(_ line: Line) -> Bool {
        guard isConfirmed(line) else { return true }
        guard line.signature.count == line.signatureRead.count, !line.signature.isEmpty else { return false }
        let difference = zip(line.signature, line.signatureRead).map { abs($0 - $1) }.reduce(0, +) / Double(line.signature.count)
        return difference > configuration.maximumAppearanceChange
    }

    /// The line quad `index` of the last `plan` belongs to.
    public func line(forQuad index: Int) -> Line { lines[current[index]] }

    /// What the line of quad `index` (of the last `plan`) is taken to say: its latest reading, or
    /// the last clear reading before it while its latest reads are parts of it (`Observation.part`)
    /// or fewer than `garbageToClutter` garbage reads in a row. A card shaken for a second blurs its
    /// lines into garbage for a pass or two; the line is still found there, and its item is still
    /// there (at 640×480, seed 6, a card's link read as garbage on two passes in a row was removed
    /// and added again). Likewise a line found short of its end: at 1280×720, poster seed 4, a tilted
    /// link was found as `…/i` and `nfo` for a second, and was removed and added again.
    public func standing(forQuad index: Int) -> Reading? {
        let line = lines[current[index]]
        return carries(line) ? line.lastClear ?? line.latest : line.latest
    }

    /// Whether the line is taken to say what it said before its latest reads (`standing`): those
    /// are a part of it, or garbage not yet taken for clutter. Such reads are no evidence.
    public func carries(_ line: Line) -> Bool {
        line.saidPart || (1..<configuration.garbageToClutter).contains(line.garbageReads)
    }

}
