import Foundation
import ScannerCore
import Testing

@testable import ScannerProtocol

/// The events' one encoder and one decoder (issue #42). The golden lines are the wire itself, written
/// out by hand as docs/protocol.md shows them: a change to the encoder that changes a byte fails here.
@Suite struct EventTests {
    static let id = UUID(uuidString: "00000000-0000-0000-0000-000000000001")!
    static let time = "2026-11-26T06:00:00.000Z"

    static let phone = Event.Item(
        RecognizedItem(
            kind: .text, contentType: .telephoneNumber, payload: "+14155550123", transcript: "(415) 555-0123",
            bounds: Quad(x: 0.1, y: 0.2, width: 0.3, height: 0.05), confidence: 0.91))

    static let qr = Event.Item(
        RecognizedItem(
            kind: .barcode, symbology: .qr, payload: "https://example.com", bounds: Quad(x: 0.5, y: 0.25, width: 0.25, height: 0.25),
            confidence: 1, details: PayloadDetails(symbologyIdentifier: "]Q1", payloadBase64: "aGk=")),
        id: id, firstFrame: 3, lastFrame: 7)

    static let bounds = #""bounds":{"topLeft":[0.5,0.25],"topRight":[0.75,0.25],"bottomRight":[0.75,0.5],"bottomLeft":[0.5,0.5]}"#
    static let qrJSON =
        #"{"id":"00000000-0000-0000-0000-000000000001","kind":"barcode","symbology":"qr","symbologyIdentifier":"]Q1","payload":"https://example.com","payloadBase64":"aGk=","#
        + bounds + #","confidence":1,"firstFrame":3,"lastFrame":7}"#

    /// Every event the daemon says, and the exact line it says it in.
    static let golden: [(EventLine, String)] = [
        (
            EventLine(
                .hello(Event.Hello(version: 1, daemon: "0.2.0", source: "demo", cameraAvailable: false, paused: false, items: [qr])),
                time: time),
            #"{"event":"hello","time":"\#(time)","version":1,"daemon":"0.2.0","source":"demo","camera":"unavailable","recognition":"running","items":["#
                + qrJSON + "]}"
        ),
        (EventLine(.available, seq: 1, time: time), #"{"event":"available","seq":1,"time":"\#(time)"}"#),
        (
            EventLine(.unavailable(reason: "no such device"), seq: 2, time: time),
            #"{"event":"unavailable","seq":2,"time":"\#(time)","reason":"no such device"}"#
        ),
        (EventLine(.added(qr, frame: 3), seq: 3, time: time), #"{"event":"added","seq":3,"frame":3,"time":"\#(time)","item":"# + qrJSON + "}"),
        (EventLine(.updated(qr, frame: 7), seq: 4, time: time), #"{"event":"updated","seq":4,"frame":7,"time":"\#(time)","item":"# + qrJSON + "}"),
        (EventLine(.removed(qr, frame: 9), seq: 5, time: time), #"{"event":"removed","seq":5,"frame":9,"time":"\#(time)","item":"# + qrJSON + "}"),
        (EventLine(.paused, seq: 6, time: time), #"{"event":"paused","seq":6,"time":"\#(time)"}"#),
        (EventLine(.resumed, seq: 7, time: time), #"{"event":"resumed","seq":7,"time":"\#(time)"}"#),
        (EventLine(.guidance(.hint(.tooDark)), seq: 8, time: time), #"{"event":"guidance","seq":8,"time":"\#(time)","hint":"tooDark"}"#),
        (EventLine(.guidance(.cleared), seq: 8, time: time), #"{"event":"guidance","seq":8,"time":"\#(time)","hint":"cleared"}"#),
        (
            EventLine(
                .config(
                    Event.Configuration(
                        regionOfInterest: NormalizedRect(x: 0, y: 0.2, width: 1, height: 0.8), quality: .balanced, types: ["qr", "telephoneNumber"],
                        single: false)), seq: 9, time: time),
            #"{"event":"config","seq":9,"time":"\#(time)","roi":[0,0.2,1,0.8],"quality":"balanced","types":["qr","telephoneNumber"],"single":false}"#
        ),
        (
            EventLine(
                .config(
                    Event.Configuration(
                        regionOfInterest: NormalizedRect(x: 0, y: 0, width: 1, height: 1), quality: .fast, types: [], single: true,
                        reload: .init(changed: ["recognition.quality"], restartRequired: ["camera.device"]))), seq: 10, time: time),
            #"{"event":"config","seq":10,"time":"\#(time)","roi":[0,0,1,1],"quality":"fast","types":[],"single":true,"reason":"reload","changed":["recognition.quality"],"restartRequired":["camera.device"]}"#
        ),
        (EventLine(.end(frames: 120), seq: 11, time: time), #"{"event":"end","seq":11,"time":"\#(time)","frames":120}"#),
        (EventLine(.overflow(message: "too slow")), #"{"event":"overflow","message":"too slow"}"#),
    ]

    @Test func everyEventIsWrittenAsTheProtocolSays() {
        for (event, line) in Self.golden { #expect(event.encoded() == line) }
    }

    /// Each golden line decodes to its event, and that event encodes to the same line.
    @Test func everyEventRoundTrips() throws {
        for (event, line) in Self.golden {
            let decoded = try EventLine(decoding: line)
            #expect(decoded == event, "\(line)")
            #expect(decoded.encoded() == line)
        }
    }

    /// An item as `scannerd scan` prints it (no id, no frames), transcript included.
    @Test func anUntrackedItemHasTheDocumentedShape() throws {
        let json = Self.phone.json.serialized()
        #expect(
            json
                == #"{"kind":"text","contentType":"telephoneNumber","payload":"+14155550123","transcript":"(415) 555-0123","bounds":{"topLeft":[0.1,0.2],"topRight":[0.4,0.2],"bottomRight":[0.4,0.25],"bottomLeft":[0.1,0.25]},"confidence":0.91}"#
        )
        #expect(try Event.Item(JSONDecoder().decode(JSONValue.self, from: Data(json.utf8))) == Self.phone)
    }

    /// What is not an event this client knows is an error that says why, never a guess.
    @Test func whatIsNotAnEventSaysWhy() {
        let cases: [(String, String)] = [
            ("not json", "not a JSON object"),
            (#"[1,2]"#, "not a JSON object"),
            (#"{"reply":"ping","ok":true}"#, "event: event is missing"),
            (#"{"event":"teleported","seq":1}"#, "unknown event \"teleported\""),
            (#"{"event":"added","seq":1,"frame":2,"time":"t"}"#, "added: no item"),
            (#"{"event":"end","seq":1,"frames":"many"}"#, "event: frames is not an integer"),
            (#"{"event":"added","seq":1,"frame":2,"item":{"kind":"barcode","payload":"x","confidence":1}}"#, "item: bounds.topLeft is not [x, y]"),
            (#"{"event":"removed","seq":1,"frame":2,"item":{"kind":"sound","payload":"x"}}"#, "item: unknown kind"),
            (#"{"event":"guidance","seq":1,"hint":"smile"}"#, "guidance: unknown hint smile"),
            (#"{"event":"config","seq":1,"roi":[0,0,1],"quality":"fast","types":[],"single":true}"#, "config: roi is not [x, y, width, height]"),
        ]
        for (line, reason) in cases {
            #expect(throws: EventLine.DecodingError(description: reason), "\(line)") { try EventLine(decoding: line) }
        }
    }
}
