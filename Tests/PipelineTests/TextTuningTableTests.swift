import Foundation
import ImageDecoding
import Recognition
import ScannerCore
import TestSupport
import Testing

@testable import Pipeline

/// docs/recognition.md's "Live text numbers" table lists every number `TextTuning` holds, with its
/// provenance; the code holds the values. Every row is checked against the code and every number
/// of the code must have its row (issue #55: one table in code, tested against the docs).
@Suite struct TextTuningTableTests {
    /// The table's rows: the number's path (without its backquotes) and its value.
    static func table() throws -> [(path: String, value: String)] {
        let text = try String(contentsOf: Fixtures.packageRoot.appendingPathComponent("docs/recognition.md"), encoding: .utf8)
        let section = try #require(text.components(separatedBy: "#### Live text numbers (`TextTuning`)").dropFirst().first)
        let lines = section.split(separator: "\n").drop { !$0.hasPrefix("|") }.prefix { $0.hasPrefix("|") }
        return lines.dropFirst(2).map { line in
            let cells = line.split(separator: "|", omittingEmptySubsequences: false).dropFirst().map {
                $0.trimmingCharacters(in: .whitespaces)
            }
            return (cells[0].trimmingCharacters(in: CharacterSet(charactersIn: "`")), cells.count > 1 ? cells[1] : "")
        }
    }

    @Test func everyNumberHasItsRowAndEveryRowIsWhatTheCodeSays() throws {
        let table = try Self.table()
        let code = TextTuning().numbers
        #expect(code.count >= 29, "the code's numbers: \(code.map(\.path))")
        for number in code {
            let row = table.first { $0.path == number.path }
            #expect(row != nil, "\(number.path) (\(number.value)) has no row in docs/recognition.md")
            if let row { #expect(row.value == number.value, "\(number.path): the table says \(row.value), the code \(number.value)") }
        }
        for row in table where !code.contains(where: { $0.path == row.path }) {
            Issue.record("a row of no number of TextTuning: \(row.path)")
        }
    }

    /// The text stage builds its parts from the tuning it is given: a pass reads as many of its new
    /// lines (two more than the default reads) as `schedule.readsPerPass` says.
    @Test func theStageReadsWithTheNumbersItIsGiven() throws {
        func readsOnFirstPass(_ readsPerPass: Int?) throws -> Int {
            var options = ScanOptions(quality: .balanced)
            options.types = try RecognitionTypes(parsing: "contentTypes")
            var configuration = SequenceConfiguration(options: options)
            if let readsPerPass { configuration.textTuning.schedule.readsPerPass = readsPerPass }
            let recognizer = FakeReadersTests.FakeRecognizer(["Jane Doe"])
            let lines = (0..<TextTuning().schedule.readsPerPass + 2).map { Quad(x: 100, y: 20 + 40 * Double($0), width: 300, height: 30) }
            nonisolated(unsafe) let readers = TextReaders(detector: FakeReadersTests.FakeDetector(lines), recognizers: [recognizer])
            configuration.textReaders = { readers }
            let stage = try TextStage(configuration: configuration)
            let card = try ImageDecoder().decodeFile(atPath: Fixtures.path("card-us.jpg"), targetWidth: 640).image
            var looker = FrameLooker()
            _ = stage.read(card, look: looker.look(at: card, time: 0), time: 0)
            return recognizer.reads
        }
        #expect(try readsOnFirstPass(nil) == TextTuning().schedule.readsPerPass)
        #expect(try readsOnFirstPass(1) == 1)
        #expect(try readsOnFirstPass(5) == 5)
    }
}
