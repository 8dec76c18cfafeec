import Capture
import Foundation
import ImageDecoding
import Logging
import Pipeline
import Recognition
import ScannerCore
import TestSupport
import Tracking

/// The sequence pipeline on the committed clips at real-time pace, against the naive pipeline
/// (zbar + Tesseract on every frame the loop can take, and a tracker that reports a string after 10
/// sightings and never forgets — the WWDC 2019 StringTracker).
enum SequenceBenchmark {
    /// Ground truth of Tests/Fixtures/clips/sequence (see generate.py).
    static let qr = (payload: "https://example.com/clip", visible: 12, last: 41)
    static let phone = (payload: "+12125550187", visible: 105, last: 134)
    static let fps = 30.0

    struct Run {
        var qrAdded: Int?
        var phoneAdded: Int?
        var qrRemoved: Int?
        var phoneRemoved: Int?
        var falseEvents = 0
        var cpuPercent = 0.0
    }

    /// The clip's frames enlarged to 1280×720 (letterboxed, as a 720p camera would frame the scene),
    /// written once to a temporary directory: the 720p30 case of the goals.
    static func hd(_ clip: String) throws -> String {
        let source = Fixtures.directory.appendingPathComponent("clips/\(clip)")
        let target = FileManager.default.temporaryDirectory.appendingPathComponent("scannerd-bench-720p-\(clip)")
        try? FileManager.default.removeItem(at: target)
        try FileManager.default.createDirectory(at: target, withIntermediateDirectories: true)
        let decoder = try ImageDecoder()
        let encoder = try JPEGEncoder()
        var made: [String: Data] = [:]
        for name in try FileManager.default.contentsOfDirectory(atPath: source.path).filter({ $0.hasSuffix(".jpg") }) {
            let original = source.appendingPathComponent(name).resolvingSymlinksInPath()
            if made[original.path] == nil {
                let frame = try decoder.decodeFile(atPath: original.path).image.scaled(by: 1.5)  // 960×720
                var canvas = [UInt8](repeating: 215, count: 1280 * 720)
                for y in 0..<720 { for x in 0..<frame.width { canvas[y * 1280 + 160 + x] = frame[x, y] } }
                made[original.path] = try encoder.encode(GrayImage(width: 1280, height: 720, pixels: canvas), quality: 80)
            }
            try made[original.path]!.write(to: target.appendingPathComponent(name))
        }
        return target.path
    }

    static func source(_ clip: String, loop: Bool = false) throws -> ReplaySource {
        try ReplaySource(
            path: clip.hasPrefix("/") ? clip : Fixtures.path("clips/\(clip)"),
            configuration: .init(fps: fps, pace: .realtime, loop: loop, processingWidth: 640),
            logger: Logger(label: "bench"))
    }

    static func processCPU() -> Double {
        var usage = rusage()
        getrusage(Int32(RUSAGE_SELF.rawValue), &usage)
        return Double(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) + Double(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6
    }

    /// Ours: the live pipeline (two recognizer threads, keep-latest hand-offs, gates, trackers).
    static func ours(_ clip: String = "sequence", seconds: Double? = nil) throws -> Run {
        let start = ContinuousClock.now
        let pipeline = try Pipeline(
            configuration: SequenceConfiguration(options: ScanOptions()), pacing: .newestFrame(clock: { (ContinuousClock.now - start).inSeconds }))
        let replay = try source(clip, loop: seconds != nil)
        final class Box: @unchecked Sendable {
            var run = Run()
            var added: [String: Int] = [:]
        }
        let box = Box()
        if let seconds {
            nonisolated(unsafe) let stoppable = replay
            DispatchQueue.global().asyncAfter(deadline: .now() + seconds) { stoppable.cancel() }
        }
        let cpu0 = processCPU()
        let t0 = ContinuousClock.now
        pipeline.run(source: replay) { event in
            guard case .item(let action, let frame) = event else { return }
            let payload = action.item.item.payload
            switch action {
            case .added:
                box.added[payload, default: 0] += 1
                if payload == qr.payload, box.run.qrAdded == nil {
                    box.run.qrAdded = frame
                } else if payload == phone.payload, box.run.phoneAdded == nil {
                    box.run.phoneAdded = frame
                } else {
                    box.run.falseEvents += 1
                }
                if box.added[payload]! > 1 { box.run.falseEvents += 1 }  // a duplicate
            case .removed:
                if payload == qr.payload, box.run.qrRemoved == nil { box.run.qrRemoved = frame }
                if payload == phone.payload, box.run.phoneRemoved == nil { box.run.phoneRemoved = frame }
            case .updated: break
            }
        }
        box.run.cpuPercent = (processCPU() - cpu0) / (ContinuousClock.now - t0).inSeconds * 100
        return box.run
    }

    /// Naive: every recognizer on whatever frame the loop gets to, count sightings, report at 10.
    static func naive(_ clip: String = "sequence", seconds: Double? = nil) throws -> Run {
        let scanner = try ImageScanner(options: ScanOptions())
        let replay = try source(clip, loop: seconds != nil)
        var sightings: [String: Int] = [:]
        var run = Run()
        let cpu0 = processCPU()
        let t0 = ContinuousClock.now
        let deadline = seconds.map { t0 + .seconds($0) }
        loop: while true {
            if let deadline, ContinuousClock.now > deadline { break }
            switch replay.next() {
            case .frame(let frame):
                for item in scanner.scan(frame.image) {
                    sightings[item.payload, default: 0] += 1
                    guard sightings[item.payload] == 10 else { continue }
                    if item.payload == qr.payload {
                        run.qrAdded = frame.index
                    } else if item.payload == phone.payload {
                        run.phoneAdded = frame.index
                    } else {
                        run.falseEvents += 1
                    }
                }
            case .end: break loop
            default: continue
            }
        }
        run.cpuPercent = (processCPU() - cpu0) / (ContinuousClock.now - t0).inSeconds * 100
        return run
    }

    static func median(_ values: [Double]) -> Double? {
        guard !values.isEmpty else { return nil }
        let sorted = values.sorted()
        return sorted[sorted.count / 2]
    }

    static func p90(_ values: [Double]) -> Double? {
        guard !values.isEmpty else { return nil }
        let sorted = values.sorted()
        return sorted[min(sorted.count - 1, sorted.count * 9 / 10)]
    }

    static func render(today: String, machine: String, repetitions: Int) throws -> String {
        let clip = try hd("sequence")
        var oursRuns: [Run] = []
        var naiveRuns: [Run] = []
        for _ in 0..<repetitions {
            oursRuns.append(try ours(clip))
            naiveRuns.append(try naive(clip))
        }
        let oursStatic = try ours("static", seconds: 10)
        let naiveStatic = try naive("static", seconds: 10)
        let staticHD = try hd("static")
        let oursStaticHD = try ours(staticHD, seconds: 10)
        let naiveStaticHD = try naive(staticHD, seconds: 10)

        func stat(_ runs: [Run], _ value: (Run) -> Double?, unit: String, decimals: Int = 0) -> String {
            let values = runs.compactMap(value)
            let missing = runs.count - values.count
            guard let m = median(values), let p = p90(values) else { return "never (\(runs.count)/\(runs.count) runs)" }
            let text = String(format: "%.\(decimals)f (%.\(decimals)f) \(unit)", m, p)
            return missing > 0 ? "\(text), never in \(missing)/\(runs.count) runs" : text
        }
        let qrFrames: (Run) -> Double? = { $0.qrAdded.map { Double($0 - qr.visible) } }
        let phoneSeconds: (Run) -> Double? = { $0.phoneAdded.map { Double($0 - phone.visible) / fps } }
        let qrRemoved: (Run) -> Double? = { $0.qrRemoved.map { Double($0 - qr.last) / fps } }
        let phoneRemoved: (Run) -> Double? = { $0.phoneRemoved.map { Double($0 - phone.last) / fps } }

        let oursQR = oursRuns.compactMap(qrFrames)
        let oursPhone = oursRuns.compactMap(phoneSeconds)
        let falseOurs = oursRuns.map(\.falseEvents).reduce(0, +)
        func verdict(_ met: Bool) -> String { met ? "met" : "**not met**" }

        var out = "<!-- sequence:begin (written by `make bench`) -->\n## Sequence pipeline, real-time replay\n\n"
        out +=
            "Measured \(today) on \(machine); release build; `Tests/Fixtures/clips/sequence` enlarged to 1280×720 (as a 720p camera frames the scene) and replayed at 30 fps with real-time pacing, \(repetitions) runs each; median (p90). The static scene is `clips/static`, at 640×480 and enlarged likewise. "
        out += "Naive = zbar + Tesseract on every frame the loop can take + report after 10 sightings, never remove.\n\n"
        out += "| measure | scannerd | naive | goal |\n|---|---|---|---|\n"
        out +=
            "| QR: frames from fully visible to `added` | \(stat(oursRuns, qrFrames, unit: "frames")) | \(stat(naiveRuns, qrFrames, unit: "frames")) | ≤ 2 frames: \(verdict((p90(oursQR) ?? 99) <= 2 && oursQR.count == repetitions)) |\n"
        out +=
            "| phone: time from sharp to `added` | \(stat(oursRuns, phoneSeconds, unit: "s", decimals: 2)) | \(stat(naiveRuns, phoneSeconds, unit: "s", decimals: 2)) | ≤ 0.5 s: \(verdict((p90(oursPhone) ?? 99) <= 0.5 && oursPhone.count == repetitions)) |\n"
        out +=
            "| false or duplicate events (all runs) | \(falseOurs) | \(naiveRuns.map(\.falseEvents).reduce(0, +)) | 0: \(verdict(falseOurs == 0)) |\n"
        out += "| QR: `removed` after it left | \(stat(oursRuns, qrRemoved, unit: "s", decimals: 2)) | never | grace 1 s |\n"
        out += "| phone: `removed` after it left | \(stat(oursRuns, phoneRemoved, unit: "s", decimals: 2)) | never | grace 1.5 s |\n"
        out +=
            "| CPU on the clip (% of one core) | \(String(format: "%.0f", median(oursRuns.map(\.cpuPercent)) ?? 0)) | \(String(format: "%.0f", median(naiveRuns.map(\.cpuPercent)) ?? 0)) | |\n"
        out +=
            "| CPU on the empty static scene at 640×480, 10 s (% of one core) | \(String(format: "%.1f", oursStatic.cpuPercent)) | \(String(format: "%.0f", naiveStatic.cpuPercent)) | < 5%: \(verdict(oursStatic.cpuPercent < 5)) |\n"
        out +=
            "| CPU on the empty static scene at 1280×720, 10 s (% of one core) | \(String(format: "%.1f", oursStaticHD.cpuPercent)) | \(String(format: "%.0f", naiveStaticHD.cpuPercent)) | < 5%: \(verdict(oursStaticHD.cpuPercent < 5)) |\n"
        out += "<!-- sequence:end -->\n"
        return out
    }
}
