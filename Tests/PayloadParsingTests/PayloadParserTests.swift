import Foundation
import ScannerCore
import Testing

@testable import PayloadParsing

/// Each format read right, and every malformed variant has no parsed form (never a partial one).
struct WiFiTests {
    @Test func aNetworkIsReadWithoutItsPassword() {
        let parsed = PayloadParser.parse("WIFI:T:WPA;S:Kiosk Guest;P:s3cr\\;et;H:true;;", symbology: .qr)
        #expect(parsed == .wifi(WiFiNetwork(ssid: "Kiosk Guest", security: "WPA", hidden: true)))
        #expect(
            parsed?.json.serialized()
                == #"{"type":"wifi","ssid":"Kiosk Guest","security":"WPA","hidden":false}"#.replacingOccurrences(of: "false", with: "true"))
        #expect(parsed?.json.serialized().contains("s3cr") == false)
    }

    @Test func escapesOrderAndDefaultsFollowTheFormat() {
        #expect(PayloadParser.parse("wifi:S:a\\:b\\\\c;;", symbology: .qr) == .wifi(WiFiNetwork(ssid: "a:b\\c", security: "nopass", hidden: false)))
        #expect(PayloadParser.parse("WIFI:P:x;S:\"0123\";T:WEP;", symbology: .qr) == .wifi(WiFiNetwork(ssid: "0123", security: "WEP", hidden: false)))
        #expect(PayloadParser.parse("WIFI:S:net;T:;;", symbology: .qr) == .wifi(WiFiNetwork(ssid: "net", security: "nopass", hidden: false)))
    }

    @Test(arguments: [
        "WIFI:T:WPA;P:secret;;",  // no SSID
        "WIFI:S:;;",  // empty SSID
        "WIFI:S:net;S:other;;",  // two SSIDs
        "WIFI:S:net;H:maybe;;",  // hidden is true or false
        "WIFI:S:net;P:secret",  // value not closed
        "WIFI:S:net\\",  // escape at the end
        "WIFI:S:net;;trailing",  // something after the end
        "WIFI:S:net;X:1;;",  // an unknown key
        "WIFI:S:net;T:W P A;;",  // a security type with a space
        "WIFI:S:0123456789012345678901234567890123;;",  // longer than 802.11's 32 octets
        "WIFI:;S:net;;",
        "WIFI:",
        "WIFI:S",
    ])
    func malformedCodesHaveNoParsedForm(_ payload: String) {
        #expect(PayloadParser.parse(payload, symbology: .qr) == nil)
    }
}

struct ContactTests {
    @Test func aMECARDIsAContact() {
        let parsed = PayloadParser.parse(
            "MECARD:N:Lindqvist,Avery;ORG:Northgate Optics;TEL:+15125550173;TEL:+15125550100;EMAIL:avery@northgate-optics.com;URL:https://northgate-optics.com;ADR:1 Main St\\, Austin;;",
            symbology: .qr)
        #expect(
            parsed
                == .contact(
                    Contact(
                        name: "Avery Lindqvist", organization: "Northgate Optics", phones: ["+15125550173", "+15125550100"],
                        emails: ["avery@northgate-optics.com"], urls: ["https://northgate-optics.com"], address: "1 Main St, Austin")))
    }

    @Test(arguments: ["MECARD:TEL:+15125550173;;", "MECARD:N:A;N:B;;", "MECARD:N:Doe,John;PASSWORD:x;;", "MECARD:N:Doe", "MECARD:N:a,b,c;;"])
    func malformedMECARDsHaveNoParsedForm(_ payload: String) {
        #expect(PayloadParser.parse(payload, symbology: .qr) == nil)
    }

    @Test func aVCardIsAContact() {
        let card = """
            BEGIN:VCARD\r
            VERSION:3.0\r
            N:Raman;Priya;;Dr.;\r
            FN:Priya Raman\r
            ORG:Kestrel Labs;Research\r
            TITLE:Head of\r
             Research\r
            TEL;TYPE=CELL:+44 113 496 0639\r
            item1.EMAIL;TYPE=INTERNET:priya@kestrel-labs.co.uk\r
            URL:https://kestrel-labs.co.uk/team\r
            ADR;TYPE=WORK:;;1 Park Row;Leeds;;LS1 5AB;UK\r
            NOTE;ENCODING=QUOTED-PRINTABLE:=C3=A9\r
            END:VCARD\r

            """
        #expect(
            PayloadParser.parse(card, symbology: .qr)
                == .contact(
                    Contact(
                        name: "Priya Raman", organization: "Kestrel Labs, Research", title: "Head ofResearch", phones: ["+44 113 496 0639"],
                        emails: ["priya@kestrel-labs.co.uk"], urls: ["https://kestrel-labs.co.uk/team"], address: "1 Park Row, Leeds, LS1 5AB, UK")))
    }

    @Test func aVCardWithoutAFormattedNameUsesItsStructuredName() {
        let card = "BEGIN:VCARD\nVERSION:4.0\nN:Raman;Priya;;Dr.;\nTEL:tel:+441134960639\nEND:VCARD"
        #expect(PayloadParser.parse(card, symbology: .qr) == .contact(Contact(name: "Dr. Priya Raman", phones: ["+441134960639"])))
    }

    @Test(arguments: [
        "BEGIN:VCARD\nFN:No Version\nEND:VCARD",
        "BEGIN:VCARD\nVERSION:3.0\nFN:Cut short",
        "BEGIN:VCARD\nVERSION:9.9\nFN:Future\nEND:VCARD",
        "BEGIN:VCARD\nVERSION:3.0\nno colon here\nEND:VCARD",
        "BEGIN:VCARD\nVERSION:3.0\nBEGIN:VCARD\nFN:Nested\nEND:VCARD",
        "BEGIN:VCARD\nVERSION:3.0\nNOTE:nothing to call\nEND:VCARD",
        "BEGIN:VCARD\nVERSION:3.0\nVERSION:3.0\nFN:Twice\nEND:VCARD",
    ])
    func malformedVCardsHaveNoParsedForm(_ card: String) {
        #expect(PayloadParser.parse(card, symbology: .qr) == nil)
    }
}

struct WebLinkTests {
    @Test func aLinkIsParsed() {
        #expect(
            PayloadParser.parse("https://Example.com/scannerd?x=1", symbology: .qr)
                == .url(WebLink(url: "https://Example.com/scannerd?x=1", scheme: "https", host: "example.com")))
    }

    @Test(arguments: ["https://", "http://exa mple.com", "https://example.com/\n", "https://[::1", "ftp://example.com", "example.com"])
    func whatIsNotOneLinkHasNoParsedForm(_ payload: String) {
        #expect(PayloadParser.parse(payload, symbology: .qr) == nil)
    }
}

struct GS1Tests {
    let gs = "\u{1D}"

    @Test func elementStringsAreSplitByAI() {
        let parsed = PayloadParser.parse(
            "0109521234543213" + "17261231" + "10LOT-42" + gs + "3103000123" + "21SN1", symbology: .code128, symbologyIdentifier: "]C1")
        #expect(
            parsed
                == .gs1([
                    GS1Element(ai: "01", name: "GTIN", value: "09521234543213"),
                    GS1Element(ai: "17", name: "USE BY OR EXPIRY", value: "261231"),
                    GS1Element(ai: "10", name: "BATCH/LOT", value: "LOT-42"),
                    GS1Element(ai: "3103", name: "NET WEIGHT (kg)", value: "000123"),
                    GS1Element(ai: "21", name: "SERIAL", value: "SN1"),
                ]))
    }

    @Test func dataBarIsAlwaysGS1AndCode128OnlyWithFNC1() {
        #expect(
            PayloadParser.parse("0109521234543213", symbology: .gs1DataBar) == .gs1([GS1Element(ai: "01", name: "GTIN", value: "09521234543213")]))
        #expect(PayloadParser.parse("0109521234543213", symbology: .code128, symbologyIdentifier: "]C0") == nil)
        #expect(PayloadParser.parse("0109521234543213", symbology: .code128) == nil)
        #expect(PayloadParser.parse(gs + "0109521234543213", symbology: .qr, symbologyIdentifier: "]Q3") != nil)
    }

    @Test(arguments: [
        "0109521234543214",  // GTIN check digit wrong
        "010952123454321",  // GTIN one digit short
        "17261331",  // month 13
        "9999",  // 99 with… fine, but
        "10",  // an AI without data
        "10LOT\u{1D}",  // a separator with nothing after it
        "0109521234543213\u{1D}\u{1D}10A",  // two separators
        "01095212345432AB",  // letters in a numeric AI
        "10A B",  // a space
        "10123456789012345678901",  // batch longer than 20
        "19123456",  // no AI 19 defined
        "",
    ])
    func malformedElementStringsHaveNoParsedForm(_ payload: String) {
        if payload == "9999" {
            #expect(PayloadParser.parse(payload, symbology: .gs1DataBarExpanded) == .gs1([GS1Element(ai: "99", name: "INTERNAL", value: "99")]))
            return
        }
        #expect(PayloadParser.parse(payload, symbology: .gs1DataBarExpanded) == nil)
    }
}

struct AAMVATests {
    static func licence(version: String = "08", elements: [String], offset: Int? = nil, country: String? = "USA") -> String {
        let body = "DL" + (elements + (country.map { ["DCG" + $0] } ?? [])).joined(separator: "\n") + "\r"
        let header = "@\n\u{1E}\rANSI 636014" + version + (version == "01" ? "" : "00") + "01"
        let start = offset ?? (header.utf8.count + 10)
        return header + "DL" + String(format: "%04d%04d", start, body.utf8.count) + body
    }

    @Test func aLicenceGivesNameBirthAndExpiry() {
        let payload = Self.licence(elements: ["DAQD1234567", "DCSLINDQVIST", "DACAVERY", "DADJ", "DBB07041990", "DBA07042030", "DAJTX"])
        #expect(
            PayloadParser.parse(payload, symbology: .pdf417)
                == .aamva(
                    DriverLicense(
                        familyName: "LINDQVIST", givenName: "AVERY", middleName: "J", dateOfBirth: "1990-07-04", expiry: "2030-07-04",
                        jurisdiction: "TX", issuer: "636014")))
        // The licence number stays in the payload only.
        #expect(PayloadParser.parse(payload, symbology: .pdf417)?.json.serialized().contains("D1234567") == false)
    }

    @Test func canadianDatesAndWrongOffsetsAndVersionOne() {
        let canadian = Self.licence(elements: ["DCSRAMAN", "DACPRIYA", "DBB19900704", "DBA20300704"], offset: 3, country: "CAN")
        #expect(
            PayloadParser.parse(canadian, symbology: .pdf417)
                == .aamva(
                    DriverLicense(
                        familyName: "RAMAN", givenName: "PRIYA", dateOfBirth: "1990-07-04", expiry: "2030-07-04", issuer: "636014")))
        let first = Self.licence(version: "01", elements: ["DAALINDQVIST,AVERY,J", "DBB07041990"], country: nil)
        #expect(
            PayloadParser.parse(first, symbology: .pdf417)
                == .aamva(
                    DriverLicense(
                        familyName: "LINDQVIST", givenName: "AVERY", middleName: "J", dateOfBirth: "1990-07-04", issuer: "636014")))
    }

    @Test func malformedLicencesHaveNoParsedForm() {
        let good = Self.licence(elements: ["DCSLINDQVIST", "DBB07041990"])
        #expect(PayloadParser.parse(good, symbology: .pdf417) != nil)
        #expect(PayloadParser.parse(good, symbology: .qr) == nil)  // a licence is a PDF417
        for bad in [
            Self.licence(elements: ["DACAVERY", "DBB07041990"]),  // no family name
            Self.licence(elements: ["DCSLINDQVIST", "DBB13411990"]),  // no such date
            Self.licence(elements: ["DCSLINDQVIST", "dbb07041990"]),  // an element ID in lower case
            String(good.prefix(20)),  // cut in the header
            good.replacingOccurrences(of: "636014", with: "63601X"),
            good.replacingOccurrences(of: "DL00", with: "ZZ00"),  // no DL or ID subfile
        ] {
            #expect(PayloadParser.parse(bad, symbology: .pdf417) == nil, "\(bad.debugDescription)")
        }
    }
}

/// Hostile payloads: every cut and every one-character corruption of a valid payload of each format is
/// parsed (to something or to nil) without trapping.
struct CorruptedPayloadTests {
    @Test func noCutOrCorruptionTraps() {
        let payloads: [(String, Symbology, String?)] = [
            ("WIFI:T:WPA;S:Kiosk\\;Guest;P:pw;H:true;;", .qr, nil),
            ("MECARD:N:Doe\\,X,John;TEL:+1;;", .qr, nil),
            ("BEGIN:VCARD\r\nVERSION:3.0\r\nN:a;b;;;\r\n x\r\nEND:VCARD", .qr, nil),
            ("0109521234543213172612311" + "0LOT\u{1D}3103000123", .code128, "]C1"),
            (AAMVATests.licence(elements: ["DCSLINDQVIST", "DBB07041990", "DBA07042030"]), .pdf417, nil),
        ]
        var parsed = 0
        for (payload, symbology, identifier) in payloads {
            let scalars = Array(payload.unicodeScalars)
            for cut in 0...scalars.count {
                var view = String.UnicodeScalarView()
                view.append(contentsOf: scalars[..<cut])
                if PayloadParser.parse(String(view), symbology: symbology, symbologyIdentifier: identifier) != nil { parsed += 1 }
                for replacement in ["\u{0}", ";", "\\", "\u{1D}", "\n", "é", ":"] where cut < scalars.count {
                    var corrupted = scalars
                    corrupted[cut] = replacement.unicodeScalars.first!
                    var text = String.UnicodeScalarView()
                    text.append(contentsOf: corrupted)
                    _ = PayloadParser.parse(String(text), symbology: symbology, symbologyIdentifier: identifier)
                }
            }
        }
        // The whole payloads parse; most cuts do not.
        #expect(parsed >= payloads.count)
    }
}
