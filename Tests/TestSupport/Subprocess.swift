import Foundation

/// Runs the package's own executables (built next to the test bundle) as a user would.
public enum Subprocess {
    public struct Result: Sendable {
        public var status: Int32
        public var stdout: String
        public var stderr: String
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

    /// Runs `executable` with `arguments` in the package root and waits for it.
    public static func run(_ executable: String, _ arguments: [String], environment: [String: String]? = nil) throws -> Result {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        process.currentDirectoryURL = Fixtures.packageRoot
        if let environment { process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 } }
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        try process.run()
        // Drain both pipes while the child runs so a chatty child cannot block on a full pipe.
        let group = DispatchGroup()
        nonisolated(unsafe) var outData = Data(), errData = Data()
        group.enter()
        DispatchQueue.global().async { outData = out.fileHandleForReading.readDataToEndOfFile(); group.leave() }
        group.enter()
        DispatchQueue.global().async { errData = err.fileHandleForReading.readDataToEndOfFile(); group.leave() }
        group.wait()
        process.waitUntilExit()
        return Result(
            status: process.terminationStatus, stdout: String(decoding: outData, as: UTF8.self),
            stderr: String(decoding: errData, as: UTF8.self))
    }
}

extension Subprocess {
    /// A child process whose stdout is read line by line while it runs (for daemons).
    public final class Running: @unchecked Sendable {
        public let process = Process()
        private let lock = NSCondition()
        private var lines: [String] = []
        private var errorText = Data()
        private var finishedReading = false

        public init(_ executable: String, _ arguments: [String], environment: [String: String] = [:]) throws {
            process.executableURL = URL(fileURLWithPath: executable)
            process.arguments = arguments
            process.currentDirectoryURL = Fixtures.packageRoot
            process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
            let out = Pipe(), err = Pipe()
            process.standardOutput = out
            process.standardError = err
            try process.run()
            Thread.detachNewThread { [self] in
                var pending = Data()
                while true {
                    let chunk = out.fileHandleForReading.availableData
                    if chunk.isEmpty { break }
                    pending.append(chunk)
                    while let newline = pending.firstIndex(of: 0x0A) {
                        let line = String(decoding: pending[pending.startIndex..<newline], as: UTF8.self)
                        pending.removeSubrange(pending.startIndex...newline)
                        lock.lock(); lines.append(line); lock.broadcast(); lock.unlock()
                    }
                }
                lock.lock(); finishedReading = true; lock.broadcast(); lock.unlock()
            }
            Thread.detachNewThread { [self] in
                let data = err.fileHandleForReading.readDataToEndOfFile()
                lock.lock(); errorText = data; lock.unlock()
            }
        }

        /// Lines read so far.
        public var output: [String] {
            lock.lock(); defer { lock.unlock() }
            return lines
        }

        public var stderr: String {
            lock.lock(); defer { lock.unlock() }
            return String(decoding: errorText, as: UTF8.self)
        }

        /// Waits until `condition` holds for the lines so far (true) or `timeout` seconds pass or the
        /// output ends (false).
        @discardableResult
        public func waitFor(timeout: Double, _ condition: ([String]) -> Bool) -> Bool {
            let deadline = Date().addingTimeInterval(timeout)
            lock.lock(); defer { lock.unlock() }
            while !condition(lines) {
                if finishedReading || !lock.wait(until: deadline) { return condition(lines) }
            }
            return true
        }

        /// Sends `signal` and waits for the exit status (killing it after `timeout` seconds).
        public func stop(signal: Int32 = SIGTERM, timeout: Double = 10) -> Int32 {
            if process.isRunning { kill(process.processIdentifier, signal) }
            let deadline = Date().addingTimeInterval(timeout)
            while process.isRunning && Date() < deadline { Thread.sleep(forTimeInterval: 0.02) }
            if process.isRunning { kill(process.processIdentifier, SIGKILL) }
            process.waitUntilExit()
            waitFor(timeout: 2) { _ in false }  // let the reader drain
            return process.terminationStatus
        }

        /// Sends `signal` (SIGHUP, …) without waiting.
        public func signal(_ signal: Int32) { kill(process.processIdentifier, signal) }

        /// Open descriptors of the child (from /proc).
        public var descriptorCount: Int {
            (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(process.processIdentifier)/fd").count) ?? -1
        }

        deinit {
            if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        }
    }
}
