import Capture
import ContentTypes
import Foundation
import ImageDecoding
import LineNetwork
import Recognition
import ScannerCore
import TextDetection
import TextRecognition

/// Text lines on the realistic footage (issue #13): for each text item of each clip's truth, in the
/// middle of its legible frames, is there a detected line at its centre, and does reading that line
/// alone (straightened from the full-resolution frame, PSM 7) give the item's payload? Distractors
/// that come out typed count against it. Needs clips from `make footage` (the directory given).
enum LinesBenchmark {
    struct Truth: Decodable {
        var scenario: String
        var seed: Int
        var items: [Item]
    }

    struct Item: Decodable {
        var kind: String
        var payload: String?
        var transcript: String?
        var distractor: Bool?
        var frames: [Sighting]
    }

    struct Sighting: Decodable {
        var frame: Int
        var corners: [[Double]]
        var legible: Bool
    }

    struct Tally {
        var items = 0, lined = 0, wanted = 0, read = 0, falseTyped = 0
        var naiveRead = 0, naiveFalse = 0, naiveFrames = 0, naiveSeconds = 0.0
        var detectSeconds = 0.0, readSeconds = 0.0, reads = 0
        /// `scannerd scan` on the whole middle legible frame of each item (and the middle frame of
        /// every clip, the empty desk's included): items read right, and typed payloads in no truth item.
        var scanWanted = 0, scanRead = 0, scanFalse = 0
    }

    static func render(footage: String, today: String, machine: String, heights: [Int] = [LineReader.standardHeight]) throws -> String {
        var out = ""
        for height in heights { out += try render(footage: footage, today: today, machine: machine, height: height) }
        return out
    }

    static func render(footage: String, today: String, machine: String, height readingHeight: Int) throws -> String {
        let clips = ((try? FileManager.default.contentsOfDirectory(atPath: footage)) ?? []).filter { $0.hasSuffix(".json") }.sorted()
        guard !clips.isEmpty else {
            print("(no clips in \(footage): run `make footage` first; the lines section is skipped)")
            return ""
        }
        let recognizer = try TextRecognizer()
        let content = try ContentDetector(contentTypes: [.telephoneNumber, .url, .emailAddress])
        let verbose = ProcessInfo.processInfo.environment["LINES_VERBOSE"] != nil
        func payload(_ item: Item) -> String { item.payload ?? "" }
        let tesseract = TesseractLineRecognizer(recognizer, readingHeight: readingHeight)
        let decoder = try ImageDecoder()
        // The naive way, for comparison: Tesseract's own layout analysis (PSM 11) on the whole frame,
        // what scannerd did before issue #13. Once per frame (items of a clip share their frames).
        var naive: [String: (payloads: Set<String>, seconds: Double)] = [:]
        func naiveRead(_ key: String, _ image: GrayImage) -> (payloads: Set<String>, seconds: Double) {
            if let cached = naive[key] { return cached }
            let start = ContinuousClock.now
            let lines = recognizer.recognize(image, segmentation: .sparseText)
            let result = (Set(lines.flatMap { content.matches(in: $0.text).map(\.payload) }), (ContinuousClock.now - start).inSeconds)
            naive[key] = result
            return result
        }
        // `scannerd scan`'s way: the whole frame, every content type, the default quality.
        let scanner = try ImageScanner(options: ScanOptions(types: RecognitionTypes(symbologies: [], contentTypes: TextContentType.standard)))
        var scanned: [String: Set<String>] = [:]
        var byScenario: [String: Tally] = [:]
        for name in clips {
            let truth = try JSONDecoder().decode(Truth.self, from: Data(contentsOf: URL(fileURLWithPath: footage + "/" + name)))
            let clip = try Data(contentsOf: URL(fileURLWithPath: footage + "/" + name.replacingOccurrences(of: ".json", with: ".mjpeg")))
            let frames = MJPEGStream.frames(in: clip)
            var tally = byScenario[truth.scenario] ?? Tally()
            let wantedPayloads = Set(truth.items.filter { $0.distractor != true }.compactMap(\.payload))
            func scan(_ index: Int) throws -> Set<String> {
                let key = "\(name) \(index)"
                if let cached = scanned[key] { return cached }
                let payloads = Set(scanner.scan(try decoder.decode(clip.subdata(in: frames[index])).image).map(\.payload))
                scanned[key] = payloads
                tally.scanFalse += payloads.subtracting(wantedPayloads).count
                return payloads
            }
            if !frames.isEmpty { _ = try scan(frames.count / 2) }
            for item in truth.items where item.kind == "text" {
                let legible = item.frames.filter(\.legible)
                guard legible.count > 10 else { continue }
                if item.distractor != true, let payload = item.payload {
                    tally.scanWanted += 1
                    if try scan(legible[legible.count / 2].frame).contains(payload) { tally.scanRead += 1 }
                }
                // A quarter, half and three quarters into its legible frames: three different poses.
                for sighting in [legible[legible.count / 4], legible[legible.count / 2], legible[legible.count * 3 / 4]] {
                    let bytes = clip.subdata(in: frames[sighting.frame])
                    let full = try decoder.decode(bytes).image
                    let corners = sighting.corners.map { Point(x: $0[0] * Double(full.width), y: $0[1] * Double(full.height)) }
                    let center = Point(x: corners.map(\.x).reduce(0, +) / 4, y: corners.map(\.y).reduce(0, +) / 4)
                    let distractor = item.distractor == true
                    let naiveKey = "\(name) \(sighting.frame)"
                    let isNew = naive[naiveKey] == nil
                    let naiveResult = naiveRead(naiveKey, full)
                    if isNew {
                        tally.naiveFrames += 1
                        tally.naiveSeconds += naiveResult.seconds
                        tally.naiveFalse += naiveResult.payloads.subtracting(wantedPayloads).count
                    }
                    if !distractor, let payload = item.payload, naiveResult.payloads.contains(payload) { tally.naiveRead += 1 }
                    tally.items += 1
                    if !distractor { tally.wanted += 1 }
                    let start = ContinuousClock.now
                    let lines = ClassicalLineDetector().lines(in: full)
                    tally.detectSeconds += (ContinuousClock.now - start).inSeconds
                    // The thinnest line there: a junk quad across several lines may hold the centre too.
                    guard let line = lines.filter({ $0.quad.contains(center) }).min(by: { $0.textHeight < $1.textHeight }) else { continue }
                    tally.lined += 1
                    let readStart = ContinuousClock.now
                    let lineRead = tesseract.read(line.quad, in: full)?.line
                    let text = lineRead?.text ?? ""
                    if verbose, let lineRead {
                        for match in content.matches(in: text) {
                            let confidence = TextReader.words(of: lineRead, covering: match.utf8Range).map(\.confidence).min() ?? 0
                            let right = !distractor && match.payload == item.payload
                            print(String(format: "typed %@ word confidence %.2f %@", right ? "right" : "wrong", confidence, match.payload))
                        }
                    }
                    tally.readSeconds += (ContinuousClock.now - readStart).inSeconds
                    tally.reads += 1
                    let payloads = content.matches(in: text).map(\.payload)
                    if distractor {
                        if !payloads.isEmpty { tally.falseTyped += 1 }
                    } else if let payload = item.payload, payloads.contains(payload) {
                        tally.read += 1
                    } else if verbose {
                        print("miss \(name) frame \(sighting.frame): \(payload(item)) read \"\(text)\"")
                    }
                }
            }
            byScenario[truth.scenario] = tally
        }
        var out = "<!-- lines:begin (written by `make bench`) -->\n## Text lines on realistic footage\n\n"
        out += "Measured \(today) on \(machine); release build; clips from `make footage` (\(clips.count) clips in \(footage)). "
        out += "Per text item, at a quarter, half and three quarters into its legible frames: a detected line at its centre "
        out += "(`LineReader`: detection at up to 960 px), and the typed payload read from that line alone (straightened "
        out += "from the full frame to \(readingHeight) px, Tesseract PSM 7). Next to it the naive way on the same frames: "
        out += "Tesseract's layout analysis on the whole frame (PSM 11, what scannerd did before), typed items read right, and "
        out += "typed payloads it reported that are in no truth item (misreads and distractors), per frame. Last, "
        out += "`scannerd scan`'s way (`ImageScanner.scan`, the whole frame, balanced) on the middle legible frame of each "
        out += "item: items read right, and typed payloads in no truth item on those frames and on the middle frame of "
        out += "every clip (the empty desk's included).\n\n"
        out += "| scenario | text items | line found | typed items read right | distractors typed | detection ms/frame | reading ms/line "
        out += "| naive: read right | naive: false typed | naive: ms/frame | scan: read right | scan: false typed |\n"
        out += "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n"
        var total = Tally()
        for (scenario, t) in byScenario.sorted(by: { $0.key < $1.key }) {
            out += "| \(scenario) | \(t.items) | \(t.lined) | \(t.read) / \(t.wanted) | \(t.falseTyped) | "
            out += String(format: "%.1f | %.1f | ", t.detectSeconds / Double(max(1, t.items)) * 1000, t.readSeconds / Double(max(1, t.reads)) * 1000)
            out +=
                "\(t.naiveRead) / \(t.wanted) | \(t.naiveFalse) | " + String(format: "%.0f | ", t.naiveSeconds / Double(max(1, t.naiveFrames)) * 1000)
            out += "\(t.scanRead) / \(t.scanWanted) | \(t.scanFalse) |\n"
            total.items += t.items
            total.lined += t.lined
            total.read += t.read
            total.wanted += t.wanted
            total.falseTyped += t.falseTyped
            total.naiveRead += t.naiveRead
            total.naiveFalse += t.naiveFalse
            total.scanRead += t.scanRead
            total.scanWanted += t.scanWanted
            total.scanFalse += t.scanFalse
        }
        out +=
            "| all | \(total.items) | \(total.lined) | \(total.read) / \(total.wanted) | \(total.falseTyped) | | | \(total.naiveRead) / \(total.wanted) | \(total.naiveFalse) | "
        out += "| \(total.scanRead) / \(total.scanWanted) | \(total.scanFalse) |\n"
        out += "<!-- lines:end -->\n"
        return out
    }

    /// What the detector finds in one image and what each line reads as (a tool for looking at misses).
    /// With `lineModel`, each line's reading by the line network follows, with its confidence.
    static func explain(image path: String, output: String?, lineModel: String? = nil) throws {
        let image = try ImageDecoder().decodeFile(atPath: path).image
        let recognizer = try TextRecognizer()
        let reader = LineReader()
        let tesseract = TesseractLineRecognizer(recognizer)
        let network = try lineModel.map { NetworkLineRecognizer(try LineNetwork(directory: $0)) }
        for (n, line) in ClassicalLineDetector().lines(in: image).enumerated() {
            let corners = line.quad.corners.map { String(format: "%.0f,%.0f", $0.x, $0.y) }.joined(separator: " ")
            let reading = tesseract.read(line.quad, in: image)
            let cut = reading?.cut ?? reader.cutEnds(of: line.quad, in: image)
            let ends = (cut.start ? "<" : " ") + (cut.end ? ">" : " ")
            print(String(format: "%2d  h %5.1f  score %.2f  %@  [%@]  %@", n, line.textHeight, line.score, ends, corners, reading?.line.text ?? ""))
            if let network, let read = network.read(line.quad, in: image) {
                print(String(format: "    network %.2f  %@", read.line.confidence, read.line.text))
            }
            if let output {
                let crop = image.rectified(line.quad, height: reader.readingHeight).normalizedForReading()
                var pgm = Data("P5\n\(crop.width) \(crop.height)\n255\n".utf8)
                pgm.append(contentsOf: crop.pixels)
                try pgm.write(to: URL(fileURLWithPath: "\(output)/line-\(n).pgm"))
            }
        }
    }
}
