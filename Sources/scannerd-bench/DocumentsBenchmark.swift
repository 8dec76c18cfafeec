import Capture
import DocumentDetection
import Foundation
import Logging
import Pipeline
import Recognition
import ScannerCore
import Synchronization
import TestSupport
import Tracking

/// Documents on the footage (issue #43): for each clip of `make footage` whose truth has a document,
/// every frame's candidates from the detector against the document's true corners. A frame is found
/// when the best candidate's corners are each within 2 % of the frame's diagonal of the truth's; wrong
/// when a candidate is given and is not that (or nothing is there: the desk).
enum DocumentsBenchmark {
    typealias Truth = FootageDocumentTruth

    struct Tally {
        var clips = 0, inView = 0, found = 0, wrong = 0, frames = 0, seconds = 0.0
        var delays: [Int] = []
        var errors: [Double] = []

        /// One clip's into the whole's.
        mutating func add(_ clip: Tally) {
            clips += 1
            (inView, found, wrong, frames, seconds) = (
                inView + clip.inView, found + clip.found, wrong + clip.wrong, frames + clip.frames, seconds + clip.seconds
            )
            delays += clip.delays
            errors += clip.errors
        }
    }

    static func render(
        footage: String, lineModel: String?, today: String, machine: String, detector: any DocumentDetector = EdgeQuadDetector()
    ) throws -> String {
        let names = try FileManager.default.contentsOfDirectory(atPath: footage).filter { $0.hasSuffix(".json") }.sorted()
        var rows: [String] = []
        var all = Tally()
        for name in names {
            let path = footage + "/" + name
            let truth = try Truth(contentsOf: path)
            let clip = path.replacingOccurrences(of: ".json", with: ".mjpeg")
            guard FileManager.default.fileExists(atPath: clip) else { continue }
            let tally = try measure(clip: clip, truth: truth, detector: detector)
            all.add(tally)
            let delay = tally.delays.first.map(String.init) ?? "–"
            let error = tally.errors.isEmpty ? "–" : String(format: "%.2f", tally.errors.sorted()[tally.errors.count / 2] * 100)
            rows.append(
                "| \(truth.scenario) s\(truth.seed) | \(tally.inView) | \(tally.found) | \(delay) | \(error) | \(tally.wrong) | "
                    + String(format: "%.1f", tally.seconds / Double(max(1, tally.frames)) * 1000) + " |")
        }
        return """
            <!-- documents:begin (written by `make bench`) -->
            ## Documents on the footage (issue #43)

            Measured \(today) on \(machine); `EdgeQuadDetector` on every frame of the footage's clips at 640 px (the pipeline's processing width; edges in luma and in the chroma of the frame decoded in colour at that size), keeping only candidates where the scene changed under them (`PresenceDetector`, `DocumentCandidate.select`), each side fitted again to the edge at 640 px (`QuadRefiner`) — the pipeline's `DocumentStage` — against the generator's corners. Found: the best candidate's four corners each within 2 % of the frame's diagonal; delay: frames from the first with the document wholly in view to the first found; error: the median of the found frames' largest corner error, % of the diagonal; wrong: frames with a candidate that is no document there.

            | clip | frames in view | found | delay | error % | wrong | ms / frame |
            |---|---:|---:|---:|---:|---:|---:|
            \(rows.joined(separator: "\n"))
            | all (\(all.clips) clips) | \(all.inView) | \(all.found) | | | \(all.wrong) | \(String(format: "%.1f", all.seconds / Double(max(1, all.frames)) * 1000)) |

            ### The `document` item at the camera's pace

            The same clips through the live pipeline (`Pipeline`, newest frame, each clip replayed at 30 fps as a camera sends it), the standard types and `document` asked for (\(lineModel == nil ? "Tesseract" : "the text networks") reading text beside it): added: the frame of the document's first `added` event less the first frame with it wholly in view (issue #43: within 15); adds: `added` events for documents (1 for a clip with one, 0 for the desk); error: the largest corner error of every `added` and `updated` position while wholly in view, % of the diagonal (issue #43: within 2).

            | clip | added (frames after wholly in view) | adds | largest error % |
            |---|---:|---:|---:|
            \(try live(footage: footage, names: names, lineModel: lineModel).joined(separator: "\n"))
            <!-- documents:end -->

            """
    }

    /// Each clip through the live pipeline at the camera's pace: one table row each.
    static func live(footage: String, names: [String], lineModel: String?) throws -> [String] {
        var rows: [String] = []
        var types = RecognitionTypes.all
        types.documents = true
        for name in names {
            let path = footage + "/" + name
            let truth = try Truth(contentsOf: path)
            let clip = path.replacingOccurrences(of: ".json", with: ".mjpeg")
            guard FileManager.default.fileExists(atPath: clip) else { continue }
            let source = try ReplaySource(path: clip, configuration: .init(pace: .realtime), logger: Logger(label: "bench"))
            let start = Date()
            let pipeline = try Pipeline(
                configuration: SequenceConfiguration(options: ScanOptions(types: types), lineModel: lineModel),
                pacing: .newestFrame(clock: { Date().timeIntervalSince(start) }))
            let told = Mutex<[(action: String, quad: Quad, frame: Int)]>([])
            pipeline.run(source: source) { event in
                guard case .item(let action, let frame) = event else { return }
                switch action {
                case .added(let item) where item.item.kind == .document: told.withLock { $0.append(("added", item.item.bounds, frame)) }
                case .updated(let item) where item.item.kind == .document: told.withLock { $0.append(("updated", item.item.bounds, frame)) }
                default: break
                }
            }
            let events = told.withLock { $0 }
            let firstInView = truth.firstWhollyInView
            let added = events.first { $0.action == "added" }
            var delay = "–"
            if let added, let firstInView { delay = String(added.frame - firstInView) }
            let errors = events.compactMap { event -> Double? in
                guard let sighting = truth.sighting(at: event.frame), sighting.inView else { return nil }
                return truth.cornerError(event.quad, sighting)
            }
            let error = errors.max().map { String(format: "%.2f", $0 * 100) } ?? "–"
            rows.append("| \(truth.scenario) s\(truth.seed) | \(delay) | \(events.filter { $0.action == "added" }.count) | \(error) |")
        }
        return rows
    }

    static func measure(clip: String, truth: Truth, detector: any DocumentDetector) throws -> Tally {
        let source = try ReplaySource(path: clip, configuration: .init(pace: .none, processingWidth: 640), logger: Logger(label: "bench"))
        let firstInView = truth.firstWhollyInView
        var tally = Tally()
        let stage = DocumentStage(detector: detector)
        var looker = FrameLooker()
        loop: while true {
            switch source.next() {
            case .frame(let frame):
                let image = frame.decoded.image
                let start = Date()
                // What the pipeline finds on a pass (every frame here, not ten a second), the frame's
                // look (`FrameLooker`: whether and where something is held up) included.
                let look = looker.look(at: image, time: Double(frame.index) / 30)
                let candidates = stage.find(in: image, look: look, color: frame.color)
                tally.seconds += Date().timeIntervalSince(start)
                tally.frames += 1
                let sighting = truth.sighting(at: frame.index)
                let inView = sighting?.inView == true
                if inView { tally.inView += 1 }
                guard let best = candidates.first else { continue }
                guard let sighting else {
                    tally.wrong += 1
                    continue
                }
                let error = truth.cornerError(best.quad, sighting)
                if error <= 0.02 {
                    if inView {
                        tally.found += 1
                        tally.errors.append(error)
                        if tally.delays.isEmpty, let firstInView { tally.delays.append(frame.index - firstInView) }
                    }
                } else if inView {
                    tally.wrong += 1
                }
            case .end:
                break loop
            default:
                continue
            }
        }
        return tally
    }
}
