import Capture
import Daemon
import DaemonConfiguration
import Foundation
import Logging
import Pipeline
import ScannerCore
import ScannerProtocol
import Synchronization
import TestSupport
import TestTraits
import Testing

@Suite(.offThePool(minutes: 2)) struct JournalLogTests {
    @Test func underTheJournalLinesCarryTheirPriorityAndNoTime() {
        let line = JournalLogHandler.format(
            level: .warning, message: "camera lost", metadata: ["reason": "no frame for 3 s", "device": "/dev/video0"],
            journal: true, date: Date(timeIntervalSince1970: 0))
        #expect(line == #"<4>camera lost device=/dev/video0 reason="no frame for 3 s""#)
        #expect(JournalLogHandler.format(level: .error, message: "x", metadata: [:], journal: true, date: Date()) == "<3>x")
        #expect(JournalLogHandler.format(level: .debug, message: "x", metadata: [:], journal: true, date: Date()) == "<7>x")
    }

    @Test func elsewhereLinesStartWithTimeAndLevel() {
        let line = JournalLogHandler.format(
            level: .notice, message: "ready", metadata: ["source": "demo"], journal: false, date: Date(timeIntervalSince1970: 0))
        #expect(line == "1970-01-01T00:00:00.000Z notice ready source=demo")
    }

    @Test func valuesAreQuotedSoEveryLineSplitsBackIntoItsKeys() {
        #expect(JournalLogHandler.quoted("plain") == "plain")
        #expect(JournalLogHandler.quoted("") == #""""#)
        #expect(JournalLogHandler.quoted(#"say "hi" a=b"#) == #""say \"hi\" a=b""#)
        #expect(JournalLogHandler.quoted("two\nlines") == #""two\nlines""#)
    }

    @Test func theJournalIsRecognisedByTheStreamItSetUp() {
        var info = stat()
        fstat(2, &info)
        #expect(JournalLogHandler.stderrIsJournal(environment: ["JOURNAL_STREAM": "\(info.st_dev):\(info.st_ino)"]))
        #expect(!JournalLogHandler.stderrIsJournal(environment: ["JOURNAL_STREAM": "\(info.st_dev):\(info.st_ino + 1)"]))
        #expect(!JournalLogHandler.stderrIsJournal(environment: [:]))
    }

    @Test func theLevelIsSharedAndChangesLive() {
        let control = LogLevelControl(.info)
        let lines = Mutex<[String]>([])
        let handler = JournalLogHandler(label: "t", level: control, journal: true, write: { line in lines.withLock { $0.append(line) } })
        let logger = Logger(label: "t", factory: { _ in handler })
        logger.debug("hidden")
        control.current = .debug
        logger.debug("shown")
        #expect(lines.withLock { $0 } == ["<7>shown\n"])
    }
}

@Suite(.offThePool(minutes: 2)) struct SystemdNotifierTests {
    @Test func messagesReachTheNotifySocketAsOneDatagram() throws {
        let listener = try NotifyListener()
        let notifier = SystemdNotifier(environment: ["NOTIFY_SOCKET": listener.path])
        #expect(notifier.isEnabled)
        #expect(notifier.notify(["READY=1", "STATUS=camera /dev/video0: 30.0 fps\nsecond line"]))
        #expect(listener.waitFor(timeout: answerWithin) { $0 == "READY=1" })
        #expect(listener.messages.first?.fields == ["READY=1", "STATUS=camera /dev/video0: 30.0 fps second line"])
    }

    @Test func withoutSystemdNothingIsSent() {
        let notifier = SystemdNotifier(environment: [:])
        #expect(!notifier.isEnabled)
        #expect(!notifier.notify(["READY=1"]))
        #expect(notifier.watchdogTimeout == nil)
    }

    @Test func theWatchdogTimeoutIsForThisProcessOnly() {
        #expect(SystemdNotifier(environment: ["WATCHDOG_USEC": "10000000"]).watchdogTimeout == .seconds(10))
        #expect(SystemdNotifier(environment: ["WATCHDOG_USEC": "10000000", "WATCHDOG_PID": "\(getpid())"]).watchdogTimeout == .seconds(10))
        #expect(SystemdNotifier(environment: ["WATCHDOG_USEC": "10000000", "WATCHDOG_PID": "1"]).watchdogTimeout == nil)
        #expect(SystemdNotifier(environment: ["WATCHDOG_USEC": "0"]).watchdogTimeout == nil)
    }

    @Test func thePolicyPingsOnlyWhileTheHeartbeatIsRecent() {
        let policy = WatchdogPolicy(timeout: .seconds(10))
        #expect(policy.checkInterval == .milliseconds(2500))
        #expect(policy.shouldPing(heartbeatAge: .seconds(4.9)))
        #expect(!policy.shouldPing(heartbeatAge: .seconds(5)))
    }

    @Test func theHeartbeatAgesWithItsClock() {
        let now = Atomic<Int64>(1_000)
        let heartbeat = Heartbeat(clock: { now.load(ordering: .relaxed) })
        now.store(3_000_001_000, ordering: .relaxed)
        #expect(heartbeat.age == .seconds(3))
        heartbeat.beat()
        #expect(heartbeat.age == .zero)
    }
}

@Suite(.offThePool(minutes: 2)) struct DaemonStatusTests {
    @Test func theStatusLineSaysWhatSystemctlStatusShouldShow() {
        #expect(
            DaemonStatus.line(source: .available, name: "camera /dev/video0", fps: 29.96, stalledFor: nil, items: 1, clients: 2)
                == "camera /dev/video0: 30.0 fps; 1 item, 2 clients")
        #expect(
            DaemonStatus.line(source: .unavailable(reason: "no such file"), name: "camera /dev/video0", fps: 0, stalledFor: nil, items: 0, clients: 1)
                == "waiting for camera /dev/video0: no such file; 0 items, 1 client")
        #expect(
            DaemonStatus.line(source: .available, name: "camera /dev/video0", fps: 0, stalledFor: .seconds(7.4), items: 0, clients: 0)
                == "stalled: no frame processed from camera /dev/video0 for 7 s; 0 items, 0 clients")
        #expect(
            DaemonStatus.line(source: .available, name: "demo", fps: 30, stalledFor: nil, items: 0, clients: 0, textDegraded: true)
                == "demo: 30.0 fps; 0 items, 0 clients; text without its networks (they did not load)")
    }

    @Test func readyNeedsTheSocketAndATriedSource() {
        let status = DaemonStatus()
        #expect(!status.isReady(needsServer: false))
        status.source = .unavailable(reason: "unplugged")
        #expect(status.isReady(needsServer: false))
        #expect(!status.isReady(needsServer: true))
        status.serverListening()
        #expect(status.isReady(needsServer: true))
    }
}

@Suite(.offThePool(minutes: 2)) struct ReloadApplicationTests {
    /// Every live key set away from its default.
    let changed = """
        recognition:
          types: [qr, url]
          quality: accurate
          region-of-interest: [0.1, 0.1, 0.5, 0.5]
          single-item: true
          phone-region: DE
          languages: [deu]
        tracking:
          grace-period: 2
          text-grace-period: 3
          move-threshold: 0.05
          weak-barcode-confirmations: 3
          text-agreement: 3
          text-window: 6
        log:
          level: debug
        camera:
          width: 640
        """

    @Test func everyLiveKeyIsCopiedAndNothingElse() throws {
        let path = NSTemporaryDirectory() + "live-\(UUID().uuidString.prefix(8)).conf"
        try changed.write(toFile: path, atomically: true, encoding: .utf8)
        defer { unlink(path) }
        let target = try ConfigurationLoader(filePath: path, environment: [:]).load().settings
        let live = SettingsSchema.keys.filter(\.live)
        for key in live { #expect(key.value(in: target) != key.value(in: DaemonSettings()), "the fixture changes \(key.name)") }
        var settings = DaemonSettings()
        settings.takeLive(Set(SettingsSchema.keys.map(\.name)), from: target)
        for key in SettingsSchema.keys {
            let expected = key.live ? key.value(in: target) : key.value(in: DaemonSettings())
            #expect(key.value(in: settings) == expected, "\(key.name)")
        }
    }

    @Test func trackingSettingsReachThePipeline() {
        var s = DaemonSettings()
        s.quality = .accurate
        s.gracePeriod = 2
        s.textWindow = 7
        let c = DaemonAssembly.sequenceConfiguration(s)
        #expect(c.tracker.gracePeriod == 2)
        #expect(c.tracker.textWindow == 7)
        #expect(c.tracker.textAgreement == 3, "auto: the quality level's")
        #expect(c.options.quality == .accurate)
    }
}

/// The `stats` reply from the source's totals and the pipeline's figures (no daemon, no threads).
@Suite(.offThePool(minutes: 2)) struct DaemonStatisticsTests {
    @Test func theStatsReplyAddsUpTheFramesAndTimesEachRecognizer() {
        var source = SourceStatistics()
        source.delivered = 90
        source.dropped = 7
        source.idleSkipped = 20
        source.corrupt = 3
        source.reconnects = 1
        nonisolated(unsafe) var now = 100.0
        let metrics = PipelineMetrics(clock: { now })
        for i in 0..<10 {
            metrics.record(.capture)
            metrics.record(.barcodes, seconds: Double(i + 1) / 1000)  // 1…10 ms
            now += 0.1
        }
        metrics.record(.text, seconds: 0.040)
        let reply = JSONValue.object(
            StatsReply(daemon: DaemonStatistics.reply(source: source, metrics: metrics, sourceName: "demo", available: true, uptime: 12.34)).fields)
        let object = JSONLines.object(reply.serialized())
        let capture = object["capture"] ?? .null
        #expect(capture["frames"]?.int == 120 && capture["decoded"]?.int == 90 && capture["idleSkipped"]?.int == 20)
        #expect(capture["corrupt"]?.int == 3 && capture["reconnects"]?.int == 1 && capture["available"]?.bool == true)
        #expect(capture["fps"]?.doubleValue == 10, "10 frames in 1 s: \(capture)")
        let barcodes = object["barcodes"] ?? .null
        #expect(barcodes["scans"]?.int == 10 && barcodes["latencyP50"]?.doubleValue == 5 && barcodes["latencyP99"]?.doubleValue == 10, "\(barcodes)")
        let text = object["text"] ?? .null
        #expect(text["passes"]?.int == 1 && text["latencyP50"]?.doubleValue == 40 && text["modelFailure"] == nil)
        #expect(object["uptime"]?.doubleValue == 12.3)
        // The text networks beside the binary did not load (issue #54): said where an operator looks.
        let degraded = JSONLines.object(
            JSONValue.object(
                StatsReply(
                    daemon: DaemonStatistics.reply(
                        source: source, metrics: metrics, sourceName: "demo", available: true, uptime: 1, textModelFailure: "OpenVINO: damaged")
                ).fields
            ).serialized())
        #expect(degraded["text"]?["modelFailure"] == .string("OpenVINO: damaged"), "\(degraded)")
        // Recognition failures (issue #54), each stage's.
        #expect(text["readFailures"]?.int == 0 && text["detectionFailures"]?.int == 0 && barcodes["failures"]?.int == 0, "\(object)")
        metrics.failures(.reading, total: 3)
        metrics.failures(.barcodes, total: 2)
        let failing = JSONLines.object(
            JSONValue.object(
                StatsReply(daemon: DaemonStatistics.reply(source: source, metrics: metrics, sourceName: "demo", available: true, uptime: 1)).fields
            ).serialized())
        #expect(failing["text"]?["readFailures"]?.int == 3 && failing["barcodes"]?["failures"]?.int == 2, "\(failing)")
    }
}
