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

    /// Nil when the line is not a JSON object.
    public init?(_ text: String) {
        let data = Data(text.utf8)
        guard let object = try? JSONDecoder().decode(JSONValue.self, from: data), case .object = object,
            let head = try? JSONDecoder().decode(Head.self, from: data)
        else { return nil }
        self.text = text
        self.object = object
        self.head = head
    }

    /// A reply to a request, not an event.
    public var isReply: Bool { head.reply != nil || head.ok != nil }
}
