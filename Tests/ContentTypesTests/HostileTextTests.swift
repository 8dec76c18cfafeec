import ContentTypes
import ScannerCore
import TestSupport
import Testing

/// What OCR hands the content finders is anybody's print (issue #43's tracking numbers and amounts
/// index into the line's bytes): seeded random lines built from what those finders look for —
/// digits, separators, symbols, codes, cue words, multi-byte characters, cut ends — never crash
/// them, and every match lies inside its line, with a payload of the documented shape.
@Suite(.timeLimit(.minutes(1))) struct HostileTextTests {
    static let pieces = [
        "1", "9", "0", "12", "1Z", "Z", "RR", "GB", ".", ",", " ", "  ", "/", "-", ":", "%", "$", "€", "£", "¥", "R$", "US$", "kr", "zł",
        "Fr.", "USD", "EUR", "CHF", "TRACKING", "FedEx", "DHL", "#", "AA1", "999", "2345", "6784", "\u{0}", "é", "🙂", "\u{200B}", "ＵＳＤ",
        "Dec", "mar", "am", "pm", "p.m.", "T", "Z", "h", "m", "min", "hours", "–", "to", "'", "st", "of", "31", "2024", "1999",
        "FLIGHT", "Flug", "LH", "U2", "0400", "A",
        "Main", "St.", "Blvd", "rue", "de", "Via", "Hauptstraße", "CA", "NY", "94105", "NW1", "6XE", "V6G", "2L7", "Suite", "Berlin",
    ]

    @Test func randomLinesAreHarmless() throws {
        let detector = try ContentDetector(contentTypes: Set(TextContentType.allCases))
        var random = SeededGenerator(seed: 43)
        for _ in 0..<3000 {
            let line = (0..<Int.random(in: 0...24, using: &random)).map { _ in Self.pieces.randomElement(using: &random)! }.joined()
            let length = line.utf8.count
            for match in detector.matches(in: line) {
                #expect(match.utf8Range.lowerBound >= 0 && match.utf8Range.upperBound <= length, "\(line)")
                switch match.contentType {
                case .shipmentTrackingNumber:
                    #expect(match.payload.allSatisfy { $0.isASCII && ($0.isNumber || $0.isUppercase) }, "\(line) → \(match.payload)")
                case .currency:
                    let parts = match.payload.split(separator: " ")
                    #expect(parts.count == 2 && Double(parts[0]) != nil && parts[1].count == 3, "\(line) → \(match.payload)")
                case .fullStreetAddress:
                    guard case .address(let address)? = match.parsed else {
                        Issue.record("\(line): no parsed address")
                        continue
                    }
                    #expect(address.payload == match.payload && (address.street != nil || address.locality != nil), "\(line) → \(match.payload)")
                case .flightNumber:
                    #expect(match.payload.count >= 3 && match.payload.count <= 7, "\(line) → \(match.payload)")
                case .dateTimeDuration:
                    guard case .dateTime(let kind, let iso8601)? = match.parsed else {
                        Issue.record("\(line): no parsed value")
                        continue
                    }
                    #expect(iso8601 == match.payload && ["date", "time", "dateTime", "range", "duration"].contains(kind), "\(line) → \(iso8601)")
                    #expect(iso8601.allSatisfy { $0.isASCII && ($0.isNumber || "-:/TZPHMSDW.".contains($0)) }, "\(line) → \(iso8601)")
                default: break
                }
            }
        }
    }

    /// A line far longer than any printed one costs time in proportion to it, not more.
    @Test func aVeryLongLineIsBounded() throws {
        let detector = try ContentDetector(contentTypes: Set(TextContentType.allCases))
        let line = String(repeating: "TRACKING 1Z 999 AA1 $1.234.567,89 EUR 9400 Dec 25, 2024 9-5pm 1h30m 5 Main St, Austin, TX 78704 ", count: 2000)
        let found = detector.matches(in: line)
        #expect(found.count >= 8000, "\(found.count)")
    }
}
