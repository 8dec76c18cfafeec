import DocumentDetection
import ScannerCore
import Tracking

/// The documents held up in one frame (issue #43): the detector's quadrilaterals where the scene
/// changed (`FrameLook.changed`: the desk's own papers are quadrilaterals too), each the outline of
/// what it shows (`DocumentCandidate.select`), fitted to the image's edges (`QuadRefiner`), with corners normalized to 0…1 for `DocumentTracker`.
/// When it looks is its `cadence`'s to say (`DocumentCadence`), whichever pacing.
/// Owned by one thread at a time (`Pipeline`: the caller's thread, or the documents' thread).
public final class DocumentStage: @unchecked Sendable {
    /// The lines of text a text pass found (corners normalized to 0…1) and where what was held up
    /// lay then (`FrameLook.heldUpRegion`).
    public struct SeenText: Sendable, Equatable {
        public var lines: [Quad]
        public var heldUp: NormalizedRect?

        public init(lines: [Quad], heldUp: NormalizedRect?) {
            self.lines = lines
            self.heldUp = heldUp
        }
    }

    private let detector: any DocumentDetector
    public private(set) var passes = 0
    /// When passes run (the stage's owner asks it before each).
    var cadence = DocumentCadence()

    /// The lines of a text pass stand for this frame's while what is held up lies where it lay
    /// then within this share of the frame on each side (`FrameLook.heldStill`): a cell of the
    /// 32×32 thumbnail, and rounding. At the stages' `FrameLook.stillRegionTolerance` (two cells),
    /// the lines of a card coming into view, found a pass before, stuck out of it, and a
    /// quadrilateral through the desk around it held them (card seed 1: 14 % off; the footage,
    /// docs/benchmarks.md).
    static let linesStill = 0.035

    /// The lines of `text` that stand for the frame of `look` (pixels of a `width` × `height`
    /// image): none when what is held up moved since they were found (`linesStill`); of the rest,
    /// those held up — on a cell of the thumbnail that changed: the desk's papers' print is not the
    /// document's — each its `core`.
    static func heldUpLines(of text: SeenText?, look: FrameLook, width: Double, height: Double) -> [Quad]? {
        guard let text, FrameLook.heldStill(from: text.heldUp, to: look.heldUpRegion, within: linesStill) else { return nil }
        let side = Int(Double(look.changed.count).squareRoot())
        return text.lines.filter { line in
            guard line.center.x.isFinite, line.center.y.isFinite else { return false }
            let (x, y) = (Int(line.center.x * Double(side)), Int(line.center.y * Double(side)))
            return x >= 0 && y >= 0 && x < side && y < side && look.changed[y * side + x]
        }.map { core(of: $0.map { Point(x: $0.x * width, y: $0.y * height) }) }
    }

    /// A line's box with its ends pulled in by its height and its sides by a quarter of it: the
    /// detector's boxes run a few pixels past the print, and the pass that found them read a frame
    /// a tenth of a second or more before this one, so a line by a card's edge would stick out of it.
    static func core(of line: Quad) -> Quad {
        let height = line.meanHeight
        let along = line.topLeft.distance(to: line.topRight)
        let across = line.topLeft.distance(to: line.bottomLeft)
        // A line shorter than two of its heights (a word of two or three letters) is left whole.
        guard along > 2 * height, across > 0 else { return line }
        let a = Point(x: (line.topRight.x - line.topLeft.x) / along, y: (line.topRight.y - line.topLeft.y) / along)
        let c = Point(x: (line.bottomLeft.x - line.topLeft.x) / across, y: (line.bottomLeft.y - line.topLeft.y) / across)
        func moved(_ p: Point, _ sa: Double, _ sc: Double) -> Point {
            Point(x: p.x + a.x * sa * height + c.x * sc * height / 4, y: p.y + a.y * sa * height + c.y * sc * height / 4)
        }
        return Quad(
            topLeft: moved(line.topLeft, 1, 1), topRight: moved(line.topRight, -1, 1), bottomRight: moved(line.bottomRight, -1, -1),
            bottomLeft: moved(line.bottomLeft, 1, -1))
    }

    public init(detector: any DocumentDetector = EdgeQuadDetector()) {
        self.detector = detector
    }

    /// One pass over `image` (the processing image, whose look is `look`): the documents held up in
    /// it; their edges looked for in the chroma of `color` too (the frame in colour at the same
    /// size, if any). `text`: the lines the last text pass found; where what is held up has not
    /// moved since (`heldUpLines`), documents holding little of their text give way to a held-up
    /// candidate holding it (`DocumentCandidate.select(_:shares:lines:)`): not a rectangle printed
    /// inside the card, nor one through the desk.
    public func find(
        in image: GrayImage, look: FrameLook, color: () -> ColorImage? = { nil }, text: SeenText? = nil
    ) -> [(quad: Quad, score: Double)] {
        passes += 1
        guard look.heldUp else { return [] }
        let changed = look.changed
        let width = Double(image.width)
        let height = Double(image.height)
        let edges = DocumentImage(luma: image, color: color())
        let candidates = detector.candidates(in: edges)
        let shares = candidates.map { $0.changedShare(changed, width: image.width, height: image.height) }
        let chosen =
            if let lines = Self.heldUpLines(of: text, look: look, width: width, height: height) {
                DocumentCandidate.select(candidates, shares: shares, lines: lines)
            } else {
                DocumentCandidate.select(candidates, shares: shares)
            }
        return chosen.map { found in
            let candidate = found.refined(in: edges)
            return (candidate.quad.map { Point(x: $0.x / width, y: $0.y / height) }, candidate.score)
        }
    }
}
