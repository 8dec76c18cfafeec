import Foundation
import ScannerCore
import ScannerProtocol
import TestSupport
import Testing

/// The `stats` reply's wire form has one home (`StatsReply.fields`): what docs/protocol.md shows is
/// what it writes, field for field and in order; MQTT's figures come before the hub's when MQTT is on.
@Suite struct StatsReplyTests {
    static let documented =
        #"{"reply":"stats","ok":true,"uptime":81.5,"capture":{"source":"/dev/video0","available":true,"frames":2440,"decoded":2431,"dropped":9,"idleSkipped":0,"corrupt":0,"reconnects":1,"fps":29.9},"barcodes":{"scans":640,"perSecond":7.1,"latencyP50":3.9,"latencyP99":11.2,"failures":0},"text":{"passes":190,"perSecond":2.4,"latencyP50":96.1,"latencyP99":210.4,"detectionFailures":0,"readFailures":0},"documents":{"passes":0,"perSecond":0,"latencyP50":null,"latencyP99":null},"events":{"items":1,"clients":2,"overflows":0,"published":57,"queuedBytes":0}}"#

    static let daemon = StatsReply.Daemon(
        uptime: 81.5,
        capture: .init(
            source: "/dev/video0", available: true, frames: 2440, decoded: 2431, dropped: 9, idleSkipped: 0, corrupt: 0, reconnects: 1, fps: 29.9),
        barcodes: .init(runs: 640, perSecond: 7.1, latencyP50: 3.9, latencyP99: 11.2), barcodeFailures: 0,
        text: .init(runs: 190, perSecond: 2.4, latencyP50: 96.1, latencyP99: 210.4), detectionFailures: 0, readFailures: 0,
        textModelFailure: nil, documents: .init(runs: 0, perSecond: 0, latencyP50: nil, latencyP99: nil))

    @Test func theReplyIsTheDocumentedOne() throws {
        let reply = StatsReply(daemon: Self.daemon, events: .init(items: 1, clients: 2, overflows: 0, published: 57, queuedBytes: 0))
        #expect(Reply.ok(Request.Echo(name: "stats"), reply.fields) == Self.documented)
        // The example is the one docs/protocol.md shows.
        let protocolDoc = try String(contentsOf: Fixtures.packageRoot.appendingPathComponent("docs/protocol.md"), encoding: .utf8)
        #expect(protocolDoc.contains(Self.documented))
    }

    @Test func mqttComesBeforeTheHubsFiguresAndAModelFailureIsSaid() {
        var daemon = Self.daemon
        daemon.textModelFailure = "OpenVINO: damaged"
        let reply = StatsReply(
            daemon: daemon, mqtt: .init(connected: false, queued: 3, unacknowledged: 1, published: 9, dropped: 0, lastError: "refused"))
        let keys = reply.fields.map(\.0)
        #expect(keys == ["uptime", "capture", "barcodes", "text", "documents", "mqtt", "events"])
        let text = reply.fields.first { $0.0 == "text" }?.1.serialized() ?? ""
        #expect(text.hasSuffix(#""readFailures":0,"modelFailure":"OpenVINO: damaged"}"#), "\(text)")
        let mqtt = reply.fields.first { $0.0 == "mqtt" }?.1.serialized()
        #expect(mqtt == #"{"connected":false,"queued":3,"unacknowledged":1,"published":9,"dropped":0,"lastError":"refused"}"#)
        // A handler with no pipeline behind it: the hub's figures alone.
        #expect(StatsReply().fields.map(\.0) == ["events"])
    }
}
