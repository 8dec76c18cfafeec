import ScannerCore

/// Street addresses in a line of text (issue #43): a street with its house number, and the locality
/// (`City, ST 12345`, `10115 Berlin`, `London W1S 3AN`), on one line or — joined by
/// `StreetAddresses.assembled` — the street on one and the locality on the line under it, as
/// letterheads, cards and receipts print them.
///
/// Written here: libpostal, the maintained parser, is not in Debian 12 and its model is ~2 GB; what is
/// taken is the shape most addresses in print have. A street: a house number, one to four name words
/// and a street type (`5250 York Blvd.`, `221B Baker Street`, `12 rue de la Paix`), or a street type
/// or a street word (`Hauptstraße`, `Via Roma`, `Calle Mayor`) and its number after it. A locality: a
/// US state's or Canadian province's code with a ZIP or postal code, a UK postcode, or a European
/// postal code before its town. A street alone or a locality alone is no full address and is not
/// reported; a line may say one of them, and the line beneath the other.
public enum StreetAddresses {
    enum Part: String, Sendable {
        case full, street, locality
    }

    struct Found: Equatable {
        var part: Part
        var address: StreetAddress
        var utf8Range: Range<Int>
    }

    // MARK: Words

    /// Street types printed after the street's name (English).
    static let typesAfter: Set<String> = [
        "street", "st", "avenue", "ave", "av", "road", "rd", "boulevard", "blvd", "drive", "dr", "lane", "ln", "way", "parkway", "pkwy",
        "court", "ct", "place", "pl", "square", "sq", "terrace", "ter", "terr", "highway", "hwy", "circle", "cir", "trail", "trl", "plaza",
        "plz", "crescent", "cres", "close", "grove", "gardens", "gdns", "row", "walk", "freeway", "fwy", "expressway", "expy", "route",
        "rte", "pike", "alley", "aly", "loop", "mews", "parade", "pde", "esplanade", "broadway", "turnpike", "tpke",
    ]
    /// Street types printed before the name (French, Spanish, Italian, Portuguese, Catalan).
    static let typesBefore: Set<String> = [
        "rue", "avenue", "av", "boulevard", "bd", "allée", "chemin", "impasse", "quai", "place", "calle", "c", "avenida", "avda", "paseo",
        "plaza", "via", "viale", "piazza", "corso", "largo", "rua", "travessa", "praça", "carrer", "strada", "vicolo", "ronda", "camino",
    ]
    /// Endings of one-word street names (German, Dutch, Scandinavian): `Hauptstraße`, `Bahnhofstr.`.
    static let streetEndings = [
        "straße", "strasse", "str", "weg", "gasse", "platz", "allee", "ring", "damm", "ufer", "gracht", "laan", "straat", "plein",
        "kade", "vej", "gade", "gatan", "vägen", "veien", "gata",
    ]
    /// Small words inside a name (`rue de la Paix`, `Calle del Prado`).
    static let particles: Set<String> = ["de", "la", "le", "les", "du", "des", "del", "di", "da", "do", "dos", "das", "dels", "d", "l", "of", "the"]
    static let directions: Set<String> = ["n", "s", "e", "w", "ne", "nw", "se", "sw", "north", "south", "east", "west"]
    /// What may stand between a street and its locality (`Suite 400`, `Apt 2B`, `#300`).
    static let unitWords: Set<String> = ["suite", "ste", "apt", "apartment", "unit", "floor", "fl", "room", "rm", "bldg", "building"]

    static let states: Set<String> = [
        "AL", "AK", "AZ", "AR", "CA", "CO", "CT", "DE", "FL", "GA", "HI", "ID", "IL", "IN", "IA", "KS", "KY", "LA", "ME", "MD", "MA", "MI",
        "MN", "MS", "MO", "MT", "NE", "NV", "NH", "NJ", "NM", "NY", "NC", "ND", "OH", "OK", "OR", "PA", "RI", "SC", "SD", "TN", "TX", "UT",
        "VT", "VA", "WA", "WV", "WI", "WY", "DC", "PR",
    ]
    static let provinces: Set<String> = ["AB", "BC", "MB", "NB", "NL", "NS", "NT", "NU", "ON", "PE", "QC", "SK", "YT"]

    // MARK: Finding

    /// Every full address, street and locality in `line`, in order (the parts that a full address
    /// takes in are not repeated).
    static func find(in line: String) -> [Found] {
        let bytes = Array(line.utf8)
        let matcher = Matcher(tokens: LineToken.tokens(of: line), bytes: bytes)
        var found: [Found] = []
        var i = 0
        while i < matcher.tokens.count {
            guard matcher.startsWord(i) else {
                i += 1
                continue
            }
            if let (street, streetEnd) = matcher.street(at: i) {
                var next = streetEnd
                var address = street
                // The unit after the street, or before it (`Suite 400, 1100 Congress Ave`).
                var start = i
                if let (unit, unitEnd) = matcher.unit(at: matcher.skippingSeparator(next)) {
                    address.unit = unit
                    next = unitEnd
                } else if let (unit, unitStart) = matcher.unit(endingBefore: i) {
                    address.unit = unit
                    start = unitStart
                }
                if let (locality, end) = matcher.locality(at: matcher.skippingSeparator(next), needsPostalCode: false) {
                    address.locality = locality.locality
                    address.city = locality.city
                    address.region = locality.region
                    address.postalCode = locality.postalCode
                    found.append(Found(part: .full, address: address, utf8Range: matcher.range(start, end)))
                    i = end
                } else {
                    found.append(Found(part: .street, address: address, utf8Range: matcher.range(start, next)))
                    i = next
                }
                continue
            }
            if let (locality, end) = matcher.locality(at: i, needsPostalCode: true) {
                found.append(Found(part: .locality, address: locality, utf8Range: matcher.range(i, end)))
                i = end
                continue
            }
            i += 1
        }
        return found
    }

    struct Matcher {
        let tokens: [LineToken]
        let bytes: [UInt8]

        subscript(_ i: Int) -> LineToken? { i >= 0 && i < tokens.count ? tokens[i] : nil }
        func touches(_ i: Int) -> Bool { self[i].map { !$0.spaced } ?? false }
        func range(_ start: Int, _ end: Int) -> Range<Int> { tokens[start].range.lowerBound..<tokens[end - 1].range.upperBound }
        func text(_ start: Int, _ end: Int) -> String { String(decoding: bytes[range(start, end)], as: UTF8.self) }

        /// Not inside a longer word or number.
        func startsWord(_ i: Int) -> Bool {
            guard let token = self[i], token.kind != .mark else { return false }
            return i == 0 || !touches(i)
                || self[i - 1]?.kind == .mark && !(self[i - 1]!.isMark([".", ",", "-", "/"]) && touches(i - 1) && self[i - 2]?.kind == .number)
        }

        /// Past a `,`, `·`, `|`, `-` or `–` at `i`, if one is there.
        func skippingSeparator(_ i: Int) -> Int {
            self[i]?.isMark([",", ".", "·", "|", "-", "–", "—", "•", ";"]) == true ? i + 1 : i
        }

        // MARK: Streets

        /// A house number: `12`, `221B`, `65-67`, `12a`.
        func house(at i: Int) -> (String, Int)? {
            guard let token = self[i], token.kind == .number, (1...6).contains(token.text.count), token.text.first != "0" else { return nil }
            var end = i + 1
            if let letter = self[end], letter.kind == .word, letter.text.count == 1, touches(end) {
                end += 1
            } else if self[end]?.isMark(["-", "–"]) == true, touches(end), let other = self[end + 1], other.kind == .number, touches(end + 1),
                other.text.count <= 6
            {
                end += 2
            }
            if let next = self[end], touches(end), next.kind != .mark { return nil }
            return (text(i, end), end)
        }

        func street(at i: Int) -> (StreetAddress, Int)? {
            houseFirst(at: i) ?? nameFirst(at: i)
        }

        /// `5250 York Blvd.`, `3123 CLEMENT ST.`, `4730 Pan American Fwy E.`, `12 rue de la Paix`.
        func houseFirst(at i: Int) -> (StreetAddress, Int)? {
            guard let (_, houseEnd) = house(at: i) else { return nil }
            var j = houseEnd
            if self[j]?.isMark([","]) == true { j += 1 }
            // A type first: `12 rue de la Paix`.
            if let type = self[j], type.isWord(typesBefore), type.text != "c",
                !typesAfter.contains(type.text) || !(self[j + 1]?.isCapitalized ?? false) || type.text == "rue"
            {
                var k = j + 1
                if self[k]?.isMark(["."]) == true { k += 1 }
                let nameEnd = name(from: k, words: 1...5)
                if nameEnd > k { return (StreetAddress(street: text(i, nameEnd)), nameEnd) }
            }
            // A name, then its type: up to four words (an ordinal `72ND` or `5th` among them).
            var k = j
            var words = 0
            while words < 5, let token = self[k] {
                if token.isWord(typesAfter), words >= 1 {
                    var end = k + 1
                    if self[end]?.isMark(["."]) == true, touches(end) { end += 1 }
                    if let direction = self[end], direction.isWord(directions), direction.isCapitalized {
                        end += 1
                        if self[end]?.isMark(["."]) == true, touches(end) { end += 1 }
                    }
                    return (StreetAddress(street: text(i, end).trimmingTrailing(".")), end)
                }
                if token.kind == .word, token.isCapitalized || token.isWord(directions) {
                    k += 1
                    // An abbreviation's dot: `St. Thomas St.`, `E. 12 St.`.
                    if self[k]?.isMark(["."]) == true, touches(k), token.text.count <= 3, !token.isWord(typesAfter) || words == 0 { k += 1 }
                } else if token.kind == .number, token.text.count <= 3, self[k + 1]?.isWord(typesAfter) == true, words >= 1 {
                    k += 1  // `E. 12 ST.`: a numbered street
                } else if token.kind == .number, token.text.count <= 3, let suffix = self[k + 1], suffix.isWord(["st", "nd", "rd", "th"]),
                    touches(k + 1)
                {
                    k += 2
                } else if token.isMark(["-", "'"]), touches(k), touches(k + 1), self[k + 1]?.kind == .word {
                    k += 1  // `Champs-Élysées`, `O'Farrell`
                    continue
                } else {
                    return nil
                }
                words += 1
            }
            return nil
        }

        /// `Hauptstraße 5`, `Bahnhofstr. 12a`, `Karl-Marx-Allee 34`, `Via Roma 12`, `Calle Mayor, 5`.
        func nameFirst(at i: Int) -> (StreetAddress, Int)? {
            guard let first = self[i], first.isCapitalized else { return nil }
            var k = i
            if first.isWord(typesBefore), first.text != "c" || self[i + 1]?.isMark(["/"]) == true {
                let start = i + 1 + (self[i + 1]?.isMark([".", "/"]) == true ? 1 : 0)
                k = name(from: start, words: 1...4)
                guard k > start else { return nil }
            } else {
                // Up to two words, then one ending as a street does (joined by hyphens or not).
                var words = 0
                while let token = self[k], token.kind == .word, words < 4 {
                    if Self.endsAsStreet(token.text) {
                        k += 1
                        if self[k]?.isMark(["."]) == true, touches(k) { k += 1 }
                        break
                    }
                    guard token.isCapitalized || touches(k) else { return nil }
                    k += 1
                    if self[k]?.isMark(["-"]) == true, touches(k) { k += 1 }
                    words += 1
                }
                guard let last = self[k - 1],
                    last.kind == .word && Self.endsAsStreet(last.text) || last.isMark(["."]) && Self.endsAsStreet(self[k - 2]?.text ?? "")
                else { return nil }
            }
            let numberAt = self[k]?.isMark([","]) == true ? k + 1 : k
            guard let (_, end) = house(at: numberAt) else { return nil }
            return (StreetAddress(street: text(i, end)), end)
        }

        static func endsAsStreet(_ word: String) -> Bool {
            streetEndings.contains { word.hasSuffix($0) && (word.count > $0.count || $0 == "ring" || $0 == "damm") }
                || streetEndings.contains(word) && word != "str"
        }

        /// The end of a name's words from `k`: capitalized words and the small words between them
        /// (`de la`), ending on a capitalized one.
        func name(from k: Int, words: ClosedRange<Int>) -> Int {
            var j = k
            var count = 0
            var end = k
            while let token = self[j], count < words.upperBound {
                if token.kind == .word, token.isCapitalized {
                    count += 1
                    j += 1
                    end = j
                } else if token.kind == .word, particles.contains(token.text) {
                    j += 1
                } else if token.isMark(["'", "’", "-"]), touches(j) {
                    j += 1
                } else {
                    break
                }
            }
            return words.contains(count) ? end : k
        }

        /// A unit that ends right before the street at `street`, a comma between at most: its text and
        /// where it starts (`Suite 400, 1100 Congress Ave`).
        func unit(endingBefore street: Int) -> (String, Int)? {
            let end = self[street - 1]?.isMark([","]) == true ? street - 1 : street
            for start in stride(from: end - 1, through: max(0, end - 4), by: -1) {
                if let (text, unitEnd) = unit(at: start), unitEnd == end, startsWord(start) { return (text, start) }
            }
            return nil
        }

        /// `Suite 400`, `Ste. 200`, `Apt 2B`, `#300`, `Floor 3`.
        func unit(at i: Int) -> (String, Int)? {
            guard let token = self[i] else { return nil }
            var j = i + 1
            if token.isMark(["#"]) {
                j = i + 1
            } else if token.isWord(unitWords) {
                if self[j]?.isMark(["."]) == true { j += 1 }
                if self[j]?.isMark(["#"]) == true { j += 1 }
            } else {
                return nil
            }
            guard let number = self[j], number.kind == .number || number.kind == .word && number.text.count <= 2 else { return nil }
            var end = j + 1
            if let letter = self[end], letter.kind != .mark, touches(end), letter.text.count <= 2 { end += 1 }
            return (text(i, end), end)
        }

        // MARK: Localities

        /// `Los Angeles, CA 90042`, `Helen, GA` (after a street), `Vancouver, BC V6G 2L7`,
        /// `London W1S 3AN`, `10115 Berlin`, `D-80331 München`, `1017 MA Amsterdam`.
        func locality(at i: Int, needsPostalCode: Bool) -> (StreetAddress, Int)? {
            guard let (found, end) = europe(at: i) ?? northAmerica(at: i, needsPostalCode: needsPostalCode) ?? britain(at: i) else { return nil }
            var locality = found
            locality.locality = text(i, end).trimmingTrailing(",.")
            return (locality, end)
        }

        /// City words from `i` (one to four capitalized words): their end.
        func city(from i: Int) -> Int? {
            var j = i
            var count = 0
            while let token = self[j], token.kind == .word, token.isCapitalized, count < 4 {
                j += 1
                count += 1
                if self[j]?.isMark(["."]) == true, touches(j), token.text.count <= 3 { j += 1 }  // `St. Petersburg`
                if self[j]?.isMark(["-"]) == true, touches(j) { j += 1 }
            }
            return count > 0 ? j : nil
        }

        func northAmerica(at i: Int, needsPostalCode: Bool) -> (StreetAddress, Int)? {
            guard let cityEnd = city(from: i) else { return nil }
            // The state is the city's last word when no comma comes between (`New York NY 10017`).
            for stateAt in [cityEnd - 1, cityEnd, cityEnd + 1] where stateAt > i {
                guard let state = self[stateAt], state.kind == .word, state.original.count == 2, state.isUppercase,
                    Self.isStateOrProvince(state.original)
                else { continue }
                let between = stateAt == cityEnd + 1 ? self[cityEnd]?.isMark([","]) == true : true
                guard between else { continue }
                let cityStop = stateAt == cityEnd - 1 ? stateAt : cityEnd
                guard cityStop > i else { continue }
                var j = stateAt + 1
                if self[j]?.isMark([","]) == true { j += 1 }
                let city = text(i, cityStop).trimmingTrailing(",")
                if states.contains(state.original), let (zip, end) = zip(at: j) {
                    return (StreetAddress(city: city, region: state.original, postalCode: zip), end)
                }
                if provinces.contains(state.original), let (code, end) = canadianCode(at: j) {
                    return (StreetAddress(city: city, region: state.original, postalCode: code), end)
                }
                if !needsPostalCode, self[stateAt + 1].map({ $0.kind == .mark && !$0.isMark(["-", "/"]) }) ?? true {
                    return (StreetAddress(city: city, region: state.original), stateAt + 1)
                }
            }
            return nil
        }

        static func isStateOrProvince(_ code: String) -> Bool { states.contains(code) || provinces.contains(code) }

        /// `90042`, `12345-6789`.
        func zip(at j: Int) -> (String, Int)? {
            guard let token = self[j], token.kind == .number, token.text.count == 5 else { return nil }
            var end = j + 1
            if self[end]?.isMark(["-"]) == true, touches(end), let plus = self[end + 1], plus.kind == .number, plus.text.count == 4 { end += 2 }
            guard self[end].map({ $0.spaced || $0.kind == .mark && !$0.isMark(["-", "/", "."]) }) ?? true else { return nil }
            return (text(j, end), end)
        }

        /// `V6G 2L7`: letter digit letter, digit letter digit.
        func canadianCode(at j: Int) -> (String, Int)? {
            guard let start = self[j] else { return nil }
            let from = start.range.lowerBound
            let pattern: [(UInt8) -> Bool] = [isUpper, isDigit, isUpper, { $0 == 0x20 }, isDigit, isUpper, isDigit]
            var k = from
            var p = 0
            while p < pattern.count, k < bytes.count {
                if pattern[p](bytes[k]) {
                    k += 1
                    p += 1
                } else if p == 3 {
                    p += 1  // no space
                } else {
                    return nil
                }
            }
            guard p == pattern.count, k == bytes.count || !isAlphanumeric(bytes[k]) else { return nil }
            return (String(decoding: bytes[from..<k], as: UTF8.self), token(from: k))
        }

        /// `London W1S 3AN`, `BD3 7DL` (a town, or nothing, then a UK postcode).
        func britain(at i: Int) -> (StreetAddress, Int)? {
            let cityEnd = city(from: i) ?? i
            // The postcode may start inside what `city` took (`W1S` is a capitalized word).
            for start in max(i, cityEnd - 1)...cityEnd {
                let from = self[start]?.isMark([","]) == true ? start + 1 : start
                guard let first = self[from], first.kind == .word, let (code, end) = ukPostcode(at: first.range.lowerBound) else { continue }
                let city = from > i ? text(i, from).trimmingTrailing(",") : nil
                return (StreetAddress(city: city, postalCode: code), end)
            }
            return nil
        }

        /// A UK postcode from byte `from`: outward code (`W1S`, `SW1A`, `BD3`, `M1`), a space, inward
        /// code (`3AN`).
        func ukPostcode(at from: Int) -> (String, Int)? {
            var k = from
            var letters = 0
            while k < bytes.count, isUpper(bytes[k]), letters < 2 {
                k += 1
                letters += 1
            }
            guard letters >= 1, k < bytes.count, isDigit(bytes[k]) else { return nil }
            k += 1
            if k < bytes.count, isDigit(bytes[k]) || isUpper(bytes[k]) { k += 1 }
            guard k < bytes.count, bytes[k] == 0x20 else { return nil }
            k += 1
            guard k + 3 <= bytes.count, isDigit(bytes[k]), isUpper(bytes[k + 1]), isUpper(bytes[k + 2]),
                k + 3 == bytes.count || !isAlphanumeric(bytes[k + 3])
            else { return nil }
            k += 3
            return (String(decoding: bytes[from..<k], as: UTF8.self), token(from: k))
        }

        /// `10115 Berlin`, `D-80331 München`, `1017 MA Amsterdam`, `75008 Paris`, `20122 MILANO`:
        /// where a line or a part of it begins (not `CHECK # 5994 Table`, `Fax 6688 7367`), and a
        /// town's name of three letters or more.
        func europe(at i: Int) -> (StreetAddress, Int)? {
            guard i == 0 || self[i - 1]?.isMark([",", ".", "·", "|", "-", "–", "—", "•", ";"]) == true else { return nil }
            var j = i
            // A country prefix: `D-`, `NL-`, `CH-`.
            if let prefix = self[j], prefix.kind == .word, prefix.isUppercase, (1...2).contains(prefix.original.count),
                self[j + 1]?.isMark(["-"]) == true,
                touches(j + 1), touches(j + 2)
            {
                j += 2
            }
            guard let code = self[j], code.kind == .number, (4...5).contains(code.text.count), !touches(j) || j > i else { return nil }
            var end = j + 1
            var postal = code.text
            // Dutch: four digits and two capitals.
            if code.text.count == 4, let letters = self[end], letters.kind == .word, letters.original.count == 2, letters.isUppercase,
                self[end + 1]?.isCapitalized == true
            {
                postal += " " + letters.original
                end += 1
            }
            guard let cityEnd = city(from: end), self[end]?.spaced == true, (self[end]?.text.count ?? 0) >= 3 else { return nil }
            // A state's code after the "city" makes it a US street number and name, not a postcode.
            if let after = self[cityEnd], after.kind == .word, after.original.count == 2, after.isUppercase { return nil }
            return (StreetAddress(city: text(end, cityEnd), postalCode: postal), cityEnd)
        }

        /// The index of the first token that starts at byte `offset` or after it.
        func token(from offset: Int) -> Int {
            var low = 0
            var high = tokens.count
            while low < high {
                let middle = (low + high) / 2
                if tokens[middle].range.lowerBound < offset { low = middle + 1 } else { high = middle }
            }
            return low
        }

        func isDigit(_ b: UInt8) -> Bool { b >= 0x30 && b <= 0x39 }
        func isUpper(_ b: UInt8) -> Bool { b >= 0x41 && b <= 0x5A }
        func isAlphanumeric(_ b: UInt8) -> Bool { isDigit(b) || isUpper(b) || (b >= 0x61 && b <= 0x7A) }
    }
}

extension String {
    func trimmingTrailing(_ characters: String) -> String {
        var s = Substring(self)
        while let last = s.last, characters.contains(last) || last == " " { s.removeLast() }
        return String(s)
    }
}

extension StreetAddresses {
    /// `items` with each street alone joined to the locality alone on the line under it (one item
    /// over both lines), and the streets and localities left alone dropped: a full address is both.
    /// Each result names the indices of the items it was made of.
    ///
    /// Under it: the locality's centre lies 0.6 to 2.6 of the street's heights below the street's
    /// centre (the next printed line, not one further), their heights differ by less than 1.8 times
    /// and they overlap across (a receipt centres its lines, a letterhead aligns them left).
    public static func assembled(_ items: [RecognizedItem]) -> [(item: RecognizedItem, parts: [Int])] {
        func part(_ item: RecognizedItem) -> Part? {
            guard item.contentType == .fullStreetAddress, case .address(let address)? = item.details?.parsed else { return nil }
            switch (address.street, address.locality) {
            case (.some, .some): return .full
            case (.some, nil): return .street
            case (nil, .some): return .locality
            case (nil, nil): return nil
            }
        }
        var result: [(item: RecognizedItem, parts: [Int])] = []
        var used = Set<Int>()
        let localities = items.indices.filter { part(items[$0]) == .locality }
        for (index, item) in items.enumerated() {
            switch part(item) {
            case nil, .full?:
                result.append((item, [index]))
            case .locality?:
                continue
            case .street?:
                let box = item.bounds.boundingBox
                let height = box.maxY - box.minY
                let below = localities.filter { !used.contains($0) }.compactMap { other -> (Int, Double)? in
                    let b = items[other].bounds.boundingBox
                    let otherHeight = b.maxY - b.minY
                    let drop = (b.minY + b.maxY) / 2 - (box.minY + box.maxY) / 2
                    guard height > 0, otherHeight > 0, max(height, otherHeight) / min(height, otherHeight) < 1.8,
                        drop >= 0.6 * height, drop <= 2.6 * height, min(box.maxX, b.maxX) > max(box.minX, b.minX)
                    else { return nil }
                    return (other, drop)
                }
                guard let (other, _) = below.min(by: { $0.1 < $1.1 }), case .address(var address)? = item.details?.parsed,
                    case .address(let locality)? = items[other].details?.parsed
                else { continue }
                used.insert(other)
                address.locality = locality.locality
                address.city = locality.city
                address.region = locality.region
                address.postalCode = locality.postalCode
                let joined = item.joined(with: items[other], payload: address.payload, parsed: .address(address), separator: "\n")
                result.append((joined, [index, other]))
            }
        }
        return result
    }
}
