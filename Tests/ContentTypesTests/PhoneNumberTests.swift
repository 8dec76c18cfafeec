import ContentTypes
import ScannerCore
import Testing

/// Content typing on text as OCR delivers it: no images, so every rule is checked directly.
@Suite(.timeLimit(.minutes(2))) struct PhoneNumberTests {
    let us = try! ContentDetector(contentTypes: [.telephoneNumber], defaultRegion: "US")

    func phones(_ line: String, _ detector: ContentDetector? = nil) -> [String] {
        (detector ?? us).matches(in: line).filter { $0.contentType == .telephoneNumber }.map(\.payload)
    }

    @Test(arguments: [
        ("(415) 555-0123", "+14155550123"),
        ("415-555-0123", "+14155550123"),
        ("415.555.0123", "+14155550123"),
        ("415 555 0123", "+14155550123"),
        ("+1 415 555 0123", "+14155550123"),
        ("1-800-555-0199", "+18005550199"),
        ("Tel: 4155550123", "+14155550123"),  // a bare run of digits is accepted when labelled
        ("Phone (212) 555-0187 ext", "+12125550187"),
    ])
    func usFormats(line: String, e164: String) {
        #expect(phones(line) == [e164])
    }

    @Test(arguments: [
        ("+44 20 7946 0958", "+442079460958"),
        ("+49 30 901820", "+4930901820"),
        ("+33 1 42 68 53 00", "+33142685300"),
        ("+81 3-3224-9999", "+81332249999"),
        ("+61 2 9374 4000", "+61293744000"),
    ])
    func internationalFormats(line: String, e164: String) {
        #expect(phones(line) == [e164])
    }

    @Test func defaultRegionAppliesToNationalNumbers() throws {
        let gb = try ContentDetector(contentTypes: [.telephoneNumber], defaultRegion: "gb")
        #expect(phones("020 7946 0958", gb) == ["+442079460958"])
        #expect(phones("020 7946 0958") == [], "not a valid US number")
    }

    @Test(arguments: [
        ("(4l5) 555-O123", "+14155550123"),  // l→1, O→0
        ("415-SS5-0123", "+14155550123"),  // S→5
        ("Tel 415 555 O1B3", "+14155550183"),  // B→8
        ("+1 4I5 555 0123", "+14155550123"),  // I→1
    ])
    func ocrConfusionsAreRepairedInsidePhoneNumbers(line: String, e164: String) {
        let matches = us.matches(in: line)
        #expect(matches.map(\.payload) == [e164])
        // The transcript keeps what was read.
        #expect(matches.first.map { line.contains($0.transcript) } == true)
    }

    @Test func wordsAreNotRepairedIntoDigits() {
        #expect(OCRCorrections.repairingDigits(in: "BOSS SOLD 5OIL") == "BOSS SOLD 5OIL", "more letters than digits: a word")
        #expect(OCRCorrections.repairingDigits(in: "Suite 5O1") == "Suite 501")
        #expect(OCRCorrections.repairingDigits(in: "Oslo Bill") == "Oslo Bill")
        #expect(OCRCorrections.repairingDigits(in: "$4.SO") == "$4.SO")
        #expect(OCRCorrections.repairingDigits(in: "555-O123") == "555-0123")
        // A letter that is a group of its own is a prefix: a tax number, not a phone number.
        #expect(OCRCorrections.repairingDigits(in: "B-61759205") == "B-61759205")
        #expect(phones("08007 Barcelona / B-61759205", try! ContentDetector(contentTypes: [.telephoneNumber], defaultRegion: "ES")) == [])
    }

    /// Fewer than six digits is a price or a quantity, not a phone number, though libphonenumber
    /// finds `16.40` valid in Germany.
    @Test func fewerThanSixDigitsIsNoPhoneNumber() throws {
        let de = try ContentDetector(contentTypes: [.telephoneNumber], defaultRegion: "DE")
        #expect(phones("Brezel 16.40", de) == [])
        #expect(phones("Tel. 030 901820", de) == ["+4930901820"])
    }

    @Test(arguments: [
        "Total: $415.55",
        "Price $1,234,567.89",
        "Order #4155550199",
        "Order No. 4155550199",
        "Invoice No. 6505550143",
        "Ref 2125551234",
        "Tracking 4155550123",
        "Date: 12/25/2024",
        "Delivered 2024-12-25 10:30",
        "Shipped 2026-11 21 14",  // OCR lost a dash and the colon of "2026-11-21 14:05" (issue #13)
        "Shipped 2026 11-21 14:03",  // OCR read the first dash as a space: the hour is taken, the minutes follow
        "ZIP 94103-1234",
        "94103",
        "Terminal 4155550123 approved",  // a bare run of digits among words, with no label: an identifier
        "415 555 0123.50",  // a price
        "USD 415 555 0123",
        "ISBN 978-0-201-37962-4",
        "Account 212 555 0187",
    ])
    func distractorsAreNotPhoneNumbers(line: String) {
        #expect(phones(line) == [], "\(line)")
    }

    /// A bare run of digits alone on its line is the number a receipt prints under its address.
    @Test func aBareRunOfDigitsAloneOnItsLineIsAPhoneNumber() {
        #expect(phones("7349944004") == ["+17349944004"])
        #expect(phones("  7349944004 ") == ["+17349944004"])
        #expect(phones("Terminal 7349944004") == [])
    }

    /// `#` or `No.` before a number makes it an identifier, unless the number is written as only a
    /// phone number is: an area code in parentheses.
    @Test func aParenthesisedAreaCodeAfterANumberSignIsAPhoneNumber() {
        #expect(phones("#(609)-298-4650") == ["+16092984650"])
        #expect(phones("No. (415) 555-0123") == ["+14155550123"])
        #expect(phones("#609-298-4650") == [])
    }

    @Test func phoneLabelWinsOverANumberWord() {
        #expect(phones("Tel. No. 415 555 0123") == ["+14155550123"])
        #expect(phones("Call 212-555-0187 to order") == ["+12125550187"])
    }

    @Test func transcriptAndRangeAreTheTextAsRead() {
        let line = "Call (415) 555-0123 now"
        let match = us.matches(in: line).first
        #expect(match?.transcript == "(415) 555-0123")
        #expect(match?.utf8Range == 5..<19)
    }

    @Test func unknownRegionIsRefused() {
        #expect(throws: ScannerError.self) { try ContentDetector(contentTypes: [.telephoneNumber], defaultRegion: "XX") }
    }
}

@Suite(.timeLimit(.minutes(2))) struct WebIdentifierTests {
    let detector = try! ContentDetector(contentTypes: [.url, .emailAddress], defaultRegion: "US")

    func found(_ line: String) -> [String] {
        detector.matches(in: line).map { "\($0.contentType.rawValue) \($0.payload)" }
    }

    @Test(arguments: [
        ("https://example.com/scan?id=7", "url https://example.com/scan?id=7"),
        ("Visit www.Acme-Optics.com/contact.", "url http://www.acme-optics.com/contact"),
        ("acme.co.uk", "url http://acme.co.uk"),
        ("see example.org, or call", "url http://example.org"),
        ("HTTP://EXAMPLE.COM", "url http://example.com"),
        ("jane.doe@example.com", "emailAddress jane.doe@example.com"),
        ("Mail: Jane.Doe+kiosk@Mail.Example.COM", "emailAddress Jane.Doe+kiosk@mail.example.com"),
        // A domain one edit from a well-known provider's is a misreading of it (issue #52).
        ("jo.doe@gmall.com", "emailAddress jo.doe@gmail.com"),
        ("jo.doe@hotrnail.com", "emailAddress jo.doe@hotmail.com"),
        ("jo.doe@GMAIL.COM", "emailAddress jo.doe@gmail.com"),
        ("jo.doe@yahooo.com", "emailAddress jo.doe@yahoo.com"),
        ("jo.doe@outlok.com", "emailAddress jo.doe@outlook.com"),
        // Not so: two edits, another top-level domain, more labels, a short provider, a domain of its own.
        ("jo.doe@gmxil.co", "emailAddress jo.doe@gmxil.co"),
        ("jo.doe@gmall.de", "emailAddress jo.doe@gmall.de"),
        ("jo.doe@mail.gmall.com", "emailAddress jo.doe@mail.gmall.com"),
        ("jo.doe@love.com", "emailAddress jo.doe@love.com"),
        ("jo.doe@northgate-optics.com", "emailAddress jo.doe@northgate-optics.com"),
    ])
    func recognizes(line: String, expected: String) {
        #expect(found(line) == [expected])
    }

    /// Two letters after a dot are a country's domain only where they are a country code: a receipt's
    /// `INCL.OF` and `Info@resto.te` are abbreviations (issue #40), `restaurant-leopold.at` is Austria's.
    /// A word, a dot and a country code in capitals is no link (a town and its state, an
    /// abbreviation); with `www.`, a scheme or in lower case it is.
    @Test func aBareNameBeforeACapitalCountryCodeIsNoLink() {
        for line in ["HOUSTON.TN 77082", "KANSAS CITY.MO", "VAT REG.NO 10125917F", "Fresh Scallop.SA, 2PC"] {
            #expect(found(line).isEmpty, "\(line)")
        }
        #expect(found("BestBuy.ca") == ["url http://bestbuy.ca"])
        #expect(found("WWW.BESTBUY.CA") == ["url http://www.bestbuy.ca"])
        #expect(found("http://CITY.MO") == ["url http://city.mo"])
    }

    /// "www." joined to the word before it (`Visitwww.…`) starts the link; a link that starts with
    /// `www` and no dot is left as it was read.
    @Test func aWordJoinedToWWWIsNotPartOfTheLink() {
        #expect(found("Visitwww.mynerovisit.com") == ["url http://www.mynerovisit.com"])
        #expect(found("wwwmorrisonsislistening.co.uk") == ["url http://wwwmorrisonsislistening.co.uk"])
        #expect(found("Visit www.example.com") == ["url http://www.example.com"])
    }

    /// A link starts at a word boundary, after a letter outside ASCII too: `info@resto.be` read with
    /// its `@` as `ß` is no link `resto.be`. After a bullet or a dash it starts.
    @Test func noLinkStartsInsideAWordOfLettersOutsideASCII() {
        #expect(found("Infoßresto.be").isEmpty)
        #expect(found("Caféresto.be").isEmpty)
        #expect(found("•www.example.com") == ["url http://www.example.com"])
        #expect(found("–example.com") == ["url http://example.com"])
    }

    @Test func aTwoLetterTopLevelDomainIsACountrysCode() {
        #expect(found("Prices INCL.OF VAT").isEmpty)
        #expect(found("Info@resto.te").isEmpty)
        #expect(found("www.restaurant-leopold.at") == ["url http://www.restaurant-leopold.at"])
        #expect(found("shop.example.uk") == ["url http://shop.example.uk"])
    }

    /// Tesseract reads "avery.lindqvist@" as "avery. lindqvist@" at camera sizes: the address after
    /// the space alone would be a wrong payload.
    @Test func aSpaceOCRPutAfterADotInsideAnAddressIsDropped() {
        let match = detector.matches(in: "mail avery. lindqvist@northgate-optics.com")
        #expect(match.map(\.payload) == ["avery.lindqvist@northgate-optics.com"])
        #expect(match.first?.transcript == "avery. lindqvist@northgate-optics.com")
        #expect(found("first_ last@example.com") == ["emailAddress first_last@example.com"])
        // Only a dot, dash or underscore right before the space joins.
        #expect(found("call +1 555 0100, or jo@example.com") == ["emailAddress jo@example.com"])
    }

    /// A space OCR put after a dot of an address's domain (1280×720 footage, a phone screen).
    @Test func anAddressWhoseDomainOCRSplitIsJoined() {
        #expect(found("priya@kestrel-labs. co.uk") == ["emailAddress priya@kestrel-labs.co.uk"])
        #expect(detector.matches(in: "priya@kestrel-labs. co.uk").first?.transcript == "priya@kestrel-labs. co.uk")
        // Not when the part before the space is a domain already: the address ended a sentence.
        #expect(found("Write to jo@example.com. Info desk open 9-5") == ["emailAddress jo@example.com"])
        // Only a space right after a dot joins.
        #expect(found("jo@kestrel-labs co.uk") == [])
    }

    /// A comma read for a dot (a common Tesseract slip on small, blurred text) is repaired inside
    /// what is already an address or a link, and nowhere else.
    @Test func aCommaReadForADotInsideAnAddressIsRepaired() {
        #expect(found("hello@oldmill-studios,com") == ["emailAddress hello@oldmill-studios.com"])
        #expect(found("kestrel-labs,co,uk/team") == ["url http://kestrel-labs.co.uk/team"])
        #expect(detector.matches(in: "hello@oldmill-studios,com").first?.transcript == "hello@oldmill-studios,com")
        #expect(found("Acme,Co and Smith,Inc") == [])
        #expect(found("Paris, France") == [])
    }

    /// A run of labels that does not end in a TLD is a host misread or cut at the line's end: its
    /// prefix up to the last TLD-like label ("kestrel-labs.co") would be a wrong payload (640×480
    /// footage: "kestrel-labs.co.ukiteam", the slash read as "i"; "el-labs.co.U" at a thumb).
    @Test func aHostThatGoesOnPastItsTLDIsNotReported() {
        #expect(found("kestrel-labs.co.ukiteam") == [])
        #expect(found("el-labs.co.U") == [])
        #expect(found("priya@kestrel-labs.co.ukx") == [])
        #expect(found("www.example.com.x") == [])
        #expect(found("example.com.au") == ["url http://example.com.au"])
        #expect(found("Write to jo@example.com.") == ["emailAddress jo@example.com"])
    }

    /// "co, uk" in lowercase is "co.uk" with its dot misread: the host printed is the longer one.
    @Test func aLowercaseCountryCodeAfterACommaJoinsTheHost() {
        #expect(found("priya@kestrel-labs.co, uk") == ["emailAddress priya@kestrel-labs.co.uk"])
        #expect(found("kestrel-labs.co, uk/team") == ["url http://kestrel-labs.co.uk/team"])
        #expect(found("priya@kestrel-labs.co. uk") == ["emailAddress priya@kestrel-labs.co.uk"])
        #expect(found("priya@kestrel-labs. co. uk") == ["emailAddress priya@kestrel-labs.co.uk"])
        #expect(found("shop.com, au") == ["url http://shop.com.au"])
    }

    /// The dot of "co.uk" lost altogether (a small dark-mode link at 640×480, read by the line network
    /// `kestrel-labs.co uk/team`): reported as `http://kestrel-labs.co`, a part of the link.
    @Test func aLowercaseCountryCodeAfterASpaceJoinsTheHost() {
        #expect(found("kestrel-labs.co uk/team") == ["url http://kestrel-labs.co.uk/team"])
        #expect(found("priya@kestrel-labs.co uk") == ["emailAddress priya@kestrel-labs.co.uk"])
        // Uppercase, or a word: a guess either way, so nothing.
        #expect(found("kestrel-labs.co UK/team") == [])
        #expect(found("jo@example.co in") == [])
        // A longer word after the space is the line going on.
        #expect(found("jo@example.com uk office") == ["emailAddress jo@example.com"])
        #expect(found("example.com is here") == ["url http://example.com"])
    }

    /// OCR text that ends anywhere in what may be a country code after a second-level name: nothing
    /// is read past the line's end, and the host stands as read or nothing is reported.
    @Test func aLineEndingInsideACountryCodeIsSafe() {
        #expect(found("example.co ") == ["url http://example.co"])
        #expect(found("example.co, ") == ["url http://example.co"])
        #expect(found("example.co. u") == ["url http://example.co"])
        #expect(found("example.co u") == ["url http://example.co"])
        #expect(found("jo@example.co,") == ["emailAddress jo@example.co"])
    }

    /// An uppercase code is a country written after the address, and a code that is an English word
    /// may be a sentence going on: either payload would be a guess, so neither is reported.
    @Test func aHostThatMayGoOnAfterACommaIsNotReported() {
        #expect(found("priya@kestrel-labs.co, UK") == [])
        #expect(found("kestrel-labs.co, Uk/team") == [])
        #expect(found("write to jo@example.co, in") == [])
        // A word after a comma, a longer one, or one after a name that is no second level: a sentence.
        #expect(found("see example.org, or call") == ["url http://example.org"])
        #expect(found("jo@example.com, uk office") == ["emailAddress jo@example.com"])
        #expect(found("jo@example.io, uk") == ["emailAddress jo@example.io"])
    }

    /// At 640×480 OCR lost the "@" of "avery.lindqvist@northgate-optics.com": the domain alone would
    /// be reported as a URL nobody printed.
    @Test func anAddressWhoseAtWasLostIsNotAURL() {
        #expect(found("avery.lindqvist northgate-optics.com") == [])
        #expect(found("first_last example.com") == [])
        // A plain word, or a domain, before a bare domain is fine.
        #expect(found("Visit acme-optics.com") == ["url http://acme-optics.com"])
        #expect(found("example.org acme-optics.com") == ["url http://example.org", "url http://acme-optics.com"])
    }

    /// Both recognizers read "priya@kestrel-labs.co.uk" with a space for the hyphen: its tail is not a
    /// link (seen on the footage as `http://labs.co.uk`).
    @Test func theTailOfAnAddressBrokenAtASpaceIsNotAURL() {
        #expect(found("priya@kestrel labs.co.uk") == [])
        #expect(found("Mail: priya@kestrel labs.co.uk") == [])
        // A whole address, then a link: both.
        #expect(found("jo@example.com acme-optics.com") == ["emailAddress jo@example.com", "url http://acme-optics.com"])
    }

    /// "www." misread on a card at 640×480: "vww. northgate-optics.com" used to give the host
    /// "northgate-optics.com", and "vww.northgate-optics.com" another host.
    @Test func aMisreadWWWIsWWW() {
        #expect(found("vww. northgate-optics.com") == ["url http://www.northgate-optics.com"])
        #expect(found("www. northgate-optics.com/info") == ["url http://www.northgate-optics.com/info"])
        #expect(found("wvw.northgate-optics.com") == ["url http://www.northgate-optics.com"])
        #expect(detector.matches(in: "Web: vww. example.com").first?.transcript == "vww. example.com")
        // Not a misreading: the real thing, fewer than two w, or no domain after it.
        #expect(found("www.example.com") == ["url http://www.example.com"])
        #expect(found("www. and more") == [])
        #expect(found("wow.example.com") == ["url http://wow.example.com"])
        // "ww." glued to a domain: the first "w" lost to the blur.
        #expect(found("ww.scheltema.be") == ["url http://www.scheltema.be"])
        #expect(found("WW.EXAMPLE.COM/info") == ["url http://www.example.com/info"])
        #expect(found("ww.be") == [])
        // A dot that starts a word: the labels before it went unread; the name after it is whole.
        #expect(found(".chilisme.com") == ["url http://chilisme.com"])
        #expect(found("Visit .chilisme.com today") == ["url http://chilisme.com"])
        #expect(found("x.chilisme.com") == [], "a first label of one letter is noise, as before")
    }

    /// A host split after a dot with its first label cut (a thumb over the first "w" of "www."): the
    /// rest is not the host printed. The price: a sentence ending right before a bare domain.
    @Test func aBareDomainRightAfterALabelAndADotIsNotAURL() {
        #expect(found("ww. northgate-optics.com") == [])
        #expect(found("ey ww. northgate-optics.com") == [])
        #expect(found("vvw. example.com") == [])
        #expect(found("Visit us. example.com") == [])
        #expect(found("Visit us: example.com") == ["url http://example.com"])
        #expect(found("ww. http://example.com") == ["url http://example.com"])
    }

    /// Text read off a hostile image: the repairs that join across spaces stay within the line and
    /// bounded in time (every "@" and "www." here tries a join).
    @Test func joiningRepairsOnAHostileLineStayBounded() {
        let line = String(repeating: "x@a. b. ", count: 300) + String(repeating: "vww. ", count: 300) + "ww. @. www."
        let matches = detector.matches(in: line)
        #expect(matches.allSatisfy { $0.utf8Range.upperBound <= line.utf8.count })
        // One space of a domain is joined, not a run: "a. b. vww. vww. …" is no domain.
        #expect(matches.filter { $0.contentType == .emailAddress }.isEmpty, "\(matches.prefix(3))")
        #expect(found("jo@mail. kestrel-labs. co.uk") == [])
        #expect(found("vww. ") == [] && found("@. ") == [] && found("www.") == [])
    }

    @Test func anEmailAddressIsNotAlsoAURL() {
        #expect(found("info@example.com www.example.com") == ["emailAddress info@example.com", "url http://www.example.com"])
    }

    @Test(arguments: ["Dr.No", "e.g. this", "version 1.2.3", "file.txt", "a@b", "price 4.99", "Mr.Smith", "hello world"])
    func nonIdentifiersAreIgnored(line: String) {
        #expect(found(line) == [], "\(line)")
    }

    @Test func onlyRequestedTypesAreReported() throws {
        let phonesOnly = try ContentDetector(contentTypes: [.telephoneNumber], defaultRegion: "US")
        #expect(phonesOnly.matches(in: "www.example.com jane@example.com").isEmpty)
    }
}
