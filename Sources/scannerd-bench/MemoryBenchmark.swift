import ArgumentParser
import BarcodeRecognition
import Capture
import ContentTypes
import Foundation
import Logging
import Pipeline
import Recognition
import ScannerCore
import TestSupport
import TextRecognition

/// Does any stage hold on to memory per call? Each stage runs over and over on the demo clip's frames
/// in a process of its own (so one stage's freed memory cannot hide another's growth), and the growth
/// of anonymous resident memory after a warm-up is reported per 1000 calls.
///
/// This is how the soak's RSS creep was traced to zbar's QR decoder (mchehab/zbar#258): the daemon
/// as a whole grows with every frame, each stage alone shows which one.
enum MemoryBenchmark {
    struct Stage {
        var name: String
        var calls: Int
        var note: String
    }

    static let stages: [Stage] = [
        Stage(name: "zbar-qr-unrenewed", calls: 5000, note: "QR only: zxing-cpp, then zbar, its scanner kept for ever (zbar as shipped)"),
        Stage(name: "zbar-qr", calls: 5000, note: "QR only: zxing-cpp, then zbar, its scanner renewed every 256 symbols (ours)"),
        Stage(name: "zbar-linear", calls: 5000, note: "EAN-13, Code 128, Code 39, I2of5, Codabar, DataBar: zxing-cpp, zbar for the EAN-13"),
        Stage(name: "zxing-pdf417", calls: 5000, note: "PDF417 through zxing-cpp"),
        Stage(name: "barcodes-all", calls: 1500, note: "every symbology, as `scan` reads them (zxing-cpp, enlarged 1.5×, zbar)"),
        Stage(name: "tesseract", calls: 500, note: "TessBaseAPI Recognize, one instance reused"),
        Stage(name: "text", calls: 1000, note: "ImageScanner: Tesseract + phone/URL/e-mail detection"),
        Stage(name: "sequence", calls: 3000, note: "Pipeline every frame, every type, deterministic (OCR every 3rd frame)"),
    ]

    /// The table for docs/benchmarks.md; each stage runs in a child process (`--memory-probe`).
    static func render(today: String, machine: String) throws -> String {
        var out = "<!-- memory:begin (written by `make bench`) -->\n## Memory held per call, by stage\n\n"
        out += "Measured \(today) on \(machine); release build. Each stage runs alone in its own process on the demo "
        out += "clip's 30 frames (640 px wide), round and round; `RssAnon` is sampled 11 times after a warm-up "
        out += "of a fifth of the calls: its growth from first to last sample, and the least-squares slope through the "
        out += "samples of the second half. malloc grows in steps of pages until it holds the largest working set a "
        out += "stage needs, which shows in the growth but levels off; memory kept per call shows in both columns.\n\n"
        out += "| stage | calls | RssAnon growth (kB) | second half, kB per 1000 calls | what runs |\n|---|---:|---:|---:|---|\n"
        for stage in stages {
            let result = try Subprocess.run(
                Subprocess.executable("scannerd-bench"),
                ["--memory-probe", stage.name, "--memory-iterations", "\(stage.calls)"])
            let samples = result.stdout.split(separator: "\n").compactMap { line -> (Int, Int)? in
                let parts = line.split(separator: " ")
                guard parts.count == 2, let calls = Int(parts[0]), let kB = Int(parts[1]) else { return nil }
                return (calls, kB)
            }
            guard let first = samples.first, let last = samples.last, last.0 > first.0 else {
                out += "| \(stage.name) | – | failed: \(result.stderr.prefix(120)) | | \(stage.note) |\n"
                continue
            }
            let growth = last.1 - first.1
            let secondHalf = samples.filter { $0.0 * 2 >= last.0 }
            let perThousand = slope(secondHalf.map { (Double($0.0), Double($0.1)) }) * 1000
            out += "| \(stage.name) | \(last.0 - first.0) | \(growth) | \(String(format: "%.1f", perThousand)) | \(stage.note) |\n"
        }
        out += "<!-- memory:end -->\n"
        return out
    }

    /// Least-squares slope of y over x.
    static func slope(_ points: [(Double, Double)]) -> Double {
        let n = Double(points.count)
        let mx = points.map(\.0).reduce(0, +) / n
        let my = points.map(\.1).reduce(0, +) / n
        let sxx = points.map { ($0.0 - mx) * ($0.0 - mx) }.reduce(0, +)
        let sxy = points.map { ($0.0 - mx) * ($0.1 - my) }.reduce(0, +)
        return sxx > 0 ? sxy / sxx : 0
    }

    /// Anonymous resident memory in kB: the heap, mostly.
    static func rssAnon() -> Int {
        let status = (try? String(contentsOfFile: "/proc/self/status", encoding: .utf8)) ?? ""
        let line = status.split(separator: "\n").first { $0.hasPrefix("RssAnon:") } ?? ""
        return Int(line.split(separator: " ").dropFirst().first ?? "") ?? -1
    }

    static func demoFrames() throws -> [Frame] {
        let source = try ReplaySource(
            path: "demo", configuration: .init(fps: 30, pace: .none, loop: false, processingWidth: 640),
            logger: Logger(label: "bench"))
        var frames: [Frame] = []
        while true {
            switch source.next() {
            case .frame(let frame): frames.append(frame)
            case .end: return frames
            case .available, .unavailable: continue
            }
        }
    }

    /// The child process: runs `stage` `calls` times after a warm-up, printing `calls kB` lines.
    static func probe(stage: String, calls: Int) throws {
        let frames = try demoFrames()
        let images = frames.map(\.image)
        // The barcode stages differ only in what the recognizer is asked for.
        let linear: Set<Symbology> = [.ean13, .code128, .code39, .i2of5, .codabar, .gs1DataBar]
        let barcodeStages: [String: (symbologies: Set<Symbology>, renewal: Int?)] = [
            "zbar-qr-unrenewed": ([.qr], nil),
            "zbar-qr": ([.qr], ZBarScanner.defaultRenewal),
            "zbar-linear": (linear, ZBarScanner.defaultRenewal),
            "zxing-pdf417": ([.pdf417], ZBarScanner.defaultRenewal),
        ]
        let call: (Int) -> Void
        switch stage {
        case "barcodes-all":
            let recognizer = try BarcodeRecognizer(symbologies: Set(Symbology.allCases))
            recognizer.enlargedRead = QualitySettings(.balanced).stillEnlargedBarcodeRead
            call = { i in _ = recognizer.recognize(images[i % images.count]) }
        case let name where barcodeStages[name] != nil:
            let (symbologies, renewal) = barcodeStages[name]!
            let recognizer = try BarcodeRecognizer(symbologies: symbologies, renewAfterSymbols: renewal)
            call = { i in _ = recognizer.recognize(images[i % images.count]) }
        case "tesseract":
            let recognizer = try TextRecognizer()
            call = { i in _ = recognizer.recognize(images[i % images.count]) }
        case "text":
            let scanner = try ImageScanner(
                options: ScanOptions(types: RecognitionTypes(symbologies: [], contentTypes: TextContentType.standard)))
            call = { i in _ = scanner.scan(images[i % images.count]) }
        case "sequence":
            let handler = try Pipeline(configuration: SequenceConfiguration(options: ScanOptions()), pacing: .everyFrame(fps: 30))
            call = { i in
                var frame = frames[i % frames.count]
                frame.index = i
                _ = handler.process(frame, time: Double(i) / 30)
            }
        default:
            throw ValidationError("unknown stage '\(stage)': \(stages.map(\.name).joined(separator: ", "))")
        }
        let warmUp = max(1, calls / 5)
        for i in 0..<warmUp { call(i) }
        print("0 \(rssAnon())")
        let step = max(1, calls / 10)
        for i in 1...calls {
            call(warmUp + i)
            if i % step == 0 || i == calls { print("\(i) \(rssAnon())") }
        }
    }
}
