import Synchronization

/// One subscriber's written-out count, for a transport that waits until a reply has been written
/// (`EventHub.replyAndWait`). A leaf lock of its own: it is advanced after the hub's lock is let go,
/// and a cancelled waiter takes only this one (a cancellation handler that took the hub's lock
/// could deadlock against `publish`, see `EventHub.later`).
final class Delivery: Sendable {
    private struct State {
        var written = 0
        var closed = false
        var waiters: [(ticket: Int, continuation: CheckedContinuation<Void, Never>)] = []
    }
    private let state = Mutex(State())

    /// Lines up to `written` (counted from the subscription's start) are out.
    func advance(to written: Int) {
        let ready = state.withLock { s -> [CheckedContinuation<Void, Never>] in
            s.written = max(s.written, written)
            let ready = s.waiters.filter { $0.ticket <= s.written }.map(\.continuation)
            s.waiters.removeAll { $0.ticket <= s.written }
            return ready
        }
        ready.forEach { $0.resume() }
    }

    /// The subscriber is gone: nobody waits any more, now or later.
    func close() {
        let waiting = state.withLock { s -> [CheckedContinuation<Void, Never>] in
            s.closed = true
            defer { s.waiters = [] }
            return s.waiters.map(\.continuation)
        }
        waiting.forEach { $0.resume() }
    }

    /// Returns once line `ticket` is written, the subscriber is gone, or the caller is cancelled.
    func wait(for ticket: Int) async {
        await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                let now = state.withLock { s -> Bool in
                    if s.closed || s.written >= ticket || Task.isCancelled { return true }
                    s.waiters.append((ticket, continuation))
                    return false
                }
                if now { continuation.resume() }
            }
        } onCancel: {
            close()
        }
    }
}

/// The sizes of the lines waiting for a subscriber, oldest first, and their sum.
struct SizeQueue: Sendable {
    private var sizes: [Int] = []
    private var head = 0
    private(set) var bytes = 0
    var count: Int { sizes.count - head }

    mutating func append(_ size: Int) {
        sizes.append(size)
        bytes += size
    }

    mutating func removeFirst() {
        guard head < sizes.count else { return }
        bytes -= sizes[head]
        head += 1
        // Compacted now and then, not per line: amortized O(1).
        if head >= 64 && head * 2 >= sizes.count {
            sizes.removeFirst(head)
            head = 0
        }
    }
}
