import Foundation  // UUID
import ScannerCore

/// The rules' numbers. Defaults per quality level in `init(_:)`; every field is a unit-test knob.
public struct TrackerConfiguration: Sendable, Equatable {
    /// A live item not seen for this long (seconds) is removed. Long enough that a frame or two of
    /// missed detection never causes removed → added flicker.
    public var gracePeriod: Double
    /// The same for text, looked for on every OCR pass (lines are detected on each, read on few).
    public var textGracePeriod: Double
    /// An item is `updated` when a corner moved more than this (normalized units) since it was last
    /// reported.
    public var moveThreshold: Double
    /// Decodes of a 1-D code that must agree, and lead the others at its place by as many, before
    /// it is added; a decode zbar alone made, which zxing-cpp did not confirm, counts half
    /// (`ItemTracker.linearWeight`).
    public var weakBarcodeConfirmations: Int
    /// Text is added when at least `textAgreement` of the last `textWindow` OCR reads of it agree.
    public var textAgreement: Int
    public var textWindow: Int
    /// Text reads below this confidence contest a reading but do not count towards `textAgreement`.
    public var textVoteConfidence: Double
    /// 1-D codes: the last this-many decodes at a place vote (`weakBarcodeConfirmations` must agree
    /// and lead the others by as many).
    public var linearWindow = 6
    /// 1-D codes: a live code's payload changes only to one the last this-many decodes gave more
    /// often than the one reported (`TextEvidence.outweighs`). zbar decodes a symbol on several scan
    /// lines a frame, so this is a second or more of decodes; a new label put down where the old one
    /// lay, within the grace period, is reported after that.
    public var linearMemory = 90
    /// Furthest a barcode's centre may jump between sightings and still be the same item.
    public var maximumJump: Double
    /// How fast (normalized units a second) a code may move while it cannot be read, on top of
    /// `maximumJump`: a label swept into view is blurred past reading on its way (the generated label
    /// moved 0.46 of the frame's height in a third of a second unread, and became a second item). A
    /// hand sweeps a card across the view in about half a second; two copies of one code in view,
    /// read by turns a frame apart, are further apart than this allows in a frame.
    public var maximumSpeed = 2.0

    /// Whether something clients were told lies at `told` has moved to `now`: a corner moved more
    /// than `moveThreshold`. The one rule for items and documents (`DocumentTracker`).
    public func moved(from told: Quad, to now: Quad) -> Bool {
        zip(told.corners, now.corners).contains { $0.distance(to: $1) > moveThreshold }
    }

    public init(
        gracePeriod: Double = 0.8, textGracePeriod: Double = 0.8, moveThreshold: Double = 0.02,
        weakBarcodeConfirmations: Int = 2, textAgreement: Int = 2, textWindow: Int = 6, maximumJump: Double = 0.3,
        textVoteConfidence: Double = 0.6
    ) {
        self.textVoteConfidence = textVoteConfidence
        self.gracePeriod = gracePeriod
        self.textGracePeriod = textGracePeriod
        self.moveThreshold = moveThreshold
        self.weakBarcodeConfirmations = weakBarcodeConfirmations
        self.textAgreement = textAgreement
        self.textWindow = textWindow
        self.maximumJump = maximumJump
    }

    /// Evidence thresholds per quality level: `fast` believes sooner, `accurate` asks for more.
    ///
    /// Balanced remembers 6 reads, not 4: lines are read until their item is believed, so a line
    /// half under a thumb ("lo@oldmill-studios.com" of "hello@…") is read on every pass, and within 4
    /// reads two confident copies of one misreading ("Ho@…") could lead the others by two. Measured
    /// on the footage (2026-11-22, 1280×720 and 640×480 unpaced, three seeds): that wrong item gone,
    /// recall and precision otherwise unchanged, add latency p90 27 → 21 frames at 640×480 (a
    /// contested line's good reads are no longer pushed out before they add up).
    public init(_ level: QualityLevel) {
        switch level {
        case .fast: self.init(textAgreement: 2, textWindow: 3)
        case .balanced: self.init(textAgreement: 2, textWindow: 6)
        case .accurate: self.init(textAgreement: 3, textWindow: 7)
        }
    }
}

/// A recognized item with a life: what clients hear about.
public struct TrackedItem: Sendable, Equatable {
    public var id: UUID
    /// The current best reading, with the latest bounds.
    public var item: RecognizedItem
    /// First and last frames the item was seen in.
    public var firstFrame: Int
    public var lastFrame: Int

    public init(id: UUID, item: RecognizedItem, firstFrame: Int, lastFrame: Int) {
        self.id = id
        self.item = item
        self.firstFrame = firstFrame
        self.lastFrame = lastFrame
    }
}

/// What the tracker tells the world.
public enum TrackerAction: Sendable, Equatable {
    case added(TrackedItem)
    case updated(TrackedItem)
    case removed(TrackedItem)

    public var name: String {
        switch self {
        case .added: "added"
        case .updated: "updated"
        case .removed: "removed"
        }
    }

    public var item: TrackedItem {
        switch self {
        case .added(let item), .updated(let item), .removed(let item): item
        }
    }
}
