import ArgumentParser
import Foundation

extension ParsableCommand {
    /// How `scannerd` and `scanctl` end on an error their commands did not handle themselves (docs/cli.md):
    /// a command's own `ExitCode` as it is (thrown from `run` or `validate`); `--help` and
    /// `--version` printed, status 0; a usage error (ArgumentParser's own status would be 64) or a
    /// command's failure: its message on standard error, status 2.
    public static func exit(after error: any Error) -> Never {
        if let exit = error as? ExitCode { Foundation.exit(exit.rawValue) }
        let code = exitCode(for: error)
        let message = fullMessage(for: error)
        if code == .success {
            print(message)
            Foundation.exit(0)
        }
        if !message.isEmpty { FileHandle.standardError.write(Data((message + "\n").utf8)) }
        Foundation.exit(code == .validationFailure || code == .failure ? 2 : code.rawValue)
    }
}
