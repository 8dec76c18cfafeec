import ScannerCore

/// The reads of one line of text over recent OCR passes, and what they agree on: the string tracker.
///
/// Unlike the WWDC 2019 StringTracker (count identical sightings, report at 10, never forget), reads
/// vote per character: reads of the same length vote position by position, so one misread character
/// does not split the evidence, and a read within one character of the consensus still supports it.
/// A pass that did not see the line counts against it by filling the window.
public struct TextEvidence: Sendable, Equatable {
    public struct Read: Sendable, Equatable {
        public var payload: String
        public var transcript: String?
        public var confidence: Double
        /// A reading's details (`RecognizedItem.details`: a code's identifier and parsed form, a typed
        /// text's parsed form), which go with its payload.
        public var details: PayloadDetails?
        /// How many votes the read casts (at least 1): a read both recognizers agree on outweighs
        /// one a single recognizer made (`ItemTracker.wholeVote`).
        public var weight: Int

        public init(payload: String, transcript: String?, confidence: Double, details: PayloadDetails? = nil, weight: Int = 1) {
            self.payload = payload
            self.transcript = transcript
            self.confidence = confidence
            self.details = details
            self.weight = max(1, weight)
        }
    }

    /// The last `window` OCR passes over this line, newest last; nil where the pass missed it.
    public private(set) var reads: [Read?] = []
    public let window: Int
    /// Reads less confident than this contest a reading but do not support one: Tesseract's word
    /// confidence is low on the reads that come out wrong (measured on the footage: the wrong typed
    /// reads 0.28-0.56, the right ones mostly above 0.7), and an item needs confident agreement.
    public let voteConfidence: Double

    /// The payloads of the last `memory` reads (0: none kept): what the item said over much longer
    /// than the vote's window (`outweighs`).
    public private(set) var recent: [String] = []
    public let memory: Int

    public init(window: Int, voteConfidence: Double = 0, memory: Int = 0) {
        self.window = max(1, window)
        self.voteConfidence = voteConfidence
        self.memory = max(0, memory)
    }

    public mutating func record(_ read: Read?) {
        reads.append(read)
        if reads.count > window { reads.removeFirst(reads.count - window) }
        if let read, memory > 0 {
            recent.append(read.payload)
            if recent.count > memory { recent.removeFirst(recent.count - memory) }
        }
    }

    /// Whether the last `memory` reads say `payload` more often than `current`; always, with no
    /// memory. A symbol that decodes two ways in runs (a blurred EAN-13 read `1781958637676` on 46
    /// frames and `2781278637676`, check digit and all, on 33, by zbar and zxing-cpp alike) would
    /// otherwise flip with every run that fills the window.
    public func outweighs(_ payload: String, _ current: String) -> Bool {
        guard memory > 0 else { return true }
        return recent.count { $0 == payload } > recent.count { $0 == current }
    }

    /// The agreed reading, its support — the smallest number of votes (`Read.weight`) that agree on
    /// any one character of it — and its lead: the smallest margin, at any one character, of the
    /// votes that agree over the votes that do not (a read of another length disagrees everywhere, unless it is
    /// part of the consensus: the same text cut short). A misread
    /// seen twice has support 2, but with the right reading seen once at the same place its lead is
    /// 1: contested, so it waits. `preferring` (the reading clients already have) wins ties, so
    /// evidence that is split evenly never makes a reported item flip back and forth.
    public func consensus(preferring current: String? = nil) -> (read: Read, support: Int, lead: Int)? {
        let present = reads.compactMap { $0 }
        guard !present.isEmpty else { return nil }
        let total = Self.votes(present)
        // Vote among the largest group of equal-length reads (a dropped or doubled character changes
        // the length; such reads cannot vote position by position with the others).
        let groups = Dictionary(grouping: present, by: { $0.payload.count })
        let largest = groups.values.map(Self.votes).max()!
        let tied = groups.filter { Self.votes($0.value) == largest }
        let newestLength = present.last!.payload.count
        let length =
            if let current, tied.keys.contains(current.count) { current.count } else if tied.keys.contains(newestLength) { newestLength } else {
                tied.keys.max()!
            }
        let members = groups[length]!
        let group = members.map { Array($0.payload) }
        let preferred = current.map(Array.init).flatMap { $0.count == length ? $0 : nil }
        var tops: [Int] = []
        var voted: [Character] = []
        var support = Int.max
        for position in 0..<length {
            var tally: [Character: Int] = [:]
            for (chars, read) in zip(group, members) { tally[chars[position], default: 0] += read.weight }
            let top = tally.values.max()!
            tops.append(top)
            let winners = Set(tally.filter { $0.value == top }.keys)
            let newest = group.last![position]
            let choice = preferred.map { winners.contains($0[position]) ? $0[position] : nil } ?? nil
            let winner = choice ?? (winners.contains(newest) ? newest : winners.sorted().first!)
            voted.append(winner)
            support = min(support, Self.votes(zip(group, members).filter { $0.0[position] == winner && $0.1.confidence >= voteConfidence }.map(\.1)))
        }
        let votedString = String(voted)
        // The consensus must be something actually read: each read passed validation (a phone number
        // by libphonenumber); a character mix of two valid reads need not be valid. Otherwise the
        // most frequent exact read stands, supported only by its copies; among equally frequent
        // ones the most recently read (not whichever a dictionary happens to yield first).
        guard var read = present.last(where: { $0.payload == votedString }) else {
            let copies = Dictionary(grouping: present, by: \.payload)
            let most = copies.values.map(Self.votes).max()!
            let newest = present.last { Self.votes(copies[$0.payload]!) == most }!
            let mode = copies[newest.payload]!
            var read = newest
            read.confidence = mode.map(\.confidence).reduce(0, +) / Double(mode.count)
            return (read, Self.votes(mode.filter { $0.confidence >= voteConfidence }), most - (total - most))
        }
        let agreeing = present.filter { Self.distance($0.payload, votedString) <= 1 }
        read.confidence = agreeing.map(\.confidence).reduce(0, +) / Double(agreeing.count)
        // A shorter read found inside the consensus is the same text cut short (a line detected in
        // pieces: "lindqvist@…" of "avery.lindqvist@…"): it neither supports nor contests.
        let partial = Self.votes(present.filter { $0.payload.count < length && votedString.contains($0.payload) })
        let lead = tops.map { $0 - (total - $0 - partial) }.min() ?? 0
        return (read, support, lead)
    }

    /// The votes `reads` cast together (`Read.weight`).
    static func votes(_ reads: [Read]) -> Int {
        reads.reduce(0) { $0 + $1.weight }
    }

    /// Hamming distance for equal lengths; `Int.max` otherwise.
    static func distance(_ a: String, _ b: String) -> Int {
        guard a.count == b.count else { return Int.max }
        return zip(a, b).filter { $0 != $1 }.count
    }
}
