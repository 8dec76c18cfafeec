import ArgumentParser
import Foundation
import ImageDecoding
import Recognition
import ScannerCore

/// `scannerd scan IMAGE…`: one still image at a time through the recognition core.
struct ScanCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "scan",
        abstract: "Recognize barcodes and typed text in still images; print one JSON line per item.",
        discussion: """
            Exit status: 0 if any item was found, 1 if none, 2 on any error (the other files are still \
            scanned). Coordinates are normalized 0…1 with a top-left origin.
            """
    )

    @OptionGroup var recognition: RecognitionOptions

    @Argument(help: ArgumentHelp("Image files: JPEG, PNG, PGM/PPM.", valueName: "image"))
    var images: [String]

    func validate() throws {
        if images.isEmpty { throw ValidationError("give at least one image file") }
    }

    func run() throws {
        let options: ScanOptions
        do {
            options = try recognition.scanOptions()
        } catch {
            throw ValidationError(error.description)
        }
        let scanner: ImageScanner
        let decoder: ImageDecoder
        do {
            scanner = try ImageScanner(options: options)
            decoder = try ImageDecoder()
        } catch {
            Self.report("scannerd: \(error)")
            throw ExitCode(2)
        }

        var found = false, failed = false
        for path in images {
            do {
                let decoded = try decoder.decodeFile(atPath: path, targetWidth: scanner.settings.processingWidth)
                for item in scanner.scan(decoded.image) {
                    found = true
                    guard case .object(let fields) = item.json else { continue }
                    print(JSONValue.object([("image", .string(path))] + fields).serialized())
                }
            } catch {
                failed = true
                Self.report("scannerd: \(error)")
            }
        }
        if failed { throw ExitCode(2) }
        if !found { throw ExitCode(1) }
    }

    static func report(_ line: String) {
        FileHandle.standardError.write(Data((line + "\n").utf8))
    }
}
