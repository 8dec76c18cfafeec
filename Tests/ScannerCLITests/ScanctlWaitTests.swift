import Foundation
import TestSupport
import TestTraits
import Testing

/// `scanctl wait`: one-shot scanning for scripts, against a daemon playing the demo in a loop.
@Suite(.offThePool(minutes: 2)) struct ScanctlWaitTests {
    let scannerd = Subprocess.executable("scannerd")
    let scanctl = Subprocess.executable("scanctl")

    @Test func waitPrintsTheFirstMatchingItemOrGivesUp() async throws {
        try await blocking {
            let scratch = try TemporaryDirectory("scannerd-wait")
            let socket = scratch.file("s.sock")
            let daemon = try Subprocess.Running(scannerd, ["run", "--socket", socket, "--source", "demo", "--loop", "--pace", "none"])
            defer { _ = daemon.stop() }
            try #require(waitForSocket(socket), "\(daemon.stderr)")
            let qr = try Subprocess.run(
                scanctl, ["wait", "--socket", socket, "--types", "qr", "--timeout", "\(Int(itemWithin))"], timeout: itemWithin + 10)
            #expect(qr.status == 0 && qr.stdout == "https://example.com/scannerd-demo\n", "\(qr.stdout) \(qr.stderr)")
            let phone = try Subprocess.run(
                scanctl, ["wait", "--socket", socket, "--types", "telephoneNumber", "--json", "--timeout", "\(Int(itemWithin))"],
                timeout: itemWithin + 10)
            #expect(phone.status == 0, "\(phone.stderr)")
            let item = JSONLines.object(phone.stdout)
            #expect(item["contentType"]?.string == "telephoneNumber" && item["payload"]?.string == "+14155550123", "\(phone.stdout)")
            // Nothing of that kind in the demo: it gives up when told, with exit 1.
            let none = try Subprocess.run(scanctl, ["wait", "--socket", socket, "--types", "ean13", "--timeout", "2"], timeout: 20)
            #expect(none.status == 1 && none.stderr.contains("no item within 2.0 s"), "\(none.stderr)")
            // A name the daemon does not know is its bad-argument, exit 2.
            let bad = try Subprocess.run(scanctl, ["wait", "--socket", socket, "--types", "nonsense", "--timeout", "5"], timeout: 20)
            #expect(bad.status == 2 && bad.stderr.contains("bad-argument"), "\(bad.stderr)")
            let zero = try Subprocess.run(scanctl, ["wait", "--socket", socket, "--timeout", "0"], timeout: 20)
            #expect(zero.status != 0 && zero.stderr.contains("--timeout"), "\(zero.stderr)")
        }
    }
}
