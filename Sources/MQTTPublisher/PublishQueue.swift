/// The events waiting for the broker: first in, first out, at most `limit` of them. When full, the
/// oldest goes and is counted — the pipeline never waits for a broker that is away, and memory is
/// bounded however long it stays away (docs/mqtt.md). A pure value: every rule is a unit test.
public struct PublishQueue<Message>: Sendable where Message: Sendable {
    public let limit: Int
    private var storage: [Message] = []
    private var head = 0
    /// Messages dropped because the queue was full, since the start.
    public private(set) var dropped = 0

    public init(limit: Int) {
        self.limit = max(1, limit)
    }

    public var count: Int { storage.count - head }
    public var isEmpty: Bool { count == 0 }

    /// Appends `message`; when full, drops the oldest first. Returns what was dropped, if anything.
    @discardableResult
    public mutating func enqueue(_ message: Message) -> Message? {
        var oldest: Message?
        if count >= limit {
            oldest = storage[head]
            head += 1
            dropped += 1
        }
        storage.append(message)
        compact()
        return oldest
    }

    /// The oldest message, left in place.
    public var first: Message? { head < storage.count ? storage[head] : nil }

    /// The oldest message, taken out.
    public mutating func dequeue() -> Message? {
        guard head < storage.count else { return nil }
        defer {
            head += 1
            compact()
        }
        return storage[head]
    }

    /// Drops the consumed prefix once it is as long as what is left (amortized O(1) a message).
    private mutating func compact() {
        if head > 0, head >= storage.count - head {
            storage.removeFirst(head)
            head = 0
        }
    }
}
