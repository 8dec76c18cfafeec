import Capture
import ScannerCore
import Tracking

/// What the pipeline learns from a frame before any stage reads it: looked at once, where the
/// frame enters the pipeline (`FrameLooker`), and handed to every stage with the frame — the
/// scene gates' thumbnail, the guidance's measures, whether something is held up and where.
public struct FrameLook: Sendable, Equatable {
    /// 32×32 box means of the processing image (`FrameMetrics.thumbnail`): what the scene gates
    /// compare (`SceneChangeGate`).
    public var thumbnail: [UInt8]
    /// `FrameMetrics.sharpness` of the processing image.
    public var sharpness: Double
    /// Mean luma, 0…255 (of the thumbnail's cells).
    public var brightness: Double
    /// The share of the thumbnail's cells at luma 254 or more: blown out.
    public var saturated: Double
    /// Whether something is held up in front of the camera (`PresenceDetector`).
    public var heldUp: Bool
    /// Which of the thumbnail's cells differ from the scene behind (row-major): where something is
    /// held up. All false when nothing is.
    public var changed: [Bool]
    /// Where the frame differs from the scene behind (`PresenceDetector.changedRegion`), whether or not
    /// enough of it differs for something to be held up (`heldUpRegion`): where text may have come
    /// into view. A receipt held up at arm's length changes fewer cells than `heldUpShare`, and its
    /// print, looked for only in the whole frame reduced, was never found.
    public var changedRegion: NormalizedRect?

    /// The smallest region holding what is held up: `changedRegion`, when something is.
    public var heldUpRegion: NormalizedRect? { heldUp ? changedRegion : nil }
}

extension FrameLook {
    /// What is held up has not moved while each side of its region (`heldUpRegion`) stays within
    /// this share of the frame of where it was: a hand's jitter moves it a cell of the 32×32
    /// thumbnail (0.03) or two, a card leaving more (the footage's card, a 15-s clip, 2026-11-29).
    public static let stillRegionTolerance = 0.07

    /// Whether what is held up at `now` is where it was at `then`: both nothing, or each side of
    /// the region within `stillRegionTolerance`. The one rule by which the stages rest on a card
    /// held still (`TextTuning.Stage.rests`, `BarcodeCadence`): the scene gate cannot tell it,
    /// a held card's jitter changes 50–120 of the thumbnail's 1,024 cells over half a second.
    /// `tolerance`: another share of the frame, for a rule that needs the region closer.
    public static func heldStill(from then: NormalizedRect?, to now: NormalizedRect?, within tolerance: Double = stillRegionTolerance) -> Bool {
        switch (then, now) {
        case (nil, nil): return true
        case (let a?, let b?):
            return abs(a.x - b.x) <= tolerance && abs(a.y - b.y) <= tolerance
                && abs(a.x + a.width - b.x - b.width) <= tolerance && abs(a.y + a.height - b.y - b.height) <= tolerance
        default: return false
        }
    }
}

/// Looks at each frame once, on the thread frames enter the pipeline on: one `PresenceDetector`
/// for every stage, kept across reconfigurations (stages built anew would take a card held up at
/// that moment for the desk).
public struct FrameLooker: Sendable {
    private var presence = PresenceDetector()

    public init() {}

    /// The look at `image` (the processing image) at `time` (the trackers' clock, seconds).
    public mutating func look(at image: GrayImage, time: Double) -> FrameLook {
        let thumbnail = FrameMetrics.thumbnail(image)
        let heldUp = presence.observe(thumbnail, time: time)
        let cells = Double(max(1, thumbnail.count))
        return FrameLook(
            thumbnail: thumbnail, sharpness: FrameMetrics.sharpness(image),
            brightness: Double(thumbnail.reduce(0) { $0 + Int($1) }) / cells,
            saturated: Double(thumbnail.count { $0 >= 254 }) / cells, heldUp: heldUp,
            changed: heldUp ? presence.changed : [Bool](repeating: false, count: thumbnail.count),
            changedRegion: presence.changedRegion)
    }
}

/// A frame and its look, as the stages' threads take them.
struct LookedFrame: Sendable {
    var frame: Frame
    var look: FrameLook
    /// When it was looked at (the trackers' clock, seconds): a stage may read it later than that
    /// (`Mailbox.takeFollowing`).
    var time: Double
}
