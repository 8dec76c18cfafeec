import Foundation
import ScannerCore

/// The PDF417 on the back of a North American driver's licence or ID card (AAMVA DL/ID Card Design
/// Standard, annex D): a header — `@`, LF, RS, CR, `ANSI ` (`AAMVA` on old cards), the issuer's six-digit
/// IIN, the standard's version, the jurisdiction's version (from version 2), the number of subfiles —
/// then one designator per subfile (type, offset, length), then the subfiles: `DL` or `ID` followed by
/// elements, each a three-letter element ID and its data, ended by LF (the last one by CR).
enum AAMVA {
    static func looksLikeLicense(_ payload: String) -> Bool {
        let head = String(decoding: payload.utf8.prefix(16), as: UTF8.self)
        return head.hasPrefix("@") && (head.contains("ANSI ") || head.contains("AAMVA"))
    }

    static func parse(_ payload: String) -> DriverLicense? {
        let bytes = Array(payload.utf8)
        guard bytes.count <= 4096,
            let fileType = bytes.prefix(16).firstRange(of: Array("ANSI ".utf8))?.lowerBound
                ?? bytes.prefix(16).firstRange(of: Array("AAMVA".utf8))?.lowerBound
        else { return nil }
        // The compliance indicator and the three separators come first; scanners that send the
        // payload through a keyboard wedge lose some of them, so only "@" is required.
        guard bytes.first == UInt8(ascii: "@") else { return nil }
        var i = fileType + 5
        guard let issuer = digits(bytes, at: i, count: 6), let version = digits(bytes, at: i + 6, count: 2).flatMap({ Int($0) }) else { return nil }
        i += 8
        if version >= 2 {
            guard digits(bytes, at: i, count: 2) != nil else { return nil }  // jurisdiction version
            i += 2
        }
        guard let entries = digits(bytes, at: i, count: 2).flatMap({ Int($0) }), entries >= 1 else { return nil }
        i += 2
        // Designators: type (2), offset (4), length (4). The first DL or ID subfile is the card's.
        var subfile: (type: [UInt8], offset: Int)?
        for entry in 0..<entries {
            let at = i + entry * 10
            guard at + 10 <= bytes.count, let offset = digits(bytes, at: at + 2, count: 4).flatMap({ Int($0) }),
                digits(bytes, at: at + 6, count: 4) != nil
            else { return nil }
            let type = Array(bytes[at..<(at + 2)])
            if subfile == nil, type == Array("DL".utf8) || type == Array("ID".utf8) { subfile = (type, offset) }
        }
        guard let subfile else { return nil }
        let designatorsEnd = i + entries * 10
        // Offsets are often wrong on issued cards (counted with or without the header's separators):
        // when the type is not at its offset, the first occurrence after the designators is the subfile.
        let start: Int
        if subfile.offset + 2 <= bytes.count, Array(bytes[subfile.offset..<(subfile.offset + 2)]) == subfile.type, subfile.offset >= designatorsEnd {
            start = subfile.offset + 2
        } else if let found = bytes[min(designatorsEnd, bytes.count)...].firstRange(of: subfile.type)?.lowerBound {
            start = found + 2
        } else {
            return nil
        }
        var elements: [String: String] = [:]
        var cursor = start
        while cursor + 3 <= bytes.count {
            var end = cursor
            while end < bytes.count, bytes[end] != 0x0A, bytes[end] != 0x0D { end += 1 }
            let id = String(decoding: bytes[cursor..<(cursor + 3)], as: UTF8.self)
            guard id.utf8.allSatisfy({ (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains($0) || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) })
            else { return nil }
            if elements[id] == nil {
                elements[id] = String(decoding: bytes[(cursor + 3)..<end], as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
            }
            if end >= bytes.count || bytes[end] == 0x0D { break }  // CR ends the subfile
            cursor = end + 1
        }
        var licence = DriverLicense(issuer: issuer)
        licence.familyName = present(elements["DCS"])
        licence.givenName = present(elements["DAC"]) ?? present(elements["DCT"])
        licence.middleName = present(elements["DAD"])
        if licence.familyName == nil, let full = present(elements["DAA"]) {
            // Version 1: "FAMILY,GIVEN,MIDDLE".
            let parts = full.split(separator: ",", omittingEmptySubsequences: false).map {
                String($0).trimmingCharacters(in: .whitespacesAndNewlines)
            }
            licence.familyName = present(parts.first)
            licence.givenName = licence.givenName ?? present(parts.count > 1 ? parts[1] : nil)
            licence.middleName = licence.middleName ?? present(parts.count > 2 ? parts[2] : nil)
        }
        guard licence.familyName != nil else { return nil }
        let canadian = elements["DCG"] == "CAN"
        for (id, path) in [("DBB", \DriverLicense.dateOfBirth), ("DBA", \DriverLicense.expiry)] {
            guard let text = present(elements[id]) else { continue }
            guard let date = date(text, canadian: canadian) else { return nil }  // a garbled date is no date to check an age by
            licence[keyPath: path] = date
        }
        licence.jurisdiction = present(elements["DAJ"])
        return licence
    }

    /// `MMDDCCYY` (USA) or `CCYYMMDD` (Canada) as `YYYY-MM-DD`; without a country, whichever is a date.
    static func date(_ text: String, canadian: Bool) -> String? {
        guard text.utf8.count == 8, text.utf8.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }) else { return nil }
        let d = Array(text)
        func number(_ range: Range<Int>) -> Int { Int(String(d[range]))! }
        func iso(year: Int, month: Int, day: Int) -> String? {
            guard (1900...2199).contains(year), (1...12).contains(month), (1...31).contains(day) else { return nil }
            return String(format: "%04d-%02d-%02d", year, month, day)
        }
        let american = iso(year: number(4..<8), month: number(0..<2), day: number(2..<4))
        let iso8601 = iso(year: number(0..<4), month: number(4..<6), day: number(6..<8))
        return canadian ? iso8601 : american ?? iso8601
    }

    static func digits(_ bytes: [UInt8], at index: Int, count: Int) -> String? {
        guard index >= 0, index + count <= bytes.count else { return nil }
        let slice = bytes[index..<(index + count)]
        guard slice.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }) else { return nil }
        return String(decoding: slice, as: UTF8.self)
    }

    static func present(_ value: String?) -> String? {
        guard let value, !value.isEmpty, value.uppercased() != "NONE", value.uppercased() != "UNAVL" else { return nil }
        return value
    }
}
