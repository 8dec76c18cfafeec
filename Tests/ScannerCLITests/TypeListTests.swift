import ScannerClient
import ScannerCore
import ScannerProtocol
import Testing

/// `scanctl wait --types LIST`: the subscribe request it sends lets through exactly the items the
/// list names, judged by the daemon's own parser and filter.
@Suite struct TypeListTests {
    static let qr = item(.barcode, symbology: .qr)
    static let ean13 = item(.barcode, symbology: .ean13)
    static let phone = item(.text, contentType: .telephoneNumber)
    static let url = item(.text, contentType: .url)
    static let plain = item(.text)

    static func item(_ kind: RecognizedItem.Kind, symbology: Symbology? = nil, contentType: TextContentType? = nil) -> RecognizedItem {
        RecognizedItem(
            kind: kind, symbology: symbology, contentType: contentType, payload: "x", bounds: Quad(x: 0, y: 0, width: 0.1, height: 0.1), confidence: 1
        )
    }

    /// Which of qr, ean13, phone, url, plain text pass the filter `types` becomes in the daemon.
    func passing(_ types: String) throws -> [Bool] {
        let (_, result) = Request.parse(TypeList.subscription(types).serialized())
        guard case .subscribe(let filter) = try result.get() else {
            Issue.record("not a subscribe request")
            return []
        }
        return [Self.qr, Self.ean13, Self.phone, Self.url, Self.plain].map(filter.accepts)
    }

    @Test func onlyTheNamedTypesPass() throws {
        // A content type alone lets no barcode through (the demo's QR code came back first and was
        // printed for `--types telephoneNumber`), and a symbology alone no text.
        #expect(try passing("telephoneNumber") == [false, false, true, false, false])
        #expect(try passing("qr") == [true, false, false, false, false])
        #expect(try passing("qr,telephoneNumber") == [true, false, true, false, false])
        #expect(try passing("url, ean13") == [false, true, false, true, false])
        #expect(try passing("barcode") == [true, true, false, false, false])
        #expect(try passing("text") == [false, false, true, true, true])
        // A kind named whole is all of it, beside a narrower name of the other kind.
        #expect(try passing("barcode,url") == [true, true, false, true, false])
        #expect(try passing("qr,barcode") == [true, true, false, false, false])
        #expect(try passing("") == [true, true, true, true, true])
    }

    @Test func anUnknownNameReachesTheDaemonsJudgement() {
        let (_, result) = Request.parse(TypeList.subscription("qr,nonsense").serialized())
        guard case .failure(let failure) = result else {
            Issue.record("the daemon accepted an unknown symbology")
            return
        }
        #expect(failure.code == .badArgument && failure.message.contains("nonsense"), "\(failure.message)")
    }

    /// A name written to break out of its JSON string stays one (unknown) name: refused, not a filter.
    @Test func aNameCannotWriteTheRequest() {
        for hostile in [#"qr"],"kinds":["text"#, "qr\n{\"request\":\"pause\"}", String(repeating: "x", count: 10_000)] {
            let line = TypeList.subscription(hostile).serialized()
            #expect(!line.contains("\n"), "one line")
            let (_, result) = Request.parse(line)
            guard case .failure(let failure) = result else {
                Issue.record("accepted: \(line.prefix(80))")
                continue
            }
            #expect(failure.code == .badArgument, "\(failure.message)")
        }
    }
}
