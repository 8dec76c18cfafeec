import ScannerCore

/// Amounts of money in a line of text (issue #43): a number with a currency symbol or an ISO 4217 code
/// before or after it (`$28.09`, `€ 12,50`, `1.234,56 EUR`, `USD 25`, `R$ 10,00`).
///
/// Written here: Foundation's data detectors are not implemented on Linux and no maintained C library
/// types money in free text. A bare number is not money, whatever it looks like (a receipt's prices
/// without a symbol, a tax rate, a weight): the symbol or code is what says so. `$` and `¥` name
/// several currencies: the region (`recognition.phone-region`, a kiosk's country) decides, `$` being
/// US dollars elsewhere; `kr` is Swedish, Norwegian or Danish only in those countries.
enum MoneyAmounts {
    struct Found: Equatable {
        /// The amount with a dot before its decimals and no grouping: `1234.56`.
        var amount: String
        /// ISO 4217.
        var currency: String
        var utf8Range: Range<Int>
    }

    /// ISO 4217 codes taken when printed beside a number (the common ones: a code of three capitals
    /// that is no currency is more often a word).
    static let codes: Set<String> = [
        "USD", "EUR", "GBP", "JPY", "CNY", "CHF", "CAD", "AUD", "NZD", "SEK", "NOK", "DKK", "ISK", "PLN", "CZK", "HUF", "RON", "BGN",
        "INR", "KRW", "BRL", "MXN", "ARS", "CLP", "COP", "PEN", "ZAR", "SGD", "HKD", "TWD", "TRY", "RUB", "UAH", "AED", "SAR", "QAR",
        "ILS", "EGP", "THB", "MYR", "IDR", "PHP", "VND", "NGN", "KES",
    ]

    /// Symbols, longest first (so `R$` is not read as `$`), with the currency each names; nil: the
    /// region decides (`dollar`, `yen`, `kronor`).
    static let symbols: [(String, String?)] = [
        ("US$", "USD"), ("CA$", "CAD"), ("AU$", "AUD"), ("NZ$", "NZD"), ("HK$", "HKD"), ("S$", "SGD"), ("R$", "BRL"), ("C$", "CAD"),
        ("A$", "AUD"), ("€", "EUR"), ("£", "GBP"), ("₹", "INR"), ("₩", "KRW"), ("₽", "RUB"), ("₺", "TRY"), ("₪", "ILS"), ("₫", "VND"),
        ("₱", "PHP"), ("฿", "THB"), ("zł", "PLN"), ("Kč", "CZK"), ("Fr.", "CHF"), ("$", nil), ("¥", nil), ("kr", nil),
    ]

    /// The currency `symbol` names in `region` (ISO 3166 alpha-2); nil: not money there.
    static func currency(ofSymbol symbol: String, region: String) -> String? {
        switch symbol {
        case "$":
            return ["CA": "CAD", "AU": "AUD", "NZ": "NZD", "SG": "SGD", "HK": "HKD", "MX": "MXN", "AR": "ARS", "CL": "CLP", "CO": "COP"][
                region] ?? "USD"
        case "¥": return region == "CN" ? "CNY" : "JPY"
        case "kr": return ["SE": "SEK", "NO": "NOK", "DK": "DKK", "IS": "ISK"][region]
        default: return symbols.first { $0.0 == symbol }?.1
        }
    }

    /// Every amount in `line`, in order.
    static func find(in line: String, region: String) -> [Found] {
        let bytes = Array(line.utf8)
        var found: [Found] = []
        var i = 0
        while i < bytes.count {
            guard isDigit(bytes[i]), i == 0 || !isDigit(bytes[i - 1]) && !isLetter(bytes[i - 1]) || isSymbolEnd(bytes, i) else {
                i += 1
                continue
            }
            guard let number = number(bytes, from: i) else {
                i += 1
                continue
            }
            if let (currency, range) = marker(bytes, before: i, after: number.end, region: region) {
                found.append(
                    Found(amount: number.amount, currency: currency, utf8Range: min(range.lowerBound, i)..<max(range.upperBound, number.end)))
            }
            i = number.end
        }
        return found
    }

    /// A number from `start`: digits, groups of three after `,` `.` or a space (the first group of one
    /// to three digits), and one or two decimals after the other of `.` and `,`. Nil when what follows
    /// makes the digits part of something else (a date `11/22`, a time `09:41`, a percentage, a word).
    static func number(_ bytes: [UInt8], from start: Int) -> (amount: String, end: Int)? {
        func threeDigits(at j: Int) -> Bool {
            j + 3 <= bytes.count && (j..<(j + 3)).allSatisfy { isDigit(bytes[$0]) } && (j + 3 == bytes.count || !isDigit(bytes[j + 3]))
        }
        var i = start
        var integer: [UInt8] = []
        while i < bytes.count, isDigit(bytes[i]) {
            integer.append(bytes[i])
            i += 1
        }
        var grouping: UInt8?
        /// Whether a dot before three digits groups them: only where more groups or a decimal comma
        /// follow (`1.234.567`, `1.234,56`). Alone it is a decimal point: a fuel price `$2.659`, and
        /// the dinars' three decimals.
        func dotGroups(at j: Int) -> Bool {
            grouping == UInt8(ascii: ".")
                || j + 5 < bytes.count
                    && (bytes[j + 4] == UInt8(ascii: ".") && threeDigits(at: j + 5) || bytes[j + 4] == UInt8(ascii: ",") && isDigit(bytes[j + 5]))
        }
        if integer.count <= 3 {
            while i < bytes.count, [UInt8(ascii: ","), UInt8(ascii: "."), UInt8(ascii: " ")].contains(bytes[i]),
                grouping == nil || grouping == bytes[i],
                threeDigits(at: i + 1), bytes[i] != UInt8(ascii: ".") || dotGroups(at: i)
            {
                grouping = bytes[i]
                integer += bytes[(i + 1)..<(i + 4)]
                i += 4
            }
        }
        var decimals: [UInt8] = []
        if i + 1 < bytes.count, bytes[i] == UInt8(ascii: ".") || bytes[i] == UInt8(ascii: ","), bytes[i] != grouping, isDigit(bytes[i + 1]) {
            var j = i + 1
            while j < bytes.count, isDigit(bytes[j]) { j += 1 }
            // Two decimals, or three after a point (`$2.659`, `KWD 1.250`).
            guard j - (i + 1) <= (bytes[i] == UInt8(ascii: ".") ? 3 : 2) else { return nil }
            decimals = Array(bytes[(i + 1)..<j])
            i = j
        }
        // A date or a range (`11/22`, `10-16`), a time, a percentage, a word: not an amount. A unit
        // after a slash is (`$2.659/gal`).
        if i < bytes.count {
            let next = i + 1 < bytes.count ? bytes[i + 1] : 0
            if bytes[i] == UInt8(ascii: "/") || bytes[i] == UInt8(ascii: "-")
                ? isDigit(next)
                : [UInt8(ascii: ":"), UInt8(ascii: "%")].contains(bytes[i]) || isLetter(bytes[i]) && !startsSymbol(bytes, i)
            {
                return nil
            }
        }
        let whole = String(decoding: integer, as: UTF8.self)
        return (decimals.isEmpty ? whole : whole + "." + String(decoding: decimals, as: UTF8.self), i)
    }

    /// The currency marked right before `start` or right after `end` (one space between at most),
    /// and where the mark lies.
    static func marker(_ bytes: [UInt8], before start: Int, after end: Int, region: String) -> (String, Range<Int>)? {
        // Before: a symbol or a code ending at `start` (or one space before it).
        for gap in [0, 1] {
            let stop = start - gap
            guard stop >= 0, gap == 0 || bytes[stop] == 0x20 else { continue }
            for (symbol, _) in symbols {
                let s = Array(symbol.utf8)
                guard stop - s.count >= 0, Array(bytes[(stop - s.count)..<stop]) == s else { continue }
                // A letter right before a symbol makes it part of a word (`Fr.` of `Afr.`).
                if stop - s.count > 0, isLetter(bytes[stop - s.count - 1]) { continue }
                if let currency = currency(ofSymbol: symbol, region: region) { return (currency, (stop - s.count)..<stop) }
            }
            if stop >= 3, let code = code(bytes, (stop - 3)..<stop), stop == 3 || !isLetter(bytes[stop - 4]) { return (code, (stop - 3)..<stop) }
        }
        // After: a symbol or a code starting at `end` (or one space after it).
        for gap in [0, 1] {
            let begin = end + gap
            guard begin <= bytes.count, gap == 0 || (end < bytes.count && bytes[end] == 0x20) else { continue }
            for (symbol, _) in symbols {
                let s = Array(symbol.utf8)
                guard begin + s.count <= bytes.count, Array(bytes[begin..<(begin + s.count)]) == s else { continue }
                if begin + s.count < bytes.count, isLetter(bytes[begin + s.count]) { continue }
                if let currency = currency(ofSymbol: symbol, region: region) { return (currency, begin..<(begin + s.count)) }
            }
            if begin + 3 <= bytes.count, let code = code(bytes, begin..<(begin + 3)), begin + 3 == bytes.count || !isLetter(bytes[begin + 3]) {
                return (code, begin..<(begin + 3))
            }
        }
        return nil
    }

    static func code(_ bytes: [UInt8], _ range: Range<Int>) -> String? {
        let text = String(decoding: bytes[range], as: UTF8.self)
        return codes.contains(text) ? text : nil
    }

    static func isDigit(_ b: UInt8) -> Bool { b >= 0x30 && b <= 0x39 }
    static func isLetter(_ b: UInt8) -> Bool { (b >= 0x41 && b <= 0x5A) || (b >= 0x61 && b <= 0x7A) }

    /// Whether a symbol made of letters (`kr`, `zł`, `Kč`, `Fr.`) or a code starts at `i`.
    static func startsSymbol(_ bytes: [UInt8], _ i: Int) -> Bool {
        symbols.contains { symbol, _ in
            let s = Array(symbol.utf8)
            return i + s.count <= bytes.count && Array(bytes[i..<(i + s.count)]) == s
        } || (i + 3 <= bytes.count && code(bytes, i..<(i + 3)) != nil)
    }

    /// Whether the byte before `i` ends a symbol written against the number (`R$10`, `US$5`).
    static func isSymbolEnd(_ bytes: [UInt8], _ i: Int) -> Bool {
        i > 0 && (bytes[i - 1] == UInt8(ascii: "$") || bytes[i - 1] == UInt8(ascii: "."))
    }
}
