import Recognition
import ScannerCore
import Tracking

/// Every hand-set number of live text reading, in one table (issue #55): where the detector looks
/// (`TextLooks`), which lines a pass reads and when a line is settled (`LineSchedule`), how the
/// frames of a line in question are stacked (`LineStack`), what a read says (`LiveReadingPolicy`),
/// and the text stage's own timing. Each number is declared once, in the configuration of the type
/// it steers, with its provenance; this type holds those configurations, the text stage builds its
/// parts from it (`SequenceConfiguration.textTuning`), and docs/recognition.md's "Live text
/// thresholds" table lists every number it holds, checked against it (`TextTuningTableTests`).
/// What differs between quality levels is in the quality table instead (`QualitySettings`,
/// `TrackerConfiguration`, `SequenceConfiguration.ocrCadence`): none of these does.
public struct TextTuning: Sendable, Equatable {
    public var looks = TextLooks.Configuration()
    public var schedule = LineSchedule<[LineItem]>.Configuration()
    public var stack = LineStack.Configuration()
    public var reading = LiveReadingPolicy.Configuration()
    public var stage = Stage()

    /// The text stage's own timing.
    public struct Stage: Sendable, Equatable {
        /// Guidance's lines are looked for on unread (blurred) frames at most this often, seconds.
        public var guidanceLookEvery = 0.5
        /// Lines found this long ago still count as text in view, seconds.
        public var guidanceLinesLast = 1.0
        /// While the scene is still, lines that still need reading are read for at most this long (s)
        /// after it last changed. A still, noisy desk makes new clutter "lines" on every pass (noise
        /// moves their ends and splits them), so lines are always pending there and the text thread
        /// never rested (a static desk through the emulated camera: 8 passes a second, 56% of a core);
        /// a card held still has its lines read some 60 times in 2 s, and more reads of the same pixels
        /// would repeat their misreadings.
        public var pendingReadingWhileStill = 2.0
        /// A stage at rest — its last pass found lines and none needed reading, and what is held
        /// up has not moved since — leaves frames unread, as repeats of that pass (its items stay,
        /// where they were), for up to this many seconds after it: a card held still was looked at
        /// back to back, each look of the detector network ~0.1 s (640×352, f32, one thread), for
        /// nothing new. Then a pass looks again: the lines' places, and any line due for reading.
        public var restingPassEvery = 1.0

        public init() {}

        /// Whether a frame is left unread as a repeat of the last pass: the scene is unchanged, and no
        /// line needs reading or it has been still for `pendingReadingWhileStill`.
        public func skipsStillFrame(unchanged: Bool, pendingLines: Bool, stillFor: Double) -> Bool {
            unchanged && (!pendingLines || stillFor >= pendingReadingWhileStill)
        }

        /// Whether a pass settles the stage (`rests`): it found lines, read none because none needed
        /// reading, and said every text item clients were told of (`believed` ⊆ `said`; a line the
        /// pass missed is looked for again, not held off while its item expires: the footage's phone,
        /// seed 3, had its e-mail address removed during a rest and added again).
        public func settles(foundLines: Bool, readAny: Bool, pendingLines: Bool, believed: Set<String>?, said: Set<String>) -> Bool {
            foundLines && !readAny && !pendingLines && (believed ?? []).isSubset(of: said)
        }

        /// Whether a frame at `time`, `changed` where it differs from the scene behind
        /// (`FrameLook.changedRegion`), is left unread because the stage rests: the last regular pass
        /// (`settled`: its time and where the frame had changed then) found lines and none needed
        /// reading, less than `restingPassEvery` ago, and the change has not moved since
        /// (`FrameLook.heldStill`). By the change, not by what is held up: a receipt at arm's length
        /// is too small to be held up, and one that came in while the stage rested on the desk's
        /// lines waited the whole rest (the development receipts at realtime: 6 of 40 clips, a
        /// second unread while legible).
        public func rests(settled: (time: Double, changed: NormalizedRect?)?, changed: NormalizedRect?, time: Double) -> Bool {
            guard let settled, time - settled.time < restingPassEvery else { return false }
            return FrameLook.heldStill(from: settled.changed, to: changed)
        }
    }

    public init() {}

    /// Every number it holds, by its path (`looks.maximumScale`), as docs/recognition.md writes it.
    public var numbers: [(path: String, value: String)] {
        func numbers(of value: Any, at path: String) -> [(path: String, value: String)] {
            let children = Mirror(reflecting: value).children
            guard !children.isEmpty else {
                // Whole numbers as the table writes them: 18, not 18.0.
                if let number = value as? Double, number == number.rounded() { return [(path, "\(Int(number))")] }
                return [(path, "\(value)")]
            }
            return children.flatMap { child in
                numbers(of: child.value, at: path.isEmpty ? child.label ?? "?" : "\(path).\(child.label ?? "?")")
            }
        }
        return numbers(of: self, at: "")
    }
}
