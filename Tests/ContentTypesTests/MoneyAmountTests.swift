import ContentTypes
import ScannerCore
import Testing

/// Amounts of money in text as OCR delivers it (issue #43): a number is money only with a currency
/// symbol or code beside it; `$` and `¥` by the kiosk's region.
@Suite(.timeLimit(.minutes(2))) struct MoneyAmountTests {
    func money(_ line: String, region: String = "US") -> [String] {
        let detector = try! ContentDetector(contentTypes: [.currency, .telephoneNumber], defaultRegion: region)
        return detector.matches(in: line).filter { $0.contentType == .currency }.map { match in
            guard case .money(let amount, let currency)? = match.parsed else { return "\(match.payload) ?" }
            #expect(match.payload == "\(amount) \(currency)")
            return "\(amount) \(currency) [\(match.transcript)]"
        }
    }

    @Test(arguments: [
        ("TOTAL $28.09", "28.09 USD [$28.09]"),
        ("Total $ 33.18", "33.18 USD [$ 33.18]"),
        ("€12,50", "12.50 EUR [€12,50]"),
        ("Summe 1.234,56 EUR", "1234.56 EUR [1.234,56 EUR]"),
        ("£3.49 each", "3.49 GBP [£3.49]"),
        ("USD 25", "25 USD [USD 25]"),
        ("R$ 10,00", "10.00 BRL [R$ 10,00]"),
        ("Price: 1,299.00 USD", "1299.00 USD [1,299.00 USD]"),
        ("¥1,500", "1500 JPY [¥1,500]"),
        ("CHF 4.50", "4.50 CHF [CHF 4.50]"),
        // A point before three digits alone is a decimal point (a fuel price, seen on a development
        // receipt read as 2659 dollars); with more groups or a decimal comma it groups.
        ("Regular $2.659/gal", "2.659 USD [$2.659]"),
        ("1.234.567 EUR", "1234567 EUR [1.234.567 EUR]"),
        ("1 234,56 €", "1234.56 EUR [1 234,56 €]"),
    ])
    func amountsWithTheirCurrency(line: String, expected: String) {
        #expect(money(line) == [expected], "\(line)")
    }

    /// `$` is the region's dollar, `kr` money only where kronor are.
    @Test func theRegionNamesTheDollarAndTheKrona() {
        #expect(money("$5.00", region: "CA") == ["5.00 CAD [$5.00]"])
        #expect(money("¥88", region: "CN") == ["88 CNY [¥88]"])
        #expect(money("129 kr", region: "SE") == ["129 SEK [129 kr]"])
        #expect(money("129 kr", region: "US").isEmpty)
    }

    /// A receipt's other numbers: prices without a symbol, a tax rate, dates, times, weights, order and
    /// card numbers, a phone number.
    @Test(arguments: [
        "Oat milk 1L            3.49", "TAX 8.25%", "11/22/2026  09:41", "Weight 2.35 kg", "Order #5125550147", "VISA **** 4410",
        "Questions? 1-737-555-0142", "2026-11-21 14:03", "Terminal 00431  Cashier 17", "Store 07 Austin TX 78704",
    ])
    func aReceiptsOtherNumbersAreNotMoney(line: String) {
        #expect(money(line).isEmpty, "\(line)")
    }

    @Test func severalAmountsOnALine() {
        #expect(money("SUBTOTAL $25.95  TAX $2.14") == ["25.95 USD [$25.95]", "2.14 USD [$2.14]"])
    }

    @Test func offByDefault() throws {
        #expect(!RecognitionTypes.all.contentTypes.contains(.currency))
        #expect(try RecognitionTypes(parsing: "currency").contentTypes == [.currency])
    }
}
