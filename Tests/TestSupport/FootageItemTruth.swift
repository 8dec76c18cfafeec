import Foundation

/// What a footage clip's truth says of the items printed on its document (Tests/Fixtures/footage/
/// generate.py writes it beside the clip, issue #13): each item's kind and payload, whether it is a
/// distractor (text that must not be reported as a typed item), and in each frame it is in whether
/// it is visible and legible.
public struct FootageItemTruth: Decodable, Sendable {
    public struct Item: Decodable, Sendable {
        public struct Sighting: Decodable, Sendable {
            public var frame: Int
            public var visible: Bool
            public var legible: Bool
        }
        public var kind: String
        public var payload: String?
        public var distractor: Bool?
        public var frames: [Sighting]

        /// The first frame it is legible in.
        public var firstLegible: Int? { frames.first { $0.legible }?.frame }
    }
    public var items: [Item]

    /// The truth in the JSON file at `path`.
    public init(contentsOf path: String) throws {
        self = try JSONDecoder().decode(Self.self, from: Data(contentsOf: URL(fileURLWithPath: path)))
    }
}
