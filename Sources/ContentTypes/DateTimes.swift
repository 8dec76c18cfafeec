import ScannerCore

/// Dates, times, ranges of them and durations in a line of text (issue #43), each with its ISO 8601
/// value: `2024-12-25`, `--12-25` (no year printed), `14:05`, `2024-12-25T14:05`, `09:00/17:00`,
/// `PT1H30M`.
///
/// Written here: Foundation's data detectors are not implemented on Linux, ICU parses a date in one
/// pattern it is given but finds none in free text, and the maintained finders are not C (Duckling is
/// Haskell, dateparser Python). What is taken is what receipts, tickets and flyers print: numeric
/// dates with one separator throughout (day and month ordered by the region where both could be
/// either), month names and their abbreviations in English, Spanish, German, French, Italian, Dutch
/// and Portuguese, clock times (24-hour, or 12-hour with am/pm), a date with its time, ranges of
/// either joined by a dash or `to`, and durations in hours, minutes, seconds, days or weeks. A number
/// alone is never a date: its form says so (separators, a month's name, a unit).
public enum DateTimes {
    enum Kind: String, Sendable {
        case date, time, dateTime, range, duration
    }

    struct Found: Equatable {
        var iso8601: String
        var kind: Kind
        var utf8Range: Range<Int>
    }

    /// Regions that write the month first in a numeric date (`12/25/2024`); elsewhere the day is first.
    static let monthFirstRegions: Set<String> = ["US", "PH", "FM", "MH", "PW", "GU", "PR", "AS", "VI", "UM", "BZ"]

    /// Every date, time, range and duration in `line`, in order.
    static func find(in line: String, region: String) -> [Found] {
        let scanner = Scanner(tokens: LineToken.tokens(of: line), monthFirst: monthFirstRegions.contains(region))
        var found: [Found] = []
        var i = 0
        while i < scanner.tokens.count {
            if let (value, end) = scanner.match(at: i) {
                found.append(
                    Found(
                        iso8601: value.iso8601, kind: value.kind,
                        utf8Range: scanner.tokens[i].range.lowerBound..<scanner.tokens[end - 1].range.upperBound))
                i = end
            } else {
                i += 1
            }
        }
        return found
    }

    typealias Token = LineToken

    // MARK: Values

    struct Day: Equatable {
        var year: Int?
        var month: Int
        var day: Int?

        var iso8601: String {
            switch (year, day) {
            case (let year?, let day?): return "\(pad(year, 4))-\(pad(month))-\(pad(day))"
            case (let year?, nil): return "\(pad(year, 4))-\(pad(month))"
            case (nil, let day?): return "--\(pad(month))-\(pad(day))"
            case (nil, nil): return "--\(pad(month))"
            }
        }
    }

    struct Clock: Equatable {
        var hour: Int
        var minute: Int
        var second: Int?
        /// `Z` after an ISO time.
        var utc = false
        /// Written with am/pm.
        var twelveHour = false

        var iso8601: String { "\(pad(hour)):\(pad(minute))" + (second.map { ":\(pad($0))" } ?? "") + (utc ? "Z" : "") }
    }

    struct Value {
        var iso8601: String
        var kind: Kind
    }

    static func pad(_ n: Int, _ width: Int = 2) -> String {
        let digits = String(n)
        return String(repeating: "0", count: max(0, width - digits.count)) + digits
    }

    static func daysIn(month: Int, year: Int?) -> Int {
        switch month {
        case 2:
            guard let year else { return 29 }
            return year % 4 == 0 && (year % 100 != 0 || year % 400 == 0) ? 29 : 28
        case 4, 6, 9, 11: return 30
        default: return 31
        }
    }

    // MARK: Words

    /// Month names and abbreviations (English, Spanish, German, French, Italian, Dutch, Portuguese).
    static let months: [String: Int] = {
        let names: [[String]] = [
            ["january", "jan", "enero", "ene", "januar", "jänner", "jän", "janvier", "janv", "gennaio", "gen", "januari", "janeiro"],
            ["february", "feb", "febrero", "februar", "février", "fevrier", "févr", "fevr", "febbraio", "februari", "fevereiro", "fev"],
            ["march", "mar", "marzo", "märz", "mär", "mrz", "mars", "maart", "mrt", "março", "marco"],
            ["april", "apr", "abril", "abr", "avril", "avr", "aprile"],
            ["may", "mayo", "mai", "maggio", "mag", "mei", "maio"],
            ["june", "jun", "junio", "juni", "juin", "giugno", "giu", "junho"],
            ["july", "jul", "julio", "juli", "juillet", "juil", "luglio", "lug", "julho"],
            ["august", "aug", "agosto", "ago", "août", "aout", "augustus"],
            ["september", "sep", "sept", "septiembre", "setiembre", "septembre", "settembre", "set", "setembro"],
            ["october", "oct", "octubre", "oktober", "okt", "octobre", "ottobre", "ott", "outubro", "out"],
            ["november", "nov", "noviembre", "novembre", "novembro"],
            ["december", "dec", "diciembre", "dic", "dezember", "dez", "décembre", "decembre", "déc", "dicembre", "dezembro"],
        ]
        var table: [String: Int] = [:]
        for (index, words) in names.enumerated() { for word in words { table[word] = index + 1 } }
        return table
    }()

    /// Abbreviations that are also everyday words ("set", "out", "ago", "mar", "gen"): a month only
    /// with a year beside it.
    static let needYear: Set<String> = ["set", "out", "ago", "mar", "gen", "mag", "mai", "mayo", "may"]

    static let ordinals: Set<String> = ["st", "nd", "rd", "th"]
    static let separators: Set<String> = ["/", ".", "-"]
    static let apostrophes: Set<String> = ["'", "´", "’", "`"]
    /// What joins the two ends of a range.
    static let dashes: Set<String> = ["-", "–", "—", "~"]
    static let rangeWords: Set<String> = ["to", "until", "till", "thru", "through", "bis"]

    static let abbreviatedUnits: Set<String> = ["wk", "wks", "hr", "hrs", "std", "min", "mins", "sec", "secs"]
    static let units: [(words: Set<String>, letter: String, inTime: Bool)] = [
        (["week", "weeks", "wk", "wks", "woche", "wochen"], "W", false),
        (["day", "days", "tag", "tage", "jour", "jours", "dia", "dias", "días"], "D", false),
        (["hour", "hours", "hr", "hrs", "std", "stunde", "stunden", "heure", "heures", "hora", "horas"], "H", true),
        (["minute", "minutes", "min", "mins", "minuten", "minuto", "minutos"], "M", true),
        (["second", "seconds", "sec", "secs", "sekunden", "segundos"], "S", true),
    ]
}

extension DateTimes {
    /// Matches at one token at a time; each pattern returns its value and the token index past it.
    struct Scanner {
        let tokens: [Token]
        let monthFirst: Bool

        subscript(_ i: Int) -> Token? { i >= 0 && i < tokens.count ? tokens[i] : nil }

        /// Whether token `i` touches the one before it (no space between).
        func touches(_ i: Int) -> Bool { self[i].map { !$0.spaced } ?? false }

        func match(at i: Int) -> (Value, Int)? {
            guard isStart(i) else { return nil }
            if let found = dateRunIntoTime(at: i) { return found }
            if let (day, end) = date(at: i) {
                if day.day != nil, let (clock, timeEnd) = timeAfterDate(end) {
                    let start = day.iso8601 + "T" + clock.iso8601
                    if let (until, rangeEnd) = timeRangeEnd(after: timeEnd) {
                        return (Value(iso8601: start + "/" + until.iso8601, kind: .range), rangeEnd)
                    }
                    return (Value(iso8601: start, kind: .dateTime), timeEnd)
                }
                if let (until, rangeEnd) = dateRangeEnd(after: end, from: day) {
                    // `Dec 24–26, 2024`: the year printed once, at the end, is the start's too.
                    var from = day
                    if from.year == nil, until.month == from.month { from.year = until.year }
                    return (Value(iso8601: from.iso8601 + "/" + until.iso8601, kind: .range), rangeEnd)
                }
                return (Value(iso8601: day.iso8601, kind: .date), end)
            }
            if let found = dayRange(at: i) { return found }
            if let (clock, end) = time(at: i) {
                if let (until, rangeEnd) = timeRangeEnd(after: end) {
                    return (Value(iso8601: clock.iso8601 + "/" + until.iso8601, kind: .range), rangeEnd)
                }
                return (Value(iso8601: clock.iso8601, kind: .time), end)
            }
            if let found = hourRange(at: i) { return found }
            return duration(at: i)
        }

        /// A match starts at a number or a word that is no tail of something longer: not against a
        /// letter or digit (`v1.2.10`), not after a number and a separator (`1.2.3.4`'s `2`, a
        /// decimal's fraction).
        func isStart(_ i: Int) -> Bool {
            guard let token = self[i], token.kind != .mark else { return false }
            guard touches(i), let before = self[i - 1] else { return true }
            if before.kind != .mark { return false }
            return !((separators.contains(before.text) || before.text == ":" || before.text == ",") && touches(i - 1) && self[i - 2]?.kind == .number)
        }

        /// Whether what follows token `end - 1` lets a match end there: not more of the same number
        /// (`192.168.1.20`, `12:30:45:10`) nor a digit against it. A word against it is allowed: OCR
        /// runs a receipt's `14:03` into the `Num.` after it.
        func endsCleanly(_ end: Int) -> Bool {
            guard let next = self[end], touches(end) else { return true }
            switch next.kind {
            case .number: return false
            case .word: return true
            case .mark:
                return
                    !((separators.contains(next.text) || next.text == ":" || next.text == ",") && touches(end + 1) && self[end + 1]?.kind == .number)
            }
        }

        /// The time of a date: `T14:05` against an ISO date, or after a space, a comma, `at` or `@`.
        func timeAfterDate(_ end: Int) -> (Clock, Int)? {
            if self[end]?.text == "t", touches(end), touches(end + 1) { return time(at: end + 1) }
            var k = end
            if self[k]?.isMark([",", "@", "-"]) == true || self[k]?.isWord(["at", "um", "à"]) == true { k += 1 }
            guard k > end || self[k]?.spaced == true else { return nil }
            return time(at: k)
        }

        // MARK: Dates

        func date(at i: Int) -> (Day, Int)? {
            numericDate(at: i) ?? namedDate(at: i)
        }

        /// `2024-12-25`, `25.12.2024`, `12/25/24`, `06-Aug-2015`, `NOV/25/2016`: three parts, one
        /// separator, no spaces.
        func numericDate(at i: Int) -> (Day, Int)? {
            guard let (a, b, c) = numericParts(at: i), endsCleanly(i + 5) else { return nil }
            return day(a, b, year: c.text).map { ($0, i + 5) }
        }

        /// The three parts of a numeric date from `i`, one separator between them, no spaces.
        func numericParts(at i: Int) -> (LineToken, LineToken, LineToken)? {
            guard let a = self[i], let s1 = self[i + 1], let b = self[i + 2], let s2 = self[i + 3], let c = self[i + 4],
                s1.kind == .mark, separators.contains(s1.text), s2.text == s1.text, (1...4).allSatisfy({ touches(i + $0) }), c.kind == .number
            else { return nil }
            return (a, b, c)
        }

        /// The day a numeric date's parts give, `year` its last part's digits.
        func day(_ a: LineToken, _ b: LineToken, year c: String) -> Day? {
            guard let z = Int(c) else { return nil }
            switch (a.kind, b.kind) {
            case (.number, .number):
                guard let x = a.value, let y = b.value, b.text.count <= 2 else { return nil }
                if a.text.count == 4, c.count <= 2 { return valid(Day(year: x, month: y, day: z)) }
                guard a.text.count <= 2, c.count == 4 || c.count == 2 else { return nil }
                let year = fullYear(z, digits: c.count)
                let monthFirstDay = valid(Day(year: year, month: x, day: y))
                let dayFirstDay = valid(Day(year: year, month: y, day: x))
                return monthFirst ? monthFirstDay ?? dayFirstDay : dayFirstDay ?? monthFirstDay
            case (.number, .word):
                guard let d = a.value, a.text.count <= 2, let m = months[b.text], c.count == 4 || c.count == 2 else { return nil }
                return valid(Day(year: fullYear(z, digits: c.count), month: m, day: d))
            case (.word, .number):
                guard let m = months[a.text], let d = b.value, b.text.count <= 2, c.count == 4 || c.count == 2 else { return nil }
                return valid(Day(year: fullYear(z, digits: c.count), month: m, day: d))
            default:
                return nil
            }
        }

        /// `11/22/202609:41`: OCR ran a four-digit year into the hour after it (a receipt's date and
        /// time, printed two spaces apart, read as one word).
        func dateRunIntoTime(at i: Int) -> (Value, Int)? {
            guard let (a, b, c) = numericParts(at: i), (5...6).contains(c.text.count), self[i + 5]?.isMark([":"]) == true, touches(i + 5),
                let day = day(a, b, year: String(c.text.prefix(4))), let hour = Int(c.text.dropFirst(4)),
                let (clock, end) = time(at: i + 4, hour: hour)
            else { return nil }
            return (Value(iso8601: day.iso8601 + "T" + clock.iso8601, kind: .dateTime), end)
        }

        /// `25 Dec 2024`, `25th of December`, `12Mar'18`, `18Feb14`, `Dec 25, 2024`, `Feb11.2012`,
        /// `December 2024`.
        func namedDate(at i: Int) -> (Day, Int)? {
            guard let first = self[i] else { return nil }
            if first.kind == .number, let d = first.value, first.text.count <= 2 {
                // Day, month, year.
                var j = i + 1
                if self[j]?.isWord(ordinals) == true, touches(j) { j += 1 }
                if self[j]?.isMark(["."]) == true, touches(j) { j += 1 }
                if self[j]?.isWord(["of", "de", "di", "del"]) == true { j += 1 }
                guard let word = self[j], word.kind == .word, let m = months[word.text] else { return nil }
                let monthAt = j
                j += 1
                if self[j]?.isMark(["."]) == true, touches(j) { j += 1 }
                if self[j]?.isWord(["de", "del"]) == true { j += 1 }
                let year = year(at: j, afterMonthAt: monthAt)
                if year == nil, needYear.contains(word.text) { return nil }
                guard let day = valid(Day(year: year?.0, month: m, day: d)) else { return nil }
                // Without a year, an abbreviation's dot is the date's (`25 Dec.`), a name's ends the
                // sentence (`28 October.`).
                let dotted = self[monthAt + 1]?.isMark(["."]) == true && touches(monthAt + 1) && word.text.count <= 4
                let end = year?.1 ?? monthAt + (dotted ? 2 : 1)
                guard endsCleanly(end) else { return nil }
                return (day, end)
            }
            guard first.kind == .word, let m = months[first.text] else { return nil }
            var j = i + 1
            if self[j]?.isMark([".", "/"]) == true, touches(j) { j += 1 }
            guard let number = self[j], number.kind == .number, let n = number.value else { return nil }
            if number.text.count == 4 {
                // Month and year.
                guard let day = valid(Day(year: n, month: m, day: nil)), endsCleanly(j + 1) else { return nil }
                return (day, j + 1)
            }
            guard number.text.count <= 2 else { return nil }
            j += 1
            if self[j]?.isWord(ordinals) == true, touches(j) { j += 1 }
            if self[j]?.isMark([",", "."]) == true, touches(j) { j += 1 }
            let year = year(at: j, afterMonthAt: nil)
            if year == nil, needYear.contains(first.text) { return nil }
            guard let day = valid(Day(year: year?.0, month: m, day: n)) else { return nil }
            let end = year?.1 ?? j - (self[j - 1]?.kind == .mark ? 1 : 0)
            guard endsCleanly(end) else { return nil }
            return (day, end)
        }

        /// A year at `j`: four digits, or two after an apostrophe (`'18`), or against the month's
        /// name (`18Feb14`, `04sept.16`).
        func year(at j: Int, afterMonthAt month: Int?) -> (Int, Int)? {
            var k = j
            var marked = false
            if self[k]?.isMark(apostrophes.union([","])) == true {
                marked = self[k]!.text != ","
                k += 1
            }
            guard let token = self[k], token.kind == .number, let y = token.value else { return nil }
            if token.text.count == 4, (1900...2099).contains(y) { return (y, k + 1) }
            let against = month.map { m in k == m + 1 && touches(k) || k == m + 2 && self[m + 1]?.text == "." && touches(m + 1) } ?? false
            // `25 Dec 13 14:14:13`: two digits after a day and a month, before a time or the line's end.
            let beforeTime = month != nil && (self[k + 1] == nil || self[k + 1]?.kind == .number && self[k + 2]?.isMark([":"]) == true)
            if token.text.count == 2, marked || against || beforeTime { return (fullYear(y, digits: 2), k + 1) }
            return nil
        }

        func fullYear(_ y: Int, digits: Int) -> Int {
            digits == 4 ? y : (y >= 70 ? 1900 + y : 2000 + y)
        }

        func valid(_ day: Day) -> Day? {
            guard (1...12).contains(day.month) else { return nil }
            if let year = day.year, !(1900...2099).contains(year) { return nil }
            if let d = day.day, !(1...daysIn(month: day.month, year: day.year)).contains(d) { return nil }
            return day
        }

        /// `24–26 December`, `24 - 26 Dec 2024`: a day, a dash and a date of the same month after it.
        func dayRange(at i: Int) -> (Value, Int)? {
            guard let first = self[i], first.kind == .number, first.text.count <= 2, let d = first.value, self[i + 1]?.isMark(dashes) == true,
                self[i + 2]?.kind == .number, let (until, end) = namedDate(at: i + 2), let last = until.day, d < last
            else { return nil }
            var from = until
            from.day = d
            guard let start = valid(from) else { return nil }
            return (Value(iso8601: start.iso8601 + "/" + until.iso8601, kind: .range), end)
        }

        /// `– 26.12.2024` or `– 26` (a day of the same month, after a month's name) after a date.
        func dateRangeEnd(after end: Int, from start: Day) -> (Day, Int)? {
            guard let joint = self[end], joint.isMark(dashes) || joint.isWord(rangeWords) else { return nil }
            if let (until, untilEnd) = date(at: end + 1), isStart(end + 1) { return (until, untilEnd) }
            if start.day != nil, let token = self[end + 1], let d = token.value, token.text.count <= 2, token.kind == .number {
                var until = start
                until.day = d
                var stop = end + 2
                if self[stop]?.isMark([","]) == true, start.year == nil, let (y, yearEnd) = year(at: stop + 1, afterMonthAt: nil) {
                    until.year = y
                    stop = yearEnd
                }
                guard let day = valid(until), let from = start.day, d > from, endsCleanly(stop) else { return nil }
                return (day, stop)
            }
            return nil
        }

        // MARK: Times

        /// `14:05`, `14:05:33`, `2:05 PM`, `9:30a.m.`, `9am`, `9.30 pm`.
        /// `hour`: the hour's value when the token at `i` holds more than the hour (`dateRunIntoTime`).
        func time(at i: Int, hour: Int? = nil) -> (Clock, Int)? {
            guard let first = self[i], first.kind == .number, first.text.count <= 2 || hour != nil, let h = hour ?? first.value else { return nil }
            var minute = 0
            var second: Int?
            var j = i + 1
            var colon = false
            if self[j]?.isMark([":"]) == true, touches(j), let m = self[j + 1], m.kind == .number, m.text.count == 2, touches(j + 1) {
                minute = m.value ?? 99
                j += 2
                colon = true
                if self[j]?.isMark([":"]) == true, touches(j), let s = self[j + 1], s.kind == .number, s.text.count == 2, touches(j + 1) {
                    second = s.value
                    j += 2
                }
            } else if self[j]?.text == "h", touches(j), let m = self[j + 1], m.kind == .number, m.text.count == 2, touches(j + 1),
                self[j + 2].map({ $0.kind != .word || !touches(j + 2) }) ?? true, h <= 23
            {
                // `11h05`: the clock as French and others write it (a duration carries its unit:
                // `1h30m`, `1h 30 min`).
                guard let value = m.value, value <= 59, endsCleanly(j + 2) else { return nil }
                return (Clock(hour: h, minute: value), j + 2)
            } else if self[j]?.isMark(["."]) == true, touches(j), let m = self[j + 1], m.kind == .number, m.text.count == 2, touches(j + 1) {
                // `9.30pm`: a dot only with am/pm after it.
                minute = m.value ?? 99
                j += 2
            }
            guard minute <= 59, (second ?? 0) <= 59 else { return nil }
            if let (pm, end) = meridiem(at: j, afterMinutes: colon) {
                guard (1...12).contains(h) else { return nil }
                return (Clock(hour: h % 12 + (pm ? 12 : 0), minute: minute, second: second, twelveHour: true), end)
            }
            guard colon, h <= 23 else { return nil }
            if self[j]?.text == "z", touches(j), endsCleanly(j + 1) { return (Clock(hour: h, minute: minute, second: second, utc: true), j + 1) }
            guard endsCleanly(j) else { return nil }
            return (Clock(hour: h, minute: minute, second: second), j)
        }

        /// `am`, `PM`, `a.m.`, `p. m.`, and `A`/`P` against the minutes (a receipt's `7:23:34P`; not
        /// after an hour alone: `Table 7A`, `2P` of an item's name).
        func meridiem(at j: Int, afterMinutes: Bool) -> (Bool, Int)? {
            guard let token = self[j], token.kind == .word else { return nil }
            switch token.text {
            case "am", "pm":
                guard self[j + 1]?.kind != .word || !touches(j + 1) else { return nil }
                return (token.text == "pm", j + 1)
            case "a", "p":
                if self[j + 1]?.isMark(["."]) == true, self[j + 2]?.text == "m" {
                    let end = self[j + 3]?.isMark(["."]) == true ? j + 4 : j + 3
                    return (token.text == "p", end)
                }
                guard afterMinutes, touches(j), endsCleanly(j + 1) else { return nil }
                return (token.text == "p", j + 1)
            default:
                return nil
            }
        }

        /// `– 17:00`, `to 5 pm` after a time.
        func timeRangeEnd(after end: Int) -> (Clock, Int)? {
            guard let joint = self[end], joint.isMark(dashes) || joint.isWord(rangeWords),
                let (until, untilEnd) = time(at: end + 1)
            else { return nil }
            return (until, untilEnd)
        }

        /// `9–5pm`, `10-11 am`, `9:30-11:30am`: a bare hour before a dash and a time with am/pm takes
        /// the half of the day that puts it first.
        func hourRange(at i: Int) -> (Value, Int)? {
            guard let first = self[i], first.kind == .number, first.text.count <= 2, let h = first.value, (1...12).contains(h) else { return nil }
            var j = i + 1
            var minute = 0
            if self[j]?.isMark([":"]) == true, touches(j), let m = self[j + 1], m.kind == .number, m.text.count == 2, let value = m.value, value <= 59
            {
                minute = value
                j += 2
            }
            guard self[j]?.isMark(dashes) == true, let (until, end) = time(at: j + 1), until.twelveHour else { return nil }
            var start = Clock(hour: h % 12 + (until.hour >= 12 ? 12 : 0), minute: minute)
            if start.hour * 60 + start.minute >= until.hour * 60 + until.minute, start.hour >= 12 { start.hour -= 12 }
            guard start.hour * 60 + start.minute < until.hour * 60 + until.minute else { return nil }
            return (Value(iso8601: start.iso8601 + "/" + until.iso8601, kind: .range), end)
        }

        // MARK: Durations

        /// `45 min`, `2 hours`, `1.5 hrs`, `1 hr 30 min`, `1h30`, `1h 30m`, `3 days`: numbers with
        /// units, each smaller than the one before. A lone `h` or `m` is no unit (`5m` is a length).
        func duration(at i: Int) -> (Value, Int)? {
            var parts: [(amount: String, unit: Int)] = []
            var j = i
            let hours = 2
            let minutes = 3
            func isMinutes(_ token: Token?) -> Bool { token.map { $0.text == "m" || DateTimes.units[minutes].words.contains($0.text) } ?? false }
            while let (amount, next) = number(at: j), let word = self[next], word.kind == .word {
                let previous = parts.last?.unit ?? -1
                if word.text == "h", previous < hours, let (m, after) = number(at: next + 1), !m.contains(".") {
                    // `1h30`, `1h30m`, `1h 30 min`: minutes after an `h`, with or without their unit.
                    let unit = self[after].map { $0.kind == .word && isMinutes($0) } ?? false
                    guard unit || touches(next + 1) && endsCleanly(after) else { break }
                    let end = unit ? after + 1 : after
                    guard endsCleanly(end) else { break }
                    parts += [(amount, hours), (m, minutes)]
                    j = end
                    break
                }
                var unit = DateTimes.units.firstIndex { $0.words.contains(word.text) }
                if unit == nil, word.text == "m", previous == hours { unit = minutes }
                guard let found = unit, found > previous else { break }
                var stop = next + 1
                // An abbreviation's dot is the duration's (`45 min.`); a word's ends the sentence (`30 days.`).
                if self[stop]?.isMark(["."]) == true, touches(stop), self[stop + 1]?.kind != .number, DateTimes.abbreviatedUnits.contains(word.text) {
                    stop += 1
                }
                guard endsCleanly(stop) else { break }
                parts.append((amount, found))
                j = stop
            }
            guard !parts.isEmpty else { return nil }
            var iso = "P"
            for (index, part) in parts.enumerated() {
                let unit = DateTimes.units[part.unit]
                if unit.inTime, index == 0 || !DateTimes.units[parts[index - 1].unit].inTime { iso += "T" }
                iso += part.amount + unit.letter
            }
            return (Value(iso8601: iso, kind: .duration), j)
        }

        /// A whole number or a decimal (`1.5`, `1,5`) at `j`, as ISO writes it, and what follows it.
        func number(at j: Int) -> (String, Int)? {
            guard let token = self[j], token.kind == .number, token.text.count <= 4 else { return nil }
            if let mark = self[j + 1], mark.isMark([".", ","]), touches(j + 1), let fraction = self[j + 2], fraction.kind == .number, touches(j + 2),
                fraction.text.count <= 2
            {
                return (token.text + "." + fraction.text, j + 3)
            }
            return (token.text, j + 1)
        }
    }
}

extension DateTimes {
    /// `items` with a date joined to the time printed right after it on the same row (one item over
    /// both, `2026-11-22T09:41`), where the line detector cut them apart: Tesseract's classical
    /// detector splits a receipt's `11/22/2026  09:41` at its two spaces. Each result names the indices
    /// of the items it was made of.
    ///
    /// Right after it: the time's box overlaps the date's rows by half the lower one's height, and
    /// starts after the date's end by less than 0.6 of the date's width (a gap of a few spaces).
    public static func assembled(_ items: [RecognizedItem]) -> [(item: RecognizedItem, parts: [Int])] {
        func value(_ item: RecognizedItem) -> (kind: String, iso8601: String)? {
            guard item.contentType == .dateTimeDuration, case .dateTime(let kind, let iso8601)? = item.details?.parsed else { return nil }
            return (kind, iso8601)
        }
        var used = Set<Int>()
        var joinedTo: [Int: Int] = [:]
        for (index, item) in items.enumerated() {
            // A whole day: a time of a day with no day (`--12-25`) would say less than it seems.
            guard let date = value(item), date.kind == "date", !date.iso8601.hasPrefix("--"), date.iso8601.count == 10 else { continue }
            let box = item.bounds.boundingBox
            let width = box.maxX - box.minX
            let times = items.indices.filter { other in
                guard !used.contains(other), value(items[other])?.kind == "time" else { return false }
                let b = items[other].bounds.boundingBox
                let rows = min(box.maxY, b.maxY) - max(box.minY, b.minY)
                let gap = b.minX - box.maxX
                return rows >= 0.5 * min(box.maxY - box.minY, b.maxY - b.minY) && gap >= -0.05 * width && gap <= 0.6 * width
            }
            guard let time = times.min(by: { items[$0].bounds.boundingBox.minX < items[$1].bounds.boundingBox.minX }) else { continue }
            used.insert(time)
            joinedTo[index] = time
        }
        var result: [(item: RecognizedItem, parts: [Int])] = []
        for (index, item) in items.enumerated() where !used.contains(index) {
            guard let timeIndex = joinedTo[index], let date = value(item), let time = value(items[timeIndex]) else {
                result.append((item, [index]))
                continue
            }
            let iso8601 = date.iso8601 + "T" + time.iso8601
            let joined = item.joined(with: items[timeIndex], payload: iso8601, parsed: .dateTime(kind: "dateTime", iso8601: iso8601), separator: " ")
            result.append((joined, [index, timeIndex]))
        }
        return result
    }
}
