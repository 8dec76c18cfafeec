import ScannerCore

/// What one live read of a line says, before the line's schedule weighs it (`LineSchedule`): the live
/// rules in one place beside `ReadingFusion` (issue #52, item 5), not in the text stage. Pure: a read
/// and what the line said before in, a verdict out.
public enum LiveReadingPolicy {
    /// Its numbers (one of the live text stage's, `TextTuning`).
    public struct Configuration: Sendable, Equatable {
        /// A line that reads as nothing below this mean word confidence read as garbage (clutter, or
        /// text too blurred to read). On the footage, desk clutter read at 0.0–0.45; text read at
        /// 0.6–0.97, and at 0.28–0.30 while still blurred.
        public var clutterConfidence = 0.5

        public init() {}
    }

    /// One read judged.
    public struct Verdict: Sendable, Equatable {
        /// The read's items the line may be taken to say (`admitted`), and their keys (`key`).
        public var items: [LineItem]
        public var keys: [String]
        /// Garbage, or a misread of the typed thing the line said: no evidence either way.
        public var unconfident: Bool
        /// The read's confidence (0 when nothing was read).
        public var confidence: Double
        /// It reads only a part of what the line said (`readsAPart`).
        public var part: Bool
        /// Said nothing asked for, but may be a misread of something that is: its letters and digits
        /// (`LineSchedule` takes two reads in doubt to agree when these are the same). Spaces and
        /// punctuation are what a recognizer varies most and no misread item hangs on them: a phone's
        /// `Last seen 12:41 · 23 Nov 2026`, read with `-`, `·` or neither, never agreed, was read on
        /// every pass (25 reads in 15 s) and the text stage never rested (the footage's phone, 2026-12-07).
        public var doubt: String?
    }

    /// `read` (nil: nothing read) of a line that said `earlier` on its last reads, with `believed`
    /// the keys of the text items clients have been told about (nil: none asked).
    public static func judge(
        _ read: (items: [LineItem], confidence: Double, text: String)?, earlier: [LineItem], believed: Set<String>?,
        configuration: Configuration = Configuration()
    ) -> Verdict {
        let items = admitted(read?.items ?? [], believed: believed)
        let part = readsAPart(read?.items ?? [], admitted: items, of: earlier)
        let doubt = read.flatMap { ReadingFusion.mayBeTyped($0.text) ? String($0.text.filter { $0.isLetter || $0.isNumber }) : nil }
        // Such a read of a line that said something typed is no evidence against it: a misread,
        // taken as garbage is (the line goes on saying it, `LineSchedule.standing`). Receipt seed 1
        // (unpaced, 2026-11-26): its phone number, read in doubt twice after it was added, was
        // removed in view and added again.
        let misread = doubt != nil && earlier.contains { $0.item.contentType != nil }
        let garbage = readsAsGarbage(
            confidence: read?.confidence ?? 0, characters: read.map { TextReader.characters($0.text) } ?? 0, configuration: configuration)
        return Verdict(
            items: items, keys: items.map { key($0.item) }, unconfident: !part && items.isEmpty && (misread || garbage),
            confidence: read?.confidence ?? 0, part: part, doubt: doubt)
    }

    /// A read up to a cut end of its line (a thumb, the frame's edge) may be a part of what is
    /// printed ("lo@…" of "hello@…"): it keeps an item clients were told about, and adds none. A
    /// phone number cut only at its line's end is the exception: the number plan validates it whole
    /// (`PhoneNumberFinder`), and one with digits cut off is no number, while the next word of its
    /// line, or a receipt's fold, reads as a cut on every frame (the development receipts held up:
    /// `(214)570-9999` and `019-6000350` read right and never added). Not at its start, where the cut
    /// may hide what makes the digits no phone number (the footage's receipt, seed 2: a thumb over
    /// `Order #` of `Order #5125550147`).
    static func admitted(_ items: [LineItem], believed: Set<String>?) -> [LineItem] {
        items.filter { item in
            !item.reachesCutEnd || (item.item.contentType == .telephoneNumber && !item.reachesCutStart)
                || believed?.contains(key(item.item)) == true
        }
    }

    /// Whether a line's read (`read`, of which `admitted` are left after `admitted(_:believed:)` and
    /// the line network) says only a part of what the line said before (`earlier`): nothing typed
    /// is left, and a typed item left out for reaching a cut end lies where an earlier typed item
    /// of its type lay. The line is then still taken to say that (`LineSchedule.Observation.part`):
    /// the detector may find a line short of its end for a while (a tilted link found as `…/i` and
    /// `nfo`), and a card sliding out of the frame cuts its lines before they are gone.
    static func readsAPart(_ read: [LineItem], admitted: [LineItem], of earlier: [LineItem]) -> Bool {
        guard !admitted.contains(where: { $0.item.contentType != nil }) else { return false }
        return read.contains { part in part.reachesCutEnd && earlier.contains { $0.sharesPlace(with: part) } }
    }

    /// Whether a line's read of nothing is garbage: below `clutterConfidence`, or fewer letters and
    /// digits than a line that says something has (`TextReader.minimumCharacters`). The network
    /// reads desk clutter as one or two symbols at 0.2–0.72 (1280×720 card and desk footage, seed 1,
    /// 2026-11-25): read so it says nothing but was no garbage, and was read again every half second.
    static func readsAsGarbage(confidence: Double, characters: Int, configuration: Configuration = Configuration()) -> Bool {
        confidence < configuration.clutterConfidence || characters < TextReader.minimumCharacters
    }

    /// What a line's reads are compared by: the type and the payload.
    public static func key(_ item: RecognizedItem) -> String { "\(item.contentType?.rawValue ?? "text") \(item.payload)" }
}
