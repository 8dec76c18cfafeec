import Dispatch

/// Runs the server's tasks on threads of their own instead of the cooperative pool (as many threads
/// as cores, two on a kiosk). Clients must be answered even while other work in the process blocks
/// those threads — a stalled pool must never silence the socket. Start the server with
/// `Task(executorPreference: ServerExecutor.shared) { try await server.run() }`; its child tasks
/// (one per client) inherit the preference.
public final class ServerExecutor: TaskExecutor, @unchecked Sendable {
    public static let shared = ServerExecutor()

    private let queue = DispatchQueue(label: "scannerd.event-server", attributes: .concurrent)

    public func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        let executor = asUnownedTaskExecutor()
        queue.async { job.runSynchronously(on: executor) }
    }
}
