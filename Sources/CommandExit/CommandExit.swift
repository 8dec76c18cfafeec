import ArgumentParser
import Foundation

extension ParsableCommand {
    /// How `scannerd` and `scanctl` end on an error their commands did not handle themselves (docs/cli.md):
    /// a command's own `ExitCode` as it is; `--help` and `--version` printed, status 0; anything
    /// else — a usage error (ArgumentParser's own status would be 64) or a command's failure — its
    /// message on standard error, status 2.
    public static func exit(after error: any Error) -> Never {
        if let exit = error as? ExitCode { Foundation.exit(exit.rawValue) }
        if exitCode(for: error) == .success {
            print(fullMessage(for: error))
            Foundation.exit(0)
        }
        FileHandle.standardError.write(Data((fullMessage(for: error) + "\n").utf8))
        Foundation.exit(2)
    }
}
