import ContentTypes
import ScannerCore
import Testing

/// Flight numbers (issue #43): an IATA designator and a number, on a line that says it is a flight;
/// everything else of that shape (states and zip codes, seats, gates) is not one.
@Suite(.timeLimit(.minutes(2))) struct FlightNumberTests {
    func flights(_ line: String) -> [String] {
        let detector = try! ContentDetector(contentTypes: [.flightNumber, .dateTimeDuration, .currency, .telephoneNumber], defaultRegion: "US")
        return detector.matches(in: line).filter { $0.contentType == .flightNumber }.map { match in
            guard case .flight(let airline, let number)? = match.parsed else { return "\(match.payload) ?" }
            #expect(match.payload == airline + number)
            return "\(airline) \(number) [\(match.transcript)]"
        }
    }

    @Test(arguments: [
        ("FLIGHT LH 400", "LH 400 [LH 400]"),
        ("Flight: BA2490", "BA 2490 [BA2490]"),
        ("FLT U2 1234 GATE B22", "U2 1234 [U2 1234]"),
        ("Flug LH0400 Frankfurt", "LH 400 [LH0400]"),
        ("Vol AF 1234A", "AF 1234A [AF 1234A]"),
        ("Flight no. AA 100 · Seat 14C", "AA 100 [AA 100]"),
        ("FLIGHT/VOL: 9W 0117", "9W 117 [9W 0117]"),
    ])
    func onALineThatSaysFlight(line: String, expected: String) {
        #expect(flights(line) == [expected], "\(line)")
    }

    /// The same shapes without a word that says flight, and with one but no flight number of IATA's form.
    @Test(arguments: [
        "San Francisco, CA 94105", "Seat 14C Gate B22", "LH 400", "FLIGHT LH 94105", "FLIGHT U21234", "Flight time 2 hours",
        "FLIGHT A 400", "FLIGHT LH400.50", "FLIGHT ABC123", "Volume LH 400", "Voltage 12 V", "FLIGHT 14:05", "Flight lh 400",
    ])
    func notAFlightNumber(line: String) {
        #expect(flights(line).isEmpty, "\(line): \(flights(line))")
    }

    @Test func twoOnALine() {
        #expect(flights("Flights LH 400 / UA 8841") == ["LH 400 [LH 400]", "UA 8841 [UA 8841]"])
    }

    @Test func offByDefault() throws {
        #expect(!TextContentType.standard.contains(.flightNumber))
        let detector = try ContentDetector(contentTypes: TextContentType.standard, defaultRegion: "US")
        #expect(detector.matches(in: "FLIGHT LH 400").isEmpty)
    }
}
