import Foundation
import Synchronization
import Testing

/// Runs each test of a suite on `TestThreads` instead of Swift's cooperative pool, one test to a
/// thread, within a time limit that starts when the test does.
///
/// The cooperative pool has one thread per core (two here). A test that computes for seconds
/// (Tesseract, the line network) or waits for a child process holds one of them, and Swift Testing
/// starts a test's time limit (`.timeLimit`) when the test is scheduled, not when it gets a thread:
/// in a clean `make test` twenty pure tests of a few milliseconds "ran out" of their one-minute limit
/// waiting behind such tests. The heavy suites take this trait instead: each test first waits for one
/// of `TestThreads.width` slots, then has a thread to itself until it ends, and its limit bounds its
/// own run, not its wait for a slot. A test past its limit fails with `TimeLimitExceeded` and is
/// cancelled, as with `.timeLimit`.
///
/// A slot is held for the whole test, waits included. The first version shared its threads among all
/// the started tests, first come first served: a test that awaited a child process gave its thread
/// away, every queued test then started (thirty daemons at once, starving the realtime ones), and its
/// own continuation queued behind them all: tests whose work had ended "ran out" of three minutes
/// waiting to be resumed (2026-11-23, clean `make test`: 7 such issues).
public struct OffThePool: SuiteTrait, TestTrait, TestScoping {
    public var limit: Duration
    public var isRecursive: Bool { true }

    public func provideScope(
        for test: Test, testCase: Test.Case?, performing function: @Sendable () async throws -> Void
    ) async throws {
        // The suite itself needs no thread of its own; each of its test cases does.
        guard testCase != nil else { return try await function() }
        let limit = self.limit
        let threads = TestThreads.shared
        await threads.slots.acquire()
        defer { threads.slots.release() }
        // The group ends only after its children, so `function` does not outlive this call.
        try await withoutActuallyEscaping(function) { function in
            try await withTaskExecutorPreference(threads) {
                try await withThrowingTaskGroup(of: Void.self) { group in
                    // The test in a child task (which keeps its task-local context: an issue is the
                    // test's own).
                    group.addTask { try await function() }
                    // The clock on the global executor, where no test's work can hold it up.
                    group.addTask(executorPreference: globalConcurrentExecutor) {
                        try await Task.sleep(for: limit)
                        throw TimeLimitExceeded(limit: limit)
                    }
                    defer { group.cancelAll() }
                    try await group.next()
                }
            }
        }
    }
}

/// A test ran longer than its suite's `offThePool` limit.
public struct TimeLimitExceeded: Error, CustomStringConvertible {
    public var limit: Duration
    public var description: String { "Time limit was exceeded: \(limit) from the test's start" }
}

extension Trait where Self == OffThePool {
    /// Runs the suite's tests off the cooperative pool, each within `minutes` of its start
    /// (`OffThePool`).
    public static func offThePool(minutes: Int) -> Self { OffThePool(limit: .seconds(60 * minutes)) }
}

/// `width` threads for `width` tests at a time (`slots`), taking jobs in the order they come.
///
/// Twice the cores: most heavy tests spend their time waiting for a daemon or a scan they started,
/// whose child processes need the cores themselves; with every test at once the realtime daemons
/// missed frames. (One test a core was not measured.)
public final class TestThreads: TaskExecutor, @unchecked Sendable {
    public static let width = 2 * max(1, ProcessInfo.processInfo.activeProcessorCount)
    public static let shared = TestThreads(count: width)

    /// Admission: a test takes a slot before it runs here and gives it back when it ends.
    public let slots: Slots

    private let condition = NSCondition()
    private var jobs: [UnownedJob] = []
    private var next = 0

    init(count: Int) {
        slots = Slots(count)
        for index in 0..<count {
            let thread = Thread { [self] in work() }
            thread.name = "test-thread-\(index)"
            thread.start()
        }
    }

    public func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        condition.lock()
        jobs.append(job)
        condition.signal()
        condition.unlock()
    }

    private func work() {
        while true {
            condition.lock()
            while next == jobs.count { condition.wait() }
            let job = jobs[next]
            next += 1
            // Drop what has been taken once the queue has drained, so the array does not grow.
            if next == jobs.count {
                jobs.removeAll(keepingCapacity: true)
                next = 0
            }
            condition.unlock()
            job.runSynchronously(on: asUnownedTaskExecutor())
        }
    }
}

/// A counting semaphore for tasks, first come first served: waiting suspends the task, it holds no
/// thread.
public final class Slots: Sendable {
    private struct State {
        var free: Int
        var waiting: [CheckedContinuation<Void, Never>] = []
    }
    private let state: Mutex<State>

    init(_ count: Int) { state = Mutex(State(free: count)) }

    public func acquire() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let admitted = state.withLock { state -> Bool in
                if state.free > 0 {
                    state.free -= 1
                    return true
                }
                state.waiting.append(continuation)
                return false
            }
            if admitted { continuation.resume() }
        }
    }

    public func release() {
        let next = state.withLock { state -> CheckedContinuation<Void, Never>? in
            if state.waiting.isEmpty {
                state.free += 1
                return nil
            }
            return state.waiting.removeFirst()
        }
        next?.resume()
    }
}
