import Foundation

/// A one-slot hand-off that keeps only the newest value: a producer never waits, a consumer that was
/// busy gets the latest value and the ones in between are dropped. Nothing queues behind a busy stage.
///
/// It also keeps the value that came right after the one last taken (`takeFollowing`): the text
/// stage confirms a pass's reads on the frame after the pass's own, however long the pass took.
final class Mailbox<Value>: @unchecked Sendable {
    private let condition = NSCondition()
    private var value: Value?
    private var closed = false
    private(set) var dropped = 0
    /// The first value put after the last `take` or `takeIfPresent` that returned one, and whether one
    /// is being waited for; `puts` numbers the values, to tell whether it is also the newest.
    private var following: (value: Value, number: Int)?
    private var awaitingFollowing = false
    private var puts = 0

    /// Leaves `value` for the consumer, replacing one it has not taken yet.
    func put(_ newValue: Value) {
        condition.lock()
        if value != nil { dropped += 1 }
        value = newValue
        puts += 1
        if awaitingFollowing && following == nil { following = (newValue, puts) }
        condition.broadcast()
        condition.unlock()
    }

    /// Waits for a value; nil once the mailbox is closed and empty.
    func take() -> Value? {
        condition.lock()
        defer { condition.unlock() }
        while value == nil && !closed { condition.wait() }
        return takeNewest()
    }

    /// The waiting value, if any, without blocking.
    func takeIfPresent() -> Value? {
        condition.lock()
        defer { condition.unlock() }
        return takeNewest()
    }

    /// Waits for the value put right after the one last taken (`take`, `takeIfPresent`), even when
    /// newer ones came since; nil once the mailbox is closed without one, or when nothing was taken.
    /// The newest value stays for the next `take` unless it is this one.
    func takeFollowing() -> Value? {
        condition.lock()
        defer { condition.unlock() }
        while awaitingFollowing && following == nil && !closed { condition.wait() }
        defer {
            following = nil
            awaitingFollowing = false
        }
        guard let following else { return nil }
        if puts == following.number { value = nil }
        return following.value
    }

    func close() {
        condition.lock()
        closed = true
        condition.broadcast()
        condition.unlock()
    }

    /// With the lock held.
    private func takeNewest() -> Value? {
        guard let taken = value else { return nil }
        value = nil
        following = nil
        awaitingFollowing = true
        return taken
    }
}
