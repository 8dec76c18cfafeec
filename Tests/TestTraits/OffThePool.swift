import Foundation
import Testing

/// Runs each test of a suite on `TestThreads` instead of Swift's cooperative pool, within a time
/// limit that starts when the test does.
///
/// The pool has one thread per core (two here). A test that computes for seconds (Tesseract, the line
/// network) or waits for a child process holds one of them, and Swift Testing starts a test's time
/// limit (`.timeLimit`) when the test is scheduled, not when it gets a thread: in a clean `make test`
/// twenty pure tests of a few milliseconds "ran out" of their one-minute limit waiting behind such
/// tests. The heavy suites take this trait instead: they queue for threads of their own, the rest keep
/// the pool, and the limit bounds a test's own run, not its wait in the queue. A test past its limit
/// fails with `TimeLimitExceeded` and is cancelled, as with `.timeLimit`.
public struct OffThePool: SuiteTrait, TestTrait, TestScoping {
    public var limit: Duration
    public var isRecursive: Bool { true }

    public func provideScope(
        for test: Test, testCase: Test.Case?, performing function: @Sendable () async throws -> Void
    ) async throws {
        // The suite itself needs no thread of its own; each of its test cases does.
        guard testCase != nil else { return try await function() }
        let limit = self.limit
        // The group ends only after its children, so `function` does not outlive this call.
        try await withoutActuallyEscaping(function) { function in
            try await withTaskExecutorPreference(TestThreads.shared) {
                try await withThrowingTaskGroup(of: Void.self) { group in
                    // The test in a child task (which keeps its task-local context: an issue is the
                    // test's own), which says when it has a thread and starts.
                    let (started, start) = AsyncStream<Void>.makeStream()
                    group.addTask {
                        start.yield()
                        try await function()
                    }
                    // The clock on the global executor, so that a queue on the test threads does
                    // not delay it, from the test's start.
                    group.addTask(executorPreference: globalConcurrentExecutor) {
                        for await _ in started { break }
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

/// As many threads as cores, taking jobs in the order they come. Fixed, unlike a dispatch queue
/// (which adds a thread whenever its jobs block): the heavy tests start daemons and scans that need
/// the cores, and run one per core as they did on the pool; the daemon tests' waits for events are
/// sized for that.
public final class TestThreads: TaskExecutor, @unchecked Sendable {
    public static let shared = TestThreads(count: max(2, ProcessInfo.processInfo.activeProcessorCount))

    private let condition = NSCondition()
    private var jobs: [UnownedJob] = []
    private var next = 0

    init(count: Int) {
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
            if next == jobs.count { jobs.removeAll(keepingCapacity: true); next = 0 }
            condition.unlock()
            job.runSynchronously(on: asUnownedTaskExecutor())
        }
    }
}
