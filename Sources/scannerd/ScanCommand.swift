import ArgumentParser
import DocumentDetection
import Foundation
import ImageDecoding
import Recognition
import ScannerCore
import ScannerProtocol
import TextDetection

/// `scannerd scan IMAGE…`: one still image at a time through the recognition core.
struct ScanCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "scan",
        abstract: "Recognize barcodes and typed text in still images; print one JSON line per item.",
        discussion: """
            Exit status: 0 if any item was found, 1 if none, 2 on any error (the other files are still \
            scanned; each error is one line on stderr, FILE: reason). Coordinates are normalized 0…1 \
            with a top-left origin. An image is refused before decoding when its file or the size its \
            header declares is past the limits (docs/security.md); one that takes longer than \
            --max-seconds has what was found by then printed, and counts as an error.
            """
    )

    @OptionGroup var recognition: RecognitionOptions

    @Option(name: .long, help: ArgumentHelp("Largest image to decode, in megapixels (default 50).", valueName: "n"))
    var maxMegapixels: Double?

    @Option(name: .long, help: ArgumentHelp("Largest image file to read, in MiB (default 64).", valueName: "n"))
    var maxFileSize: Int?

    @Option(
        name: .long,
        help: ArgumentHelp(
            "Time for one image, in seconds (default 10): past it, what was found is printed and the next image is read.", valueName: "s"))
    var maxSeconds: Double = Self.defaultMaxSeconds

    /// Well past a sheet of thousands of codes or a dense page of print (docs/benchmarks.md, "Many
    /// codes in one image"), well short of a batch job stalled for minutes.
    static let defaultMaxSeconds = 10.0

    @Option(
        name: .long,
        help: ArgumentHelp(
            "The text networks' directory (make deps fetches them). Default: share/scannerd/models beside the binary's bin directory, where make install puts them. Lines are then found and read by the networks (PP-OCRv6); without them, by the classical detector and Tesseract.",
            valueName: "dir"))
    var lineModel: String?

    @Flag(name: .long, help: "Find and read text with the classical detector and Tesseract alone, even where the models are installed.")
    var noLineModel = false

    /// The line model to load: the one named, else an installed one, else none.
    var lineModelDirectory: String? {
        (noLineModel ? LineModelChoice.none : lineModel.map(LineModelChoice.directory) ?? .installed).directory
    }

    @Option(
        name: .long,
        help: ArgumentHelp(
            "Also find the page, card or label in the image and write it, straightened, to this JPEG file (one image only).",
            valueName: "file"))
    var document: String?

    @Argument(help: ArgumentHelp("Image files: JPEG, PNG, PGM/PPM, TIFF, BMP, GIF, WebP.", valueName: "image"))
    var images: [String]

    func validate() throws {
        if images.isEmpty { throw ValidationError("give at least one image file") }
        if document != nil, images.count != 1 { throw ValidationError("--document writes one image: give one image file") }
        if document?.isEmpty == true { throw ValidationError("--document needs a file name") }
        if noLineModel, lineModel != nil { throw ValidationError("--line-model and --no-line-model contradict each other") }
        if let maxMegapixels, !(maxMegapixels > 0 && maxMegapixels <= 1000) {
            throw ValidationError("--max-megapixels must be more than 0 and at most 1000")
        }
        if let maxFileSize, !(1...4096).contains(maxFileSize) { throw ValidationError("--max-file-size must be 1…4096 (MiB)") }
        if !(maxSeconds > 0 && maxSeconds <= 86_400) { throw ValidationError("--max-seconds must be more than 0 and at most 86400") }
    }

    var limits: ImageLimits {
        var limits = ImageLimits.default
        if let maxMegapixels { limits.maximumPixels = Int(maxMegapixels * 1_000_000) }
        if let maxFileSize { limits.maximumBytes = maxFileSize << 20 }
        return limits
    }

    func run() throws {
        let options: ScanOptions
        do {
            options = try recognition.scanOptions()
        } catch {
            throw ValidationError(error.description)
        }
        // The models are part of an installation (make install, the package): their absence is said,
        // once, and the text is read with Tesseract and the classical detector.
        if !noLineModel, lineModel == nil, lineModelDirectory == nil, options.types.wantsText {
            Self.report(
                "scannerd: no text models in \(LineModelChoice.installedDirectory) (make deps fetches them): reading text with Tesseract alone")
        }
        let scanner: ImageScanner
        let decoder: ImageDecoder
        do {
            do {
                scanner = try ImageScanner(options: options, lineModel: lineModelDirectory, lineDetection: .network)
            } catch .libraryFailure(let library, let reason) where lineModel == nil && lineModelDirectory != nil {
                // The installed models, damaged: the text is read without them, as the daemon does.
                Self.report("scannerd: \(library): \(reason): reading text with Tesseract alone")
                scanner = try ImageScanner(options: options, lineModel: nil, lineDetection: .network)
            }
            decoder = try ImageDecoder(limits: limits)
        } catch {
            Self.report("scannerd: \(error)")
            throw ExitCode(2)
        }

        // Where the text is, for which quadrilateral is the document (`TextHolding`): the network's
        // lines where the models are, else the classical detector's.
        var textLines: any LineDetector = ClassicalLineDetector()
        if options.types.documents || document != nil, let lineModelDirectory {
            do {
                let network = try NetworkLineDetector(directory: lineModelDirectory)
                network.tiles = TiledLook(minimumSpread: scanner.settings.minimumContrastForText)
                textLines = network
            } catch {
                // A broken detector costs the documents their best lines, not the documents.
                Self.report("scannerd: \(error): documents are found with the classical detector's lines")
            }
        }
        var found = false
        var failed = false
        for (path, rawPath) in zip(images, Self.rawArguments(for: images)) {
            let deadline = ContinuousClock.now + .seconds(maxSeconds)
            // libpng prints its errors itself (Leptonica gives it no handler of its own): taken here,
            // and only the first line kept, as part of the file's one error line.
            let (decoded, libraryOutput) = StandardErrorCapture.capturing {
                Result { () throws(ScannerError) in try decoder.decodeFile(atRawPath: rawPath, targetWidth: scanner.settings.processingWidth) }
            }
            switch decoded {
            case .success(let image):
                // The document, found once in the image decoded in colour at full size: an item like
                // every other (`--types document`), and the straightened file (`--document`).
                var page: (image: ColorImage, found: DocumentCandidate?)?
                if options.types.documents || document != nil {
                    do throws(ScannerError) {
                        page = try Self.document(of: rawPath, decoder: decoder, lines: textLines)
                    } catch {
                        failed = true
                        Self.report("scannerd: \(error)")
                    }
                }
                var documents: [RecognizedItem] = []
                if options.types.documents, let page, let candidate = page.found {
                    documents = [candidate.item(inImageOf: page.image.width, page.image.height)]
                }
                let scan = scanner.scan(image.image, until: deadline)
                for item in scan.items + documents {
                    found = true
                    guard case .object(let fields) = Event.Item(item).json else { continue }
                    print(JSONValue.object([("image", .string(path))] + fields).serialized())
                }
                if !scan.complete {
                    failed = true
                    let limit = String(format: "%g", maxSeconds)
                    Self.report("scannerd: \(path): stopped at the \(limit) s limit (--max-seconds): what was found by then is printed")
                }
                if let document, let page {
                    do throws(ScannerError) {
                        found = try Self.writeDocument(page.found, of: page.image, path: path, to: document) || found
                    } catch {
                        failed = true
                        Self.report("scannerd: \(error)")
                    }
                }
            case .failure(let error):
                failed = true
                let detail = libraryOutput.split(whereSeparator: \.isNewline).first.map { " (\($0.trimmingCharacters(in: .whitespaces)))" } ?? ""
                Self.report("scannerd: \(error)\(detail)")
            }
        }
        if failed { throw ExitCode(2) }
        if !found { throw ExitCode(1) }
    }

    /// The image at `rawPath` decoded in colour at full size (within the limits) and the document in
    /// it: its edges looked for in luma and chroma, its text in the luma.
    static func document(
        of rawPath: [UInt8], decoder: ImageDecoder, lines: any LineDetector
    ) throws(ScannerError) -> (image: ColorImage, found: DocumentCandidate?) {
        let full = try decoder.decodeColorFile(atRawPath: rawPath)
        return (full, document(in: DocumentImage(full), lines: lines))
    }

    /// Writes `found` in `full` straightened as a colour JPEG to `output` (issues #43, #53). Whether
    /// there was one; a line on stderr either way.
    static func writeDocument(_ found: DocumentCandidate?, of full: ColorImage, path: String, to output: String) throws(ScannerError) -> Bool {
        guard let found, let flat = DocumentRectifier.rectify(full, quad: found.quad) else {
            report("scannerd: \(path): no document found")
            return false
        }
        let jpeg = try JPEGEncoder().encode(flat, quality: 90)
        do {
            try jpeg.write(to: URL(fileURLWithPath: output), options: .atomic)
        } catch {
            throw ScannerError.invalidArgument(name: "--document", value: output, reason: error.localizedDescription)
        }
        report("scannerd: \(path): document \(flat.width)x\(flat.height) written to \(output)")
        return true
    }

    /// The document in `image`: of the edge detector's quadrilaterals, the one holding the text the
    /// line detector finds there (`TextHolding`), fitted to the image's edges; or the text's own
    /// rectangle where no edge holds it.
    static func document(in image: DocumentImage, lines: any LineDetector) -> DocumentCandidate? {
        let text = lines.lines(in: image.luma).map(\.quad)
        guard
            let choice = TextHolding.document(among: EdgeQuadDetector().candidates(in: image), lines: text, width: image.width, height: image.height)
        else { return nil }
        return choice.fromText ? choice.document : choice.document.refined(in: image)
    }

    /// The bytes of each path as the command line gave them: Swift's `CommandLine.arguments` replaces
    /// bytes that are not UTF-8 with U+FFFD, which names a file that does not exist.
    static func rawArguments(for paths: [String]) -> [[UInt8]] {
        var byText: [String: [[UInt8]]] = [:]
        for i in 1..<Int(CommandLine.argc) {
            guard let argument = CommandLine.unsafeArgv[i] else { continue }
            let bytes = Array(UnsafeRawBufferPointer(start: argument, count: strlen(argument)))
            byText[String(decoding: bytes, as: UTF8.self), default: []].append(bytes)
        }
        // In the order given, so two arguments that read alike stay apart.
        return paths.map { path in
            guard let bytes = byText[path]?.first else { return Array(path.utf8) }
            byText[path]?.removeFirst()
            return bytes
        }
    }

    static func report(_ line: String) {
        FileHandle.standardError.write(Data((line + "\n").utf8))
    }
}

/// Runs a body with file descriptor 2 pointed at a temporary file, and returns what was written
/// there. For a single-threaded command only: the redirection is process-wide.
enum StandardErrorCapture {
    static func capturing<T>(_ body: () -> T) -> (T, String) {
        guard let file = tmpfile() else { return (body(), "") }
        defer { fclose(file) }
        let saved = dup(2)
        guard saved >= 0 else { return (body(), "") }
        fflush(nil)  // every C stream: stderr is unbuffered, but be sure
        dup2(fileno(file), 2)
        let result = body()
        fflush(nil)  // every C stream: stderr is unbuffered, but be sure
        dup2(saved, 2)
        close(saved)
        var text = Data()
        rewind(file)
        var buffer = [UInt8](repeating: 0, count: 4096)
        while text.count < 64 << 10 {
            let n = fread(&buffer, 1, buffer.count, file)
            if n <= 0 { break }
            text.append(contentsOf: buffer[..<n])
        }
        return (result, String(decoding: text, as: UTF8.self))
    }
}
