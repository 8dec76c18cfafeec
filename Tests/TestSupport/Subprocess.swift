import Foundation

/// Runs the package's own executables (built next to the test bundle) as a user would — but
/// hermetically and bounded:
///
/// - the child gets a scrubbed environment (`environment(_:)`): nothing of the caller's
///   `SCANNERD_*`, `NOTIFY_SOCKET`, `LISTEN_FDS` or `LD_PRELOAD` leaks in, only what the test names;
/// - `scannerd run` without `--config` gets `--no-config`, so an installed
///   `/etc/scannerd/scannerd.conf` never changes what a test sees, and `scannerd scan` without
///   `--line-model` gets `--no-line-model`, so an installed line model does not either;
/// - every child has a time limit; one that outlives it is killed (and says so).
public enum Subprocess {
    public struct Result: Sendable {
        public var status: Int32
        public var stdout: String
        public var stderr: String
        /// Killed at the time limit.
        public var timedOut: Bool
        public var stdoutLines: [String] { stdout.split(separator: "\n").map(String.init) }
        public var stderrLines: [String] { stderr.split(separator: "\n").map(String.init) }
    }

    /// The build products directory: where the test runner itself lives.
    public static let productsDirectory: URL = {
        let runner = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
        return URL(fileURLWithPath: runner).deletingLastPathComponent()
    }()

    public static func executable(_ name: String) -> String {
        productsDirectory.appendingPathComponent(name).path
    }

    /// The environment a child starts with: a fixed minimum, then `extra`.
    public static func environment(_ extra: [String: String] = [:]) -> [String: String] {
        var base = [
            "PATH": "/usr/local/bin:/usr/bin:/bin",
            "LANG": "C.UTF-8",
            "HOME": NSTemporaryDirectory(),
            "TMPDIR": NSTemporaryDirectory(),
        ]
        // The compiled-network cache `make test` names (.build/cache), so that the children import
        // the text networks instead of compiling them each (docs/recognition.md).
        if let cache = ProcessInfo.processInfo.environment["CACHE_DIRECTORY"] { base["CACHE_DIRECTORY"] = cache }
        base.merge(extra) { $1 }
        return base
    }

    /// `arguments` as the child gets them: `scannerd run` reads no installed configuration, and
    /// `scannerd scan` no installed line model, unless the test names one. `scan` also gets a time
    /// limit per image far above its default 10 s, unless the test names one: the limit is wall-clock
    /// time, and in a clean `make test` on 2 cores whose CPU runs the text networks in f32, a
    /// document photo that takes 5 s alone passed 10 s among the other tests (2026-11-28).
    static func hermetic(_ executable: String, _ arguments: [String]) -> [String] {
        guard executable.hasSuffix("/scannerd") else { return arguments }
        switch arguments.first {
        case "run" where !arguments.contains("--config") && !arguments.contains("--no-config"):
            return arguments + ["--no-config"]
        case "scan":
            var arguments = arguments
            if !arguments.contains("--line-model") && !arguments.contains("--no-line-model") { arguments += ["--no-line-model"] }
            if !arguments.contains("--max-seconds") { arguments += ["--max-seconds", "100"] }
            return arguments
        default:
            return arguments
        }
    }

    /// Runs `executable` with `arguments` in the package root and waits for it, at most `timeout`
    /// seconds (then it is killed: `timedOut`, status 9).
    public static func run(
        _ executable: String, _ arguments: [String], environment extra: [String: String] = [:], timeout: Double = 120
    ) throws -> Result {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = hermetic(executable, arguments)
        process.currentDirectoryURL = Fixtures.packageRoot
        process.environment = environment(extra)
        let out = Pipe()
        let err = Pipe()
        process.standardOutput = out
        process.standardError = err
        let exited = DispatchSemaphore(value: 0)
        process.terminationHandler = { _ in exited.signal() }
        try process.run()
        // Drain both pipes while the child runs so a chatty child cannot block on a full pipe.
        let group = DispatchGroup()
        nonisolated(unsafe) var outData = Data()
        nonisolated(unsafe) var errData = Data()
        group.enter()
        DispatchQueue.global().async {
            outData = out.fileHandleForReading.readDataToEndOfFile()
            group.leave()
        }
        group.enter()
        DispatchQueue.global().async {
            errData = err.fileHandleForReading.readDataToEndOfFile()
            group.leave()
        }
        var timedOut = false
        if exited.wait(timeout: .now() + timeout) == .timedOut {
            timedOut = true
            kill(process.processIdentifier, SIGKILL)
            exited.wait()
        }
        group.wait()
        process.waitUntilExit()
        return Result(
            status: process.terminationStatus, stdout: String(decoding: outData, as: UTF8.self),
            stderr: String(decoding: errData, as: UTF8.self), timedOut: timedOut)
    }
}

extension Subprocess {
    /// A child process whose stdout is read line by line while it runs (for daemons). Killed when
    /// the value goes, if it still runs.
    public final class Running: @unchecked Sendable {
        public let process = Process()
        /// What the child writes, read by two threads of their own, which hold this and not the
        /// `Running`: a test that throws before `stop()` drops its `Running`, whose `deinit` then kills
        /// the child (the threads held `self` till the child's pipes closed, and the daemon lived on).
        private final class Streams: @unchecked Sendable {
            let lock = NSCondition()
            var lines: [String] = []
            var errorText = Data()
            var finishedReading = false
            var finishedError = false

            /// `change` made under the lock, and every waiter woken.
            func update(_ change: (Streams) -> Void) {
                lock.lock()
                change(self)
                lock.broadcast()
                lock.unlock()
            }
        }
        private let streams = Streams()
        private var lock: NSCondition { streams.lock }
        private var lines: [String] { streams.lines }
        private var errorText: Data { streams.errorText }
        private var finishedReading: Bool { streams.finishedReading }
        private var finishedError: Bool { streams.finishedError }
        private let exited = DispatchSemaphore(value: 0)

        public init(_ executable: String, _ arguments: [String], environment: [String: String] = [:]) throws {
            process.executableURL = URL(fileURLWithPath: executable)
            process.arguments = Subprocess.hermetic(executable, arguments)
            process.currentDirectoryURL = Fixtures.packageRoot
            process.environment = Subprocess.environment(environment)
            let out = Pipe()
            let err = Pipe()
            process.standardOutput = out
            process.standardError = err
            let exited = self.exited
            process.terminationHandler = { _ in exited.signal() }
            try process.run()
            Thread.detachNewThread { [streams] in
                var pending = Data()
                while true {
                    let chunk = out.fileHandleForReading.availableData
                    if chunk.isEmpty { break }
                    pending.append(chunk)
                    while let newline = pending.firstIndex(of: 0x0A) {
                        let line = String(decoding: pending[pending.startIndex..<newline], as: UTF8.self)
                        pending.removeSubrange(pending.startIndex...newline)
                        streams.update { $0.lines.append(line) }
                    }
                }
                streams.update { $0.finishedReading = true }
            }
            Thread.detachNewThread { [streams] in
                while true {
                    let chunk = err.fileHandleForReading.availableData
                    if chunk.isEmpty { break }
                    streams.update { $0.errorText.append(chunk) }
                }
                streams.update { $0.finishedError = true }
            }
        }

        /// Lines read so far.
        public var output: [String] {
            lock.lock()
            defer { lock.unlock() }
            return lines
        }

        /// Waits until `condition` holds for what the child wrote to stderr so far (true) or `timeout`
        /// seconds pass or stderr ends (false).
        @discardableResult
        public func waitForStderr(timeout: Double, _ condition: (String) -> Bool) -> Bool {
            wait(timeout: timeout, ended: { finishedError }, until: { condition(String(decoding: errorText, as: UTF8.self)) })
        }

        /// Holding `lock`, waits until `holds` (true), or `timeout` seconds pass or the stream
        /// `ended` (then whether it holds).
        private func wait(timeout: Double, ended: () -> Bool, until holds: () -> Bool) -> Bool {
            let deadline = Date().addingTimeInterval(timeout)
            lock.lock()
            defer { lock.unlock() }
            while !holds() {
                if ended() || !lock.wait(until: deadline) { return holds() }
            }
            return true
        }

        /// What the child wrote to stderr so far; complete once it has exited (`stop`).
        public var stderr: String {
            lock.lock()
            defer { lock.unlock() }
            return String(decoding: errorText, as: UTF8.self)
        }

        /// Waits until `condition` holds for the lines so far (true) or `timeout` seconds pass or the
        /// output ends (false).
        @discardableResult
        public func waitFor(timeout: Double, _ condition: ([String]) -> Bool) -> Bool {
            wait(timeout: timeout, ended: { finishedReading }, until: { condition(lines) })
        }

        /// Sends `signal` and waits for the exit status (killing it after `timeout` seconds).
        public func stop(signal: Int32 = SIGTERM, timeout: Double = 10) -> Int32 {
            if process.isRunning { kill(process.processIdentifier, signal) }
            if exited.wait(timeout: .now() + timeout) == .timedOut {
                kill(process.processIdentifier, SIGKILL)
                exited.wait()
            }
            exited.signal()  // for a later stop()
            process.waitUntilExit()
            // The readers finish once the pipes close (at once, unless a grandchild holds them).
            let deadline = Date().addingTimeInterval(5)
            lock.lock()
            while !(finishedReading && finishedError), lock.wait(until: deadline) {}
            lock.unlock()
            return process.terminationStatus
        }

        /// Sends `signal` (SIGHUP, …) without waiting.
        public func signal(_ signal: Int32) { kill(process.processIdentifier, signal) }

        /// Every thread's stack of the child, when gdb is installed ("" otherwise): evidence for a
        /// daemon that stopped answering, taken before the test kills it.
        public func threadStacks() -> String {
            guard process.isRunning, FileManager.default.isExecutableFile(atPath: "/usr/bin/gdb") else { return "" }
            let result = try? Subprocess.run(
                "/usr/bin/gdb", ["-batch", "-ex", "thread apply all bt 30", "-p", "\(process.processIdentifier)"], timeout: 60)
            return result?.stdout ?? ""
        }

        /// Open descriptors of the child (from /proc).
        public var descriptorCount: Int {
            (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(process.processIdentifier)/fd").count) ?? -1
        }

        deinit {
            if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        }
    }
}
