import ContentTypes
import ScannerCore
import Testing

/// Dates, times, ranges and durations in text as OCR delivers it (issue #43), with their ISO 8601
/// values; numbers that only look like them are not.
@Suite(.timeLimit(.minutes(2))) struct DateTimeTests {
    func dates(_ line: String, region: String = "US") -> [String] {
        let detector = try! ContentDetector(contentTypes: [.dateTimeDuration, .currency, .telephoneNumber], defaultRegion: region)
        return detector.matches(in: line).filter { $0.contentType == .dateTimeDuration }.map { match in
            guard case .dateTime(let kind, let iso8601)? = match.parsed else { return "\(match.payload) ?" }
            #expect(match.payload == iso8601)
            return "\(kind) \(iso8601) [\(match.transcript)]"
        }
    }

    @Test(arguments: [
        // Numeric dates, one separator throughout.
        ("Date: 2026-11-21", "date 2026-11-21 [2026-11-21]"),
        ("11/22/2026", "date 2026-11-22 [11/22/2026]"),
        ("03/15/16", "date 2016-03-15 [03/15/16]"),
        ("2016/06/20", "date 2016-06-20 [2016/06/20]"),
        // Month names, abbreviations, other languages, the forms receipts print.
        ("25 Dec 2024", "date 2024-12-25 [25 Dec 2024]"),
        ("Dec 25, 2024", "date 2024-12-25 [Dec 25, 2024]"),
        ("December 25th", "date --12-25 [December 25th]"),
        ("12Mar'18", "date 2018-03-12 [12Mar'18]"),
        ("18Feb14", "date 2014-02-18 [18Feb14]"),
        ("06-Aug-2015", "date 2015-08-06 [06-Aug-2015]"),
        ("NOV/25/2016", "date 2016-11-25 [NOV/25/2016]"),
        ("Feb 11.2012", "date 2012-02-11 [Feb 11.2012]"),
        ("04 sept.16", "date 2016-09-04 [04 sept.16]"),
        ("DIC/21/2016", "date 2016-12-21 [DIC/21/2016]"),
        ("3. Oktober 2025", "date 2025-10-03 [3. Oktober 2025]"),
        ("March 2026", "date 2026-03 [March 2026]"),
        // Times.
        ("14:05", "time 14:05 [14:05]"),
        ("09:47:16PM", "time 21:47:16 [09:47:16PM]"),
        ("Time 2:05 p.m.", "time 14:05 [2:05 p.m.]"),
        ("12:30 AM", "time 00:30 [12:30 AM]"),
        ("doors 9pm", "time 21:00 [9pm]"),
        ("7:23:34P", "time 19:23:34 [7:23:34P]"),
        ("14:03Num.", "time 14:03 [14:03]"),
        ("25 Dec 13 14:14:13", "dateTime 2013-12-25T14:14:13 [25 Dec 13 14:14:13]"),
        ("25 Dec 13 items", "date --12-25 [25 Dec]"),
        // A date with its time.
        ("2026-11-21 14:03", "dateTime 2026-11-21T14:03 [2026-11-21 14:03]"),
        // A receipt's date and time read as one word.
        ("11/22/202609:41", "dateTime 2026-11-22T09:41 [11/22/202609:41]"),
        ("2024-12-25T14:05:00Z", "dateTime 2024-12-25T14:05:00Z [2024-12-25T14:05:00Z]"),
        ("Dec 25, 2024 at 7:30 PM", "dateTime 2024-12-25T19:30 [Dec 25, 2024 at 7:30 PM]"),
        // Ranges.
        ("Open 9:00–17:00", "range 09:00/17:00 [9:00–17:00]"),
        ("9am - 5pm", "range 09:00/17:00 [9am - 5pm]"),
        ("Hours 9-5pm", "range 09:00/17:00 [9-5pm]"),
        ("11-1pm", "range 11:00/13:00 [11-1pm]"),
        ("Dec 24–26, 2024", "range 2024-12-24/2024-12-26 [Dec 24–26, 2024]"),
        ("closed 24–26 December.", "range --12-24/--12-26 [24–26 December]"),
        ("24 - 26 Dec. 2024", "range 2024-12-24/2024-12-26 [24 - 26 Dec. 2024]"),
        ("your order of 28 October.", "date --10-28 [28 October]"),
        ("until 25 Dec.", "date --12-25 [25 Dec.]"),
        ("24.12.2024 - 26.12.2024", "range 2024-12-24/2024-12-26 [24.12.2024 - 26.12.2024]"),
        ("2026-11-21 14:00 to 16:30", "range 2026-11-21T14:00/16:30 [2026-11-21 14:00 to 16:30]"),
        // Durations.
        ("Flight time 2 hours 30 minutes", "duration PT2H30M [2 hours 30 minutes]"),
        ("about 45 min.", "duration PT45M [45 min.]"),
        ("1h30m", "duration PT1H30M [1h30m]"),
        ("1h 30 min", "duration PT1H30M [1h 30 min]"),
        // The clock as French and others write it.
        ("ouvert 11h05", "time 11:05 [11h05]"),
        ("1h 15m", "duration PT1H15M [1h 15m]"),
        ("1.5 hrs", "duration PT1.5H [1.5 hrs]"),
        ("returns within 30 days.", "duration P30D [30 days]"),
    ])
    func readWithTheirISOValue(line: String, expected: String) {
        #expect(dates(line) == [expected], "\(line)")
    }

    /// Day and month, when both could be either, in the region's order; a day past 12 settles it.
    @Test func theRegionOrdersDayAndMonth() {
        #expect(dates("05/04/2026", region: "US") == ["date 2026-05-04 [05/04/2026]"])
        #expect(dates("05/04/2026", region: "DE") == ["date 2026-04-05 [05/04/2026]"])
        #expect(dates("25/12/2016", region: "US") == ["date 2016-12-25 [25/12/2016]"])
        #expect(dates("12/25/2016", region: "GB") == ["date 2016-12-25 [12/25/2016]"])
    }

    /// What a receipt, a label or a flyer prints that is no date, time or duration: prices, phone
    /// numbers, order and version numbers, addresses, quantities, ratios, sizes.
    @Test(arguments: [
        "TOTAL $28.09", "Questions? 1-737-555-0142", "Order #2024-1225", "v1.2.10", "192.168.1.20", "13/45/2016", "2026-13-01",
        "31.02.2024", "12:75", "16:9 screen", "Oat milk 1L 3.49", "TAX 8.25%", "Store 07 Austin TX 78704", "VISA **** 4410",
        "A4 210 x 297 mm", "5m cable", "Set 2", "2 days ago", "Qty 3 @ 4.99", "Terminal 00431 Cashier 17", "Tel 04.12.34.56.78",
        "12:30:45:10", "page 1/2", "Table 7A", "1 GHAZLIYEH 2P", "Flight LH 400", "Gate B22 Seat 14C",
    ])
    func whatIsNoDateIsNotTaken(line: String) {
        let found = dates(line)
        #expect(found.isEmpty || line == "2 days ago" && found == ["duration P2D [2 days]"], "\(line): \(found)")
    }

    @Test func severalOnALine() {
        #expect(dates("11/22/2026  09:41  Reg 4") == ["dateTime 2026-11-22T09:41 [11/22/2026  09:41]"])
        #expect(dates("Dep 10:15  Arr 12:40") == ["time 10:15 [10:15]", "time 12:40 [12:40]"])
    }

    /// Prices stay money and phone numbers phones, with dates typed beside them on the same line.
    @Test func moneyAndPhonesBesideADate() throws {
        let detector = try ContentDetector(contentTypes: [.dateTimeDuration, .currency, .telephoneNumber], defaultRegion: "US")
        let types = detector.matches(in: "12/25/2024 TOTAL $28.09 Call (415) 555-0123").map(\.contentType)
        #expect(types == [.dateTimeDuration, .currency, .telephoneNumber])
    }

    @Test func offByDefault() throws {
        #expect(!TextContentType.standard.contains(.dateTimeDuration))
        let detector = try ContentDetector(contentTypes: TextContentType.standard, defaultRegion: "US")
        #expect(detector.matches(in: "Dec 25, 2024 at 7:30 PM").isEmpty)
    }
}

/// A date and the time printed right after it, cut apart by the line detector, are one moment.
@Suite struct DateTimeAssemblyTests {
    let detector = try! ContentDetector(contentTypes: [.dateTimeDuration], defaultRegion: "US")

    func item(_ text: String, x: Double, y: Double, width: Double, height: Double = 0.03) -> RecognizedItem {
        let match = detector.matches(in: text).first!
        return RecognizedItem(
            kind: .text, contentType: .dateTimeDuration, payload: match.payload, transcript: match.transcript,
            bounds: Quad(x: x, y: y, width: width, height: height), confidence: 0.9, details: PayloadDetails(parsed: match.parsed))
    }

    @Test func aDateAndTheTimeAfterItOnItsRow() {
        let items = [
            item("11/22/2026", x: 0.10, y: 0.20, width: 0.20), item("09:41", x: 0.34, y: 0.205, width: 0.08),
            // A time on the next row, and one far along the row: not this date's.
            item("17:35", x: 0.10, y: 0.30, width: 0.08), item("12/01/2026", x: 0.10, y: 0.50, width: 0.20),
            item("18:05", x: 0.60, y: 0.50, width: 0.08),
            // A date without its year is no whole day: its time stays apart.
            item("Dec 25", x: 0.10, y: 0.70, width: 0.12), item("10:30", x: 0.25, y: 0.70, width: 0.08),
        ]
        let joined = DateTimes.assembled(items)
        #expect(joined.map(\.item.payload) == ["2026-11-22T09:41", "17:35", "2026-12-01", "18:05", "--12-25", "10:30"])
        #expect(joined.first?.parts == [0, 1] && joined.first?.item.transcript == "11/22/2026 09:41")
        guard case .dateTime(let kind, let iso8601)? = joined.first?.item.details?.parsed else {
            Issue.record("no parsed value")
            return
        }
        #expect(kind == "dateTime" && iso8601 == "2026-11-22T09:41")
        let box = joined[0].item.bounds.boundingBox
        #expect(abs(box.minX - 0.10) < 1e-9 && abs(box.maxX - 0.42) < 1e-9)
    }
}
