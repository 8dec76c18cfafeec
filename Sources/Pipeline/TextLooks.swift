import Recognition
import ScannerCore
import TextDetection

/// Where the live line detector looks on a frame, and at what scale (issue #52). A pure state
/// machine: the area read (the frame, or its region of interest), where something is held up, the
/// lines the last pass found and the time in; the looks out.
///
/// The detector network is compiled for one input size (a 1280×720 frame reduced to 640×352; a
/// compile costs ~0.2 s), and what it finds depends on how high a line is *at its input*. The whole
/// frame reduced to that size halves a 1280×720 frame: a card held at arm's length has 6–9 px
/// capitals, 3–5 px at the input, and its lines are lost before the network sees them. So a look is
/// a window of the frame at the input's size over `scale` — the whole frame at the reduced scale, or a
/// window of 640×352 frame pixels at full resolution, or anything between — always the same input
/// size, and so the same compiled network and the same cost (~34 ms a look, one thread).
///
/// Which looks a pass takes:
/// - Nothing changed and no line seen: the whole frame, reduced.
/// - Otherwise the region where text is or may be: where the frame differs from the scene behind
///   (`FrameLook.changedRegion`, `changedMargin` around it) and around the lines the last pass
///   found (`lineMargin`).
///   It is looked at in windows at `maximumScale` (small print enlarged) unless the print the last
///   windows found there is large enough for the reduced frame (the lower quartile of its lines'
///   heights at `findableLineHeight` or more at the reduced scale); then the whole frame, reduced,
///   and every `discoverEvery` seconds the windows all the same (a card's name is found at any
///   scale; its phone number only close up).
/// - The region is covered by at most `maximumLooks` windows, landscape or (one column only: side
///   by side they would cut every line across) portrait; where it needs more, the scale is lowered
///   a `scaleStep` at a time until it fits: print that close is large. Lines cut by a window's side
///   are pieced together again (`merged`).
/// - While windows are read, every `wholeFrameEvery` seconds the whole frame is looked at too,
///   reduced: text appearing away from the region.
public struct TextLooks: Sendable {
    public struct Configuration: Sendable, Equatable {
        /// A line whose detected quad is this high at the network's input (px) is found reliably.
        public var findableLineHeight = 18.0
        /// The largest scale a window is looked at: small print enlarged. The lines of receipts
        /// held up (line boxes 10–15 px) were found each as a line of its own, not merged with the
        /// next, 50 of 67 at full resolution, 56 at 1.25, 57 at 1.5.
        public var maximumScale = 1.25
        /// Where the windows at the largest scale would be too many, the scale is lowered by this
        /// until they are not.
        public var scaleStep = 0.125
        /// Windows a pass may look at beside the whole frame.
        public var maximumLooks = 2
        /// A region read in the reduced frame (its print large) is looked at in windows this often
        /// (s): print smaller than what was found there.
        public var discoverEvery = 1.0
        /// While a region is read in windows, the whole frame is looked at this often (s).
        public var wholeFrameEvery = 1.0
        /// The region around a line reaches this many of its heights beyond it: the lines above and
        /// below it, and the rest of a line the detector found in part.
        public var lineMargin = 1.0
        /// The region around where the frame changed reaches this far beyond it (frame px): a
        /// hand's motion between two passes.
        public var changedMargin = 24

        public init() {}
    }

    /// One look: `rect` of the frame (pixels) at `scale` (the network's input pixels per frame pixel).
    public struct Look: Sendable, Equatable, CustomStringConvertible {
        public var rect: PixelRect
        public var scale: Double
        public var description: String { "\(rect)@\((scale * 100).rounded() / 100)" }
    }

    public let configuration: Configuration
    private var lastWholeFrame = -Double.infinity
    private var lastDiscovery = -Double.infinity
    /// The print's height (frame pixels) as the last look at windows found it: a look at the whole
    /// frame reduced would take the larger lines it finds for all there is, and the looks would go
    /// back and forth between the two.
    private var printHeight: Double?
    /// Whether the last pass looked at windows.
    private var lookedClose = false

    public init(configuration: Configuration = Configuration()) {
        self.configuration = configuration
    }

    /// A line the last pass found, and whether its last read was garbage: such a line says nothing of
    /// the print's height (a card coming into view, blurred, is found as one "line" the size of the card).
    public struct SeenLine: Sendable, Equatable {
        public var quad: Quad
        public var readAsGarbage: Bool
        public init(_ quad: Quad, readAsGarbage: Bool = false) {
            self.quad = quad
            self.readAsGarbage = readAsGarbage
        }
    }

    /// The looks for one pass.
    /// - Parameters:
    ///   - area: the part of the frame read (frame pixels): the frame, or its region of interest.
    ///   - input: the network's input size for the whole area (its longer side the live detection size).
    ///   - changed: where the frame differs from the scene behind (frame pixels), if it does.
    ///   - lines: the lines the last pass found (frame pixels).
    ///   - time: seconds.
    public mutating func plan(
        area: PixelRect, input: (width: Int, height: Int), changed: PixelRect?, lines: [SeenLine], time: Double
    )
        -> [Look]
    {
        let reduced = min(1, Double(input.width) / Double(area.width), Double(input.height) / Double(area.height))
        let whole = Look(rect: area, scale: reduced)
        guard reduced < 1 else { return [whole] }
        var parts: [PixelRect] = lines.map(\.quad).map { quad in
            let box = quad.boundingBox
            let grow = quad.meanHeight * configuration.lineMargin
            return PixelRect(
                x: Int((box.minX - grow).rounded(.down)), y: Int((box.minY - grow).rounded(.down)),
                width: Int((box.maxX - box.minX + 2 * grow).rounded(.up)), height: Int((box.maxY - box.minY + 2 * grow).rounded(.up)))
        }
        if let changed { parts.append(changed.grown(by: configuration.changedMargin)) }
        guard let region = PixelRect.union(parts)?.intersection(area) else {
            lastDiscovery = -.infinity
            lastWholeFrame = time
            printHeight = nil
            lookedClose = false
            return [whole]
        }
        // The print: the lower quartile of the heights of the lines found in the region (the
        // smallest alone is as often a speck or a piece of a line).
        let heights = lines.filter { !$0.readAsGarbage }.map(\.quad)
            .filter { Self.box($0).intersection(region) != nil }.map(\.meanHeight).filter { $0 > 0 }.sorted()
        if lookedClose { printHeight = heights.isEmpty ? nil : heights[heights.count / 4] }
        let largest = configuration.maximumScale
        // Print the whole frame shows the detector large enough is read there; any smaller is
        // looked at as close as the windows allow: at a scale just large enough, lines of small print
        // are found two at a time (a receipt's lines are close together), and the schedule, which
        // follows lines by their quads, loses them when the scale changes from pass to pass.
        let needed = printHeight.map { configuration.findableLineHeight / $0 } ?? largest
        var scale = needed <= reduced ? reduced : largest
        if scale < largest && time - lastDiscovery >= configuration.discoverEvery { scale = largest }
        if scale >= largest { lastDiscovery = time }
        var windows = Self.windows(covering: region, in: area, input: input, scale: scale)
        while windows.count > configuration.maximumLooks && scale > reduced {
            scale = max(reduced, scale - configuration.scaleStep)
            windows = Self.windows(covering: region, in: area, input: input, scale: scale)
        }
        // At the whole frame's scale, or where the windows would cover most of it: the whole frame.
        lookedClose = !(scale <= reduced * 1.1 || windows.count > configuration.maximumLooks)
        guard lookedClose else {
            lastWholeFrame = time
            return [whole]
        }
        let looks = windows.map { Look(rect: $0, scale: scale) }
        if time - lastWholeFrame >= configuration.wholeFrameEvery {
            lastWholeFrame = time
            return [whole] + looks
        }
        return looks
    }

    /// The fewest windows of the input's size at `scale` (landscape or portrait, whichever needs
    /// fewer and fits `area`) covering `region`, spread evenly over it, each inside `area`.
    static func windows(covering region: PixelRect, in area: PixelRect, input: (width: Int, height: Int), scale: Double) -> [PixelRect] {
        let long = Int((Double(max(input.width, input.height)) / scale).rounded())
        let short = Int((Double(min(input.width, input.height)) / scale).rounded())
        var best: [PixelRect]?
        var columns = Int.max
        for (width, height) in [(long, short), (short, long)] where width <= area.width && height <= area.height {
            let across = Self.spread(region.x, region.width, window: width, within: area.x, area.width)
            // Portrait windows one column only: side by side they would cut every line across.
            if width < height && across.count > 1 { continue }
            let down = Self.spread(region.y, region.height, window: height, within: area.y, area.height)
            let tiles = down.flatMap { y in across.map { x in PixelRect(x: x, y: y, width: width, height: height) } }
            // Fewer windows side by side where the count is the same: a window's side cuts the lines
            // that cross it (lines run across, and are pieced together again, `merged`).
            if best == nil || tiles.count < best!.count || (tiles.count == best!.count && across.count < columns) {
                best = tiles
                columns = across.count
            }
        }
        return best ?? [area]
    }

    /// Where `count` windows of `window` px start to cover `start..<start+length`, inside `lower..<lower+extent`.
    static func spread(_ start: Int, _ length: Int, window: Int, within lower: Int, _ extent: Int) -> [Int] {
        let count = max(1, Int((Double(length) / Double(window)).rounded(.up)))
        let first = count == 1 ? start + (length - window) / 2 : start
        let step = count == 1 ? 0 : Double(length - window) / Double(count - 1)
        return (0..<count).map { i in min(max(first + Int(Double(i) * step), lower), lower + extent - window) }
    }

    /// The lines `look` found, less those a closer look of the same pass (`plan`, at a larger scale)
    /// holds whole: that look found them at the scale their print needs. The whole frame reduced
    /// finds the windows' lines again, with other quads (two lines as one, heights a third apart),
    /// and both were kept: the footage's label (1280×720, 2026-11-29) gave its 10 lines as 15–17 on
    /// every pass that looked at the whole frame too, and the schedule, taking them for new lines,
    /// read the same line twice in a pass. A line reaching past the closer looks stays: a window's
    /// side may cut it, and the whole frame saw it whole (dropped for its centre alone, a card's
    /// phone number coming into view was added some 10 frames later at realtime).
    public static func keeping(_ lines: [DetectedLine], of look: Look, in plan: [Look]) -> [DetectedLine] {
        let closer = plan.filter { $0.scale > look.scale }.map(\.rect)
        guard !closer.isEmpty else { return lines }
        return lines.filter { line in !closer.contains { rect in line.quad.corners.allSatisfy(rect.contains) } }
    }

    /// `earlier` lines with `later` ones (a later look's) added, each line once: a line found by two
    /// looks, or in pieces where a window's side cut it, is one line from the first piece's start
    /// to the last's end (lines on one axis that overlap or meet: the boxes of tilted neighbouring
    /// lines overlap, and would be taken for one).
    static func merged(_ earlier: [DetectedLine], _ later: [DetectedLine]) -> [DetectedLine] {
        var kept = earlier
        for line in later {
            let pieces = kept.indices.filter { continues(kept[$0].quad, line.quad) }
            var whole = line
            for index in pieces {
                let piece = kept[index]
                let quad = joined(whole.quad, piece.quad)
                // The text height of the piece longest in its own heights (the most of the line one look saw).
                let longest = piece.length > whole.length ? piece : whole
                whole = DetectedLine(quad: quad, textHeight: longest.textHeight, score: max(piece.score, whole.score))
            }
            kept = kept.indices.filter { !pieces.contains($0) }.map { kept[$0] } + [whole]
        }
        return kept
    }

    static func heightRatio(_ a: Quad, _ b: Quad) -> Double {
        max(a.meanHeight, b.meanHeight) / max(1, min(a.meanHeight, b.meanHeight))
    }

    /// Where `b` lies along `a`'s direction: its centre's distance across `a` (in `a`'s heights),
    /// and the extents of both along it.
    static func along(_ a: Quad, _ b: Quad) -> (across: Double, a: ClosedRange<Double>, b: ClosedRange<Double>) {
        let dx = (a.topRight.x + a.bottomRight.x - a.topLeft.x - a.bottomLeft.x) / 2
        let dy = (a.topRight.y + a.bottomRight.y - a.topLeft.y - a.bottomLeft.y) / 2
        let length = max(1e-9, (dx * dx + dy * dy).squareRoot())
        let (ux, uy) = (dx / length, dy / length)
        let origin = a.center
        func project(_ p: Point) -> Double { (p.x - origin.x) * ux + (p.y - origin.y) * uy }
        let across = abs((b.center.x - origin.x) * -uy + (b.center.y - origin.y) * ux) / max(1, a.meanHeight)
        let pa = a.corners.map(project)
        let pb = b.corners.map(project)
        return (across, pa.min()!...pa.max()!, pb.min()!...pb.max()!)
    }

    /// Whether `b` is the rest of the line `a` (or `a` of `b`): as high, on the same line, and
    /// overlapping or meeting it end to end (a gap under half a height).
    static func continues(_ a: Quad, _ b: Quad) -> Bool {
        guard heightRatio(a, b) < 1.4 else { return false }
        let (across, ra, rb) = along(a, b)
        let gap = max(rb.lowerBound - ra.upperBound, ra.lowerBound - rb.upperBound)
        return across < 0.5 && gap < a.meanHeight / 2
    }

    /// The one line `a` and `b` are pieces of: from the first's start to the last's end.
    static func joined(_ a: Quad, _ b: Quad) -> Quad {
        let (_, ra, rb) = along(a, b)
        let first = ra.lowerBound <= rb.lowerBound ? a : b
        let last = ra.upperBound >= rb.upperBound ? a : b
        return Quad(topLeft: first.topLeft, topRight: last.topRight, bottomRight: last.bottomRight, bottomLeft: first.bottomLeft)
    }

    static func box(_ quad: Quad) -> PixelRect {
        let b = quad.boundingBox
        return PixelRect(x: Int(b.minX), y: Int(b.minY), width: max(1, Int(b.maxX - b.minX)), height: max(1, Int(b.maxY - b.minY)))
    }
}
