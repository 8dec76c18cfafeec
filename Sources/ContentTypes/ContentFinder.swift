import ScannerCore

/// One kind of content found in a line of text (`ContentDetector` asks each in turn).
protocol ContentFinder: Sendable {
    /// The content types it finds.
    var types: Set<TextContentType> { get }
    /// Its matches in `line` (`bytes`: the line's UTF-8).
    func find(in line: String, bytes: [UInt8]) -> [ContentMatch]
}

extension ContentFinder {
    /// The characters of `range` of the line as read.
    func transcript(_ range: Range<Int>, of bytes: [UInt8]) -> String { String(decoding: bytes[range], as: UTF8.self) }
}

/// E-mail addresses and links (those of `types` wanted), found together: a link is not the domain
/// of an address.
struct WebFinder: ContentFinder {
    let types: Set<TextContentType>

    init(wanted: Set<TextContentType>) {
        types = wanted.intersection([.emailAddress, .url])
    }

    func find(in line: String, bytes: [UInt8]) -> [ContentMatch] {
        // Matched on text with OCR's commas in domains repaired (the same byte length), transcribed from the line as read.
        let web = Array(OCRCorrections.repairingDomainCommas(in: line).utf8)
        func transcribed(_ match: ContentMatch) -> ContentMatch {
            var match = match
            match.transcript = transcript(match.utf8Range, of: bytes)
            return match
        }
        let emails = WebIdentifiers.emailAddresses(in: web).map(transcribed)
        var found = types.contains(.emailAddress) ? emails : []
        if types.contains(.url) {
            found += WebIdentifiers.urls(in: web).map(transcribed).filter { url in !emails.contains { $0.utf8Range.overlaps(url.utf8Range) } }
        }
        return found
    }
}

struct TrackingNumberFinder: ContentFinder {
    let types: Set<TextContentType> = [.shipmentTrackingNumber]

    func find(in line: String, bytes: [UInt8]) -> [ContentMatch] {
        TrackingNumbers.find(in: line).map { number in
            ContentMatch(
                contentType: .shipmentTrackingNumber, payload: number.number, transcript: transcript(number.utf8Range, of: bytes),
                utf8Range: number.utf8Range, parsed: .shipment(ShipmentTracking(carrier: number.carrier.rawValue, country: number.country)))
        }
    }
}

struct FlightNumberFinder: ContentFinder {
    let types: Set<TextContentType> = [.flightNumber]

    func find(in line: String, bytes: [UInt8]) -> [ContentMatch] {
        FlightNumbers.find(in: line).map { flight in
            ContentMatch(
                contentType: .flightNumber, payload: flight.payload, transcript: transcript(flight.utf8Range, of: bytes),
                utf8Range: flight.utf8Range, parsed: .flight(airline: flight.airline, number: flight.number))
        }
    }
}

/// Amounts of money; `region` says which currency `$` names.
struct MoneyFinder: ContentFinder {
    let types: Set<TextContentType> = [.currency]
    let region: String

    func find(in line: String, bytes: [UInt8]) -> [ContentMatch] {
        MoneyAmounts.find(in: line, region: region).map { money in
            ContentMatch(
                contentType: .currency, payload: "\(money.amount) \(money.currency)", transcript: transcript(money.utf8Range, of: bytes),
                utf8Range: money.utf8Range, parsed: .money(amount: money.amount, currency: money.currency))
        }
    }
}

/// Streets and localities, alone too: `StreetAddresses.assembled` joins a street to the locality on
/// the line under it and drops what stays alone.
struct StreetAddressFinder: ContentFinder {
    let types: Set<TextContentType> = [.fullStreetAddress]

    func find(in line: String, bytes: [UInt8]) -> [ContentMatch] {
        StreetAddresses.find(in: line).map { found in
            ContentMatch(
                contentType: .fullStreetAddress, payload: found.address.payload, transcript: transcript(found.utf8Range, of: bytes),
                utf8Range: found.utf8Range, parsed: .address(found.address))
        }
    }
}

/// Dates, times and durations; `region` says the order of a date's day and month.
struct DateTimeFinder: ContentFinder {
    let types: Set<TextContentType> = [.dateTimeDuration]
    let region: String

    func find(in line: String, bytes: [UInt8]) -> [ContentMatch] {
        DateTimes.find(in: line, region: region).map { found in
            ContentMatch(
                contentType: .dateTimeDuration, payload: found.iso8601, transcript: transcript(found.utf8Range, of: bytes),
                utf8Range: found.utf8Range, parsed: .dateTime(kind: found.kind.rawValue, iso8601: found.iso8601))
        }
    }
}

/// Phone numbers: libphonenumber's matches in the line with OCR's digit confusions repaired (the same
/// byte length), kept where the context says a phone number (`PhoneContext`).
struct PhoneFinder: ContentFinder {
    let types: Set<TextContentType> = [.telephoneNumber]
    let phones: PhoneNumberFinder

    func find(in line: String, bytes: [UInt8]) -> [ContentMatch] {
        let repaired = OCRCorrections.repairingDigits(in: line)
        let repairedBytes = Array(repaired.utf8)
        return phones.matches(in: repaired).compactMap { match in
            guard match.utf8Range.upperBound <= bytes.count, PhoneContext.accepts(match.utf8Range, in: repairedBytes) else { return nil }
            return ContentMatch(
                contentType: .telephoneNumber, payload: match.e164, transcript: transcript(match.utf8Range, of: bytes), utf8Range: match.utf8Range)
        }
    }
}
