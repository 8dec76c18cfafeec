import Capture
import Foundation
import ImageDecoding
import Recognition
import ScannerCore
import Synchronization
import TestSupport
import Testing
import Tracking

@testable import Pipeline

/// A source that says what it is told to, in order.
final class ScriptedSource: FrameSource, @unchecked Sendable {
    private var script: [SourceEvent]
    init(_ script: [SourceEvent]) { self.script = script }
    func next() -> SourceEvent { script.isEmpty ? .end : script.removeFirst() }
    func cancel() {}
    var statistics: SourceStatistics {
        var s = SourceStatistics()
        s.delivered = 3
        return s
    }

    static func frame(_ index: Int, _ image: GrayImage = GrayImage(width: 8, height: 8, filledWith: 128)) -> SourceEvent {
        return .frame(Frame(index: index, decoded: DecodedImage(image: image, sourceWidth: 8, sourceHeight: 8), format: nil))
    }
}

/// issue #14: one loop over a source for every pipeline, and the same events when the source comes
/// and goes (the deterministic loop used to say `unavailable` without removing what the camera showed).
@Suite struct SourceLoopTests {
    func names(_ events: [ScannerEvent]) -> [String] {
        events.map { event in
            switch event {
            case .sourceAvailable: "available"
            case .sourceUnavailable(let reason): "unavailable \(reason)"
            case .item(let action, let frame): "\(action.name) \(action.item.item.payload)@\(frame)"
            case .end(let frames): "end \(frames)"
            case .recognition(let paused): paused ? "paused" : "resumed"
            case .guidance(let change): "guidance \(change)"
            }
        }
    }

    @Test func aSourceGoneRemovesWhatItShowedThenSaysSo() {
        let source = ScriptedSource([
            .available, ScriptedSource.frame(0), ScriptedSource.frame(1), .unavailable(reason: "unplugged"), .available,
            ScriptedSource.frame(7),
        ])
        // What is live when the source goes away: a and b; at its end, c (seen after the replug).
        var frames: [Int] = []
        var events: [ScannerEvent] = []
        var live = [[tracked("a", id: 1), tracked("b", id: 2)], [tracked("c", id: 3)]]
        let removeAll = { () -> [TrackerAction] in live.removeFirst().map { .removed($0) } }
        var endedAfter: [Int]?
        runSource(
            source, frame: { frames.append($0.index) }, beforeEnd: { endedAfter = frames },
            sourceSaid: { event, removingAllAt in
                if let removingAllAt { events += removeAll().map { .item($0, frame: removingAllAt) } }
                events.append(event)
            })
        #expect(frames == [0, 1, 7] && endedAfter == [0, 1, 7])
        #expect(names(events).prefix(5) == ["available", "removed a@1", "removed b@1", "unavailable unplugged", "available"])
        #expect(names(events).suffix(2) == ["removed c@7", "end 3"])
    }

    /// The deterministic pipeline runs the same loop: a source gone mid-replay says `unavailable`,
    /// and the replay's end says `end` with the frames delivered.
    @Test func theDeterministicPipelineRunsTheSameLoop() throws {
        let handler = try Pipeline(
            configuration: SequenceConfiguration(options: ScanOptions(types: RecognitionTypes(symbologies: [.qr], contentTypes: []))),
            pacing: .everyFrame(fps: 30))
        let source = ScriptedSource([.available, ScriptedSource.frame(0), .unavailable(reason: "gone"), ScriptedSource.frame(1)])
        let events = Mutex<[ScannerEvent]>([])
        handler.run(source: source, heartbeat: nil) { event in events.withLock { $0.append(event) } }
        #expect(names(events.withLock { $0 }) == ["available", "unavailable gone", "end 3"])
    }
}

extension SourceLoopTests {
    /// The newest-frame pacing runs the same loop on its stage threads, in process (issue #42: the
    /// live pipeline was reached only through subprocesses): the code is added, and at the source's
    /// end removed before `end`, after the stages have finished the frames in flight.
    @Test(.timeLimit(.minutes(1))) func theNewestFramePacingRunsTheSameLoop() throws {
        let qr = try ImageDecoder().decodeFile(atPath: Fixtures.path("qr.png"), targetWidth: 640).image
        let pipeline = try Pipeline(
            configuration: SequenceConfiguration(options: ScanOptions(types: RecognitionTypes(symbologies: [.qr], contentTypes: []))),
            pacing: .newestFrame(clock: { 0 }))
        let source = ScriptedSource([.available] + (0..<3).map { ScriptedSource.frame($0, qr) })
        let events = Mutex<[ScannerEvent]>([])
        pipeline.run(source: source, heartbeat: nil) { event in events.withLock { $0.append(event) } }
        let said = names(events.withLock { $0 })
        #expect(said.first == "available" && said.last == "end 3", "\(said)")
        #expect(said.filter { $0.hasPrefix("added") }.count == 1 && said.filter { $0.hasPrefix("removed") }.count == 1, "\(said)")
        #expect(pipeline.statistics.framesScanned >= 1 && pipeline.liveItems.isEmpty)
    }
}

/// issue #17: the pause rule of both pacings.
@Suite struct PauseStateTests {
    @Test func pausingRemovesWhatIsTrackedThenSaysSoAndSayingItAgainDoesNothing() {
        let events = Mutex<[String]>([])
        var state = PauseState()
        state.emit = { event in
            events.withLock { list in
                switch event {
                case .item(let action, let frame): list.append("\(action.name) \(action.item.item.payload)@\(frame)")
                case .recognition(let paused): list.append(paused ? "paused" : "resumed")
                default: list.append("other")
                }
            }
        }
        state.lastFrame = 41
        let item = TrackedItem(
            id: UUID(),
            item: RecognizedItem(kind: .barcode, symbology: .qr, payload: "a", bounds: Quad(x: 0, y: 0, width: 0.1, height: 0.1), confidence: 1),
            firstFrame: 3, lastFrame: 41)
        var removals = 0
        state.set(true) {
            removals += 1
            return [.removed(item)]
        }
        state.set(true) {
            removals += 1
            return [.removed(item)]
        }
        #expect(state.paused)
        state.set(false) {
            removals += 1
            return []
        }
        state.set(false) {
            removals += 1
            return []
        }
        #expect(!state.paused && removals == 1)
        #expect(events.withLock { $0 } == ["removed a@41", "paused", "resumed"])
    }
}
