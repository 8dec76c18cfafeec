import Dispatch

/// Runs the server's tasks on threads of their own instead of the cooperative pool (as many threads
/// as cores, two on a kiosk), for processes where other code blocks those threads — the test runner,
/// whose synchronous tests wait on subprocesses. The daemon blocks nothing on the pool and runs the
/// server on the global executor. Pass it as `EventServer(executor:)` and start `run()` with
/// `Task(executorPreference: ServerExecutor.shared)`.
public final class ServerExecutor: TaskExecutor, @unchecked Sendable {
    public static let shared = ServerExecutor()

    private let queue = DispatchQueue(label: "scannerd.event-server", attributes: .concurrent)

    public func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        let executor = asUnownedTaskExecutor()
        queue.async { job.runSynchronously(on: executor) }
    }
}
