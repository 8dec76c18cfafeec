import Capture
import Foundation
import ImageDecoding
import Logging
import ScannerCore
import TestSupport

/// Capture figures on the emulated camera (which needs LD_PRELOAD at process start, so the
/// measurements run in child processes with the right environment).
enum CaptureBenchmark {
    static var library: String { Subprocess.productsDirectory.appendingPathComponent("libFakeCamera.so").path }

    /// A one-frame clip directory for the emulated camera.
    static func clip(of fixture: String) throws -> String {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("scannerd-bench-\(fixture)")
        try? FileManager.default.removeItem(at: dir)
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: Fixtures.path(fixture), toPath: dir.appendingPathComponent("0.jpg").path)
        return dir.path
    }

    static func environment(frames: String, format: String = "MJPG") -> [String: String] {
        ["LD_PRELOAD": library, "FAKECAM_FRAMES": frames, "FAKECAM_FORMATS": format, "FAKECAM_FPS": "30"]
    }

    /// In the child: CPU time of this thread per `CameraSource.next()` — dequeue, validate, decode.
    static func probe(device: String, frames: Int, processingWidth: Int?) throws {
        let source = try CameraSource(
            configuration: .init(path: device, request: CaptureRequest(width: 1280, height: 720, fps: 30), processingWidth: processingWidth),
            logger: Logger(label: "bench"))
        var samples: [Double] = []
        var size = ""
        while samples.count < frames {
            let before = threadCPU()
            let event = source.next()
            let after = threadCPU()
            if case .frame(let frame) = event {
                samples.append((after - before) * 1000)
                size = "\(frame.decoded.sourceWidth)x\(frame.decoded.sourceHeight)→\(frame.image.width)x\(frame.image.height)"
            }
        }
        samples.sort()
        print("\(samples[samples.count / 2]) \(samples[samples.count * 9 / 10]) \(size)")
    }

    static func threadCPU() -> Double {
        var ts = timespec()
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts)
        return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
    }

    /// CPU share of `scannerd run` over `seconds` (user + system time of the whole process / wall time).
    static func daemonCPU(environment: [String: String], arguments: [String], seconds: Double) throws -> (percent: Double, frames: Int) {
        let daemon = try Subprocess.Running(Subprocess.executable("scannerd"), arguments, environment: environment)
        // Skip start-up (Tesseract's model load), then measure a steady window.
        daemon.waitFor(timeout: 10) { $0.contains { $0.contains("\"available\"") } }
        Thread.sleep(forTimeInterval: 1)
        let (cpu0, t0, frames0) = (processCPU(daemon.process.processIdentifier), Date(), daemon.output.count)
        Thread.sleep(forTimeInterval: seconds)
        let (cpu1, t1, frames1) = (processCPU(daemon.process.processIdentifier), Date(), daemon.output.count)
        _ = daemon.stop()
        return ((cpu1 - cpu0) / t1.timeIntervalSince(t0) * 100, frames1 - frames0)
    }

    /// utime + stime of a process, in seconds (/proc/PID/stat fields 14 and 15).
    static func processCPU(_ pid: Int32) -> Double {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
            let close = stat.lastIndex(of: ")")
        else { return 0 }
        let fields = stat[stat.index(after: close)...].split(separator: " ")
        let ticks = Double(sysconf(Int32(_SC_CLK_TCK)))
        return ((Double(fields[11]) ?? 0) + (Double(fields[12]) ?? 0)) / ticks
    }
}
