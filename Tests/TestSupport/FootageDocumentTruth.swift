import Foundation
import ScannerCore

/// What a footage clip's truth says of its document (Tests/Fixtures/footage/generate.py writes it
/// beside the clip, issue #43): its corners in each frame it is in (normalized, in the document's
/// own order), whether all four are in the frame, and how far it moved (px of blur).
public struct FootageDocumentTruth: Decodable, Sendable {
    public struct Document: Decodable, Sendable {
        public struct Sighting: Decodable, Sendable {
            public var frame: Int
            public var corners: [[Double]]
            public var inView: Bool
            public var blur: Double
        }
        public var kind: String
        public var frames: [Sighting]
    }
    public var scenario: String
    public var seed: Int
    public var width: Int
    public var height: Int
    public var document: Document?

    /// The truth in the JSON file at `path`.
    public init(contentsOf path: String) throws {
        self = try JSONDecoder().decode(Self.self, from: Data(contentsOf: URL(fileURLWithPath: path)))
    }

    /// The first frame with the document wholly in view.
    public var firstWhollyInView: Int? { document?.frames.first { $0.inView }?.frame }

    /// Where the document is in `frame`, if it is in it.
    public func sighting(at frame: Int) -> Document.Sighting? { document?.frames.first { $0.frame == frame } }

    /// How far `quad` (normalized) is from the document in `sighting`: its corners' largest distance
    /// from the truth's, in pixels, over the frame's diagonal — the best of the four ways to pair them
    /// (a detector need not know which corner is the document's first).
    public func cornerError(_ quad: Quad, _ sighting: Document.Sighting) -> Double {
        let w = Double(width)
        let h = Double(height)
        let found = quad.corners.map { Point(x: $0.x * w, y: $0.y * h) }
        let truth = sighting.corners.map { Point(x: $0[0] * w, y: $0[1] * h) }
        guard found.count == 4, truth.count == 4 else { return .infinity }
        let worst = (0..<4).map { r in (0..<4).map { found[($0 + r) % 4].distance(to: truth[$0]) }.max()! }.min()!
        return worst / (w * w + h * h).squareRoot()
    }
}
