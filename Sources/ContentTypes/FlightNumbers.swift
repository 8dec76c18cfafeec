/// Flight numbers in a line of text (issue #43): an IATA airline designator and a flight number
/// (`LH 400`, `BA2490`, `U2 1234`, `AA 100A`).
///
/// Written here: IATA's designator is two characters, letters or a letter and a digit, and the number
/// one to four digits with an optional operational suffix letter — a form every state abbreviation
/// and zip code (`CA 94105`), seat (`14C`), gate (`B22`) and form number also takes, and most of the
/// 676 letter pairs are some airline's designator. So a flight number counts only on a line that
/// says it holds one (`FLIGHT`, `FLT`, `FLUG`, `VOL`, `VUELO`, `VOO`, `VOLO`, `VLUCHT`). A designator of
/// a letter and a digit (`U2`) is taken only with a space before the number (`U21234` could be
/// anything). The payload is written without the space and without the number's leading zeros a
/// boarding pass's barcode pads with (`LH0400` → `LH400`).
enum FlightNumbers {
    struct Found: Equatable {
        var airline: String
        var number: String
        var utf8Range: Range<Int>
        var payload: String { airline + number }
    }

    /// Words that say a line holds a flight number, as a word's start (`FLIGHT`, `Flight-No`, `FLT.`).
    static let cues = ["flight", "flt", "flug", "vol", "vuelo", "voo", "volo", "vlucht"]

    static func find(in line: String) -> [Found] {
        let bytes = Array(line.utf8)
        guard hasCue(bytes) else { return [] }
        var found: [Found] = []
        var i = 0
        while i + 2 < bytes.count {
            guard i == 0 || !isAlphanumeric(bytes[i - 1]), let match = flight(bytes, at: i) else {
                i += 1
                continue
            }
            found.append(match)
            i = match.utf8Range.upperBound
        }
        return found
    }

    /// The flight number whose designator starts at `i`, if one does.
    static func flight(_ bytes: [UInt8], at i: Int) -> Found? {
        let a = bytes[i]
        let b = bytes[i + 1]
        guard isUpper(a) || isDigit(a), isUpper(b) || isDigit(b), isUpper(a) || isUpper(b) else { return nil }
        var j = i + 2
        let spaced = j < bytes.count && bytes[j] == 0x20
        if spaced { j += 1 }
        // `U21234` could be anything; `U2 1234` is easyJet's.
        guard spaced || isUpper(a) && isUpper(b) else { return nil }
        let start = j
        while j < bytes.count, isDigit(bytes[j]), j - start < 5 { j += 1 }
        guard (1...4).contains(j - start) else { return nil }
        var end = j
        if end < bytes.count, isUpper(bytes[end]), end + 1 == bytes.count || !isAlphanumeric(bytes[end + 1]) { end += 1 }
        // A number that goes on (`CA 94105`), or runs into a word or a decimal, is something else.
        if end < bytes.count, isAlphanumeric(bytes[end]) { return nil }
        if end + 1 < bytes.count, bytes[end] == UInt8(ascii: ".") || bytes[end] == UInt8(ascii: ",") || bytes[end] == UInt8(ascii: ":"),
            isDigit(bytes[end + 1])
        {
            return nil
        }
        let digits = bytes[start..<j].drop { $0 == UInt8(ascii: "0") }
        let number = String(decoding: digits.isEmpty ? [UInt8(ascii: "0")] : Array(digits), as: UTF8.self)
        let suffix = end > j ? String(decoding: bytes[j..<end], as: UTF8.self) : ""
        return Found(airline: String(decoding: [a, b], as: UTF8.self), number: number + suffix, utf8Range: i..<end)
    }

    static func hasCue(_ bytes: [UInt8]) -> Bool {
        let words = cues.map { Array($0.utf8) }
        for start in bytes.indices where start == 0 || !isAlphanumeric(bytes[start - 1]) {
            for (cue, word) in zip(cues, words) where start + word.count <= bytes.count {
                guard (0..<word.count).allSatisfy({ (bytes[start + $0] | 0x20) == word[$0] }) else { continue }
                let after = start + word.count
                // `FLIGHTS`, `Flugnummer`; but `VOLUME` and `Voltage` are no `VOL`.
                if after == bytes.count || !isAlphanumeric(bytes[after]) || cue == "flight" || cue == "flug" { return true }
            }
        }
        return false
    }

    static func isDigit(_ b: UInt8) -> Bool { b >= 0x30 && b <= 0x39 }
    static func isUpper(_ b: UInt8) -> Bool { b >= 0x41 && b <= 0x5A }
    static func isLower(_ b: UInt8) -> Bool { b >= 0x61 && b <= 0x7A }
    static func isAlphanumeric(_ b: UInt8) -> Bool { isDigit(b) || isUpper(b) || isLower(b) }
}
