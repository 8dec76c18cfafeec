import Foundation
import ScannerCore

/// URLs and e-mail addresses in a line of text.
///
/// A scanner reads these from cards and posters, so the rules are about what people print: a scheme
/// (`https://`), `www.`, or a bare domain whose top-level domain is real. OCR noise such as `Dr.No`
/// is not a domain, so bare domains need a known TLD and a first label of at least three characters.
enum WebIdentifiers {
    /// Generic top-level domains seen on print, plus every two-letter country code (`countryTLDs`).
    static let genericTLDs: Set<String> = [
        "com", "org", "net", "edu", "gov", "mil", "int", "info", "biz", "io", "dev", "app", "ai", "co", "me", "tv",
        "shop", "store", "online", "site", "xyz", "tech", "cloud", "page", "blog", "news", "agency", "design",
        "studio", "media", "email", "solutions", "services", "company", "global", "health", "travel", "pro", "museum",
        "aero", "coop", "jobs", "mobi", "name", "tel", "law", "art", "bank", "insurance", "restaurant", "cafe",
    ]

    /// Two-letter top-level domains: the ISO 3166 country codes (Foundation's list), and the ccTLDs that
    /// are none (`uk`, `eu`, `ac`). On real receipts (issue #40, WildReceipt development photos) two
    /// letters after a dot that are no country were abbreviations read as domains: `INCL.OF`,
    /// `INFO@RESTO.TE`.
    static let countryTLDs: Set<String> = Set(
        Locale.Region.isoRegions.map { $0.identifier.lowercased() }.filter {
            $0.count == 2 && $0.allSatisfy { $0.isASCII && $0.isLetter }
        }
    ).union(["uk", "eu", "ac"])

    static func isKnownTLD(_ tld: String) -> Bool {
        let lower = tld.lowercased()
        return genericTLDs.contains(lower) || countryTLDs.contains(lower)
    }

    static func isLabelByte(_ b: UInt8) -> Bool {
        (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(b | 0x20) || PhoneContext.isDigit(b) || b == UInt8(ascii: "-")
    }

    static let localPartPunctuation: Set<UInt8> = Set("._%+-".utf8)
    /// Characters that may appear in a URL path (RFC 3986 unreserved, reserved and `%`).
    static let pathBytes: Set<UInt8> = Set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-._~:/?#[]@!$&'()*+,;=%".utf8)
    /// Punctuation that ends a sentence rather than a URL.
    static let trailingPunctuation: Set<UInt8> = Set(".,;:!?)]'\"".utf8)

    /// A domain starting at `start`: labels separated by single dots, ending in a known TLD.
    /// Returns the end offset and the label list.
    ///
    /// The whole run of labels must end in a TLD: when it does not ("kestrel-labs.co.ukiteam", the
    /// slash read as "i"; "el-labs.co.U" at a cut line end), the host printed is not the one read,
    /// and a shorter prefix ("kestrel-labs.co") would be a wrong payload, worse than none.
    static func domain(in bytes: [UInt8], from start: Int) -> (end: Int, labels: [String])? {
        var labels: [String] = []
        var i = start
        while true {
            let labelStart = i
            while i < bytes.count, isLabelByte(bytes[i]) { i += 1 }
            guard i > labelStart, bytes[labelStart] != UInt8(ascii: "-"), bytes[i - 1] != UInt8(ascii: "-") else { break }
            labels.append(String(decoding: bytes[labelStart..<i], as: UTF8.self))
            guard i + 1 < bytes.count, bytes[i] == UInt8(ascii: "."), isLabelByte(bytes[i + 1]) else { break }
            i += 1
        }
        guard labels.count >= 2, isKnownTLD(labels.last!), !labels.last!.allSatisfy(\.isNumber) else { return nil }
        switch countryCode(in: bytes, at: i, after: labels) {
        case .none: return (i, labels)
        case .joined(let code, let end): return (end, labels + [code])
        case .ambiguous: return nil
        }
    }

    /// Second-level names under which countries register ("example.co.uk", "example.com.au").
    static let secondLevelNames: Set<String> = ["co", "com", "org", "net", "ac", "gov", "edu", "ltd", "plc"]

    /// What follows a domain that ends in a second-level name, when it is a dot or comma and one
    /// space, or one space alone, then a two-letter country code that ends the line or starts a path
    /// ("kestrel-labs.co, uk": OCR read the dot of "co.uk" as a comma, or put a space after it;
    /// "kestrel-labs.co uk/team": the dot, faint in a small dark-mode link at 640×480, lost).
    enum CountryCodeAfter: Equatable {
        /// Nothing of the kind: the domain ends where it was read.
        case none
        /// A lowercase code that is no English word: the host is one label longer, "co.uk". Nobody
        /// prints a country after a web address in lowercase, and the longer host is the one printed
        /// on every frame where the dot is read as a dot (640×480 phone footage: ", uk" in 1 of 4).
        case joined(code: String, end: Int)
        /// An uppercase code ("example.co, UK": a country after an address) or a word that is also a
        /// country code ("… example.com, or", "co, in"): either payload would be a guess, so neither
        /// is reported; other frames read it whole.
        case ambiguous
    }

    /// Two-letter English words that are also country codes: after a comma they are a sentence going on.
    static let twoLetterWords: Set<String> = [
        "am", "an", "as", "at", "be", "by", "do", "go", "hi", "id", "in", "is", "it", "me", "my", "no", "of", "on",
        "so", "to", "tv", "us", "ws",
    ]

    static func countryCode(in bytes: [UInt8], at index: Int, after labels: [String]) -> CountryCodeAfter {
        guard let last = labels.last, secondLevelNames.contains(last.lowercased()), index < bytes.count else { return .none }
        // Where the code starts: after a space alone, or after ". " or ", ".
        let space = UInt8(ascii: " ")
        let start: Int
        if bytes[index] == space {
            start = index + 1
        } else if bytes[index] == UInt8(ascii: ".") || bytes[index] == UInt8(ascii: ","), index + 1 < bytes.count, bytes[index + 1] == space {
            start = index + 2
        } else {
            return .none
        }
        guard start + 2 <= bytes.count else { return .none }
        let code = bytes[start..<(start + 2)]
        guard code.allSatisfy({ (UInt8(ascii: "a")...UInt8(ascii: "z")).contains($0 | 0x20) }),
            start + 2 == bytes.count || bytes[start + 2] == UInt8(ascii: "/")
        else { return .none }
        let text = String(decoding: code, as: UTF8.self)
        let lowercase = code.allSatisfy { (UInt8(ascii: "a")...UInt8(ascii: "z")).contains($0) }
        return lowercase && !twoLetterWords.contains(text) ? .joined(code: text, end: start + 2) : .ambiguous
    }

    /// Mail providers whose domains most addresses people print are at (the name of at least five
    /// letters: a shorter one is one edit from too many real domains, `live.com` from `love.com`).
    static let mailProviders: [(name: String, tld: String)] = [
        ("gmail", "com"), ("googlemail", "com"), ("hotmail", "com"), ("outlook", "com"), ("yahoo", "com"),
        ("icloud", "com"), ("protonmail", "com"), ("yandex", "ru"), ("comcast", "net"),
    ]

    /// What OCR makes of a letter or two, undone: `rn` for `m`, `vv` for `w`, `cl` for `d`.
    static let confusedLetters = [("rn", "m"), ("vv", "w"), ("cl", "d")]

    /// An e-mail domain one edit (a letter added, dropped or changed, or a confusion of
    /// `confusedLetters`) from a well-known provider's (`mailProviders`), its top-level domain the
    /// same, is that provider's: `gmall.com` and `hotrnail.com` are misreadings, not domains anyone
    /// prints. Any other domain is as read.
    static func mailDomain(_ labels: [String]) -> [String] {
        guard labels.count == 2 else { return labels }
        let (name, tld) = (labels[0], labels[1])
        let undone = confusedLetters.reduce(name) { $0.replacingOccurrences(of: $1.0, with: $1.1) }
        for provider in mailProviders where provider.tld == tld && provider.name != name {
            if oneEditApart(name, provider.name) || undone == provider.name || oneEditApart(undone, provider.name) {
                return [provider.name, tld]
            }
        }
        return labels
    }

    /// Whether `a` becomes `b` by one letter added, dropped or changed.
    static func oneEditApart(_ a: String, _ b: String) -> Bool {
        let (x, y) = (Array(a.utf8), Array(b.utf8))
        guard abs(x.count - y.count) <= 1, x != y else { return false }
        var i = 0
        while i < min(x.count, y.count), x[i] == y[i] { i += 1 }
        if x.count == y.count { return x[(i + 1)...] == y[(i + 1)...] }
        return x.count < y.count ? x[i...] == y[(i + 1)...] : x[(i + 1)...] == y[i...]
    }

    static func emailAddresses(in bytes: [UInt8]) -> [ContentMatch] {
        var found: [ContentMatch] = []
        for at in bytes.indices where bytes[at] == UInt8(ascii: "@") {
            var start = at
            while start > 0, isLabelByte(bytes[start - 1]) || localPartPunctuation.contains(bytes[start - 1]) { start -= 1 }
            while start < at, localPartPunctuation.contains(bytes[start]) { start += 1 }  // ".bob@" → "bob@"
            guard start < at, let (end, labels) = domain(in: bytes, from: at + 1) ?? domainAcrossSpaces(in: bytes, from: at + 1)
            else { continue }
            // OCR puts a space after a dot inside a word ("avery. lindqvist@"): an address cannot
            // hold a space, and the part after it alone is a wrong address, worse than none. Join
            // the parts (a space right after a local part's dot, dash or underscore).
            var spaces: [Int] = []
            while start >= 3, bytes[start - 1] == UInt8(ascii: " "), bytes[start - 2] != UInt8(ascii: "+"),
                localPartPunctuation.contains(bytes[start - 2]), isLabelByte(bytes[start - 3])
            {
                spaces.append(start - 1)
                start -= 2
                while start > 0, isLabelByte(bytes[start - 1]) || localPartPunctuation.contains(bytes[start - 1]) { start -= 1 }
            }
            let local = String(decoding: bytes[start..<at].enumerated().filter { !spaces.contains(start + $0.offset) }.map(\.element), as: UTF8.self)
            let transcript = String(decoding: bytes[start..<end], as: UTF8.self)
            found.append(
                ContentMatch(
                    contentType: .emailAddress, payload: local + "@" + mailDomain(labels.map { $0.lowercased() }).joined(separator: "."),
                    transcript: transcript, utf8Range: start..<end))
        }
        return found
    }

    static func urls(in bytes: [UInt8]) -> [ContentMatch] {
        var found: [ContentMatch] = []
        var i = 0
        while i < bytes.count {
            // A URL starts at a word boundary — or after a dot that starts a word (".chilisme.com"):
            // the labels before it went unread (a receipt's `www`, lost to the blur and to its
            // photo's print), and what follows is the registered name whole.
            let leadingDot = i >= 1 && bytes[i - 1] == UInt8(ascii: ".") && (i == 1 || bytes[i - 2] == UInt8(ascii: " "))
            guard
                i == 0 || leadingDot
                    || !(isLabelByte(bytes[i - 1]) || bytes[i - 1] == UInt8(ascii: ".") || bytes[i - 1] == UInt8(ascii: "@")
                        || endsLetter(bytes, at: i))
            else {
                i += 1
                continue
            }
            // "Visitwww.mynerovisit.com": the network joined the word before to "www." (a receipt's
            // "Visit www.…"); the link starts at its "www".
            if let glued = gluedWWW(bytes, at: i) { i = glued }
            var hostStart = i
            var scheme: String? = nil
            for candidate in ["https://", "http://"] where hasPrefix(bytes, at: i, candidate) {
                scheme = String(candidate.dropLast(3))
                hostStart = i + candidate.utf8.count
                break
            }
            // "www." as OCR reads it off a card: "vww.", "wvw.", or with a space after the dot
            // ("www. northgate-optics.com"). Taken as "www." — read as it stands, the host would be
            // another ("vww.northgate-optics.com") or lose a label ("northgate-optics.com").
            let www = misreadWWW(bytes, at: hostStart)
            guard let (hostEnd, parsed) = domain(in: bytes, from: www ?? hostStart) else {
                i += 1
                continue
            }
            let labels = www == nil ? parsed : ["www"] + parsed
            let hasWWW = labels.first?.lowercased() == "www"
            // A bare domain ("example.com") needs a real name in front, not OCR noise ("Dr.No").
            if scheme == nil && !hasWWW && labels[0].count < 3 {
                i = hostEnd
                continue
            }
            // Nor a word, a dot and a country code in capitals: a town and its state with the comma
            // read as a dot (`HOUSTON.TN`, `CITY.MO`), an abbreviation (`VAT REG.NO`), an item's
            // size (`Scallop.SA`). Measured on the development receipts (issue #40): those four were
            // links read where there were none, and none of the 20 links read right is written so
            // (`BestBuy.ca`, `www.scheltema.be`). A bare link printed all in capitals is lost.
            if scheme == nil && !hasWWW && labels.count == 2 && labels[1].count == 2
                && labels[1].utf8.allSatisfy({ (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains($0) })
            {
                i = hostEnd
                continue
            }
            // Not the domain of an e-mail address.
            if hostEnd < bytes.count, bytes[hostEnd] == UInt8(ascii: "@") {
                i = hostEnd
                continue
            }
            // Nor an e-mail address whose "@" OCR read as a space ("avery.lindqvist northgate-optics.com"):
            // a bare domain right after a dotted name that is no domain itself is not reported.
            // Nor a host OCR split after a dot, its first label lost or cut ("ww. northgate-optics.com"
            // with a thumb over the first "w"): the part after the space is not the host printed.
            // Nor the tail of an e-mail address OCR broke at a space ("priya@kestrel labs.co.uk" for
            // "priya@kestrel-labs.co.uk"): a bare domain right after a word holding an "@".
            if scheme == nil && !hasWWW
                && (followsDottedName(bytes, at: i) || followsLabelAndDot(bytes, at: i) || followsWordWithAt(bytes, at: i))
            {
                i = hostEnd
                continue
            }
            var end = hostEnd
            if end < bytes.count, bytes[end] == UInt8(ascii: ":") || bytes[end] == UInt8(ascii: "/") {
                while end < bytes.count, pathBytes.contains(bytes[end]) { end += 1 }
            }
            while end > hostEnd, trailingPunctuation.contains(bytes[end - 1]) { end -= 1 }
            let rest = String(decoding: bytes[hostEnd..<end], as: UTF8.self)
            let host = labels.joined(separator: ".").lowercased()
            found.append(
                ContentMatch(
                    contentType: .url, payload: "\(scheme ?? "http")://\(host)\(rest)",
                    transcript: String(decoding: bytes[i..<end], as: UTF8.self), utf8Range: i..<end))
            i = end
        }
        return found
    }

    /// Whether the character ending right before `index` is a letter or digit outside ASCII: a word
    /// goes on there, and no link starts inside it (the development receipts held up: `info@resto.be`
    /// read `Infoßresto.be`, and `resto.be` was a link).
    static func endsLetter(_ bytes: [UInt8], at index: Int) -> Bool {
        guard index > 0, bytes[index - 1] >= 0x80 else { return false }
        var start = index - 1
        // Back over UTF-8 continuation bytes to the character's first byte.
        while start > 0, bytes[start] & 0xC0 == 0x80, index - start < 4 { start -= 1 }
        guard let character = String(bytes: bytes[start..<index], encoding: .utf8)?.last else { return false }
        return character.isLetter || character.isNumber
    }

    /// One space before `index`, and before it a token of local-part characters with a dot, dash or
    /// underscore inside and a letter or digit at each end ("avery.lindqvist", "first_last"), which
    /// is not a domain of its own.
    static func followsDottedName(_ bytes: [UInt8], at index: Int) -> Bool {
        guard index >= 2, bytes[index - 1] == UInt8(ascii: " "), isLabelByte(bytes[index - 2]) else { return false }
        var start = index - 2
        while start > 0, isLabelByte(bytes[start - 1]) || localPartPunctuation.contains(bytes[start - 1]) { start -= 1 }
        let token = Array(bytes[start..<(index - 1)])
        guard isLabelByte(token[0]), token.dropFirst().dropLast().contains(where: { $0 == UInt8(ascii: ".") || $0 == UInt8(ascii: "_") })
        else { return false }
        return domain(in: token, from: 0)?.end != token.count
    }

    /// One space before `index`, and before it a word with an "@" in it whose part after the "@" is
    /// no domain of its own (an address that is whole, "jo@example.com", may be followed by a link).
    static func followsWordWithAt(_ bytes: [UInt8], at index: Int) -> Bool {
        guard index >= 2, bytes[index - 1] == UInt8(ascii: " ") else { return false }
        var start = index - 2
        while start > 0, bytes[start - 1] != UInt8(ascii: " ") { start -= 1 }
        let word = Array(bytes[start..<(index - 1)])
        guard let at = word.lastIndex(of: UInt8(ascii: "@")) else { return false }
        let after = Array(word[(at + 1)...])
        return after.isEmpty || domain(in: after, from: 0)?.end != after.count
    }

    /// Where "www." starts inside the word at `index` when the word is longer and ends in it
    /// ("Visitwww.example.com"); nil otherwise ("www.example.com", "wwwexample.co.uk").
    static func gluedWWW(_ bytes: [UInt8], at index: Int) -> Int? {
        var end = index
        while end < bytes.count, isLabelByte(bytes[end]) { end += 1 }
        guard end - index > 3, end < bytes.count, bytes[end] == UInt8(ascii: "."),
            bytes[(end - 3)..<end].allSatisfy({ $0 | 0x20 == UInt8(ascii: "w") }),
            bytes[index..<(end - 3)].allSatisfy({ (UInt8(ascii: "a")...UInt8(ascii: "z")).contains($0 | 0x20) })
        else { return nil }
        return end - 3
    }

    /// Where the host continues when `index` starts "www." as OCR misreads it — three of `w`/`v`
    /// (at least two `w`), a dot, at most one space — followed by a domain of two labels or more; nil
    /// when it does not (a real "www." followed by the domain right away is no misreading).
    ///
    /// Or "ww." glued to a domain of two labels or more ("ww.scheltema.be"): small print's first `w`
    /// lost to the blur (the development receipts held up to the camera read a receipt's
    /// `www.scheltema.be` so on every pass). Glued only: "ww. example.com", a space after the dot,
    /// is a host whose first label a thumb cut (`followsLabelAndDot`), and stays unread.
    static func misreadWWW(_ bytes: [UInt8], at index: Int) -> Int? {
        if index + 3 <= bytes.count, bytes[index..<(index + 2)].allSatisfy({ $0 | 0x20 == UInt8(ascii: "w") }),
            bytes[index + 2] == UInt8(ascii: "."), index + 3 < bytes.count, isLabelByte(bytes[index + 3]),
            let (_, labels) = domain(in: bytes, from: index + 3), labels.count >= 2
        {
            return index + 3
        }
        guard index + 5 <= bytes.count else { return nil }
        let letters = bytes[index..<(index + 3)].map { $0 | 0x20 }
        guard letters.allSatisfy({ $0 == UInt8(ascii: "w") || $0 == UInt8(ascii: "v") }),
            letters.filter({ $0 == UInt8(ascii: "w") }).count >= 2, bytes[index + 3] == UInt8(ascii: ".")
        else { return nil }
        let next = bytes[index + 4] == UInt8(ascii: " ") ? index + 5 : index + 4
        guard letters != Array("www".utf8) || next == index + 5 else { return nil }
        guard let (_, labels) = domain(in: bytes, from: next), labels.count >= 2 else { return nil }
        return next
    }

    /// The domain after an address's "@" when OCR put a space after one of its dots
    /// ("priya@kestrel-labs. co.uk"): only tried when the text before the space is no domain of its
    /// own, so an address that ends a sentence ("jo@example.com. Info desk") is not lengthened. One
    /// space is joined, not a run of them: that is the slip, and a line of "a. b. c. …" is no domain.
    static func domainAcrossSpaces(in bytes: [UInt8], from start: Int) -> (end: Int, labels: [String])? {
        var joined: [UInt8] = []
        var origin: [Int] = []
        var i = start
        var spaces = 0
        while i < bytes.count {
            if bytes[i] == UInt8(ascii: " ") {
                guard spaces == 0, i > start, bytes[i - 1] == UInt8(ascii: "."), i + 1 < bytes.count, isLabelByte(bytes[i + 1]) else { break }
                spaces += 1
                i += 1
                continue
            }
            joined.append(bytes[i])
            origin.append(i)
            i += 1
        }
        guard let (end, labels) = domain(in: joined, from: 0), end > 0 else { return nil }
        switch countryCode(in: bytes, at: origin[end - 1] + 1, after: labels) {
        case .none: return (origin[end - 1] + 1, labels)
        case .joined(let code, let end): return (end, labels + [code])
        case .ambiguous: return nil
        }
    }

    /// One space before `index`, a dot before it, a letter or digit before that ("ww. ").
    static func followsLabelAndDot(_ bytes: [UInt8], at index: Int) -> Bool {
        index >= 3 && bytes[index - 1] == UInt8(ascii: " ") && bytes[index - 2] == UInt8(ascii: ".") && isLabelByte(bytes[index - 3])
    }

    static func hasPrefix(_ bytes: [UInt8], at index: Int, _ prefix: String) -> Bool {
        let p = Array(prefix.utf8)
        guard index + p.count <= bytes.count else { return false }
        for k in 0..<p.count where bytes[index + k] | 0x20 != p[k] | 0x20 { return false }
        return true
    }
}
