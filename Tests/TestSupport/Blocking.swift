import Foundation

/// Runs blocking client code off the cooperative pool (two threads on a 2-core machine, which
/// blocking reads must not occupy), in a task of the calling test's: the task inherits the test's
/// task-local context, so an `#expect` inside is the test's own. (On a bare thread it was recorded
/// for no test: the run failed, the test showed as passed.)
public func blocking<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
    try await Task(executorPreference: BlockingExecutor.shared) { try body() }.value
}

/// Threads for blocking test code, and for the servers the tests run in process.
///
/// Each job goes to a serial queue of its own, which dispatch serves from its overcommitting pool:
/// a thread is found for it even while every other one is blocked. A concurrent queue's pool is
/// sized to the cores and grows only when fewer threads than cores are runnable: with the
/// recognition tests keeping both cores busy, a server's job waited there behind clients blocked in
/// `read` for longer than the server's own timeouts (a connection refused after waiting 5 s for a
/// 1.5 s answer).
public final class BlockingExecutor: TaskExecutor, @unchecked Sendable {
    public static let shared = BlockingExecutor()

    public func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        let executor = asUnownedTaskExecutor()
        DispatchQueue(label: "scannerd.tests.blocking").async { job.runSynchronously(on: executor) }
    }
}
