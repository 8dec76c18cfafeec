import ArgumentParser
import DaemonConfiguration
import Foundation
import ScannerCore

/// `scannerd check-config [FILE]`: validates a configuration without starting anything.
struct CheckConfigCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "check-config",
        abstract: "Check a configuration file; print every problem with its line, or the settings it gives.",
        discussion: """
            Exit status: 0 if the file is valid, 2 if not (each problem on its own line: file:line: key: \
            what is wrong). Run it before `systemctl reload scannerd`: a reload refuses an invalid file \
            and keeps the configuration in force.
            """
    )

    @Argument(help: ArgumentHelp("The file (default: $SCANNERD_CONFIG, else /etc/scannerd/scannerd.conf).", valueName: "file"))
    var file: String?

    @Flag(name: .long, help: "Also apply the SCANNERD_* environment variables of this shell.")
    var environment = false

    @Flag(name: .long, help: "Print every key's value and where it comes from.")
    var effective = false

    @Flag(name: .long, help: ArgumentHelp("Print scannerd.conf(5), the manual page of every key, and exit (`make deb`).", visibility: .hidden))
    var manualPage = false

    func run() throws {
        if manualPage {
            let formatter = DateFormatter()
            formatter.dateFormat = "yyyy-MM-dd"
            formatter.timeZone = TimeZone(identifier: "UTC")
            // SOURCE_DATE_EPOCH (reproducible builds) fixes the date a package build writes.
            let epoch = ProcessInfo.processInfo.environment["SOURCE_DATE_EPOCH"].flatMap(Double.init)
            let date = formatter.string(from: epoch.map { Date(timeIntervalSince1970: $0) } ?? Date())
            FileHandle.standardOutput.write(Data(ManualPage.configuration(version: Release.version, date: date).utf8))
            return
        }
        let path = file ?? ConfigurationPath.resolve(explicit: nil, none: false) ?? ConfigurationLoader.defaultPath
        let loader = ConfigurationLoader(filePath: path, environment: environment ? ProcessInfo.processInfo.environment : [:])
        let loaded: LoadedConfiguration
        do {
            loaded = try loader.load()
        } catch {
            FileHandle.standardError.write(Data((error.description + "\n").utf8))
            throw ExitCode(2)
        }
        if effective {
            FileHandle.standardOutput.write(Data(Self.effective(loaded).utf8))
        } else {
            FileHandle.standardOutput.write(Data("\(path): ok\n".utf8))
        }
    }

    /// Every key's value and where it comes from, one line each (`--effective`, `scannerd run --check`).
    static func effective(_ loaded: LoadedConfiguration) -> String {
        let width = SettingsSchema.keys.map(\.name.count).max() ?? 0
        var out = ""
        for key in SettingsSchema.keys {
            let name = key.name.padding(toLength: width, withPad: " ", startingAt: 0)
            out += "\(name)  \(key.value(in: loaded.settings))  (\(loaded.origins[key.name].map { "\($0)" } ?? "default"))\n"
        }
        return out
    }
}
