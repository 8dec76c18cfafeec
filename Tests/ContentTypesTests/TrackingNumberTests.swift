import ContentTypes
import ScannerCore
import Testing

/// Parcel tracking numbers in text as OCR delivers it (issue #43). The valid numbers are carriers'
/// published examples (UPS's 1Z999AA10123456784, FedEx's test numbers, the UPU S10 standard's
/// EE123456785GB and RR473124829GB, DHL Express's 3318810025) except USPS's, which is built with
/// Publication 199's mod 10 (9400 1118 9922 3397 8812 38).
@Suite(.timeLimit(.minutes(2))) struct TrackingNumberTests {
    let detector = try! ContentDetector(contentTypes: [.shipmentTrackingNumber, .telephoneNumber])

    func tracking(_ line: String) -> [String] {
        detector.matches(in: line).filter { $0.contentType == .shipmentTrackingNumber }.map { match in
            guard case .shipment(let shipment)? = match.parsed else { return "\(match.payload) ?" }
            return "\(match.payload) \(shipment.carrier)\(shipment.country.map { " " + $0 } ?? "")"
        }
    }

    @Test(arguments: [
        ("1Z999AA10123456784", "1Z999AA10123456784 ups"),
        ("TRACKING #: 1Z 999 AA1 01 2345 6784", "1Z999AA10123456784 ups"),
        ("1z999aa10123456784", "1Z999AA10123456784 ups"),
        ("Registered EE123456785GB", "EE123456785GB s10 GB"),
        ("RR 473 124 829 GB", "RR473124829GB s10 GB"),
        ("FedEx tracking 5688 3841 4941", "568838414941 fedex"),
        ("TRK# 797806677146 FedEx Express", "797806677146 fedex"),
        ("DHL Waybill 33 1881 0025", "3318810025 dhl"),
        ("USPS TRACKING # 9400 1118 9922 3397 8812 38", "9400111899223397881238 usps"),
    ])
    func eachCarriersFormat(line: String, expected: String) {
        #expect(tracking(line) == [expected], "\(line)")
    }

    /// One digit off is no tracking number: every format has a check digit.
    @Test(arguments: [
        "1Z999AA10123456785", "EE123456784GB", "FedEx tracking 568838414942", "DHL Waybill 3318810026",
        "USPS TRACKING # 9400 1118 9922 3397 8812 39",
    ])
    func aWrongCheckDigitIsNoNumber(line: String) {
        #expect(tracking(line).isEmpty, "\(line)")
    }

    /// A receipt's numbers (order, invoice, card, dates, prices) are digits alone on lines that do not
    /// say "tracking" or a carrier: not taken, even where a check digit happens to pass (568838414941
    /// passes FedEx's, 3318810025 DHL's).
    @Test(arguments: [
        "ORDER # 568838414941", "Invoice 3318810025", "Total $ 33.18", "VISA **** **** **** 4242", "2026-11-26 14:03",
        "Ref 9400111899223397881238", "Call 1-800-463-3339",
    ])
    func aReceiptsNumbersAreNotTrackingNumbers(line: String) {
        #expect(tracking(line).isEmpty, "\(line)")
    }

    /// A carrier's phone number on a label stays a phone number.
    @Test func aPhoneNumberBesideATrackingNumberStaysAPhoneNumber() {
        let found = detector.matches(in: "UPS 1Z999AA10123456784 call 1-800-742-5877")
        #expect(found.map(\.contentType) == [.shipmentTrackingNumber, .telephoneNumber])
    }

    /// Off by default: the standard types (and the `contentTypes` group) do not include it; asked for
    /// by name it is, and the group's name stays in the list.
    @Test func offByDefaultAndAskedForByName() throws {
        #expect(!RecognitionTypes.all.contentTypes.contains(.shipmentTrackingNumber))
        #expect(!(try RecognitionTypes(parsing: "contentTypes")).contentTypes.contains(.shipmentTrackingNumber))
        let asked = try RecognitionTypes(parsing: "contentTypes,shipmentTrackingNumber")
        #expect(asked.contentTypes.contains(.shipmentTrackingNumber) && asked.names == ["contentTypes", "shipmentTrackingNumber"])
        let standard = try ContentDetector(contentTypes: TextContentType.standard)
        #expect(!standard.matches(in: "1Z999AA10123456784").contains { $0.contentType == .shipmentTrackingNumber })
    }
}
