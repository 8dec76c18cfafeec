import Synchronization

/// Proof of progress for the service watchdog. The parts that do the work beat it (the pipeline once
/// per frame it takes, a camera source on every attempt while it waits for its device); the systemd
/// notifier pings the watchdog only while the last beat is recent. A loop that is stuck — in an
/// ioctl, in Tesseract, on a lock — stops beating, and systemd restarts the daemon.
public final class Heartbeat: Sendable {
    private let last: Atomic<Int64>
    private let clock: @Sendable () -> Int64

    /// `clock`: monotonic nanoseconds (injected in tests).
    public init(clock: @escaping @Sendable () -> Int64 = Heartbeat.monotonicNanoseconds) {
        self.clock = clock
        last = Atomic(clock())
    }

    public func beat() { last.store(clock(), ordering: .relaxed) }

    /// Time since the last beat (or since creation).
    public var age: Duration { .nanoseconds(clock() - last.load(ordering: .relaxed)) }

    public static func monotonicNanoseconds() -> Int64 {
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        return Int64(now.tv_sec) * 1_000_000_000 + Int64(now.tv_nsec)
    }
}

#if canImport(Glibc)
    import Glibc
#endif
