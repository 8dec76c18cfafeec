import Foundation

/// Runs blocking client code off the cooperative pool (two threads on a 2-core machine, which
/// blocking reads must not occupy), in a task of the calling test's: the task inherits the test's
/// task-local context, so an `#expect` inside is the test's own. (On a bare thread it was recorded
/// for no test: the run failed, the test showed as passed.)
public func blocking<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
    try await Task(executorPreference: BlockingExecutor.shared) { try body() }.value
}

/// Threads for blocking test code: a concurrent dispatch queue, which adds threads as its jobs block.
public final class BlockingExecutor: TaskExecutor, @unchecked Sendable {
    public static let shared = BlockingExecutor()
    private let queue = DispatchQueue(label: "scannerd.tests.blocking", attributes: .concurrent)

    public func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        let executor = asUnownedTaskExecutor()
        queue.async { job.runSynchronously(on: executor) }
    }
}
