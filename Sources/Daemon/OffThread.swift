import Foundation
import Synchronization

/// Blocking work the caller waits for with a deadline: the work runs on a thread of its own (never
/// the cooperative pool), and the caller is released at the deadline or when its task is cancelled,
/// whichever comes first. A thread that is still busy then cannot be stopped; its result is dropped.
enum OffThread {
    /// The work's result, or nil when the deadline passed or the caller was cancelled first.
    static func run<T: Sendable>(deadline: Duration, _ work: @escaping @Sendable () -> T) async -> T? {
        await waitForCallback(deadline: deadline) { finish in
            Thread.detachNewThread { finish(work()) }
        }
    }

    /// Starts `start`, which calls the callback it is given once (later calls are ignored), and
    /// waits for that call, the deadline or cancellation.
    static func waitForCallback<T: Sendable>(
        deadline: Duration, _ start: (@escaping @Sendable (T?) -> Void) -> Void
    ) async -> T? {
        let once = Once<T?>()
        return await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                once.set(continuation)
                start { once.resume($0) }
                DispatchQueue.global().asyncAfter(deadline: .now() + deadline.inSeconds) { once.resume(nil) }
            }
        } onCancel: {
            once.resume(nil)
        }
    }

    /// A continuation resumed by the first of several racing callers (who may come before the
    /// continuation exists).
    private final class Once<Value: Sendable>: Sendable {
        private struct State {
            var continuation: CheckedContinuation<Value, Never>?
            var first: Value?
            var done = false
        }
        private let state = Mutex(State())

        func set(_ continuation: CheckedContinuation<Value, Never>) {
            let early = state.withLock { s -> Value? in
                if s.done { return s.first }
                s.continuation = continuation
                return nil
            }
            if let early { continuation.resume(returning: early) }
        }

        func resume(_ value: Value) {
            let continuation = state.withLock { s -> CheckedContinuation<Value, Never>? in
                guard !s.done else { return nil }
                s.done = true
                s.first = value
                defer { s.continuation = nil }
                return s.continuation
            }
            continuation?.resume(returning: value)
        }
    }
}
