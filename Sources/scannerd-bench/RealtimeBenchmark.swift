import Foundation
import TestSupport

/// The whole daemon on the realistic footage (issue #13): each clip from `make footage` through
/// `scannerd run --pace realtime` (frames arrive at 30 fps; what the pipeline is not ready for is
/// dropped, as with a camera) and `--pace none` (every frame, the upper bound the schedule allows),
/// scored against the clip's truth by Tests/Fixtures/footage/score.py. Per scenario: recall,
/// precision, duplicates, flicker, add latency (frames after first legible), removal latency (frames
/// after last visible; negative = removed while still visible) and the daemon's CPU per frame. Phone
/// numbers' add latency has a column of its own: it is what issue #13's latency goal measures.
/// At realtime each clip runs `realtimeRuns` times and every run counts: which frames the pipeline
/// takes depends on two threads racing for two cores, and latency moves by several frames.
enum RealtimeBenchmark {
    struct Score: Decodable {
        var scenario: String
        var legible: Int
        var found: Int
        var added: Int
        var correct: Int
        var duplicates: Int
        var flicker: Int
        var addLatency: [Int]
        var phoneAddLatency: [Int]
        var removalLatency: [Int]
        var wrong: [String]
        var missed: [String]
    }

    struct Tally {
        var clips = 0, legible = 0, found = 0, added = 0, correct = 0, duplicates = 0, flicker = 0
        var addLatency: [Int] = [], phoneAddLatency: [Int] = [], removalLatency: [Int] = []
        var cpuSeconds = 0.0, frames = 0
        var wrong: [String] = [], missed: [String] = []

        mutating func add(_ s: Score) {
            clips += 1
            legible += s.legible
            found += s.found
            added += s.added
            correct += s.correct
            duplicates += s.duplicates
            flicker += s.flicker
            addLatency += s.addLatency
            phoneAddLatency += s.phoneAddLatency
            removalLatency += s.removalLatency
            wrong += s.wrong
            missed += s.missed
        }
    }

    static func render(footage: String, lineModel: String?, realtimeRuns: Int, today: String, machine: String) throws -> String {
        let clips = ((try? FileManager.default.contentsOfDirectory(atPath: footage)) ?? []).filter { $0.hasSuffix(".json") }.sorted()
        guard !clips.isEmpty else {
            print("(no clips in \(footage): run `make footage` first; the realtime section is skipped)")
            return ""
        }
        let scannerd = Subprocess.executable("scannerd")
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("scannerd-realtime-\(getpid())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        var out = "<!-- realtime:begin (written by `make bench`) -->\n## Realtime quality on realistic footage\n\n"
        out += "Measured \(today) on \(machine); release build; \(clips.count) clips from `make footage` in \(footage) "
        out += "(\(sizes(footage, clips))). Each clip through `scannerd run --no-config --pace P --line-model \(lineModel == nil ? "none" : "DIR")` "
        out += lineModel == nil ? "(no line model built: Tesseract alone), " : "(the models `make deps` fetched), "
        out += "scored by "
        out += "Tests/Fixtures/footage/score.py. Precision: right payloads over all reports (an `added`, or an `updated` that "
        out += "changes its item's payload). Add latency: frames from an item's first legible frame to `added`; "
        out += "removal: frames from its last visible frame to `removed` (negative: removed while still in view). "
        out += "CPU: the daemon's user + system time per frame of the clip (30 fps: 33 ms is one core). "
        out += "`--pace realtime` runs each clip \(realtimeRuns) time\(realtimeRuns == 1 ? "" : "s") and counts every run "
        out += "(clips and items are counted once a run).\n\n"
        for pace in ["realtime", "none"] {
            var byScenario: [String: Tally] = [:]
            let runs = 0..<(pace == "realtime" ? realtimeRuns : 1)
            for (attempt, name) in runs.flatMap({ attempt in clips.map { (attempt, $0) } }) {
                let truth = footage + "/" + name
                let mjpeg = truth.replacingOccurrences(of: ".json", with: ".mjpeg")
                let events = directory.appendingPathComponent("\(name).\(pace).\(attempt).events").path
                let before = childCPU()
                let run = try Subprocess.run(
                    "/bin/sh",
                    [
                        "-c", "exec \"$0\" run --no-config --no-socket --source \"$1\" --pace \"$2\" --line-model \"$4\" --events-stdout > \"$3\"",
                        scannerd, mjpeg, pace, events, lineModel ?? "none",
                    ],
                    timeout: 600)
                let cpu = childCPU() - before
                guard run.status == 0 else {
                    out += "(\(name) at pace \(pace) failed: \(run.stderr.suffix(200)))\n\n"
                    continue
                }
                let scored = try Subprocess.run("/usr/bin/python3", ["Tests/Fixtures/footage/score.py", truth, events, "--json"])
                let score = try JSONDecoder().decode(Score.self, from: Data(scored.stdout.utf8))
                var tally = byScenario[score.scenario] ?? Tally()
                tally.add(score)
                tally.cpuSeconds += cpu
                tally.frames += clip(truth)?.frames ?? 0
                byScenario[score.scenario] = tally
            }
            out += "`--pace \(pace)`:\n\n"
            out +=
                "| scenario | clips | recall | precision | duplicates | flicker | add latency median (p90) | phone numbers median (p90) | removal p90 (early) | CPU ms/frame |\n"
            out += "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n"
            var total = Tally()
            for (scenario, t) in byScenario.sorted(by: { $0.key < $1.key }) {
                out += row(scenario, t)
                total.add(
                    Score(
                        scenario: "", legible: t.legible, found: t.found, added: t.added, correct: t.correct, duplicates: t.duplicates,
                        flicker: t.flicker, addLatency: t.addLatency, phoneAddLatency: t.phoneAddLatency, removalLatency: t.removalLatency,
                        wrong: t.wrong, missed: t.missed))
                total.clips += t.clips - 1
                total.cpuSeconds += t.cpuSeconds
                total.frames += t.frames
            }
            out += row("**all**", total)
            if !total.missed.isEmpty { out += "\nMissed: " + total.missed.map { "`\($0)`" }.joined(separator: ", ") + ".\n" }
            if !total.wrong.isEmpty { out += "\nWrong: " + total.wrong.map { "`\($0)`" }.joined(separator: ", ") + ".\n" }
            out += "\n"
        }
        out += "<!-- realtime:end -->\n"
        return out
    }

    static func row(_ name: String, _ t: Tally) -> String {
        let recall = t.legible == 0 ? "–" : String(format: "%d/%d = %.2f", t.found, t.legible, Double(t.found) / Double(t.legible))
        let precision = t.added == 0 ? "–" : String(format: "%d/%d = %.2f", t.correct, t.added, Double(t.correct) / Double(t.added))
        func latency(_ values: [Int]) -> String { values.isEmpty ? "–" : "\(percentile(values, 0.5)) (\(percentile(values, 0.9)))" }
        let early = t.removalLatency.filter { $0 < 0 }.count
        let removal = t.removalLatency.isEmpty ? "–" : "\(percentile(t.removalLatency, 0.9)) (\(early))"
        let cpu = t.frames == 0 ? "–" : String(format: "%.1f", t.cpuSeconds / Double(t.frames) * 1000)
        return
            "| \(name) | \(t.clips) | \(recall) | \(precision) | \(t.duplicates) | \(t.flicker) | \(latency(t.addLatency)) | \(latency(t.phoneAddLatency)) | \(removal) | \(cpu) |\n"
    }

    /// Nearest-rank percentile.
    static func percentile(_ values: [Int], _ p: Double) -> Int {
        let sorted = values.sorted()
        return sorted[min(sorted.count - 1, max(0, Int((p * Double(sorted.count)).rounded(.up)) - 1))]
    }

    /// User + system CPU seconds of the children waited for so far.
    static func childCPU() -> Double {
        var usage = rusage()
        getrusage(RUSAGE_CHILDREN.rawValue, &usage)
        func seconds(_ t: timeval) -> Double { Double(t.tv_sec) + Double(t.tv_usec) / 1e6 }
        return seconds(usage.ru_utime) + seconds(usage.ru_stime)
    }

    /// What the truth says of its clip.
    struct Clip: Decodable {
        var width: Int
        var height: Int
        var frames: Int
    }

    static func clip(_ path: String) -> Clip? {
        FileManager.default.contents(atPath: path).flatMap { try? JSONDecoder().decode(Clip.self, from: $0) }
    }

    /// The frame sizes of the clips.
    static func sizes(_ footage: String, _ clips: [String]) -> String {
        let sizes = Set(clips.compactMap { clip(footage + "/" + $0).map { "\($0.width)×\($0.height)" } })
        return sizes.isEmpty ? "size unknown" : sizes.sorted().joined(separator: ", ")
    }
}
