import Dispatch

/// Runs the server's tasks on threads of their own instead of the cooperative pool (as many threads
/// as cores, two on a kiosk), for processes where other code blocks those threads — the test runner,
/// whose synchronous tests wait on subprocesses. The daemon blocks nothing on the pool and runs the
/// server on the global executor. Pass it as `EventServer(executor:)` and start `run()` with
/// `Task(executorPreference: ServerExecutor.shared)`.
public final class ServerExecutor: TaskExecutor, @unchecked Sendable {
    public static let shared = ServerExecutor()

    public func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        let executor = asUnownedTaskExecutor()
        // A serial queue per job is served from dispatch's overcommitting pool, which finds a thread
        // even while all others block; a concurrent queue's pool stays at the core count on Linux.
        DispatchQueue(label: "scannerd.event-server").async { job.runSynchronously(on: executor) }
    }
}
