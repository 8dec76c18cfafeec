import ArgumentParser
import CommandExit
import Daemon
import Foundation
import ScannerCore

@main
struct Scannerd: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "scannerd",
        abstract: "Turns a camera into a hands-free scanner for barcodes, phone numbers, URLs and e-mail addresses.",
        version: Release.version,
        subcommands: [RunCommand.self, ScanCommand.self, DevicesCommand.self, CheckConfigCommand.self]
    )

    /// Exit codes are part of the interface (docs/cli.md): 0 found, 1 nothing found, 2 any error,
    /// including usage errors (ArgumentParser's own default would be 64).
    static func main() async {
        do {
            var command = try parseAsRoot()
            if var asyncCommand = command as? AsyncParsableCommand {
                try await asyncCommand.run()
            } else {
                try command.run()
            }
        } catch {
            exit(after: error)
        }
    }
}
