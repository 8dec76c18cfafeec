import DocumentDetection
import ScannerCore
import Tracking

/// The documents held up in one frame (issue #43): the detector's quadrilaterals where the scene
/// changed (`PresenceDetector`: the desk's own papers are quadrilaterals too), each the outline of
/// what it shows (`DocumentCandidate.select`), fitted to the image's edges (`QuadRefiner`), with corners normalized to 0…1 for `DocumentTracker`.
/// A pass runs at most every `interval` seconds of the trackers' clock, whichever pacing: the
/// detection costs ~15 ms at the processing width (docs/benchmarks.md), and two passes in a row make
/// an item.
/// Owned by one thread at a time (`Pipeline`: the caller's thread, or the documents' thread).
public final class DocumentStage: @unchecked Sendable {
    private let detector: any DocumentDetector
    private var presence = PresenceDetector()
    private var lastPass: Double?
    public private(set) var passes = 0

    /// Seconds between passes: ten a second, so a document is added two or three frames (at 30 fps)
    /// after it is first found.
    static let interval = 0.1

    public init(detector: any DocumentDetector = EdgeQuadDetector()) {
        self.detector = detector
    }

    /// When the next pass is due (nil: now).
    var nextPass: Double? { lastPass.map { $0 + Self.interval } }

    /// Whether a pass is due at `time` (`interval` since the last; a frame's time from the replay's
    /// clock may fall a hair short of it, hence the tolerance).
    func isDue(at time: Double) -> Bool { nextPass.map { time >= $0 - 1e-6 } ?? true }

    /// One pass over `image` (the processing image) at `time`: the documents held up in it; their
    /// edges looked for in the chroma of `color` too (the frame in colour at the same size, if any).
    public func find(in image: GrayImage, color: () -> ColorImage? = { nil }, time: Double) -> [(quad: Quad, score: Double)] {
        lastPass = time
        passes += 1
        let heldUp = presence.observe(FrameMetrics.thumbnail(image), time: time)
        guard heldUp else { return [] }
        let changed = presence.changed
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
