import Recognition
import ScannerCore
import TestTraits
import Testing

/// Fixtures made by BWIPP and segno (Tests/Fixtures/generate.py, `codes_2d`) read with the right
/// `parsed` object; each malformed variant is read, and has none.
@Suite(.offThePool(minutes: 2)) struct ParsedPayloadTests {
    static let fixtures: [(file: String, symbology: Symbology, identifier: String, parsed: String?)] = [
        ("qr-wifi.png", .qr, "]Q1", #"{"type":"wifi","ssid":"Kiosk Guest","security":"WPA","hidden":false}"#),
        ("qr-wifi-malformed.png", .qr, "]Q1", nil),
        (
            "qr-mecard.png", .qr, "]Q1",
            #"{"type":"contact","name":"Avery Lindqvist","organization":"Northgate Optics","phones":["+15125550173"],"emails":["avery@northgate-optics.com"]}"#
        ),
        (
            "qr-vcard.png", .qr, "]Q1",
            #"{"type":"contact","name":"Priya Raman","organization":"Kestrel Labs","phones":["+44 113 496 0639"],"emails":["priya@kestrel-labs.co.uk"],"urls":["https://kestrel-labs.co.uk/team"]}"#
        ),
        ("qr-vcard-malformed.png", .qr, "]Q1", nil),
        (
            "gs1-128.png", .code128, "]C1",
            #"{"type":"gs1","elements":[{"ai":"01","name":"GTIN","value":"09521234543213"},{"ai":"17","name":"USE BY OR EXPIRY","value":"261231"},{"ai":"10","name":"BATCH/LOT","value":"LOT42"},{"ai":"21","name":"SERIAL","value":"SN7"}]}"#
        ),
        ("gs1-128-malformed.png", .code128, "]C1", nil),
        (
            "gs1-datamatrix.png", .datamatrix, "]d2",
            #"{"type":"gs1","elements":[{"ai":"01","name":"GTIN","value":"09521234543213"},{"ai":"17","name":"USE BY OR EXPIRY","value":"261231"},{"ai":"10","name":"BATCH/LOT","value":"LOT42"}]}"#
        ),
        (
            "aamva.png", .pdf417, "]L2",
            #"{"type":"aamva","familyName":"LINDQVIST","givenName":"AVERY","middleName":"J","dateOfBirth":"1990-07-04","expiry":"2030-07-04","jurisdiction":"TX","issuer":"636014"}"#
        ),
        ("aamva-malformed.png", .pdf417, "]L2", nil),
    ]

    @Test(arguments: fixtures)
    func eachFixtureHasItsParsedForm(fixture: (file: String, symbology: Symbology, identifier: String, parsed: String?)) throws {
        let items = try scanFixture(fixture.file)
        #expect(items.count == 1, "\(items)")
        let item = try #require(items.first)
        #expect(item.symbology == fixture.symbology)
        #expect(item.details?.symbologyIdentifier == fixture.identifier)
        #expect(item.details?.parsed?.json.serialized() == fixture.parsed)
    }

    /// GS1 data keeps its separators in the payload: the variable-length batch is ended by FNC1.
    @Test func gs1SeparatorsStayInThePayload() throws {
        #expect(try scanFixture("gs1-128.png").first?.payload == "010952123454321317261231" + "10LOT42\u{1D}21SN7")
        #expect(try scanFixture("gs1-datamatrix.png").first?.payload == "010952123454321317261231" + "10LOT42")
    }

    /// The Wi-Fi password is in the payload for the client that joins, and nowhere in `parsed`.
    @Test func theWiFiPasswordIsOnlyInThePayload() throws {
        let item = try #require(try scanFixture("qr-wifi.png").first)
        #expect(item.payload.contains("correct horse"))
        #expect(item.details?.parsed?.json.serialized().contains("correct horse") == false)
    }
}
