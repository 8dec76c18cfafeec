import ScannerCore

/// What the pipeline measured on one frame, as guidance needs it.
public struct GuidanceSample: Sendable, Equatable {
    /// The trackers' clock, seconds.
    public var time: Double
    /// Whether something that looks like text is in view (the line detector found lines of several
    /// glyphs on a recent pass). Without it there is no guidance: an empty scene needs none.
    public var textInView: Bool
    /// Mean luma of the frame, 0–255.
    public var brightness: Double
    /// Share of the frame that is blown out (cells of its 32×32 thumbnail at luma 254 or more).
    public var saturated: Double
    /// `FrameMetrics.sharpness`.
    public var sharpness: Double
    /// Mean absolute luma change from the previous sample's thumbnail, 0–255.
    public var motion: Double
    /// The text height of the largest line in view (`DetectedLine.textHeight`), in full-resolution
    /// pixels; nil when unknown.
    public var largestTextHeight: Double?
    /// Whether something is held up, text found on it or not (`PresenceDetector`).
    public var somethingHeldUp: Bool

    public init(
        time: Double, textInView: Bool, brightness: Double, saturated: Double, sharpness: Double, motion: Double,
        largestTextHeight: Double? = nil, somethingHeldUp: Bool = false
    ) {
        self.time = time
        self.textInView = textInView
        self.brightness = brightness
        self.saturated = saturated
        self.sharpness = sharpness
        self.motion = motion
        self.largestTextHeight = largestTextHeight
        self.somethingHeldUp = somethingHeldUp
    }
}

/// Guidance for the person at the kiosk (the `guidance` event) as a pure state machine: samples in,
/// changes out. A hint is given only while text is in view or something is held up, only once the same hint has held for
/// `confirmations` samples in a row (one noisy frame says nothing), and at most one change a
/// second, so a kiosk's message does not flicker.
public struct GuidanceAdvisor: Sendable {
    public struct Configuration: Sendable, Equatable {
        /// Mean luma below this is too dark. The footage (`make footage`, 3 seeds, both sizes), all of
        /// which reads, has frames from 50 to 142.
        public var darkBelow: Double = 40
        /// Mean luma above this, with a blown-out share above `tooBrightShare`, is too bright.
        public var brightAbove: Double = 200
        public var tooBrightShare = 0.3
        /// A blown-out share of the frame above this is glare (a reflection on a glossy card or a
        /// screen). White paper in daylight blows out too: up to 7.5% of the footage's thumbnail
        /// cells, which reads; so only a patch twice that is called glare.
        public var glareAbove: Double = 0.15
        /// Sharpness below this is blurry (the text stage's own limit for reading at all).
        public var blurryBelow: Double = 30
        /// Frame-to-frame change above this is a hand moving too fast to read.
        public var movingAbove: Double = 12
        /// Text whose largest line is less tall than this (px) is too small to read: closer.
        public var smallestLegible: Double = 8
        public var confirmations = 3
        /// Seconds between two changes at least.
        public var minimumInterval = 1.0

        public init() {}
    }

    public let configuration: Configuration
    /// The hint clients were last told (nil: none, or `cleared`).
    public private(set) var current: GuidanceHint?
    private var candidate: GuidanceHint?
    private var candidateCount = 0
    private var lastChange = -Double.infinity

    public init(configuration: Configuration = Configuration()) {
        self.configuration = configuration
    }

    /// The hint one sample calls for, most pressing first: light, then motion, then focus, then size.
    /// Something held up with no text found on it yet gets the hints that need no text: the light's
    /// and a hand's too fast.
    ///
    /// In the dark the line detector's lines are no evidence: it finds them in an empty desk's
    /// amplified noise as often as on a card (the footage's desk at 8 % exposure: `tooDark` for an
    /// empty scene). There only something held up counts.
    public static func hint(for sample: GuidanceSample, _ c: Configuration = Configuration()) -> GuidanceHint? {
        let dark = sample.brightness < c.darkBelow
        guard sample.somethingHeldUp || sample.textInView && !dark else { return nil }
        if dark { return .tooDark }
        if sample.brightness > c.brightAbove && sample.saturated > c.tooBrightShare { return .tooBright }
        guard sample.textInView else { return sample.motion > c.movingAbove ? .holdStill : nil }
        if sample.saturated > c.glareAbove { return .glare }
        if sample.motion > c.movingAbove { return .holdStill }
        if sample.sharpness < c.blurryBelow { return .blurry }
        if let height = sample.largestTextHeight, height < c.smallestLegible { return .moveCloser }
        return nil
    }

    /// What clients should now be told, if anything.
    public mutating func observe(_ sample: GuidanceSample) -> Guidance? {
        let wanted = Self.hint(for: sample, configuration)
        if wanted == candidate {
            candidateCount += 1
        } else {
            candidate = wanted
            candidateCount = 1
        }
        guard wanted != current, candidateCount >= configuration.confirmations,
            sample.time - lastChange >= configuration.minimumInterval
        else { return nil }
        current = wanted
        lastChange = sample.time
        return wanted.map(Guidance.hint) ?? .cleared
    }

    /// Recognition paused or the source went away: the hint no longer applies. Returns whether
    /// clients must be told `cleared`.
    public mutating func reset() -> Bool {
        defer {
            current = nil
            candidate = nil
            candidateCount = 0
        }
        return current != nil
    }
}
