import ScannerCore

/// Parcel tracking numbers in a line of text (issue #43): UPS, FedEx, USPS, DHL Express and the UPU's
/// S10 postal format, each by its length, its prefix and its check digit.
///
/// Written here: no well-kept C or Swift library does this, and the rules are each carrier's published
/// label specification (UPS's 1Z check digit; FedEx Express's weights 1, 3, 7 mod 11 and Ground's
/// mod 10; USPS Publication 199's mod 10 over an IMpb number; DHL Express's mod 7; UPU S10's weights
/// 8, 6, 4, 2, 3, 5, 9, 7 mod 11). A number printed in groups ("1Z 999 AA1 01 2345 6784") is read across
/// its groups. Numbers of digits alone are everywhere on a receipt (order, invoice and card numbers)
/// and one in 7 to 11 random ones passes a check digit, so those are taken only on a line that says
/// what it is (`cues`: "tracking", a carrier's name); UPS's and S10's, which carry letters, anywhere.
enum TrackingNumbers {
    enum Carrier: String, Sendable, CaseIterable {
        case ups, fedex, usps, dhl, s10
    }

    struct Found: Equatable {
        var number: String
        var carrier: Carrier
        /// S10: the country that issued it (ISO 3166 alpha-2, as printed).
        var country: String?
        /// Byte range in the line, from the first group's first byte to the last group's last.
        var utf8Range: Range<Int>
    }

    /// Words that say a line holds a tracking number (compared in capitals; a prefix of a word).
    static let cues = ["TRACK", "FEDEX", "USPS", "DHL", "WAYBILL", "AWB", "SHIPMENT", "PARCEL", "CONSIGNMENT", "UPS"]

    /// Groups of a printed number joined at most this many.
    static let maximumGroups = 7

    /// Every tracking number in `line`, longest first where they would overlap, in order of position.
    static func find(in line: String) -> [Found] {
        let bytes = Array(line.utf8)
        let words = tokens(bytes)
        let cued = words.contains { word in
            let text = String(decoding: bytes[word], as: UTF8.self).uppercased()
            return cues.contains { text.hasPrefix($0) || text.contains($0 + ":") }
        }
        var found: [Found] = []
        var index = 0
        while index < words.count {
            // The longest run of groups from here that is a number.
            var best: (Found, Int)?
            for count in stride(from: min(maximumGroups, words.count - index), through: 1, by: -1) {
                let run = words[index..<(index + count)]
                let text = run.map { String(decoding: bytes[$0], as: UTF8.self) }.joined().uppercased()
                guard let match = classify(text, cued: cued) else { continue }
                best = (
                    Found(number: text, carrier: match.carrier, country: match.country, utf8Range: run.first!.lowerBound..<run.last!.upperBound),
                    count
                )
                break
            }
            if let (match, count) = best {
                found.append(match)
                index += count
            } else {
                index += 1
            }
        }
        return found
    }

    /// The runs of letters and digits in `bytes`, each a group of a number as it may be printed.
    static func tokens(_ bytes: [UInt8]) -> [Range<Int>] {
        var tokens: [Range<Int>] = []
        var start: Int?
        for (i, b) in bytes.enumerated() {
            let alphanumeric = (b >= 0x30 && b <= 0x39) || (b >= 0x41 && b <= 0x5A) || (b >= 0x61 && b <= 0x7A)
            if alphanumeric {
                if start == nil { start = i }
            } else if let s = start {
                tokens.append(s..<i)
                start = nil
            }
        }
        if let s = start { tokens.append(s..<bytes.count) }
        return tokens
    }

    /// The carrier whose format and check digit `text` (capitals, no spaces) follows.
    static func classify(_ text: String, cued: Bool) -> (carrier: Carrier, country: String?)? {
        let chars = Array(text.utf8)
        let digitsOnly = chars.allSatisfy(isDigit)
        if chars.count == 18, text.hasPrefix("1Z"), ups(chars) { return (.ups, nil) }
        if chars.count == 13, s10(chars) { return (.s10, String(text.suffix(2))) }
        guard digitsOnly, cued else { return nil }
        let digits = chars.map { Int($0 - 0x30) }
        switch digits.count {
        case 20, 22: return digits[0] == 9 && (1...5).contains(digits[1]) && mod10(digits) ? (.usps, nil) : nil
        case 12: return fedexExpress(digits) ? (.fedex, nil) : nil
        case 15: return mod10(digits) ? (.fedex, nil) : nil
        case 10: return dhl(digits) ? (.dhl, nil) : nil
        default: return nil
        }
    }

    static func isDigit(_ b: UInt8) -> Bool { b >= 0x30 && b <= 0x39 }
    static func isLetter(_ b: UInt8) -> Bool { b >= 0x41 && b <= 0x5A }

    /// UPS: `1Z`, 15 letters and digits, a check digit. Letters count as (ASCII − 3) mod 10; odd
    /// places once and even places twice; the check digit makes the sum a multiple of 10.
    static func ups(_ chars: [UInt8]) -> Bool {
        let body = chars[2..<17]
        guard body.allSatisfy({ isDigit($0) || isLetter($0) }), let check = chars.last, isDigit(check) else { return false }
        var sum = 0
        for (i, c) in body.enumerated() {
            let value = isDigit(c) ? Int(c - 0x30) : (Int(c) - 3) % 10
            sum += i % 2 == 1 ? 2 * value : value
        }
        return (10 - sum % 10) % 10 == Int(check - 0x30)
    }

    /// UPU S10: two letters, eight digits, a check digit, two letters (the issuing country). Weights
    /// 8, 6, 4, 2, 3, 5, 9, 7; the check digit is 11 − the sum mod 11, 10 → 0 and 11 → 5.
    static func s10(_ chars: [UInt8]) -> Bool {
        guard chars[0..<2].allSatisfy(isLetter), chars[2..<11].allSatisfy(isDigit), chars[11..<13].allSatisfy(isLetter) else { return false }
        let weights = [8, 6, 4, 2, 3, 5, 9, 7]
        let sum = zip(chars[2..<10], weights).reduce(0) { $0 + Int($1.0 - 0x30) * $1.1 }
        var check = 11 - sum % 11
        if check == 10 { check = 0 } else if check == 11 { check = 5 }
        return check == Int(chars[10] - 0x30)
    }

    /// FedEx Express (12 digits): weights 1, 3, 7 from the right of the first 11; the sum mod 11
    /// (10 → 0) is the check digit.
    static func fedexExpress(_ digits: [Int]) -> Bool {
        let weights = [1, 3, 7]
        let sum = digits.dropLast().reversed().enumerated().reduce(0) { $0 + $1.element * weights[$1.offset % 3] }
        return sum % 11 % 10 == digits.last!
    }

    /// The mod 10 of USPS IMpb and FedEx Ground: from the right of the digits before the check digit,
    /// every other one three times (the rightmost first); the check digit makes the sum a multiple of 10.
    static func mod10(_ digits: [Int]) -> Bool {
        let sum = digits.dropLast().reversed().enumerated().reduce(0) { $0 + ($1.offset % 2 == 0 ? 3 : 1) * $1.element }
        return (10 - sum % 10) % 10 == digits.last!
    }

    /// DHL Express (10 digits): the first nine as a number, mod 7, is the check digit.
    static func dhl(_ digits: [Int]) -> Bool {
        digits.dropLast().reduce(0) { $0 * 10 + $1 } % 7 == digits.last!
    }
}
