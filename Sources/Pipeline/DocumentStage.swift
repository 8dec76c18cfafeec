import DocumentDetection
import ScannerCore
import Tracking

/// The documents held up in one frame (issue #43): the detector's quadrilaterals where the scene
/// changed (`FrameLook.changed`: the desk's own papers are quadrilaterals too), each the outline of
/// what it shows (`DocumentCandidate.select`), fitted to the image's edges (`QuadRefiner`), with corners normalized to 0…1 for `DocumentTracker`.
/// When it looks is its `cadence`'s to say (`DocumentCadence`), whichever pacing.
/// Owned by one thread at a time (`Pipeline`: the caller's thread, or the documents' thread).
public final class DocumentStage: @unchecked Sendable {
    private let detector: any DocumentDetector
    public private(set) var passes = 0
    /// When passes run (the stage's owner asks it before each).
    var cadence = DocumentCadence()

    public init(detector: any DocumentDetector = EdgeQuadDetector()) {
        self.detector = detector
    }

    /// One pass over `image` (the processing image, whose look is `look`): the documents held up in
    /// it; their edges looked for in the chroma of `color` too (the frame in colour at the same
    /// size, if any).
    public func find(in image: GrayImage, look: FrameLook, color: () -> ColorImage? = { nil }) -> [(quad: Quad, score: Double)] {
        passes += 1
        guard look.heldUp else { return [] }
        let changed = look.changed
        let width = Double(image.width)
        let height = Double(image.height)
        let edges = DocumentImage(luma: image, color: color())
        return DocumentCandidate.select(detector.candidates(in: edges)) {
            $0.changedShare(changed, width: image.width, height: image.height)
        }.map { found in
            let candidate = found.refined(in: edges)
            return (candidate.quad.map { Point(x: $0.x / width, y: $0.y / height) }, candidate.score)
        }
    }
}
