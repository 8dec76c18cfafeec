import Foundation
import Synchronization

/// A clip of the footage generator (Tests/Fixtures/footage/generate.py, in the venv `make test`
/// makes), made once per test process for each set of arguments: several suites replay the same
/// clip, and making one costs ~9 CPU-seconds (docs/benchmarks.md). Tests only read the clips.
public enum FootageClip {
    public struct Failure: Error, CustomStringConvertible {
        public var description: String
    }

    /// One set of arguments' clip: its stem once made. Holding the mutex while making it, a second
    /// test that wants the same clip waits for the first's instead of making it again.
    final class Slot: Sendable {
        let stem = Mutex<String?>(nil)
    }

    static let slots = Mutex<[String: Slot]>([:])

    /// Where this process's clips are: removed when the process exits (the tests' temporary
    /// directory must be left empty).
    static let directory: Result<TemporaryDirectory, any Error> = {
        let made = Result { try TemporaryDirectory("scannerd-clips") }
        atexit { if case .success(let directory) = FootageClip.directory { try? FileManager.default.removeItem(atPath: directory.path) } }
        return made
    }()

    /// The clip of `scenario` at 1280×720: the path of its `.mjpeg` and `.json` without the extension.
    public static func make(_ scenario: String, seed: Int = 1, seconds: Double, exposure: Double? = nil) throws -> String {
        var arguments = ["--seeds", "\(seed)", "--size", "1280x720", "--scenarios", scenario, "--seconds", "\(seconds)"]
        if let exposure { arguments += ["--exposure", "\(exposure)"] }
        let key = arguments.joined(separator: " ")
        let slot = slots.withLock { slots in
            if let slot = slots[key] { return slot }
            let slot = Slot()
            slots[key] = slot
            return slot
        }
        return try slot.stem.withLock { stem throws -> String in
            if let stem { return stem }
            let made = try generate(arguments, name: "\(scenario)-s\(seed)")
            stem = made
            return made
        }
    }

    /// Runs the generator into a directory of its own for these arguments (clips of one scenario and
    /// seed have one name whatever their length).
    static func generate(_ arguments: [String], name: String) throws -> String {
        let python = Fixtures.packageRoot.appendingPathComponent(".build/footage-venv/bin/python").path
        guard FileManager.default.isExecutableFile(atPath: python) else {
            throw Failure(description: "the footage generator's venv is missing: `make test` creates it")
        }
        let into = try directory.get().file(UUID().uuidString.prefix(8).lowercased())
        try FileManager.default.createDirectory(atPath: into, withIntermediateDirectories: false)
        let made = try Subprocess.run(python, ["Tests/Fixtures/footage/generate.py", into] + arguments, timeout: 180)
        guard made.status == 0 else { throw Failure(description: "the footage generator failed: \(made.stderr)") }
        return into + "/" + name
    }
}
