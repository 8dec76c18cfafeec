import Foundation
import ScannerCore
import ScannerProtocol
import TestSupport
import TestTraits
import Testing

/// The daemon as a service: signals, reload, systemd notification and the watchdog — the unmodified
/// binary, driven the way systemd drives it.
@Suite(.offThePool(minutes: 5), .serialized) struct ServiceTests {
    let scannerd = Subprocess.executable("scannerd")
    let scanctl = Subprocess.executable("scanctl")

    /// Each test's own directory (sockets, configuration files), removed with the suite value.
    let scratch: TemporaryDirectory
    init() throws { scratch = try TemporaryDirectory("scannerd-service") }
    func socketPath() -> String { scratch.file("s-\(UUID().uuidString.prefix(8)).sock") }

    static func events(_ lines: [String]) -> [Event] { EmulatedCameraTests.events(lines) }
    static func configurations(_ lines: [String]) -> [Event.Configuration] {
        events(lines).compactMap { if case .config(let configuration) = $0 { configuration } else { nil } }
    }

    /// A camera daemon on the emulated camera, serving `socket`.
    func cameraDaemon(socket: String, environment: [String: String] = [:], arguments: [String] = []) throws -> Subprocess.Running {
        var env = [
            "LD_PRELOAD": EmulatedCameraTests.library, "FAKECAM_FRAMES": EmulatedCameraTests.clip, "FAKECAM_DEVICE": "/dev/video0",
            "FAKECAM_FPS": "30",
        ]
        env.merge(environment) { $1 }
        return try Subprocess.Running(
            scannerd,
            ["run", "--no-config", "--device", "/dev/video0", "--width", "640", "--height", "480", "--quality", "fast", "--socket", socket]
                + arguments,
            environment: env)
    }

    func watch(_ socket: String) throws -> Subprocess.Running {
        try #require(waitForSocket(socket))
        return try Subprocess.Running(scanctl, ["watch", "--json", "--socket", socket])
    }

    @Test func sigtermSendsRemovedForWhatIsInViewThenEndAndExitsZeroWithinTwoSeconds() throws {
        let socket = socketPath()
        let daemon = try cameraDaemon(socket: socket)
        let client = try watch(socket)
        let sawItem = client.waitFor(timeout: 20) { lines in Self.events(lines).contains { $0.name == "added" } }
        try #require(sawItem, "the client saw an item added: \(client.output)")
        let live = Set(
            Self.events(client.output).compactMap { e -> UUID? in
                e.name == "added" ? e.item?.id : nil
            })
        // Not gone 5 s after SIGTERM: killed, and the status says so (the soak measures the real
        // figure, about 0.4 s: docs/benchmarks.md).
        let status = daemon.stop(signal: SIGTERM, timeout: 5)
        #expect(status == 0)
        #expect(client.waitFor(timeout: answerWithin) { Self.events($0).last?.name == "end" }, "\(client.output.suffix(5))")
        let events = Self.events(client.output)
        // Everything that was added and not yet removed is removed before `end`.
        var open = Set<UUID>()
        for event in events {
            guard let id = event.item?.id else { continue }
            if event.name == "added" { open.insert(id) }
            if event.name == "removed" { open.remove(id) }
        }
        #expect(open.isEmpty, "items left without `removed`: \(open)")
        #expect(!live.isEmpty)
        #expect(client.stop() == 0, "scanctl watch ends cleanly when the daemon closes")
        #expect(!FileManager.default.fileExists(atPath: socket), "the socket file is removed")
    }

    @Test func notifiesReadyStatusWatchdogAndStopping() throws {
        let notify = try NotifyListener()
        let socket = socketPath()
        let daemon = try cameraDaemon(socket: socket, environment: ["NOTIFY_SOCKET": notify.path, "WATCHDOG_USEC": "2000000"])
        #expect(notify.waitFor(timeout: 20) { $0 == "READY=1" })
        #expect(notify.waitFor(timeout: 10) { $0 == "WATCHDOG=1" })
        #expect(notify.waitFor(timeout: 10) { $0.hasPrefix("STATUS=camera /dev/video0: ") && $0.contains(" fps") }, "\(notify.fields)")
        // Ready only once the socket accepts clients.
        #expect(FileManager.default.fileExists(atPath: socket))
        // Under systemd too (the notifier sleeps between rounds) the exit is prompt.
        #expect(daemon.stop(timeout: 5) == 0, "SIGTERM ends it (the notifier's sleep is cancelled)")
        // Sent before it exited, but the listener's thread may not have taken it in yet: waited for.
        #expect(notify.waitFor(timeout: 10) { $0 == "STOPPING=1" }, "\(notify.fields.suffix(4))")
    }

    @Test func watchdogPingsStopWhenTheCameraStopsDelivering() throws {
        // The clip is played once (FAKECAM_LOOP=0): 30 frames at 10 fps, then the camera stays open
        // and silent — a wedged capture, which only a restart can fix.
        let notify = try NotifyListener()
        let daemon = try cameraDaemon(
            socket: socketPath(),
            environment: [
                "NOTIFY_SOCKET": notify.path, "WATCHDOG_USEC": "1000000", "FAKECAM_LOOP": "0", "FAKECAM_FPS": "10",
            ])
        try #require(notify.waitFor(timeout: 20) { $0 == "WATCHDOG=1" }, "pings while frames arrive")
        // Frames stop about 3 s after streaming starts; wait until the watchdog has been silent for
        // three of its timeouts (or give up after 20 s).
        let deadline = Date().addingTimeInterval(20)
        var silentFor = 0.0
        while Date() < deadline {
            let lastPing = notify.fields.last { $0.field == "WATCHDOG=1" }?.time ?? 0
            silentFor = notify.now - lastPing
            if silentFor > 3 { break }
            Thread.sleep(forTimeInterval: 0.2)
        }
        let pings = notify.fields.filter { $0.field == "WATCHDOG=1" }.count
        #expect(daemon.stop() == 0)
        #expect(silentFor > 3, "watchdog pings went on: silent for only \(silentFor) s")
        #expect(pings >= 2, "it pinged while frames came (\(pings))")
        #expect(daemon.stderr.contains("pipeline stalled; watchdog pings stopped"), "\(daemon.stderr)")
    }

    @Test func waitingForAMissingCameraIsHealthy() throws {
        // No camera at all: the daemon is ready (clients are told it is unavailable) and keeps pinging.
        let notify = try NotifyListener()
        let daemon = try Subprocess.Running(
            scannerd, ["run", "--no-config", "--device", "/dev/video-none-\(UUID().uuidString.prefix(4))", "--socket", socketPath()],
            environment: ["NOTIFY_SOCKET": notify.path, "WATCHDOG_USEC": "1000000"])
        #expect(notify.waitFor(timeout: 20) { $0 == "READY=1" })
        #expect(notify.waitFor(timeout: 10) { $0.hasPrefix("STATUS=waiting for camera /dev/video-none") }, "\(notify.fields)")
        // Pings go on while it waits: four more (half a second apart) after the status said so.
        let start = notify.now
        let pinging = notify.waitFor(count: 4, since: start, timeout: 20) { $0 == "WATCHDOG=1" }
        #expect(daemon.stop() == 0)
        #expect(pinging, "\(notify.fields.suffix(6))")
    }

    /// A daemon on a configuration file the test rewrites (`write`), with a systemd notify listener
    /// and a watching client, all ready.
    func reloadable(
        _ initial: String
    ) throws
        -> (write: (String) throws -> Void, socket: String, notify: NotifyListener, daemon: Subprocess.Running, client: Subprocess.Running)
    {
        let config = scratch.file("reload-\(UUID().uuidString.prefix(8)).conf")
        let write = { (text: String) throws in try text.write(toFile: config, atomically: true, encoding: .utf8) }
        try write(initial)
        let socket = socketPath()
        let notify = try NotifyListener()
        let daemon = try Subprocess.Running(scannerd, ["run", "--config", config, "--socket", socket], environment: ["NOTIFY_SOCKET": notify.path])
        try #require(notify.waitFor(timeout: 20) { $0 == "READY=1" })
        let client = try watch(socket)
        try #require(client.waitFor(timeout: 10) { Self.events($0).first?.name == "hello" })
        return (write, socket, notify, daemon, client)
    }

    /// docs/configuration.md "Reloading": keys the file did not change keep their `set` values;
    /// `log.level` applies at once; systemd hears READY=1 again after RELOADING=1.
    @Test func aReloadKeepsSetValuesAppliesTheLogLevelAndSaysReady() throws {
        let (write, socket, notify, daemon, client) = try reloadable("camera:\n  source: demo\n  loop: true\nlog:\n  level: info\n")
        func configEvents(_ lines: [String]) -> [Event.Configuration] { Self.configurations(lines) }
        let scanctl = Subprocess.executable("scanctl")

        // A `set` at info level: logged ("configuration changed" is a notice).
        let first = try Subprocess.run(scanctl, ["set", "--socket", socket, "--roi", "0,0,0.5,0.5"])
        try #require(first.status == 0 && client.waitFor(timeout: 10) { configEvents($0).count == 1 })
        // A reload that changes only a tracking key and the log level.
        try write("camera:\n  source: demo\n  loop: true\ntracking:\n  grace-period: 2\nlog:\n  level: warning\n")
        daemon.signal(SIGHUP)
        try #require(client.waitFor(timeout: 10) { configEvents($0).count == 2 }, "\(client.output.suffix(3))")
        let reloaded = configEvents(client.output)[1]
        #expect(
            reloaded.regionOfInterest == NormalizedRect(x: 0, y: 0, width: 0.5, height: 0.5),
            "the set region survives a reload that did not touch it: \(reloaded)")
        #expect(reloaded.reload?.changed == ["tracking.grace-period", "log.level"])
        // READY=1 comes after RELOADING=1 (it is sent when the reload is done, maybe after the
        // `config` event reached the client): waited for, not assumed. RELOADING=1 itself is sent
        // before the event, but the listener's thread may not have taken it in yet (seen in a clean
        // run: the client had the event, the listener not yet the datagram): waited for too.
        try #require(notify.waitFor(timeout: 10) { $0 == "RELOADING=1" }, "\(notify.fields.suffix(6))")
        let reloading = try #require(notify.fields.last { $0.field == "RELOADING=1" }?.time)
        #expect(notify.waitFor(count: 1, since: reloading, timeout: 10) { $0 == "READY=1" }, "READY=1 after the reload: \(notify.fields.suffix(6))")
        // A second `set` at warning level: applied, not logged.
        let second = try Subprocess.run(scanctl, ["set", "--socket", socket, "--quality", "fast"])
        #expect(second.status == 0 && client.waitFor(timeout: 10) { configEvents($0).count == 3 })
        #expect(daemon.stop() == 0)
        _ = client.stop()
        let logged = daemon.stderr.components(separatedBy: "configuration changed").count - 1
        #expect(logged == 1, "only the set before the reload is logged: \(logged)")
    }

    @Test func sighupAppliesGoodChangesAndRefusesBadOnes() throws {
        let (write, _, notify, daemon, client) = try reloadable("camera:\n  source: demo\n  loop: true\nrecognition:\n  quality: balanced\n")

        // (Conditions get the lines: `client.output` inside one would take the lock waitFor holds.)
        func configEvents(_ lines: [String]? = nil) -> [Event.Configuration] { Self.configurations(lines ?? client.output) }

        // A good change: applied live and announced; a restart-only key is named, not applied.
        try write("camera:\n  source: demo\n  loop: true\n  width: 640\nrecognition:\n  quality: fast\n  types: [qr]\n")
        daemon.signal(SIGHUP)
        try #require(client.waitFor(timeout: 10) { configEvents($0).count == 1 }, "\(client.output.suffix(3))")
        let first = configEvents()[0]
        #expect(first.quality == .fast)
        #expect(first.types == ["qr"])
        #expect(first.reload?.changed == ["recognition.types", "recognition.quality"])
        #expect(first.reload?.restartRequired == ["camera.width"])
        // The datagram was sent before the event, but the test's reader thread may take it later.
        #expect(notify.waitFor(timeout: 10) { $0 == "RELOADING=1" }, "\(notify.fields.suffix(4))")

        // A bad file: refused whole, the old configuration stays, systemd's status says why.
        try write("camera:\n  source: demo\n  loop: true\nrecognition:\n  quality: best\n  types: [qr, url]\n  colour: red\n")
        daemon.signal(SIGHUP)
        #expect(
            notify.waitFor(timeout: 10) { $0.hasPrefix("STATUS=reload refused: ") && $0.contains(":5: recognition.quality: invalid value 'best'") },
            "\(notify.fields.suffix(4))")

        // Then a good one again: the next `config` event is this one (nothing was applied in between).
        try write("camera:\n  source: demo\n  loop: true\nrecognition:\n  quality: accurate\n  types: [qr]\n")
        daemon.signal(SIGHUP)
        #expect(client.waitFor(timeout: 10) { configEvents($0).count == 2 })
        #expect(configEvents().map(\.quality) == [.fast, .accurate])
        #expect(daemon.stop() == 0)
        let log = daemon.stderr
        #expect(log.contains("configuration reload refused"), "\(log)")
        #expect(log.contains(":5: recognition.quality: invalid value 'best': expected one of fast, balanced, accurate"))
        #expect(log.contains(":7: unknown key 'recognition.colour'"))
        _ = client.stop()
    }

    @Test func checkConfigValidatesWithoutStarting() throws {
        let good = try Subprocess.run(scannerd, ["check-config", "config/scannerd.conf"])
        #expect(good.status == 0)
        #expect(good.stdout == "config/scannerd.conf: ok\n")
        let bad = scratch.file("bad.conf")
        try "camera:\n  fps: fast\n  device: /dev/video0\nserver:\n  socket-mode: rw\n".write(toFile: bad, atomically: true, encoding: .utf8)
        let result = try Subprocess.run(scannerd, ["check-config", bad])
        #expect(result.status == 2)
        #expect(
            result.stderrLines == [
                "\(bad):2: camera.fps: invalid value 'fast': expected a number above 0 and at most 1000",
                "\(bad):5: server.socket-mode: invalid value 'rw': expected an octal mode such as \"0660\"",
            ])
        let effective = try Subprocess.run(
            scannerd, ["check-config", "--effective", "config/scannerd.conf"], environment: ["SCANNERD_CAMERA_FPS": "12"])
        #expect(effective.stdoutLines.contains { $0.hasPrefix("camera.fps") && $0.contains("auto") && $0.contains("config/scannerd.conf:") })
        let withEnvironment = try Subprocess.run(
            scannerd, ["check-config", "--environment", "--effective", "config/scannerd.conf"], environment: ["SCANNERD_CAMERA_FPS": "12"])
        #expect(
            withEnvironment.stdoutLines.contains { $0.hasPrefix("camera.fps") && $0.contains("12") && $0.contains("environment SCANNERD_CAMERA_FPS") }
        )
    }

    @Test func theEnvironmentSitsBetweenTheFileAndTheCommandLine() throws {
        // The file says balanced, the environment fast, and the command line nothing: fast is in force.
        let config = scratch.file("env.conf")
        try "camera:\n  source: demo\nrecognition:\n  quality: balanced\n".write(toFile: config, atomically: true, encoding: .utf8)
        let socket = socketPath()
        let daemon = try Subprocess.Running(
            scannerd, ["run", "--config", config, "--socket", socket, "--loop"], environment: ["SCANNERD_RECOGNITION_QUALITY": "fast"])
        let client = try watch(socket)
        client.waitFor(timeout: 10) { !$0.isEmpty }
        let reply = try Subprocess.run(scanctl, ["set", "--socket", socket, "--single", "off"])
        _ = daemon.stop()
        _ = client.stop()
        #expect(reply.stdout.contains("quality: fast"), "\(reply.stdout) \(reply.stderr)")
    }
}
