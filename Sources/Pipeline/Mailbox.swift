import Foundation

/// A one-slot hand-off that keeps only the newest value: a producer never waits, a consumer that was
/// busy gets the latest value and the ones in between are dropped. Nothing queues behind a busy stage.
final class Mailbox<Value>: @unchecked Sendable {
    private let condition = NSCondition()
    private var value: Value?
    private var closed = false
    private(set) var dropped = 0

    /// Leaves `value` for the consumer, replacing one it has not taken yet.
    func put(_ newValue: Value) {
        condition.lock()
        if value != nil { dropped += 1 }
        value = newValue
        condition.signal()
        condition.unlock()
    }

    /// Waits for a value; nil once the mailbox is closed and empty.
    func take() -> Value? {
        condition.lock()
        defer { condition.unlock() }
        while value == nil && !closed { condition.wait() }
        defer { value = nil }
        return value
    }

    /// The waiting value, if any, without blocking.
    func takeIfPresent() -> Value? {
        condition.lock()
        defer { condition.unlock() }
        defer { value = nil }
        return value
    }

    func close() {
        condition.lock()
        closed = true
        condition.broadcast()
        condition.unlock()
    }
}
