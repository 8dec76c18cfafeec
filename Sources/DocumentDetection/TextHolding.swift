import ScannerCore

/// Which quadrilateral is the document, from what else is known of the image: the text lines a line
/// detector found there (issue #53). A pure rule: candidates and lines in, one document out.
///
/// The text a person wants belongs inside the document. The edge detector alone picks what has the
/// strongest four sides: a picture printed on a card, a block of a receipt between two rules, the
/// strip under a logo. So:
/// - each candidate holds the share of the text (lines weighed by their length) that lies wholly
///   inside it (a line the outline cuts is not held: a receipt's block cut at its left edge held the
///   lines' centres); of those holding the most (within `sameShare` of the best), the best-edged is the
///   document (the detector's order: the page's own outline, not a quadrilateral of one of its sides
///   and a rule printed on it, which holds the same text);
/// - when no candidate holds `mostOfTheText` — a receipt filling the photo shows no edge of its own,
///   a hand's shadow does — the document is the text's own rectangle: the smallest rectangle around
///   every line, grown by a line's height on every side (its margin), inside the image.
/// Without lines, the edge detector's best, as before.
public enum TextHolding {
    /// A candidate holding at least this share of the text's length holds the text.
    public static let mostOfTheText = 0.8
    /// Candidates within this share of the best are taken as holding the same text.
    public static let sameShare = 0.05

    public struct Choice: Sendable, Equatable {
        public var document: DocumentCandidate
        /// Made from the lines (no edge found it): not to be fitted to the image's edges.
        public var fromText: Bool
    }

    /// The document among `candidates` (pixel coordinates of a `width` × `height` image) that holds
    /// the text of `lines`; nil when there are neither candidates nor lines.
    public static func document(among candidates: [DocumentCandidate], lines: [Quad], width: Int, height: Int) -> Choice? {
        guard lines.contains(where: { $0.meanLength > 0 }) else { return candidates.first.map { Choice(document: $0, fromText: false) } }
        if let first = holders(among: candidates, lines: lines).first {
            return Choice(document: candidates[first], fromText: false)
        }
        let corners = ConvexGeometry.minimumAreaRectangle(lines.flatMap(\.corners))
        let heights = lines.map(\.meanHeight).sorted()
        let margin = heights[heights.count / 2]
        let grown = corners.map { corner -> Point in
            // Each corner away from the centre along both of the rectangle's sides: by `margin` on each side.
            let others = corners.filter { $0 != corner }.sorted { $0.distance(to: corner) < $1.distance(to: corner) }
            var moved = corner
            for neighbour in others.prefix(2) {
                let length = max(1e-9, neighbour.distance(to: corner))
                moved = Point(x: moved.x + (corner.x - neighbour.x) / length * margin, y: moved.y + (corner.y - neighbour.y) / length * margin)
            }
            return Point(x: min(max(moved.x, 0), Double(width)), y: min(max(moved.y, 0), Double(height)))
        }
        let quad = ConvexGeometry.label(grown, quarterTurns: 0)
        return Choice(document: DocumentCandidate(quad: quad, score: 0), fromText: true)
    }

    /// The indices of the candidates that hold the text of `lines`, in the candidates' order: those
    /// holding the most of it (within `sameShare`), when that is `mostOfTheText` at least; none
    /// otherwise, or without lines.
    public static func holders(among candidates: [DocumentCandidate], lines: [Quad]) -> [Int] {
        let held = candidates.map { share(heldBy: $0, of: lines) }
        guard let best = held.max(), best >= mostOfTheText else { return [] }
        return candidates.indices.filter { held[$0] >= best - sameShare }
    }

    /// The share of the text of `lines` (weighed by their length) that lies wholly inside
    /// `candidate`; 0 without lines.
    public static func share(heldBy candidate: DocumentCandidate, of lines: [Quad]) -> Double {
        let weights = lines.map { max(0, $0.meanLength) }
        let total = weights.reduce(0, +)
        guard total > 0 else { return 0 }
        return zip(lines, weights).reduce(0) { sum, line in line.0.corners.allSatisfy(candidate.quad.contains) ? sum + line.1 : sum } / total
    }
}
