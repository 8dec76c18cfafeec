import Foundation
import Recognition
import ScannerCore
import TestSupport
import Testing
import Tracking

@testable import Pipeline

/// docs/recognition.md's "Quality levels" table says what each level does; the code holds the
/// numbers (`QualitySettings`, `SequenceConfiguration`, `TrackerConfiguration`). Every row of the
/// table is checked against them here, so the two cannot drift, and a row the test does not know
/// fails it (issue #55: the table and the code had no link).
@Suite struct QualityTableTests {
    /// What the code says for a row, per level, written as the table writes it.
    static let rows: [(key: String, values: @Sendable (QualityLevel) -> String)] = [
        ("still images (`scan`): JPEG decode width", { QualitySettings($0).processingWidth.map(String.init) ?? "full size" }),
        ("live frames (`run`): processing width", { String(QualitySettings($0).liveProcessingWidth) }),
        ("live: OCR cadence with `--pace none`", { String(SequenceConfiguration.ocrCadence($0)) }),
        (
            "live: text evidence",
            { level in
                let tracker = TrackerConfiguration(level)
                return "\(tracker.textAgreement) of \(tracker.textWindow)"
            }
        ),
        ("still images: zbar scan density", { String(QualitySettings($0).barcodeScanDensity) }),
        ("light-on-dark codes", { QualitySettings($0).testInvertedBarcodes ? "yes" : "no" }),
        (
            "live: barcodes read on the frame at full resolution",
            { SequenceConfiguration(options: ScanOptions(quality: $0)).barcodesAtFullResolution ? "yes" : "no" }
        ),
        ("live: every n-th barcode scan thorough", { String(QualitySettings($0).liveThoroughBarcodeScanEvery) }),
        ("minimum plain-text line confidence", { String(QualitySettings($0).minimumLineConfidence) }),
        (
            "still images: typed lines read again at",
            { level in
                let heights = QualitySettings(level).secondReadingHeights
                return heights.isEmpty ? "no" : heights == [32, 40, 34, 38] ? "yes" : "\(heights)"
            }
        ),
    ]

    /// The table's rows: the setting's text, then `fast`, `balanced`, `accurate`.
    static func table() throws -> [[String]] {
        let text = try String(contentsOf: Fixtures.packageRoot.appendingPathComponent("docs/recognition.md"), encoding: .utf8)
        let section = try #require(text.components(separatedBy: "## Quality levels").dropFirst().first)
        let lines = section.split(separator: "\n").drop { !$0.hasPrefix("|") }.prefix { $0.hasPrefix("|") }
        return lines.dropFirst(2).map { line in
            line.split(separator: "|", omittingEmptySubsequences: false).dropFirst().dropLast()
                .map { $0.trimmingCharacters(in: .whitespaces) }
        }
    }

    @Test func everyRowOfTheTableIsWhatTheCodeDoes() throws {
        let table = try Self.table()
        #expect(table.count == Self.rows.count, "the table has \(table.count) rows, the test knows \(Self.rows.count)")
        for row in table {
            guard row.count == 4, let known = Self.rows.first(where: { row[0].hasPrefix($0.key) }) else {
                Issue.record("a row the test does not know: \(row)")
                continue
            }
            let code = QualityLevel.allCases.map(known.values)
            #expect(Array(row.dropFirst()) == code, "\(known.key): the table says \(row.dropFirst()), the code \(code)")
        }
    }
}
