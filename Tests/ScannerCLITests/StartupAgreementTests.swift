import Foundation
import TestSupport
import TestTraits
import Testing

/// Issue #39, against the real binary: `check-config` and `run` refuse the same settings with the
/// same line; a refused broker URL never shows its password; a client `set`ting in a loop gets ten
/// log lines a minute.
@Suite(.offThePool(minutes: 3)) struct StartupAgreementTests {
    let scannerd = Subprocess.executable("scannerd")

    @Test(arguments: [
        (
            "http:\n  listen: 0.0.0.0:8390\n",
            ":4: http.listen: 0.0.0.0:8390 is not loopback: set http.token-file so that only clients with the token are served"
        ),
        (
            "mqtt:\n  broker: mqtt://127.0.0.1:1\n  topic: \"$SYS/kiosk\"\n",
            ":5: mqtt.topic: invalid value '$SYS/kiosk': topics beginning with $ are reserved for the broker"
        ),
        (
            "mqtt:\n  broker: mqtt://127.0.0.1:1\n  topic: \"kiosk\\x1b[2J\"\n",
            ":5: mqtt.topic: invalid value 'kiosk\\u{1B}[2J': control characters (U+001B) are not allowed"
        ),
        (
            "mqtt:\n  broker: mqtt://kiosk:hunter2@127.0.0.1\n",
            ":4: mqtt.broker: invalid value 'mqtt://kiosk:***@127.0.0.1': credentials do not go in the URL: set mqtt.username and mqtt.password-file"
        ),
    ])
    func checkConfigAndRunRefuseTheSameSettingsWithTheSameLine(yaml: String, expected: String) throws {
        let scratch = try TemporaryDirectory("scannerd-agreement")
        let path = try scratch.write("bad.conf", "camera:\n  source: demo\n" + yaml)
        let check = try Subprocess.run(scannerd, ["check-config", path], timeout: 30)
        let run = try Subprocess.run(scannerd, ["run", "--config", path, "--no-socket"], timeout: 30)
        #expect(check.status == 2 && run.status == 2, "check-config \(check.status), run \(run.status): \(run.stderr)")
        #expect(check.stderrLines.count == 1 && check.stderrLines.first?.contains(expected) == true, "\(check.stderr)")
        #expect(run.stderrLines == check.stderrLines.map { "scannerd: \($0)" }, "\(run.stderr)")
        #expect(!check.stderr.contains("hunter2") && !run.stderr.contains("hunter2"), "the password is never printed")
    }

    @Test func aClientSettingInALoopGetsTenLogLinesAndOnlyWhatChanged() async throws {
        try await blocking {
            let scratch = try TemporaryDirectory("scannerd-set-flood")
            let socket = scratch.file("s.sock")
            let daemon = try Subprocess.Running(scannerd, ["run", "--no-config", "--source", "demo", "--loop", "--types", "qr", "--socket", socket])
            defer { _ = daemon.stop(signal: SIGKILL) }
            try #require(waitForSocket(socket), "\(daemon.stderr)")
            let probe = try ScannerClientProbe(path: socket)
            for n in 0..<40 {
                let reply = try probe.ask(#"{"request":"set","roi":[0,0,0.5,0.\#(n % 9 + 1)]}"#)
                try #require(reply.contains(#""ok":true"#), "\(reply)")
            }
            #expect(daemon.stop() == 0)
            let logged = daemon.stderr.split(separator: "\n").filter { $0.contains("configuration changed") }
            #expect(logged.count == 10, "at most ten a minute: \(logged.count)")
            // The region this request set, and who; not the whole configuration (~560 bytes).
            #expect(
                logged.allSatisfy { $0.contains("roi=") && $0.contains("client=") && !$0.contains("types=") && !$0.contains("config=") },
                "\(logged.first ?? "")")
        }
    }
}
