import ArgumentParser
import Capture
import Foundation
import ScannerCore

/// `scannerd devices`: the cameras, their formats, sizes and rates (like v4l2-ctl --list-formats-ext).
struct DevicesCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "devices",
        abstract: "List cameras with their stable by-id path, driver, card and formats / sizes / fps.",
        discussion: "Exit status: 0 if a camera was found, 1 if none.")

    @Flag(name: .long, help: "Print JSON instead of a table.")
    var json = false

    @Argument(help: ArgumentHelp("Device paths to check besides /dev/video0…63.", valueName: "path"))
    var paths: [String] = []

    func run() throws {
        let cameras = DeviceList.cameras(extraPaths: paths)
        if json {
            print(JSONValue.array(cameras.map(Self.json)).serialized())
        } else {
            print(cameras.map(Self.table).joined(separator: "\n"), terminator: cameras.isEmpty ? "" : "\n")
        }
        if cameras.isEmpty {
            FileHandle.standardError.write(Data("scannerd: no cameras found (is the user in the video group?)\n".utf8))
            throw ExitCode(1)
        }
    }

    static func rates(_ rates: [Double]) -> String {
        rates.map { $0 == $0.rounded() ? String(Int($0)) : String(format: "%.2f", $0) }.joined(separator: ", ")
    }

    static func table(_ camera: CameraDescription) -> String {
        var lines = ["\(camera.path)\(camera.byID.map { "  (\($0))" } ?? "")"]
        lines.append("  driver \(camera.capabilities.driver), card \"\(camera.capabilities.card)\", bus \(camera.capabilities.busInfo)")
        for format in camera.formats {
            let usable = format.pixelFormat == nil ? "  (not used by scannerd)" : ""
            lines.append("  \(PixelFormat.name(ofFourCC: format.fourcc))  \(format.description)\(usable)")
            for size in format.sizes {
                lines.append("    \(size.width)x\(size.height) @ \(rates(size.rates)) fps")
            }
        }
        return lines.joined(separator: "\n")
    }

    static func json(_ camera: CameraDescription) -> JSONValue {
        .object([
            ("path", .string(camera.path)),
            ("byId", camera.byID.map { .string($0) } ?? .null),
            ("driver", .string(camera.capabilities.driver)),
            ("card", .string(camera.capabilities.card)),
            ("busInfo", .string(camera.capabilities.busInfo)),
            (
                "formats",
                .array(
                    camera.formats.map { format in
                        .object([
                            ("fourcc", .string(PixelFormat.name(ofFourCC: format.fourcc))),
                            ("description", .string(format.description)),
                            (
                                "sizes",
                                .array(
                                    format.sizes.map { size in
                                        .object([
                                            ("width", .integer(size.width)), ("height", .integer(size.height)),
                                            ("fps", .array(size.rates.map { .number($0, decimals: 3) })),
                                        ])
                                    })
                            ),
                        ])
                    })
            ),
        ])
    }
}
