import Foundation
import ScannerCore

/// A line from the daemon as a client reads it: a reply to a request (it has `reply` or `ok`), or an
/// event. `object` is the whole line, for the fields a reply carries besides its head.
public struct ServerLine: Sendable {
    public let text: String
    public let object: JSONValue
    public let head: Head

    /// The fields every reply has (docs/protocol.md): the request's name, whether it worked, and why not.
    public struct Head: Decodable, Sendable {
        public var reply: String?
        public var ok: Bool?
        public var error: Failure?
        /// An event's name (`hello`, `added`, …); nil on replies.
        public var event: String?
    }

    public struct Failure: Codable, Sendable, Equatable {
        /// An `ErrorCode`'s raw value (a newer daemon may say one this client does not know).
        public var code: String
        public var message: String

        public init(code: String, message: String) {
            self.code = code
            self.message = message
        }
    }

    /// The whole line and its head from one parse of it.
    private struct Decoded: Decodable {
        let object: JSONValue
        let head: Head

        init(from decoder: any Decoder) throws {
            object = try JSONValue(from: decoder)
            head = try Head(from: decoder)
        }
    }

    /// Nil when the line is not a JSON object.
    public init?(_ text: String) {
        guard let decoded = try? JSONDecoder().decode(Decoded.self, from: Data(text.utf8)), case .object = decoded.object else { return nil }
        self.text = text
        self.object = decoded.object
        self.head = decoded.head
    }

    /// A reply to a request, not an event.
    public var isReply: Bool { head.reply != nil || head.ok != nil }
}
