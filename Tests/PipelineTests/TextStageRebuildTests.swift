import Foundation
import ScannerCore
import TestSupport
import Testing

@testable import Pipeline
@testable import Recognition

/// Issue #54 N7: a `set` of types or of the region of interest loads no network again — the new text
/// stage reads with the line detector and recognizers of the one in force; a change of quality (which
/// chooses the readers) loads them anew.
@Suite(.offThePool(minutes: 2)) struct TextStageRebuildTests {
    let models = Fixtures.packageRoot.appendingPathComponent(".build/models").path

    func configuration(_ types: String, quality: QualityLevel = .balanced, roi: NormalizedRect = .full) throws -> SequenceConfiguration {
        var options = ScanOptions(quality: quality)
        options.types = try RecognitionTypes(parsing: types)
        options.regionOfInterest = roi
        return SequenceConfiguration(options: options, lineModel: models)
    }

    func sameReaders(_ a: TextStage, _ b: TextStage) -> Bool {
        guard let ra = a.reader.fusion?.recognizers, let rb = b.reader.fusion?.recognizers, ra.count == rb.count else { return false }
        return a.reader.lineDetector as AnyObject === b.reader.lineDetector as AnyObject && zip(ra, rb).allSatisfy { $0 === $1 }
    }

    @Test func typesAndTheRegionKeepTheReadersAndQualityDoesNot() throws {
        let first = try TextStage(configuration: try configuration("telephoneNumber"))
        let types = try TextStage(configuration: try configuration("telephoneNumber,url"), kept: first)
        #expect(sameReaders(first, types))
        let roi = try TextStage(configuration: try configuration("url", roi: NormalizedRect(x: 0.1, y: 0.1, width: 0.5, height: 0.5)), kept: types)
        #expect(sameReaders(first, roi))
        let quality = try TextStage(configuration: try configuration("url", quality: .accurate), kept: roi)
        #expect(!sameReaders(first, quality))
        let fresh = try TextStage(configuration: try configuration("telephoneNumber"))
        #expect(!sameReaders(first, fresh))
    }
}
