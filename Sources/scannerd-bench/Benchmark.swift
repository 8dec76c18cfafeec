import ArgumentParser
import BarcodeRecognition
import ContentTypes
import Foundation
import ImageDecoding
import Recognition
import ScannerCore
import TestSupport
import TextRecognition

/// Measures each recognition stage per image, next to the naive way of calling the same library,
/// and writes the table into docs/benchmarks.md (between markers, so other sections stay).
@main
struct Benchmark: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "scannerd-bench", abstract: "Per-stage recognition costs → docs/benchmarks.md")

    @Option(help: "Markdown file to update (the recognition section only).")
    var output: String?

    @Option(help: "Repetitions of the cheap stages (Tesseract runs a fifth as often).")
    var iterations: Int = 40

    @Option(help: ArgumentHelp("Internal: measure capture on this (emulated) device in this process.", visibility: .hidden))
    var probeDevice: String?

    @Option(help: ArgumentHelp("Internal: processing width for --probe-device (0 = full size).", visibility: .hidden))
    var probeWidth: Int = 0

    @Option(help: ArgumentHelp("Internal: run one stage repeatedly, printing RssAnon (the memory section).", visibility: .hidden))
    var memoryProbe: String?

    @Option(help: ArgumentHelp("Internal: calls for --memory-probe.", visibility: .hidden))
    var memoryIterations: Int = 2000

    @Option(help: ArgumentHelp("Clips from `make footage` for the lines section.", valueName: "dir"))
    var footage: String = ".build/footage"

    @Option(help: ArgumentHelp("zxing-cpp's test/samples directory, for the blackbox section (skipped without it).", valueName: "dir"))
    var blackbox: String?

    @Option(
        help: ArgumentHelp(
            "The text models the realtime section's daemon reads with (default .build/models, which `make deps` fetches; none: Tesseract alone).",
            valueName: "dir"))
    var lineModel: String?

    /// `--line-model`, else the one `make deps` fetched, as an absolute path; nil: none.
    var lineModelDirectory: String? {
        if lineModel == "none" { return nil }
        let path = lineModel ?? ".build/models"
        let absolute = path.hasPrefix("/") ? path : FileManager.default.currentDirectoryPath + "/" + path
        return lineModel != nil || FileManager.default.fileExists(atPath: absolute + "/alphabet.json") ? absolute : nil
    }

    @Option(
        help: ArgumentHelp(
            "Runs of each clip at `--pace realtime` in the realtime section: its latency varies from run to run (two threads racing for two cores), and one run of a seed set does not settle a median.",
            valueName: "n"))
    var realtimeRuns = 3

    @Option(
        help: ArgumentHelp(
            "Run only these sections (recognition, capture, sequence, delivery, memory, lines, documents, realtime, blackbox).", valueName: "list"))
    var only: String?

    @Option(
        help: ArgumentHelp(
            "Internal: print the text lines found in this image and what each reads as; with --explain-output, write each straightened line there as PGM.",
            visibility: .hidden))
    var explainLines: String?

    @Option(help: ArgumentHelp("Internal: directory for --explain-lines.", visibility: .hidden))
    var explainOutput: String?

    @Option(help: ArgumentHelp("Internal: the lines section at each of these reading heights (printed only).", visibility: .hidden))
    var readingHeights: String?

    func wants(_ section: String) -> Bool { only.map { $0.split(separator: ",").contains(Substring(section)) } ?? true }

    func run() async throws {
        if let probeDevice {
            try CaptureBenchmark.probe(device: probeDevice, frames: 60, processingWidth: probeWidth == 0 ? nil : probeWidth)
            return
        }
        if let memoryProbe {
            try MemoryBenchmark.probe(stage: memoryProbe, calls: memoryIterations)
            return
        }
        if let readingHeights {
            print(
                try LinesBenchmark.render(
                    footage: footage, today: Self.today(), machine: Self.machine(),
                    heights: readingHeights.split(separator: ",").compactMap { Int($0) }))
            return
        }
        if let explainLines {
            try LinesBenchmark.explain(image: explainLines, output: explainOutput, lineModel: lineModelDirectory)
            return
        }
        var sections: [(String, String)] = []
        if wants("recognition") {
            var rows: [Row] = []
            for name in ["bench-640x480.jpg", "bench-1280x720.jpg"] { rows += try measure(fixture: name) }
            sections.append(("recognition", render(rows)))
        }
        if wants("capture") { sections.append(("capture", try measureCapture())) }
        if wants("sequence") {
            sections.append(("sequence", try SequenceBenchmark.render(today: Self.today(), machine: Self.machine(), repetitions: 5)))
        }
        if wants("delivery") {
            sections.append(("delivery", try await DeliveryBenchmark.render(today: Self.today(), machine: Self.machine())))
        }
        if wants("documents") {
            sections.append(
                (
                    "documents",
                    try DocumentsBenchmark.render(footage: footage, lineModel: lineModelDirectory, today: Self.today(), machine: Self.machine())
                ))
        }
        if wants("lines") {
            sections.append(("lines", try LinesBenchmark.render(footage: footage, today: Self.today(), machine: Self.machine())))
        }
        if wants("realtime") {
            sections.append(
                (
                    "realtime",
                    try RealtimeBenchmark.render(
                        footage: footage, lineModel: lineModelDirectory, realtimeRuns: max(1, realtimeRuns), today: Self.today(),
                        machine: Self.machine())
                ))
        }
        if wants("blackbox"), let blackbox {
            sections.append(("blackbox", try BlackboxBenchmark.render(samples: blackbox, today: Self.today(), machine: Self.machine())))
        }
        if wants("memory") {
            sections.append(("memory", try MemoryBenchmark.render(today: Self.today(), machine: Self.machine())))
        }
        for (name, text) in sections where !text.isEmpty {
            print(text)
            if let output { try update(output, with: text, section: name) }
        }
    }

    /// Capture and decode on the emulated camera, and the daemon's idle CPU.
    func measureCapture() throws -> String {
        guard FileManager.default.fileExists(atPath: CaptureBenchmark.library) else {
            print("(no libFakeCamera.so next to the benchmark: capture figures skipped)")
            return ""
        }
        let scene = try CaptureBenchmark.clip(of: "bench-1280x720.jpg")
        var out = "<!-- capture:begin (written by `make bench`) -->\n## Capture, 1280×720 from the emulated camera\n\n"
        out += "Measured \(Self.today()) on \(Self.machine()); release build.\n\n"
        out += "CPU time of the capture thread per delivered frame (poll, dequeue all, validate, decode, requeue), median (p90):\n\n"
        out += "| format | decoded to | ms per frame |\n|---|---|---:|\n"
        for (format, width) in [("MJPG", 0), ("MJPG", 640), ("YUYV", 0), ("YUYV", 640)] {
            let result = try Subprocess.run(
                Subprocess.executable("scannerd-bench"), ["--probe-device", "/dev/video0", "--probe-width", "\(width)"],
                environment: CaptureBenchmark.environment(frames: scene, format: format))
            let parts = result.stdout.split(separator: " ")
            guard parts.count == 3, let median = Double(parts[0]), let p90 = Double(parts[1]) else {
                out += "| \(format) | – | failed: \(result.stderr.prefix(120)) |\n"
                continue
            }
            out += "| \(format) | \(parts[2].trimmingCharacters(in: .whitespacesAndNewlines)) | \(String(format: "%.2f (%.2f)", median, p90)) |\n"
        }
        let empty = try CaptureBenchmark.clip(of: "bench-empty-1280x720.jpg")
        out +=
            "\nWhole daemon at 30 fps on frames with nothing to recognise (`scannerd run --device … --width 1280 --height 720`, default types, 10 s window):\n\n"
        out += "| quality | CPU (% of one core) |\n|---|---:|\n"
        for level in ["fast", "balanced"] {
            let (percent, frames) = try CaptureBenchmark.daemonCPU(
                environment: CaptureBenchmark.environment(frames: empty),
                arguments: [
                    "run", "--no-socket", "--device", "/dev/video0", "--width", "1280", "--height", "720", "--quality", level,
                    "--events-stdout", "--log-level", "error",
                ],
                seconds: 10)
            _ = frames
            out += "| \(level) | \(String(format: "%.0f", percent)) |\n"
        }
        out += "<!-- capture:end -->\n"
        return out
    }

    struct Row {
        var image: String
        var stage: String
        var ours: Stats
        var naive: Stats?
        var note: String
    }

    func measure(fixture: String) throws -> [Row] {
        let data = try Fixtures.data(fixture)
        let decoder = try JPEGDecoder()
        let size = fixture.replacingOccurrences(of: "bench-", with: "").replacingOccurrences(of: ".jpg", with: "")
        let slow = max(3, iterations / 5)
        var rows: [Row] = []

        // Decode: gray straight out of the IDCT vs full RGB then a luma conversion in Swift.
        let gray = try data.withUnsafeBytes { raw in try decoder.decodeGray(raw).image }
        let decodeGray = try time(iterations) { _ = try data.withUnsafeBytes { try decoder.decodeGray($0) } }
        let decodeRGB = try time(iterations) {
            _ = try data.withUnsafeBytes { raw in Self.luma(try decoder.decodeRGB(raw)) }
        }
        rows.append(
            Row(
                image: size, stage: "decode JPEG → gray", ours: decodeGray, naive: decodeRGB,
                note: "TJPF_GRAY vs RGB decode + Swift luma"))
        if gray.width > 640 {
            let half = try time(iterations) { _ = try data.withUnsafeBytes { try decoder.decodeGray($0, targetWidth: 640) } }
            rows.append(
                Row(
                    image: size, stage: "decode → gray at 640 px", ours: half, naive: decodeRGB,
                    note: "DCT scaling 1/2 inside the IDCT"))
        }

        // zbar: only what is asked for (QR) vs every symbology it reads.
        let qrOnly = try ZBarScanner(symbologies: [.qr])
        let everything = try ZBarScanner(symbologies: ZBarScanner.readable)
        precondition(qrOnly.scan(gray).count == 1, "the bench scene holds one QR code")
        let zbarQR = try time(iterations) { _ = qrOnly.scan(gray) }
        let zbarAll = try time(iterations) { _ = everything.scan(gray) }
        rows.append(Row(image: size, stage: "zbar", ours: zbarQR, naive: zbarAll, note: "QR only vs all zbar symbologies"))
        // zxing-cpp 3.x (issue #41): what one symbology costs against all of them in one read.
        let zxingQR = ZXingReader(symbologies: [.qr])
        let zxingAll = ZXingReader(symbologies: Set(Symbology.allCases))
        precondition(zxingAll.read(gray).count == 1, "the bench scene holds one QR code")
        rows.append(
            Row(
                image: size, stage: "zxing-cpp", ours: try time(iterations) { _ = zxingQR.read(gray) },
                naive: try time(iterations) { _ = zxingAll.read(gray) }, note: "QR only vs every symbology"))
        for (symbology, name) in [(Symbology.pdf417, "PDF417"), (.datamatrix, "DataMatrix"), (.aztec, "Aztec"), (.maxicode, "MaxiCode")] {
            let reader = ZXingReader(symbologies: [symbology])
            rows.append(
                Row(
                    image: size, stage: "zxing-cpp \(name)", ours: try time(iterations) { _ = reader.read(gray) },
                    naive: nil, note: "paid only when \(symbology.rawValue) is requested"))
        }
        // A camera frame's barcode scan (issue #41, `BarcodeCadence`): zxing-cpp on the frame as it is,
        // quick on two scans in three, thorough (rotated, inverted, then zbar) on the third, against
        // zbar alone with every symbology it reads.
        let live = try BarcodeRecognizer(symbologies: Set(Symbology.allCases), scanDensity: QualitySettings(.balanced).liveBarcodeScanDensity)
        let cadence = QualitySettings(.balanced).liveThoroughBarcodeScanEvery
        rows.append(
            Row(
                image: size, stage: "barcodes, camera frame, quick", ours: try time(iterations) { _ = live.recognize(gray, thorough: false) },
                naive: zbarAll, note: "zxing-cpp upright, dark on light vs zbar, all its symbologies"))
        rows.append(
            Row(
                image: size, stage: "barcodes, camera frame, thorough", ours: try time(iterations) { _ = live.recognize(gray) },
                naive: zbarAll, note: "1 scan in \(cadence): zxing-cpp rotated and inverted too, then zbar (every 2nd row) vs zbar alone"))
        // The still image's policy: zxing-cpp, then zbar for what it missed, against zxing-cpp alone.
        let policy = try BarcodeRecognizer(symbologies: Set(Symbology.allCases), testInverted: true)
        rows.append(
            Row(
                image: size, stage: "barcodes, every symbology", ours: try time(iterations) { _ = policy.recognize(gray) },
                naive: try time(iterations) { _ = zxingAll.read(gray) }, note: "zxing-cpp + zbar on what it missed vs zxing-cpp alone"))

        // Tesseract: one instance reused vs a fresh init per image.
        let tesseract = try TextRecognizer()
        var lines: [RecognizedLine] = []
        let ocr = try time(slow) { lines = tesseract.recognize(gray) }
        let fresh = try time(slow) { _ = try TextRecognizer().recognize(gray) }
        rows.append(
            Row(
                image: size, stage: "Tesseract (sparse text)", ours: ocr, naive: fresh,
                note: "reused instance vs init per image"))

        // Content typing over what Tesseract read.
        let detector = try ContentDetector(contentTypes: TextContentType.standard)
        let found = lines.flatMap { detector.matches(in: $0.text) }
        precondition(found.count >= 2, "the bench scene holds a phone number and an e-mail address: \(lines.map(\.text))")
        let typing = try time(iterations) { for line in lines { _ = detector.matches(in: line.text) } }
        rows.append(
            Row(
                image: size, stage: "content typing (\(lines.count) lines)", ours: typing, naive: nil,
                note: "libphonenumber matcher + URL/e-mail rules"))

        // The whole still-image scan at each quality level.
        for level in QualityLevel.allCases {
            let scanner = try ImageScanner(options: ScanOptions(quality: level))
            let jpeg = try JPEGDecoder()
            let whole = try time(slow) {
                let image = try data.withUnsafeBytes { try jpeg.decodeGray($0, targetWidth: scanner.settings.processingWidth).image }
                _ = scanner.scan(image)
            }
            rows.append(
                Row(
                    image: size, stage: "scan, quality \(level.rawValue)", ours: whole, naive: nil,
                    note: "decode + barcodes + OCR + typing"))
        }
        return rows
    }

    static func luma(_ decoded: (width: Int, height: Int, rgb: [UInt8])) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: decoded.width * decoded.height)
        for i in 0..<out.count {
            let r = Int(decoded.rgb[3 * i])
            let g = Int(decoded.rgb[3 * i + 1])
            let b = Int(decoded.rgb[3 * i + 2])
            out[i] = UInt8((299 * r + 587 * g + 114 * b) / 1000)
        }
        return out
    }

    struct Stats {
        var median: Double
        var p90: Double
    }

    /// Milliseconds per call: one warm-up, then `n` timed calls.
    func time(_ n: Int, _ body: () throws -> Void) throws -> Stats {
        try body()
        var samples: [Double] = []
        let clock = ContinuousClock()
        for _ in 0..<n {
            let elapsed = try clock.measure(body)
            samples.append(Double(elapsed.components.attoseconds) / 1e15 + Double(elapsed.components.seconds) * 1000)
        }
        samples.sort()
        return Stats(median: samples[samples.count / 2], p90: samples[min(samples.count - 1, samples.count * 9 / 10)])
    }

    func render(_ rows: [Row]) -> String {
        func ms(_ v: Double) -> String { v < 1 ? String(format: "%.3f", v) : String(format: "%.1f", v) }
        var out = "<!-- recognition:begin (written by `make bench`) -->\n"
        out += "## Recognition, per still image\n\n"
        out += "Measured \(Self.today()) on \(Self.machine()); release build; median (p90) ms per call.\n\n"
        out += "| image | stage | scannerd | naive | gain | how |\n|---|---|---:|---:|---:|---|\n"
        for row in rows {
            let naive = row.naive.map { "\(ms($0.median)) (\(ms($0.p90)))" } ?? "–"
            let gain = row.naive.map { String(format: "%.1f×", $0.median / row.ours.median) } ?? "–"
            out += "| \(row.image) | \(row.stage) | \(ms(row.ours.median)) (\(ms(row.ours.p90))) | \(naive) | \(gain) | \(row.note) |\n"
        }
        out += "<!-- recognition:end -->\n"
        return out
    }

    func update(_ path: String, with section: String, section name: String) throws {
        var text = (try? String(contentsOfFile: path, encoding: .utf8)) ?? "# Benchmarks\n\n"
        if let start = text.range(of: "<!-- \(name):begin"), let end = text.range(of: "<!-- \(name):end -->\n") {
            text.replaceSubrange(start.lowerBound..<end.upperBound, with: section)
        } else {
            text += "\n" + section
        }
        try text.write(toFile: path, atomically: true, encoding: .utf8)
    }

    static func today() -> String {
        let formatter = DateFormatter()
        formatter.dateFormat = "yyyy-MM-dd"
        formatter.timeZone = TimeZone(identifier: "UTC")
        return formatter.string(from: Date())
    }

    static func machine() -> String {
        let cpuinfo = (try? String(contentsOfFile: "/proc/cpuinfo", encoding: .utf8)) ?? ""
        let model =
            cpuinfo.split(separator: "\n").first { $0.hasPrefix("model name") }?
            .split(separator: ":", maxSplits: 1).last?.trimmingCharacters(in: .whitespaces) ?? "unknown CPU"
        return "\(model), \(ProcessInfo.processInfo.activeProcessorCount) cores, "
            + "\(ProcessInfo.processInfo.physicalMemory / 1_073_741_824) GiB"
    }
}
