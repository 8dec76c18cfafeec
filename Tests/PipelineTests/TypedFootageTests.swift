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

/// Issue #43: with every text content type on — dates, amounts, tracking numbers, flight numbers,
/// addresses as well as the standard three — a replay of the footage adds nothing the print does not
/// say: every item of the new types is one the generator lists as printed on the document (`typed`
/// in the clip's truth), though receipts' prices, order numbers, postal codes and phone numbers are
/// all there to be mistaken. Replayed in process, every frame, with the text networks.
@Suite(.offThePool(minutes: 6), .serialized) struct TypedFootageTests {
    struct Truth: Decodable {
        var typed: [String]
    }

    static let newTypes: Set<TextContentType> = [.dateTimeDuration, .currency, .shipmentTrackingNumber, .flightNumber, .fullStreetAddress]

    /// What the new types added on the clip of `scenario` ("contentType payload"), and what its print says.
    func typed(_ scenario: String) throws -> (added: [String], printed: [String]) {
        let models = Fixtures.packageRoot.appendingPathComponent(".build/models").path
        try #require(FileManager.default.fileExists(atPath: models + "/alphabet.json"), "the text networks are missing: `make test` makes them")
        let stem = try FootageClip.make(scenario, seconds: 4)
        let truth = try JSONDecoder().decode(Truth.self, from: Data(contentsOf: URL(fileURLWithPath: stem + ".json")))
        let source = try ReplaySource(path: stem + ".mjpeg", configuration: .init(pace: .none), logger: Logger(label: "test"))
        let types = RecognitionTypes(symbologies: [], contentTypes: TextContentType.standard.union(Self.newTypes))
        let pipeline = try Pipeline(
            configuration: SequenceConfiguration(options: ScanOptions(types: types), lineModel: models), pacing: .everyFrame(fps: 30))
        let added = Mutex<[String]>([])
        pipeline.run(source: source) { event in
            guard case .item(.added(let tracked), _) = event, let type = tracked.item.contentType, Self.newTypes.contains(type) else { return }
            added.withLock { $0.append("\(type.rawValue) \(tracked.item.payload)") }
        }
        return (added.withLock { $0 }, truth.typed)
    }

    /// One case per clip, each within the suite's limit: five clips of 150 frames, every frame read
    /// with the networks in a debug build, passed six minutes together in a clean `make test` on a
    /// CPU that runs them in f32 (2026-11-28). Clips of 4 s (120 frames), as the document tests'
    /// (the card's and the label's are made once for both).
    @Test(arguments: ["card", "phone", "label", "receipt", "poster"]) func everyNewItemIsWhatThePrintSays(scenario: String) throws {
        let (added, typed) = try typed(scenario)
        for item in added { #expect(typed.contains(item), "\(scenario): \(item) is not on it (\(typed))") }
        // Not a test that passes by finding nothing: each clip's print is typed.
        #expect(!added.isEmpty, "\(scenario): nothing typed of \(typed)")
    }
}
