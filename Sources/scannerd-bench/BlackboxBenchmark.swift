import BarcodeRecognition
import Foundation
import ImageDecoding
import Recognition
import ScannerCore

/// Decode rate on zxing-cpp's own blackbox samples (issue #17): `test/samples/{qrcode,ean13,code128}-N`
/// of a zxing-cpp checkout, each image with its expected text beside it (`N.txt`; for `01-02.png`,
/// `01.txt`). Nothing of it is committed here: `make bench BLACKBOX=…/zxing-cpp/test/samples`.
/// zbar alone, zxing-cpp 1.4 alone, and scannerd's still-image scan, on the same images.
enum BlackboxBenchmark {
    static let families: [(directory: String, symbology: Symbology)] = [("qrcode", .qr), ("ean13", .ean13), ("code128", .code128)]

    struct Tally {
        var images = 0, zbar = 0, zxing = 0, scannerd = 0
        var zbarSeconds = 0.0, zxingSeconds = 0.0, scannerdSeconds = 0.0
    }

    static func render(samples: String, today: String, machine: String) throws -> String {
        let fm = FileManager.default
        guard fm.fileExists(atPath: samples) else { return "" }
        let decoder = try ImageDecoder()
        var tallies: [Symbology: Tally] = [:]
        for (family, symbology) in families {
            let zbar = try BarcodeRecognizer(symbologies: [symbology], testInverted: true)
            zbar.zxingFallbackEvery = nil
            let scanner = try ImageScanner(options: ScanOptions(types: RecognitionTypes(symbologies: [symbology], contentTypes: [])))
            let directories = try fm.contentsOfDirectory(atPath: samples)
                .filter { $0.hasPrefix(family + "-") && Int($0.dropFirst(family.count + 1)) != nil }.sorted()
            var tally = Tally()
            for directory in directories {
                let path = samples + "/" + directory
                for file in try fm.contentsOfDirectory(atPath: path).sorted() where !file.hasSuffix(".txt") && !file.hasSuffix(".bin") {
                    let stem = String(file[..<(file.lastIndex(of: ".") ?? file.endIndex)])
                    let candidates = [stem, String(stem.split(separator: "-").first ?? "")].map { path + "/" + $0 + ".txt" }
                    guard let expectedPath = candidates.first(where: fm.fileExists(atPath:)),
                        let expected = try? String(contentsOfFile: expectedPath, encoding: .utf8),
                        let image = try? decoder.decodeFile(atPath: path + "/" + file).image
                    else { continue }
                    // The samples' texts were committed with LF line ends; the symbols hold CR LF.
                    func normal(_ text: String) -> String { text.replacingOccurrences(of: "\r\n", with: "\n") }
                    let wanted = normal(expected)
                    func hit(_ payloads: [String]) -> Bool { payloads.map(normal).contains { $0 == wanted || $0 + "\n" == wanted } }
                    tally.images += 1
                    var start = Date()
                    if hit(zbar.recognize(image).map(\.payload)) { tally.zbar += 1 }
                    tally.zbarSeconds += Date().timeIntervalSince(start)
                    start = Date()
                    if hit(BarcodeRecognizer.zxingAlone(image, [symbology]).map(\.payload)) { tally.zxing += 1 }
                    tally.zxingSeconds += Date().timeIntervalSince(start)
                    start = Date()
                    if hit(scanner.scan(image).map(\.payload)) { tally.scannerd += 1 }
                    tally.scannerdSeconds += Date().timeIntervalSince(start)
                }
            }
            tallies[symbology] = tally
        }
        var out = "<!-- blackbox:begin (written by `make bench` with BLACKBOX=…) -->\n## Decode rate on zxing-cpp's blackbox samples\n\n"
        out += "Measured \(today) on \(machine); release build. Every image of `test/samples/{qrcode,ean13,code128}-N` of a "
        out += "zxing-cpp checkout, decoded at full size, read right when a payload equals its `.txt` (CR LF read as LF: the texts were committed with LF). zbar: as scannerd configures "
        out += "it (the one symbology, inverted tried); zxing-cpp 1.4: `ReadBarcodes`, try harder and rotate; scannerd: `scannerd scan` "
        out += "(zbar, then zxing-cpp on what zbar missed). Milliseconds are the mean per image.\n\n"
        out += "| samples | images | zbar | zxing-cpp | scannerd | ms zbar / zxing-cpp / scannerd |\n|---|---:|---:|---:|---:|---|\n"
        func percent(_ n: Int, _ of: Int) -> String { String(format: "%.1f %%", 100 * Double(n) / Double(max(1, of))) }
        var all = Tally()
        for (family, symbology) in families {
            guard let t = tallies[symbology] else { continue }
            all.images += t.images; all.zbar += t.zbar; all.zxing += t.zxing; all.scannerd += t.scannerd
            all.zbarSeconds += t.zbarSeconds; all.zxingSeconds += t.zxingSeconds; all.scannerdSeconds += t.scannerdSeconds
            out += "| \(family)-* | \(t.images) | \(percent(t.zbar, t.images)) | \(percent(t.zxing, t.images)) | \(percent(t.scannerd, t.images)) | "
            out += String(format: "%.1f / %.1f / %.1f", 1000 * t.zbarSeconds / Double(max(1, t.images)), 1000 * t.zxingSeconds / Double(max(1, t.images)), 1000 * t.scannerdSeconds / Double(max(1, t.images))) + " |\n"
        }
        out += "| **all** | \(all.images) | \(percent(all.zbar, all.images)) | \(percent(all.zxing, all.images)) | **\(percent(all.scannerd, all.images))** | "
        out += String(format: "%.1f / %.1f / %.1f", 1000 * all.zbarSeconds / Double(max(1, all.images)), 1000 * all.zxingSeconds / Double(max(1, all.images)), 1000 * all.scannerdSeconds / Double(max(1, all.images))) + " |\n"
        out += "<!-- blackbox:end -->\n"
        return out
    }
}
