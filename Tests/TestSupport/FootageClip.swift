import Foundation

/// A clip of the footage generator (Tests/Fixtures/footage/generate.py, in the venv `make test`
/// makes), written into a test's own directory.
public enum FootageClip {
    public struct Failure: Error, CustomStringConvertible {
        public var description: String
    }

    /// Makes the clip of `scenario` at 1280×720 in `scratch`; the path of its `.mjpeg` and `.json`
    /// without the extension.
    public static func make(
        _ scenario: String, seed: Int = 1, seconds: Double, exposure: Double? = nil, in scratch: TemporaryDirectory
    ) throws -> String {
        let python = Fixtures.packageRoot.appendingPathComponent(".build/footage-venv/bin/python").path
        guard FileManager.default.isExecutableFile(atPath: python) else {
            throw Failure(description: "the footage generator's venv is missing: `make test` creates it")
        }
        var arguments = [
            "Tests/Fixtures/footage/generate.py", scratch.path, "--seeds", "\(seed)", "--size", "1280x720", "--scenarios", scenario,
            "--seconds", "\(seconds)",
        ]
        if let exposure { arguments += ["--exposure", "\(exposure)"] }
        let made = try Subprocess.run(python, arguments, timeout: 180)
        guard made.status == 0 else { throw Failure(description: "the footage generator failed: \(made.stderr)") }
        return scratch.file("\(scenario)-s\(seed)")
    }
}
