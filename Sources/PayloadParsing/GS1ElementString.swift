import ScannerCore

/// GS1 element strings (GS1 General Specifications §3 and §7.8): application identifiers (AIs)
/// followed by their data — `01` GTIN, `17` expiry, `10` batch, … — as a GS1-128, GS1 DataBar, GS1
/// DataMatrix or GS1 QR code carries them. An element whose AI has a predefined length runs to that
/// length; any other runs to the group separator (FNC1, transmitted as `\u{1D}`) or the end.
enum GS1ElementString {
    static let groupSeparator: UInt8 = 0x1D

    /// How much data an AI takes, and of what kind.
    struct Definition {
        var name: String
        var minimum: Int
        var maximum: Int
        /// How many leading characters are digits (all of them for numeric AIs; 3 for `421`'s
        /// country code before its postal code).
        var numericPrefix: Int
        /// A GS1 check digit ends the first `checkDigitAt` characters (GTIN, SSCC, GLN).
        var checkDigitAt: Int? = nil
        /// `YYMMDD`.
        var isDate = false

        static func numeric(_ name: String, _ length: Int, check: Bool = false, date: Bool = false) -> Definition {
            Definition(name: name, minimum: length, maximum: length, numericPrefix: length, checkDigitAt: check ? length : nil, isDate: date)
        }
        static func numericUpTo(_ name: String, _ maximum: Int) -> Definition {
            Definition(name: name, minimum: 1, maximum: maximum, numericPrefix: maximum)
        }
        static func text(_ name: String, upTo maximum: Int, numericPrefix: Int = 0) -> Definition {
            Definition(name: name, minimum: max(1, numericPrefix), maximum: maximum, numericPrefix: numericPrefix)
        }
    }

    /// The AIs seen on products, parcels and pallets. An AI not listed here makes the string
    /// unparsable rather than guessed at: without its definition the next element's start is unknown.
    static let definitions: [String: Definition] = {
        var table: [String: Definition] = [
            "00": .numeric("SSCC", 18, check: true),
            "01": .numeric("GTIN", 14, check: true),
            "02": .numeric("CONTENT", 14, check: true),
            "10": .text("BATCH/LOT", upTo: 20),
            "11": .numeric("PROD DATE", 6, date: true),
            "12": .numeric("DUE DATE", 6, date: true),
            "13": .numeric("PACK DATE", 6, date: true),
            "15": .numeric("BEST BEFORE", 6, date: true),
            "16": .numeric("SELL BY", 6, date: true),
            "17": .numeric("USE BY OR EXPIRY", 6, date: true),
            "20": .numeric("VARIANT", 2),
            "21": .text("SERIAL", upTo: 20),
            "22": .text("CPV", upTo: 20),
            "235": .text("TPX", upTo: 28),
            "240": .text("ADDITIONAL ID", upTo: 30),
            "241": .text("CUST. PART No.", upTo: 30),
            "242": .numericUpTo("MTO VARIANT", 6),
            "243": .text("PCN", upTo: 20),
            "250": .text("SECONDARY SERIAL", upTo: 30),
            "251": .text("REF. TO SOURCE", upTo: 30),
            "253": Definition(name: "GDTI", minimum: 13, maximum: 30, numericPrefix: 13, checkDigitAt: 13),
            "254": .text("GLN EXTENSION COMPONENT", upTo: 20),
            "255": Definition(name: "GCN", minimum: 13, maximum: 25, numericPrefix: 25, checkDigitAt: 13),
            "30": .numericUpTo("VAR. COUNT", 8),
            "37": .numericUpTo("COUNT", 8),
            "400": .text("ORDER NUMBER", upTo: 30),
            "401": .text("GINC", upTo: 30),
            "402": .numeric("GSIN", 17, check: true),
            "403": .text("ROUTE", upTo: 30),
            "420": .text("SHIP TO POST", upTo: 20),
            "421": .text("SHIP TO POST", upTo: 12, numericPrefix: 3),
            "422": .numeric("ORIGIN", 3),
            "423": .numericUpTo("COUNTRY - INITIAL PROCESS.", 15),
            "424": .numeric("COUNTRY - PROCESS.", 3),
            "425": .numericUpTo("COUNTRY - DISASSEMBLY", 15),
            "426": .numeric("COUNTRY - FULL PROCESS", 3),
            "7003": .numeric("EXPIRY TIME", 10),
            "8003": Definition(name: "GRAI", minimum: 14, maximum: 30, numericPrefix: 14, checkDigitAt: 14),
            "8004": .text("GIAI", upTo: 30),
            "8005": .numeric("PRICE PER UNIT", 6),
            "8006": .numeric("ITIP", 18),
            "8007": .text("IBAN", upTo: 34),
            "8008": Definition(name: "PROD TIME", minimum: 8, maximum: 12, numericPrefix: 12),
            "8012": .text("VERSION", upTo: 20),
            "8017": .numeric("GSRN - PROVIDER", 18, check: true),
            "8018": .numeric("GSRN - RECIPIENT", 18, check: true),
            "8020": .text("REF. No.", upTo: 25),
            "90": .text("INTERNAL", upTo: 30),
        ]
        for (ai, name) in [
            "410": "SHIP TO LOC", "411": "BILL TO", "412": "PURCHASE FROM", "413": "SHIP FOR LOC", "414": "LOC No.",
            "415": "PAY TO", "416": "PROD/SERV LOC", "417": "PARTY",
        ] {
            table[ai] = .numeric(name, 13, check: true)
        }
        for company in 91...99 { table[String(company)] = .text("INTERNAL", upTo: 90) }
        // Measures: the fourth digit of the AI is the position of the decimal point.
        let measures = [
            "310": "NET WEIGHT (kg)", "311": "LENGTH (m)", "312": "WIDTH (m)", "313": "HEIGHT (m)", "314": "AREA (m2)",
            "315": "NET VOLUME (l)", "316": "NET VOLUME (m3)", "320": "NET WEIGHT (lb)", "330": "GROSS WEIGHT (kg)",
            "331": "LENGTH (m), log", "332": "WIDTH (m), log", "333": "HEIGHT (m), log", "334": "AREA (m2), log",
            "335": "VOLUME (l), log", "336": "VOLUME (m3), log",
        ]
        for (prefix, name) in measures {
            for decimals in 0...5 { table[prefix + String(decimals)] = .numeric(name, 6) }
        }
        for decimals in 0...9 {
            table["390\(decimals)"] = .numericUpTo("AMOUNT", 15)
            table["391\(decimals)"] = Definition(name: "AMOUNT", minimum: 4, maximum: 18, numericPrefix: 18)
            table["392\(decimals)"] = .numericUpTo("PRICE", 15)
            table["393\(decimals)"] = Definition(name: "PRICE", minimum: 4, maximum: 18, numericPrefix: 18)
        }
        return table
    }()

    /// AIs whose first two digits fix the element's length (the GS1 "predefined length" table, AI and
    /// data together): only these may be followed by the next AI without a separator.
    static let predefinedLengths: [String: Int] = [
        "00": 20, "01": 16, "02": 16, "03": 16, "04": 18, "11": 8, "12": 8, "13": 8, "14": 8, "15": 8, "16": 8,
        "17": 8, "18": 8, "19": 8, "20": 4, "31": 10, "32": 10, "33": 10, "34": 10, "35": 10, "36": 10, "41": 16,
    ]

    /// The elements of `payload`, or nil when any part of it is not a well-formed element string.
    /// A leading symbology identifier (`]C1`, `]d2`, …) or separator is skipped.
    static func parse(_ payload: String) -> [GS1Element]? {
        var bytes = Array(payload.utf8)
        if bytes.count >= 3, bytes[0] == UInt8(ascii: "]") { bytes.removeFirst(3) }
        while bytes.first == groupSeparator { bytes.removeFirst() }
        guard !bytes.isEmpty, bytes.count <= 4096 else { return nil }
        var elements: [GS1Element] = []
        var i = 0
        while i < bytes.count {
            // AIs are 2 to 4 digits and prefix-free: the first length that names one is the AI.
            guard
                let (ai, definition) = (2...4).lazy.compactMap({ length -> (String, Definition)? in
                    guard i + length <= bytes.count else { return nil }
                    let code = String(decoding: bytes[i..<(i + length)], as: UTF8.self)
                    return definitions[code].map { (code, $0) }
                }).first
            else { return nil }
            i += ai.utf8.count
            let end: Int
            if let predefined = predefinedLengths[String(ai.prefix(2))] {
                end = i + predefined - ai.utf8.count
                guard end <= bytes.count else { return nil }
            } else {
                var stop = i
                while stop < bytes.count, bytes[stop] != groupSeparator { stop += 1 }
                end = stop
            }
            let value = Array(bytes[i..<end])
            guard valid(value, definition) else { return nil }
            elements.append(GS1Element(ai: ai, name: definition.name, value: String(decoding: value, as: UTF8.self)))
            i = end
            if i < bytes.count, bytes[i] == groupSeparator {
                i += 1
                guard i < bytes.count else { return nil }  // a separator ends nothing at the end
            }
        }
        return elements
    }

    static func valid(_ value: [UInt8], _ definition: Definition) -> Bool {
        guard (definition.minimum...definition.maximum).contains(value.count) else { return false }
        let isDigit = { (b: UInt8) in (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(b) }
        guard value.prefix(definition.numericPrefix).allSatisfy(isDigit) else { return false }
        // GS1's 82-character set for alphanumeric data: printable ASCII without space and a few signs.
        guard value.allSatisfy({ (0x21...0x7E).contains($0) && !"#$@[\\]^`{|}~".utf8.contains($0) }) else { return false }
        if let at = definition.checkDigitAt, !hasValidCheckDigit(value.prefix(at)) { return false }
        if definition.isDate {
            let month = Int(value[2] - 48) * 10 + Int(value[3] - 48)
            let day = Int(value[4] - 48) * 10 + Int(value[5] - 48)
            // Day 00 means "the end of the month" (GS1 §7.12).
            guard (1...12).contains(month), (0...31).contains(day) else { return false }
        }
        return true
    }

    /// The GS1 mod-10 check digit: weights 3 and 1 alternating from the right, excluding the check digit.
    static func hasValidCheckDigit<C: Collection>(_ digits: C) -> Bool where C.Element == UInt8 {
        let values = digits.map { Int($0) - 48 }
        guard let check = values.last, values.count >= 2 else { return false }
        var sum = 0
        for (offset, digit) in values.dropLast().reversed().enumerated() { sum += digit * (offset % 2 == 0 ? 3 : 1) }
        return (10 - sum % 10) % 10 == check
    }
}
