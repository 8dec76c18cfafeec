import Foundation
import ScannerCore
import ScannerProtocol
import TestSupport
import Testing

@Suite struct ScannerProtocolTests {
    /// docs/protocol.md's table names every code the daemon can say.
    /// A change's keys are the ones its request line carries (the `set` log names exactly those).
    @Test func aChangeNamesTheKeysItsRequestCarries() {
        for change in [ConfigChange(quality: .fast, singleItem: true), ConfigChange(regionOfInterest: .full), ConfigChange()] {
            let line = JSONLines.object(Request.set(change).line())
            #expect(change.wireKeys == Set(line.keys).subtracting(["request"]), "\(Request.set(change).line())")
        }
    }

    @Test func everyErrorCodeIsDocumented() throws {
        let doc = try String(contentsOfFile: Fixtures.packageRoot.appendingPathComponent("docs/protocol.md").path, encoding: .utf8)
        for code in ErrorCode.allCases {
            #expect(doc.contains("| `\(code.rawValue)` |"), "docs/protocol.md has no row for \(code.rawValue)")
        }
    }

    /// Requests as scanctl sends them: the documented keys, sorted, `null` for the whole frame.
    @Test func requestsEncodeToTheDocumentedLines() {
        #expect(Request.ping.line() == #"{"request":"ping"}"#)
        #expect(Request.subscribe(EventFilter(kinds: [.text])).line() == #"{"kinds":["text"],"request":"subscribe"}"#)
        #expect(Request.set(ConfigChange(regionOfInterest: .full, singleItem: true)).line() == #"{"request":"set","roi":null,"single":true}"#)
        let types = RecognitionTypes(symbologies: [.qr], contentTypes: [.url])
        #expect(
            Request.set(ConfigChange(regionOfInterest: NormalizedRect(x: 0.25, y: 0, width: 0.5, height: 1), quality: .fast, types: types)).line()
                == #"{"quality":"fast","request":"set","roi":[0.25,0,0.5,1],"types":["qr","url"]}"#)
        #expect(Request.capture(path: nil, content: .annotated, overwrite: false).line() == #"{"annotate":true,"request":"capture"}"#)
        #expect(
            Request.capture(path: "/tmp/a/b.jpg", content: .frame, overwrite: true).line()
                == #"{"annotate":false,"overwrite":true,"path":"/tmp/a/b.jpg","request":"capture"}"#)
        #expect(Request.capture(path: nil, content: .document, overwrite: false).line() == #"{"annotate":false,"document":true,"request":"capture"}"#)
    }

    /// One type both ways: what a client encodes, the server parses back to the same request.
    @Test func everyRequestSurvivesTheWire() {
        let requests: [Request] = [
            .ping, .items, .stats, .subscribe(EventFilter()),
            .subscribe(EventFilter(kinds: [.barcode], symbologies: [.qr, .ean13], contentTypes: [.telephoneNumber, .emailAddress])),
            .set(ConfigChange(regionOfInterest: .full)),
            .set(
                ConfigChange(
                    regionOfInterest: NormalizedRect(x: 0.1, y: 0.2, width: 0.3, height: 0.4), quality: .accurate,
                    types: RecognitionTypes(symbologies: [.code128], contentTypes: [.url], plainText: true), singleItem: false)),
            .set(ConfigChange(types: .all)),
            .capture(path: nil, content: .frame, overwrite: false), .capture(path: "/var/lib/x.jpg", content: .annotated, overwrite: true),
            .capture(path: nil, content: .document, overwrite: false),
            .pause, .resume,
            .subscribe(EventFilter(repeatPolicy: .oncePerSession)), .subscribe(EventFilter(kinds: [.text], repeatPolicy: .after(seconds: 2.5))),
        ]
        for request in requests {
            let parsed = Request.parse(request.line())
            #expect(parsed.echo.name == request.name)
            #expect((try? parsed.result.get()) == request, "\(request.line())")
        }
    }

    /// `repeat` is one of three forms; anything else is refused with the reason.
    @Test func aRepeatRuleIsReadStrictly() throws {
        func parsed(_ line: String) -> Result<Request, Request.Failure> { Request.parse(line).result }
        #expect(try parsed(#"{"request":"subscribe","repeat":{"after":30}}"#).get() == .subscribe(EventFilter(repeatPolicy: .after(seconds: 30))))
        #expect(try parsed(#"{"request":"subscribe","repeat":"always"}"#).get() == .subscribe(EventFilter()))
        for bad in [
            #"{"request":"subscribe","repeat":"never"}"#, #"{"request":"subscribe","repeat":{"after":0}}"#,
            #"{"request":"subscribe","repeat":{"after":-5}}"#, #"{"request":"subscribe","repeat":{"after":1e9}}"#,
            #"{"request":"subscribe","repeat":{"after":"30"}}"#, #"{"request":"subscribe","repeat":{"after":30,"x":1}}"#,
            #"{"request":"subscribe","repeat":true}"#, #"{"request":"subscribe","repeat":null}"#,
        ] {
            guard case .failure(let failure) = parsed(bad) else {
                Issue.record("accepted: \(bad)")
                continue
            }
            #expect(failure.code == .badArgument && failure.message.contains("repeat"), "\(bad): \(failure.message)")
        }
    }

    /// `subscribe`'s symbologies take the groups `--types` takes (issue #41); an unknown name is refused
    /// with the groups named.
    @Test func aSubscriptionNamesSymbologyGroups() throws {
        func parsed(_ line: String) -> Result<Request, Request.Failure> { Request.parse(line).result }
        #expect(
            try parsed(#"{"request":"subscribe","symbologies":["retail","qr"]}"#).get()
                == .subscribe(EventFilter(symbologies: Symbology.groups["retail"]!.union([.qr]))))
        guard case .failure(let failure) = parsed(#"{"request":"subscribe","symbologies":["shelf"]}"#) else {
            Issue.record("an unknown group was accepted")
            return
        }
        #expect(failure.code == .badArgument && failure.message.contains("shelf") && failure.message.contains("retail"), "\(failure.message)")
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
