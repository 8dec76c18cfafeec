import Foundation
import ScannerCore
import ScannerProtocol
import TestSupport
import Testing

@Suite struct ScannerProtocolTests {
    /// docs/protocol.md's table names every code the daemon can say.
    @Test func everyErrorCodeIsDocumented() throws {
        let doc = try String(contentsOfFile: Fixtures.packageRoot.appendingPathComponent("docs/protocol.md").path, encoding: .utf8)
        for code in ErrorCode.allCases {
            #expect(doc.contains("| `\(code.rawValue)` |"), "docs/protocol.md has no row for \(code.rawValue)")
        }
    }

    /// Requests as scanctl sends them: the documented keys, sorted, `null` for the whole frame.
    @Test func requestsEncodeToTheDocumentedLines() {
        #expect(ClientRequest.ping.line() == #"{"request":"ping"}"#)
        #expect(ClientRequest.subscribe(kinds: ["text"]).line() == #"{"kinds":["text"],"request":"subscribe"}"#)
        #expect(ClientRequest.set(.init(roi: .full, single: true)).line() == #"{"request":"set","roi":null,"single":true}"#)
        #expect(
            ClientRequest.set(.init(roi: .rect(x: 0.25, y: 0, width: 0.5, height: 1), quality: "fast", types: ["qr", "url"])).line()
                == #"{"quality":"fast","request":"set","roi":[0.25,0,0.5,1],"types":["qr","url"]}"#)
        #expect(ClientRequest.capture(annotate: true).line() == #"{"annotate":true,"request":"capture"}"#)
        #expect(
            ClientRequest.capture(annotate: false, path: "/tmp/a/b.jpg", overwrite: true).line()
                == #"{"annotate":false,"overwrite":true,"path":"/tmp/a/b.jpg","request":"capture"}"#)
    }

    /// A reply's head is read whatever else the line holds; events are not replies; other lines are nothing.
    @Test func linesAreRepliesEventsOrNothing() throws {
        let refusal = try #require(ServerLine(#"{"reply":"set","ok":false,"error":{"code":"access-denied","message":"no"}}"#))
        #expect(refusal.isReply && refusal.head.ok == false)
        #expect(refusal.head.error == ServerLine.Failure(code: "access-denied", message: "no"))
        #expect(ErrorCode(rawValue: refusal.head.error!.code) == .accessDenied)
        let event = try #require(ServerLine(#"{"event":"added","seq":1,"item":{"payload":"x"}}"#))
        #expect(!event.isReply && event.head.event == "added" && event.object["item"]?["payload"] == .string("x"))
        #expect(ServerLine("not json") == nil)
        #expect(ServerLine("[1,2]") == nil)
    }
}
