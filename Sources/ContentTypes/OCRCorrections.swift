/// Repairs the characters OCR typically confuses with digits, only where digits are expected.
///
/// Tesseract reads `0` as `O`/`o`, `1` as `I`/`l`/`|`, `5` as `S` and `8` as `B` when fonts are small
/// or blurred. Fixing those everywhere would corrupt words, so a token (a run without spaces) is
/// repaired only when it already holds real digits, no fewer than the letters to replace, and nothing
/// but digits, those letters and the punctuation of phone numbers. Every replacement is one ASCII byte
/// for one ASCII byte, so byte offsets into the repaired text are offsets into the original.
public enum OCRCorrections {
    static let digitForLetter: [UInt8: UInt8] = [
        UInt8(ascii: "O"): UInt8(ascii: "0"), UInt8(ascii: "o"): UInt8(ascii: "0"),
        UInt8(ascii: "D"): UInt8(ascii: "0"),
        UInt8(ascii: "I"): UInt8(ascii: "1"), UInt8(ascii: "l"): UInt8(ascii: "1"), UInt8(ascii: "|"): UInt8(ascii: "1"),
        UInt8(ascii: "S"): UInt8(ascii: "5"), UInt8(ascii: "s"): UInt8(ascii: "5"),
        UInt8(ascii: "B"): UInt8(ascii: "8"),
        UInt8(ascii: "Z"): UInt8(ascii: "2"),
    ]
    static let phonePunctuation: Set<UInt8> = Set("()+-./".utf8)

    /// `text` with confusable letters replaced by digits inside digit-like tokens.
    public static func repairingDigits(in text: String) -> String {
        repairingTokens(of: text, with: repairToken)
    }

    /// `text` with `repair` applied to each token (a run without spaces), byte for byte.
    static func repairingTokens(of text: String, with repair: (inout [UInt8], Range<Int>) -> Void) -> String {
        var bytes = Array(text.utf8)
        var start = 0
        while start < bytes.count {
            while start < bytes.count, bytes[start] == UInt8(ascii: " ") { start += 1 }
            var end = start
            while end < bytes.count, bytes[end] != UInt8(ascii: " ") { end += 1 }
            repair(&bytes, start..<end)
            start = end
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    private static func repairToken(_ bytes: inout [UInt8], _ range: Range<Int>) {
        var digits = 0
        var letters = 0
        for b in bytes[range] {
            if (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(b) {
                digits += 1
            } else if digitForLetter[b] != nil {
                letters += 1
            } else if !phonePunctuation.contains(b) {
                return  // a real word, a price ($), an e-mail address (@): leave it alone
            }
        }
        guard letters > 0, digits >= max(letters, 1) else { return }
        // Only inside a group that holds a real digit (between punctuation): a letter that is a group
        // of its own is a prefix, not a misread digit (a Spanish tax number's `B-61759205`, which read
        // `8-61759205` is a Spanish phone number; issue #40's development receipts).
        var groupStart = range.lowerBound
        while groupStart < range.upperBound {
            var groupEnd = groupStart
            while groupEnd < range.upperBound, !phonePunctuation.contains(bytes[groupEnd]) { groupEnd += 1 }
            let group = groupStart..<groupEnd
            if bytes[group].contains(where: { (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }) {
                for i in group { if let digit = digitForLetter[bytes[i]] { bytes[i] = digit } }
            }
            groupStart = groupEnd + 1
        }
    }
}

extension OCRCorrections {
    /// `text` with a comma read for a dot inside a web identifier repaired: "studios,com" →
    /// "studios.com", "labs,co,uk/team" → "labs.co.uk/team". Only in a token that is already an
    /// address or a link (it holds `@`, `/`, `www.` or a dot of its own), and only a comma between
    /// two letters or digits, so "Acme,Co" and "1,5" stay as they are. One byte for one byte.
    public static func repairingDomainCommas(in text: String) -> String {
        repairingTokens(of: text) { bytes, token in
            let webLike = bytes[token].contains { $0 == UInt8(ascii: "@") || $0 == UInt8(ascii: "/") || $0 == UInt8(ascii: ".") }
            guard webLike, token.count >= 5 else { return }
            for i in (token.lowerBound + 1)..<(token.upperBound - 1)
            where bytes[i] == UInt8(ascii: ",") && isAlphanumeric(bytes[i - 1]) && isAlphanumeric(bytes[i + 1]) {
                bytes[i] = UInt8(ascii: ".")
            }
        }
    }

    static func isAlphanumeric(_ b: UInt8) -> Bool {
        (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(b) || (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(b | 0x20)
    }
}
