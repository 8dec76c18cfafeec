import Foundation
import TestSupport
import Testing

/// `scanctl` against a running `scannerd run` on a replay, through the real socket.
@Suite(.serialized) struct ScanctlTests {
    let scannerd = Subprocess.executable("scannerd")
    let scanctl = Subprocess.executable("scanctl")

    func socketPath() throws -> String {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("scanctl-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        return directory.appendingPathComponent("scannerd.sock").path
    }

    func waitForSocket(_ path: String) {
        let deadline = Date().addingTimeInterval(20)
        while !FileManager.default.fileExists(atPath: path) && Date() < deadline { Thread.sleep(forTimeInterval: 0.05) }
    }

    @Test func watchShowsItemsAddedAndRemoved() throws {
        let socket = try socketPath()
        let daemon = try Subprocess.Running(scannerd, ["run", "--source", "Tests/Fixtures/clips/sequence", "--loop", "--socket", socket])
        waitForSocket(socket)
        let watch = try Subprocess.Running(scanctl, ["watch", "--socket", socket])
        // Readable lines: time, event, kind, payload, id prefix.
        let sawLife = watch.waitFor(timeout: 30) { lines in
            lines.contains { $0.contains("added") && $0.contains("qr") && $0.contains("https://example.com/clip") }
                && lines.contains { $0.contains("removed") && $0.contains("https://example.com/clip") }
        }
        let json = try Subprocess.Running(scanctl, ["watch", "--json", "--socket", socket, "--kinds", "text"])
        let sawPhone = json.waitFor(timeout: 30) { lines in lines.contains { $0.contains(#""event":"added""#) && $0.contains("+12125550187") } }
        _ = watch.stop(signal: SIGINT)
        _ = json.stop(signal: SIGINT)
        #expect(sawLife, "\(watch.output.suffix(5))")
        #expect(watch.output.first?.contains("hello") == true)
        #expect(sawPhone, "\(json.output.suffix(5))")
        #expect(!json.output.contains { $0.contains("https://example.com/clip") }, "--kinds text leaves the QR code out")

        let ping = try Subprocess.run(scanctl, ["ping", "--socket", socket])
        #expect(ping.status == 0 && ping.stdout.contains("answered"))
        let stats = try Subprocess.run(scanctl, ["stats", "--socket", socket])
        #expect(stats.status == 0 && stats.stdout.contains("framesDelivered:"))
        let items = try Subprocess.run(scanctl, ["items", "--socket", socket])
        #expect(items.status == 0)
        #expect(items.stdoutLines.allSatisfy { $0.hasPrefix("{") && $0.contains("\"id\"") })
        #expect(daemon.stop() == 0)
        #expect(!FileManager.default.fileExists(atPath: socket), "the daemon removes its socket when it stops")
    }

    @Test func aSecondDaemonOnTheSameSocketIsRefused() throws {
        let socket = try socketPath()
        let first = try Subprocess.Running(scannerd, ["run", "--source", "demo", "--loop", "--socket", socket])
        waitForSocket(socket)
        let second = try Subprocess.run(scannerd, ["run", "--source", "demo", "--socket", socket])
        _ = first.stop()
        #expect(second.status == 2)
        #expect(second.stderr.contains("another scannerd is listening"), "\(second.stderr)")
    }

    @Test func noDaemonMeansExitThreeWithAClearMessage() throws {
        let result = try Subprocess.run(scanctl, ["ping", "--socket", "/tmp/no-such-scannerd.sock"])
        #expect(result.status == 3)
        #expect(result.stderr.contains("is scannerd running?"))
        let usage = try Subprocess.run(scanctl, ["watch", "--socket", "/tmp/x.sock", "--bogus"])
        #expect(usage.status == 2)
    }
}
