import ScannerCore

/// What the scanner reports, in order: the one vocabulary of the pipeline, the event hub and every
/// transport. A frame source's own events (which carry images) stay in Capture; the pipeline turns
/// them into these.
public enum ScannerEvent: Sendable {
    /// The source (re)opened and delivers frames.
    case sourceAvailable
    /// The source stopped delivering (unplugged, failed, not there yet), with the reason.
    case sourceUnavailable(reason: String)
    /// An item was added, updated or removed; `frame` is the source frame that caused it.
    case item(TrackerAction, frame: Int)
    /// A file source ended (after `removed` for what was left).
    case end(frames: Int)
    /// Recognition was paused (after `removed` for everything it was tracking) or resumed.
    case recognition(paused: Bool)
    /// What the person at the kiosk should do (`GuidanceAdvisor`), or that it no longer applies.
    case guidance(Guidance)
}
