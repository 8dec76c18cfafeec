import Foundation
import TestSupport
import Testing

/// The tests' own harness: a child a test started is gone when the test drops it, also when the
/// test threw before stopping it (a daemon left running outlived a failed `make test`).
@Suite(.timeLimit(.minutes(1))) struct SubprocessTests {
    /// Whether process `pid` has exited (gone, or a zombie not yet reaped).
    func exited(_ pid: Int32) -> Bool {
        guard let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8) else { return true }
        return status.split(separator: "\n").contains { $0.hasPrefix("State:") && $0.contains("Z") }
    }

    @Test func aChildDroppedWithoutStopIsKilled() throws {
        var pid: Int32 = 0
        do {
            let child = try Subprocess.Running("/bin/sleep", ["30"])
            pid = child.process.processIdentifier
            #expect(!exited(pid))
        }
        let deadline = Date().addingTimeInterval(5)
        while !exited(pid) && Date() < deadline { Thread.sleep(forTimeInterval: 0.05) }
        #expect(exited(pid), "the child \(pid) still runs")
    }
}
