import BarcodeRecognition
import Foundation
import ImageDecoding
import Recognition
import ScannerCore

/// Decode rate on zxing-cpp's own blackbox samples (issues #17, #41): every `test/samples/NAME-N` set of
/// a zxing-cpp checkout, each image with its expected text beside it (`N.txt`, or `N.bin` for binary
/// data; for `01-02.png`, `01.txt`). Nothing of it is committed here: `make bench BLACKBOX=…/test/samples`.
/// zbar alone, zxing-cpp 3.x alone (its defaults) and scannerd's still-image scan on the same images,
/// each asked for the set's symbology; the `falsepositives` sets (no code in them), asked for every one.
enum BlackboxBenchmark {
    /// The sets' names by symbology. `dxfilmedge` (film canisters) is no symbology a kiosk reads;
    /// `multi` has no expected texts.
    static let families: [String: Symbology] = [
        "aztec": .aztec, "codabar": .codabar, "code128": .code128, "code39": .code39, "code93": .code93,
        "databarltd": .gs1DataBarLimited, "datamatrix": .datamatrix, "ean13": .ean13, "ean13-extension": .ean13, "ean8": .ean8,
        "itf": .i2of5, "maxicode": .maxicode, "micropdf417": .micropdf417, "microqrcode": .microqr, "pdf417": .pdf417,
        "qrcode": .qr, "rmqrcode": .rmqr, "rss14": .gs1DataBar, "rssexpanded": .gs1DataBarExpanded,
        "rssexpandedstacked": .gs1DataBarExpanded, "telepen": .telepen, "upca": .upca, "upca-extension": .upca, "upce": .upce,
    ]

    struct Tally {
        var images = 0, zbar = 0, zxing = 0, scannerd = 0
        var zbarSeconds = 0.0, zxingSeconds = 0.0, scannerdSeconds = 0.0

        mutating func add(_ other: Tally) {
            images += other.images
            zbar += other.zbar
            zxing += other.zxing
            scannerd += other.scannerd
            zbarSeconds += other.zbarSeconds
            zxingSeconds += other.zxingSeconds
            scannerdSeconds += other.scannerdSeconds
        }
    }

    /// One reading as bytes-or-text, to compare with an expected `.txt` or `.bin`.
    struct Reading {
        var symbology: Symbology?
        var payload: String
        var base64: String?
    }

    static func render(samples: String, today: String, machine: String) throws -> String {
        let fm = FileManager.default
        guard fm.fileExists(atPath: samples) else { return "" }
        let decoder = try ImageDecoder()
        let sets = try fm.contentsOfDirectory(atPath: samples).sorted()
        var tallies: [(String, Tally)] = []
        var skipped: [String] = []
        for (family, symbology) in families.sorted(by: { $0.key < $1.key }) {
            let directories = sets.filter { name in
                guard let dash = name.lastIndex(of: "-"), Int(name[name.index(after: dash)...]) != nil else { return false }
                return name[..<dash] == family
            }
            guard !directories.isEmpty else { continue }
            let zbar = try ZBarScanner(symbologies: [symbology], testInverted: true)
            let zxing = ZXingReader(symbologies: [symbology])
            let scanner = try ImageScanner(options: ScanOptions(types: RecognitionTypes(symbologies: [symbology], contentTypes: [])))
            var tally = Tally()
            for directory in directories {
                let path = samples + "/" + directory
                for file in try fm.contentsOfDirectory(atPath: path).sorted() where !file.hasSuffix(".txt") && !file.hasSuffix(".bin") {
                    let stem = String(file[..<(file.lastIndex(of: ".") ?? file.endIndex)])
                    let stems = [stem, String(stem.split(separator: "-").first ?? "")]
                    let expected = stems.lazy.compactMap { stem -> Expected? in
                        if let bytes = fm.contents(atPath: path + "/" + stem + ".bin") { return .bytes(bytes) }
                        if let data = fm.contents(atPath: path + "/" + stem + ".txt") { return .text(String(decoding: data, as: UTF8.self)) }
                        return nil
                    }.first
                    guard let expected, let image = try? decoder.decodeFile(atPath: path + "/" + file).image else {
                        skipped.append(directory + "/" + file)
                        continue
                    }
                    tally.images += 1
                    var start = Date()
                    if expected.matches(zbar.scan(image).map { Reading(symbology: $0.symbology, payload: $0.payload, base64: $0.payloadBase64) }) {
                        tally.zbar += 1
                    }
                    tally.zbarSeconds += Date().timeIntervalSince(start)
                    start = Date()
                    if expected.matches(zxing.read(image).map { Reading(symbology: $0.symbology, payload: $0.payload, base64: $0.payloadBase64) }) {
                        tally.zxing += 1
                    }
                    tally.zxingSeconds += Date().timeIntervalSince(start)
                    start = Date()
                    if expected.matches(
                        scanner.scan(image).map { Reading(symbology: $0.symbology, payload: $0.payload, base64: $0.details?.payloadBase64) })
                    {
                        tally.scannerd += 1
                    }
                    tally.scannerdSeconds += Date().timeIntervalSince(start)
                }
            }
            tallies.append((family, tally))
        }
        // Images with no code: anything read is false.
        let every = Set(Symbology.allCases)
        let zbarAll = try ZBarScanner(symbologies: every, testInverted: true)
        let zxingAll = ZXingReader(symbologies: every)
        let scannerAll = try ImageScanner(options: ScanOptions(types: RecognitionTypes(symbologies: every, contentTypes: [])))
        var falseImages = 0
        var falseZBar = 0
        var falseZXing = 0
        var falseScannerd = 0
        for directory in sets where directory.hasPrefix("falsepositives-") {
            let path = samples + "/" + directory
            for file in try fm.contentsOfDirectory(atPath: path).sorted() where !file.hasSuffix(".txt") {
                guard let image = try? decoder.decodeFile(atPath: path + "/" + file).image else { continue }
                falseImages += 1
                falseZBar += zbarAll.scan(image).count
                falseZXing += zxingAll.read(image).count
                falseScannerd += scannerAll.scan(image).count
            }
        }

        var out = "<!-- blackbox:begin (written by `make bench` with BLACKBOX=…) -->\n## Decode rate on zxing-cpp's blackbox samples\n\n"
        out += "Measured \(today) on \(machine); release build. Every image of every `test/samples/NAME-N` set of a zxing-cpp "
        out += "checkout (`dxfilmedge` is no kiosk symbology, `multi` has no expected texts), decoded at full size, read right when a "
        out += "payload equals its `.txt` or `.bin` (CR LF read as LF: the texts were committed with LF; EAN/UPC compared as GTIN-13, so a "
        out += "UPC-E's 8 digits match its expansion). Each reader is asked for the set's symbology. zbar: as scannerd configures it "
        out += "(inverted tried); zxing-cpp \(ZXingReader.version): its defaults (try harder, rotate, invert, downscale); scannerd: "
        out += "`scannerd scan` (zxing-cpp, then zbar for what it missed). Milliseconds are the mean per image.\n\n"
        out += "| samples | images | zbar | zxing-cpp | scannerd | ms zbar / zxing-cpp / scannerd |\n|---|---:|---:|---:|---:|---|\n"
        func percent(_ n: Int, _ of: Int) -> String { String(format: "%.1f %%", 100 * Double(n) / Double(max(1, of))) }
        func ms(_ t: Tally) -> String {
            String(
                format: "%.1f / %.1f / %.1f", 1000 * t.zbarSeconds / Double(max(1, t.images)), 1000 * t.zxingSeconds / Double(max(1, t.images)),
                1000 * t.scannerdSeconds / Double(max(1, t.images)))
        }
        var all = Tally()
        for (family, t) in tallies {
            all.add(t)
            out +=
                "| \(family)-* | \(t.images) | \(percent(t.zbar, t.images)) | \(percent(t.zxing, t.images)) | \(percent(t.scannerd, t.images)) | \(ms(t)) |\n"
        }
        out += "| **all** | \(all.images) | \(percent(all.zbar, all.images)) (\(all.zbar)) | \(percent(all.zxing, all.images)) (\(all.zxing)) | "
        out += "**\(percent(all.scannerd, all.images)) (\(all.scannerd))** | \(ms(all)) |\n\n"
        out += "The `falsepositives-*` sets, \(falseImages) images without a code, every symbology asked for: codes read by zbar \(falseZBar), "
        out += "by zxing-cpp \(falseZXing), by scannerd \(falseScannerd).\n"
        if !skipped.isEmpty { out += "Not counted (no expected text, or not decodable here): \(skipped.count) files.\n" }
        out += "<!-- blackbox:end -->\n"
        return out
    }

    enum Expected {
        case text(String)
        case bytes(Data)

        func matches(_ readings: [Reading]) -> Bool {
            switch self {
            case .bytes(let data):
                return readings.contains { reading in
                    (reading.base64.flatMap { Data(base64Encoded: $0) } ?? Data(reading.payload.utf8)) == data
                }
            case .text(let text):
                let wanted = Self.normal(text)
                return readings.contains { reading in
                    let got = Self.normal(reading.payload)
                    if got == wanted || got + "\n" == wanted { return true }
                    guard let symbology = reading.symbology, [.ean13, .ean8, .upca, .upce].contains(symbology) else { return false }
                    return Self.gtin13(got, upce: symbology == .upce) == Self.gtin13(wanted, upce: wanted.count == 8 && symbology == .upce)
                }
            }
        }

        /// The samples' texts were committed with LF line ends; the symbols hold CR LF.
        static func normal(_ text: String) -> String { text.replacingOccurrences(of: "\r\n", with: "\n") }

        /// EAN/UPC digits as a GTIN-13: UPC-A with a leading zero, UPC-E expanded to its UPC-A first.
        static func gtin13(_ digits: String, upce: Bool) -> String? {
            var d = Array(digits.trimmingCharacters(in: .whitespacesAndNewlines))
            guard d.allSatisfy(\.isASCII), d.allSatisfy(\.isNumber) else { return nil }
            if upce, d.count == 8 {
                // UPC-E number system, six digits, check → UPC-A (the standard zero suppression rules).
                let (s, x, check) = (d[0], Array(d[1...6]), d[7])
                let body: [Character]
                switch x[5] {
                case "0", "1", "2": body = [x[0], x[1], x[5], "0", "0", "0", "0", x[2], x[3], x[4]]
                case "3": body = [x[0], x[1], x[2], "0", "0", "0", "0", "0", x[3], x[4]]
                case "4": body = [x[0], x[1], x[2], x[3], "0", "0", "0", "0", "0", x[4]]
                default: body = [x[0], x[1], x[2], x[3], x[4], "0", "0", "0", "0", x[5]]
                }
                d = [s] + body + [check]
            }
            switch d.count {
            case 12: return "0" + String(d)
            case 13: return String(d)
            default: return String(d)
            }
        }
    }
}
