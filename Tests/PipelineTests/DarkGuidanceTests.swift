import Capture
import Foundation
import Logging
import Recognition
import ScannerCore
import Synchronization
import TestSupport
import TestTraits
import Testing
import Tracking

@testable import Pipeline

/// Issue #43: guidance when nothing can be read. The footage generator's business card held up in a
/// dark corner (8 % of the usual light, the camera's gain and noise turned up): no text line is found
/// on it, but it plainly changed the scene, so the person is told `tooDark` within a second of it
/// being in view; the same dark desk with nothing held up gets no guidance at all. Replayed in
/// process, every frame, on the replay's clock (30 fps), so each hint's frame is known.
@Suite(.offThePool(minutes: 3)) struct DarkGuidanceTests {
    struct Truth: Decodable {
        struct Item: Decodable {
            struct Sighting: Decodable {
                var frame: Int
                var visible: Bool
            }
            var frames: [Sighting]
        }
        var items: [Item]
        var exposure: Double?
    }

    /// The hints a clip gives, each with the frame it came on.
    func hints(_ scenario: String, seed: Int) throws -> (hints: [(String, Int)], firstInView: Int?) {
        let stem = try FootageClip.make(scenario, seed: seed, seconds: 4, exposure: 0.08)
        let truth = try JSONDecoder().decode(Truth.self, from: Data(contentsOf: URL(fileURLWithPath: stem + ".json")))
        #expect(truth.exposure == 0.08)
        let source = HeldSource(try ReplaySource(path: stem + ".mjpeg", configuration: .init(pace: .none), logger: Logger(label: "test")))
        let pipeline = try Pipeline(configuration: SequenceConfiguration(options: ScanOptions()), pacing: .everyFrame(fps: 30))
        let said = Mutex<[(String, Int)]>([])
        pipeline.run(source: source) { event in
            guard case .guidance(let change) = event else { return }
            let name: String
            switch change {
            case .hint(let hint): name = hint.rawValue
            case .cleared: name = "cleared"
            }
            said.withLock { $0.append((name, source.last.withLock { $0 })) }
        }
        let inView = truth.items.first?.frames.first { $0.visible }?.frame
        return (said.withLock { $0 }, inView)
    }

    @Test(arguments: [1, 2]) func aCardInTheDarkIsTooDarkWithinASecond(seed: Int) throws {
        let (hints, inView) = try hints("card", seed: seed)
        let seen = try #require(inView)
        let first = try #require(hints.first, "no guidance for a card at 8 % exposure")
        #expect(first.0 == "tooDark" && first.1 <= seen + 30, "\(hints), fully in view from frame \(seen)")
        #expect(!hints.contains { $0.0 != "tooDark" && $0.0 != "cleared" }, "\(hints)")
    }

    /// A change of quality rebuilds the text stage, but not what knows the scene behind: the card
    /// held up in the dark is still too dark afterwards, not taken for the desk (which cleared the hint
    /// while the card was in view).
    @Test func theHintOutlivesAChangeOfQuality() throws {
        let stem = try FootageClip.make("card", seconds: 4, exposure: 0.08)
        let truth = try JSONDecoder().decode(Truth.self, from: Data(contentsOf: URL(fileURLWithPath: stem + ".json")))
        let lastVisible = try #require(truth.items.first?.frames.last { $0.visible }?.frame)
        let source = HeldSource(try ReplaySource(path: stem + ".mjpeg", configuration: .init(pace: .none), logger: Logger(label: "test")))
        let pipeline = try Pipeline(configuration: SequenceConfiguration(options: ScanOptions(quality: .balanced)), pacing: .everyFrame(fps: 30))
        let said = Mutex<[(String, Int)]>([])
        try source.run(pipeline) {
            try pipeline.reconfigure(SequenceConfiguration(options: ScanOptions(quality: .accurate)))
        } observe: { event in
            guard case .guidance(let change) = event else { return false }
            let name = if case .hint(let hint) = change { hint.rawValue } else { "cleared" }
            said.withLock { $0.append((name, source.last.withLock { $0 })) }
            return name == "tooDark"
        }
        let hints = said.withLock { $0 }
        let cleared = hints.first { $0.0 == "cleared" }?.1 ?? .max
        #expect(cleared >= lastVisible - 10, "cleared at frame \(cleared), the card in view until \(lastVisible): \(hints)")
    }

    @Test func theDarkEmptyDeskGetsNoGuidance() throws {
        let (hints, _) = try hints("desk", seed: 1)
        #expect(hints.isEmpty, "\(hints)")
    }
}
