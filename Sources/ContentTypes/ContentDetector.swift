import ScannerCore

/// A phone number, URL, e-mail address or tracking number found in a line of text.
public struct ContentMatch: Sendable, Equatable {
    public var contentType: TextContentType
    /// The normalized value: E.164 phone number, URL with scheme, e-mail address, tracking number
    /// without its spaces.
    public var payload: String
    /// The characters as read.
    public var transcript: String
    /// Byte range of `transcript` in the UTF-8 line.
    public var utf8Range: Range<Int>
    /// What the value means beyond itself (a tracking number's carrier).
    public var parsed: ParsedPayload? = nil
}

/// Finds what a line of recognized text *is*: Vision's `textContentType` for Linux.
///
/// An ordered list of finders (`ContentFinder`, as zxing's MultiFormatReader holds its readers), each
/// asked only where a type it finds is wanted, and each taking only what the earlier ones left: a
/// link's or an address's characters are nothing else, a tracking number's digits are no amount and
/// no phone number, an amount's no phone number. Phone numbers come last, from libphonenumber's
/// matcher after OCR digit repair, and pass the rules a person applies when reading a flyer
/// (`PhoneContext`).
public struct ContentDetector: Sendable {
    public let contentTypes: Set<TextContentType>
    /// The finders of the wanted types, in the order they are asked.
    let finders: [any ContentFinder]

    public init(contentTypes: Set<TextContentType>, defaultRegion: String = "US") throws(ScannerError) {
        self.contentTypes = contentTypes
        // The kiosk's country (ISO 3166 alpha-2): phone numbers without a country code, which
        // currency `$` names, how a date is written.
        let region = defaultRegion.uppercased()
        let all: [any ContentFinder] = [
            WebFinder(wanted: contentTypes), TrackingNumberFinder(), FlightNumberFinder(), MoneyFinder(region: region), StreetAddressFinder(),
            DateTimeFinder(region: region), PhoneFinder(phones: try PhoneNumberFinder(defaultRegion: defaultRegion)),
        ]
        finders = all.filter { !$0.types.isDisjoint(with: contentTypes) }
    }

    /// Every match in `line`, in order of position.
    public func matches(in line: String) -> [ContentMatch] {
        let bytes = Array(line.utf8)
        var found: [ContentMatch] = []
        // Which bytes are taken, so that a long line's many matches cost their length, not its square.
        var taken = [Bool](repeating: false, count: bytes.count)
        for finder in finders {
            let fresh = finder.find(in: line, bytes: bytes).filter { match in
                !match.utf8Range.clamped(to: 0..<bytes.count).contains { taken[$0] }
            }
            for match in fresh { for i in match.utf8Range.clamped(to: 0..<bytes.count) { taken[i] = true } }
            found += fresh
        }
        return found.sorted { $0.utf8Range.lowerBound < $1.utf8Range.lowerBound }
    }
}

/// The context rules that keep prices, dates, ZIP codes and order numbers from being reported as
/// phone numbers even when libphonenumber calls the digits valid.
enum PhoneContext {
    /// Words that announce a phone number. Checked first: "Tel. No. 415 555 0123" is a phone.
    static let phoneLabels: Set<String> = ["tel", "phone", "mobile", "mob", "cell", "fax", "call", "ph", "whatsapp", "sms", "hotline", "☎", "📞"]
    /// Labels that also announce a phone number as the start of a longer word ("telephone", "mobil").
    static let phoneLabelPrefixes = ["tel", "phone", "mobil", "cell", "fax", "whatsapp", "hotline"]
    /// Words that announce some other number.
    static let otherLabels = [
        "order", "invoice", "inv", "ref", "reference", "acct", "account", "tracking", "sku", "serial", "s/n", "po",
        "id", "confirmation", "conf", "case", "ticket", "member", "customer", "isbn", "item", "part", "batch",
        "lot", "receipt", "transaction", "txn", "booking", "policy", "claim", "zip", "postcode", "iban", "card",
    ]

    static func accepts(_ range: Range<Int>, in bytes: [UInt8]) -> Bool {
        let raw = Array(bytes[range])
        let before = String(decoding: bytes[max(0, range.lowerBound - 32)..<range.lowerBound], as: UTF8.self).lowercased()
        let after = Array(bytes[range.upperBound...])

        let words = before.split(whereSeparator: { !($0.isLetter || $0 == "/" || $0.unicodeScalars.first!.value > 0x2000) })
        let lastWords = words.suffix(3).map(String.init)
        let hasPhoneLabel =
            lastWords.contains { word in
                phoneLabels.contains(word) || phoneLabelPrefixes.contains { word.hasPrefix($0) }
            }
            || before.hasSuffix("t:") || before.hasSuffix("t: ") || before.hasSuffix("m: ") || before.hasSuffix("p: ")
        if !hasPhoneLabel {
            if lastWords.contains(where: { otherLabels.contains($0) }) { return false }
            // "#4155550123", "No. 4155550123": numbered things. An area code in parentheses is
            // written as a phone number is and never as an identifier: a receipt's "#(609)-298-4650".
            let trimmedBefore = before.trimmingTrailingSpaces()
            let numbered = trimmedBefore.hasSuffix("#") || trimmedBefore.hasSuffix("no.") || trimmedBefore.hasSuffix("nr.")
            if numbered && raw.first != UInt8(ascii: "(") { return false }
        }
        // Prices: a currency sign before, or decimals after ("$1,234,567.89", "415 555 0123.50").
        let currency: [String] = ["$", "€", "£", "¥", "usd", "eur", "gbp", "chf"]
        if currency.contains(where: { before.trimmingTrailingSpaces().hasSuffix($0) }) { return false }
        if after.count >= 2, after[0] == UInt8(ascii: ".") || after[0] == UInt8(ascii: ","), isDigit(after[1]) { return false }
        // Dates and times: "2024-12-25 10:30", "12/25/2024"; and one that starts with a year and a
        // month, whatever OCR made of the rest ("2026-11 21 14" for "2026-11-21 14:05").
        if looksLikeDate(raw) || startsWithYearAndMonth(raw) { return false }
        // A time's minutes right after it: the number took the hour ("2026 11-21 14" of a label's
        // "Shipped 2026-11-21 14:03", its first dash read as a space). libphonenumber drops a date
        // and time only when written exactly so; no phone number is followed by ":03".
        if after.count >= 2, after[0] == UInt8(ascii: ":"), isDigit(after[1]) { return false }
        // Fewer than six digits is no phone number anywhere a kiosk stands; it is a price or a
        // quantity (`16.40` of a German receipt, valid to libphonenumber as a short number there).
        if raw.filter(isDigit).count < 6 { return false }
        // A bare run of digits among other words is an identifier unless labelled: people write
        // phone numbers grouped. Alone on its line it is the number a receipt prints under the
        // shop's address: on the development receipts (issue #40) that read four more phone numbers
        // (`7349944004`, `918539389`) and no false item.
        let alone = before.allSatisfy { $0 == " " } && after.allSatisfy { $0 == UInt8(ascii: " ") }
        if !hasPhoneLabel && !isGrouped(raw) && !alone { return false }
        return true
    }

    static func isDigit(_ b: UInt8) -> Bool { (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(b) }

    /// `+…`, `(…)`, or digits split into groups by spaces, dashes, dots or slashes.
    static func isGrouped(_ raw: [UInt8]) -> Bool {
        if raw.first == UInt8(ascii: "+") || raw.first == UInt8(ascii: "(") { return true }
        var groups = 0
        var inDigits = false
        for b in raw {
            if isDigit(b) {
                if !inDigits { groups += 1 }
                inDigits = true
            } else {
                inDigits = false
            }
        }
        return groups >= 2
    }

    /// A four-digit year 1900–2099, a dash, dot or slash, and a month 1–12: the start of an ISO-style
    /// date. No phone number is written that way (a NANP number starts with a 3-digit area code).
    static func startsWithYearAndMonth(_ raw: [UInt8]) -> Bool {
        guard raw.count >= 6, raw[0...3].allSatisfy(isDigit),
            raw[0] == UInt8(ascii: "1") && raw[1] == UInt8(ascii: "9")
                || raw[0] == UInt8(ascii: "2") && raw[1] == UInt8(ascii: "0"),
            [UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "/")].contains(raw[4])
        else { return false }
        let month = raw[5...].prefix(while: isDigit)
        guard (1...2).contains(month.count), let value = Int(String(decoding: month, as: UTF8.self)) else { return false }
        return (1...12).contains(value)
    }

    /// d{1,4} sep d{1,2} sep d{2,4} with one separator kind throughout, as dates are written.
    static func looksLikeDate(_ raw: [UInt8]) -> Bool {
        let groups = raw.split(whereSeparator: { !isDigit($0) }).map(\.count)
        let separators = Set(raw.filter { !isDigit($0) })
        guard groups.count == 3, separators.count == 1, let sep = separators.first,
            [UInt8(ascii: "/"), UInt8(ascii: "."), UInt8(ascii: "-")].contains(sep)
        else { return false }
        return (1...4).contains(groups[0]) && (1...2).contains(groups[1]) && (2...4).contains(groups[2])
            && !(groups[0] == 3 && groups[1] == 3)
    }
}

extension String {
    func trimmingTrailingSpaces() -> String {
        var s = Substring(self)
        while s.last == " " || s.last == ":" { s.removeLast() }
        return String(s)
    }
}
