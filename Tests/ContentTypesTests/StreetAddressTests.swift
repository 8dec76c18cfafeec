import ContentTypes
import ScannerCore
import Testing

/// Street addresses (issue #43): a street and its locality on one line, or on two lines one under the
/// other; a street alone or a locality alone is no full address.
@Suite(.timeLimit(.minutes(2))) struct StreetAddressTests {
    let detector = try! ContentDetector(
        contentTypes: [.fullStreetAddress, .telephoneNumber, .dateTimeDuration, .currency], defaultRegion: "US")

    func addresses(_ line: String) -> [String] {
        detector.matches(in: line).filter { $0.contentType == .fullStreetAddress }.map { match in
            guard case .address(let address)? = match.parsed else { return "\(match.payload) ?" }
            #expect(match.payload == address.payload)
            let part = address.street == nil ? "locality" : address.locality == nil ? "street" : "full"
            return "\(part) \(match.payload) [\(match.transcript)]"
        }
    }

    @Test(arguments: [
        ("5250 York Blvd., Los Angeles, CA 90042", "full 5250 York Blvd, Los Angeles, CA 90042 [5250 York Blvd., Los Angeles, CA 90042]"),
        ("21 E. 12 ST. NEW YORK NY 10003", "full 21 E. 12 ST, NEW YORK NY 10003 [21 E. 12 ST. NEW YORK NY 10003]"),
        ("Große Pfarrgasse 11. 1020 Wien", "full Große Pfarrgasse 11, 1020 Wien [Große Pfarrgasse 11. 1020 Wien]"),
        ("BALKENWEG 2, 9405 CC ASSEN", "full BALKENWEG 2, 9405 CC ASSEN [BALKENWEG 2, 9405 CC ASSEN]"),
        ("169 Euston Road London NW1 2AE", "full 169 Euston Road, London NW1 2AE [169 Euston Road London NW1 2AE]"),
        ("221B Baker Street · London NW1 6XE", "full 221B Baker Street, London NW1 6XE [221B Baker Street · London NW1 6XE]"),
        ("12 rue de la Paix, 75002 Paris", "full 12 rue de la Paix, 75002 Paris [12 rue de la Paix, 75002 Paris]"),
        ("Via Roma 12, 20122 Milano", "full Via Roma 12, 20122 Milano [Via Roma 12, 20122 Milano]"),
        ("800 Canal St, New Orleans, LA", "full 800 Canal St, New Orleans, LA [800 Canal St, New Orleans, LA]"),
        (
            "1600 Harbour Street, Suite 400, Portland, OR 97204",
            "full 1600 Harbour Street, Suite 400, Portland, OR 97204 [1600 Harbour Street, Suite 400, Portland, OR 97204]"
        ),
        // A unit before the street, as a business card prints it.
        (
            "Suite 400, 1100 Congress Ave, Austin TX 78701",
            "full 1100 Congress Ave, Suite 400, Austin TX 78701 [Suite 400, 1100 Congress Ave, Austin TX 78701]"
        ),
        ("Vancouver, BC, V6G 2L7", "locality Vancouver, BC, V6G 2L7 [Vancouver, BC, V6G 2L7]"),
        ("LAS VEGAS NV 89123", "locality LAS VEGAS NV 89123 [LAS VEGAS NV 89123]"),
        ("NL-1017 MA Amsterdam", "locality NL-1017 MA Amsterdam [NL-1017 MA Amsterdam]"),
        ("4730 Pan American Fwy E.", "street 4730 Pan American Fwy E [4730 Pan American Fwy E.]"),
        ("Hauptstraße 5", "street Hauptstraße 5 [Hauptstraße 5]"),
        ("C/ Pedro de Valdivia, 21", "street C/ Pedro de Valdivia, 21 [C/ Pedro de Valdivia, 21]"),
        ("1488 11TH AVENUE WEST", "street 1488 11TH AVENUE WEST [1488 11TH AVENUE WEST]"),
    ])
    func streetsAndLocalities(line: String, expected: String) {
        #expect(addresses(line) == [expected], "\(line)")
    }

    /// A receipt's and a label's other lines: numbers beside words that are no street or town.
    @Test(arguments: [
        "CHECK # 5994 Table # 61", "Tel: 6688 7367 Fax: 6688 7369", "××××××1016 C AMEX", "2 Large Fries 4.99", "NEW BALANCE 1500 TRE",
        "Urb. Dofa Lola, C.C. LC 37", "4 Wheel", "Store 07 Austin", "ORDER 12345 Main", "Qty 3 @ 4.99", "TOTAL $28.09",
        "11/02/17 14:03 Num. 1 / 19483 Mesa 2", "Flight LH 400", "Seat 14C Gate B22",
    ])
    func notAnAddress(line: String) {
        #expect(addresses(line).isEmpty, "\(line): \(addresses(line))")
    }

    func item(_ line: String, y: Double, x: Double = 0.2, width: Double = 0.5, height: Double = 0.03) -> RecognizedItem {
        let match = detector.matches(in: line).first { $0.contentType == .fullStreetAddress }!
        return RecognizedItem(
            kind: .text, contentType: .fullStreetAddress, payload: match.payload, transcript: match.transcript,
            bounds: Quad(x: x, y: y, width: width, height: height), confidence: 0.9, details: PayloadDetails(parsed: match.parsed))
    }

    /// A street over its locality is one address over both lines; one alone is dropped; a full
    /// address and other items pass.
    @Test func aStreetAndTheLocalityUnderItAreOneAddress() {
        let phone = RecognizedItem(
            kind: .text, contentType: .telephoneNumber, payload: "+14155550123", bounds: Quad(x: 0.2, y: 0.5, width: 0.3, height: 0.03),
            confidence: 0.9)
        let items = [
            item("5250 York Blvd.", y: 0.10), item("Los Angeles, CA 90042", y: 0.14, x: 0.15, width: 0.6),
            item("Denver, CO 80202", y: 0.30),  // nothing above it
            item("1450 Larimer St", y: 0.60),  // and nothing under this one: the locality is too far below
            item("Denver, CO 80202", y: 0.75),
            item("800 Canal St, New Orleans, LA", y: 0.9), phone,
        ]
        let joined = StreetAddresses.assembled(items)
        #expect(joined.map(\.item.payload) == ["5250 York Blvd, Los Angeles, CA 90042", "800 Canal St, New Orleans, LA", "+14155550123"])
        #expect(joined.map(\.parts) == [[0, 1], [5], [6]])
        let first = joined[0].item
        #expect(first.transcript == "5250 York Blvd.\nLos Angeles, CA 90042")
        let box = first.bounds.boundingBox
        #expect(abs(box.minX - 0.15) < 1e-9 && abs(box.minY - 0.10) < 1e-9 && abs(box.maxX - 0.75) < 1e-9 && abs(box.maxY - 0.17) < 1e-9)
        guard case .address(let address)? = first.details?.parsed else {
            Issue.record("no parsed address")
            return
        }
        #expect(address.city == "Los Angeles" && address.region == "CA" && address.postalCode == "90042" && address.street == "5250 York Blvd")
    }

    /// Side by side (two columns) or of very different sizes, they are not one address.
    @Test func notUnderItOrNotOfItsSize() {
        let beside = [item("5250 York Blvd.", y: 0.10, x: 0.05, width: 0.3), item("Los Angeles, CA 90042", y: 0.14, x: 0.6, width: 0.3)]
        #expect(StreetAddresses.assembled(beside).isEmpty)
        let sizes = [item("5250 York Blvd.", y: 0.10, height: 0.02), item("Los Angeles, CA 90042", y: 0.13, height: 0.08)]
        #expect(StreetAddresses.assembled(sizes).isEmpty)
    }

    @Test func offByDefault() throws {
        #expect(!TextContentType.standard.contains(.fullStreetAddress))
        let standard = try ContentDetector(contentTypes: TextContentType.standard, defaultRegion: "US")
        #expect(standard.matches(in: "5250 York Blvd., Los Angeles, CA 90042").isEmpty)
    }
}
