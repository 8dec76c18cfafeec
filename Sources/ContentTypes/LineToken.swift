/// A line of text cut into runs of digits, runs of letters and single marks, each with its byte range
/// and whether white space comes before it: what the date and address finders match on.
struct LineToken {
    enum Class { case number, word, mark }
    var kind: Class
    /// Digits, a word in lower case, or one mark.
    var text: String
    /// As printed (a word's capitals: a state's code, a postcode).
    var original: String
    var range: Range<Int>
    /// Whether white space comes right before it.
    var spaced: Bool

    /// A number's value (nil past nine digits: no date, time or house number has them).
    var value: Int? { kind == .number && text.count <= 9 ? Int(text) : nil }
    func isMark(_ marks: Set<String>) -> Bool { kind == .mark && marks.contains(text) }
    func isWord(_ words: Set<String>) -> Bool { kind == .word && words.contains(text) }
    /// A word that starts with a capital (`Main`, `MAIN`).
    var isCapitalized: Bool { kind == .word && original.first?.isUppercase == true }
    var isUppercase: Bool { kind == .word && original.allSatisfy { $0.isUppercase } }

    static func tokens(of line: String) -> [LineToken] {
        var tokens: [LineToken] = []
        var offset = 0
        var spaced = false
        for scalar in line.unicodeScalars {
            let width = scalar.utf8.count
            defer { offset += width }
            let kind: Class
            if scalar.isASCII && scalar.properties.numericType == .decimal {
                kind = .number
            } else if scalar.properties.isAlphabetic {
                kind = .word
            } else if scalar.properties.isWhitespace || scalar.value == 0 {
                spaced = true
                continue
            } else {
                kind = .mark
            }
            if kind != .mark, let last = tokens.last, last.kind == kind, last.range.upperBound == offset, !spaced {
                tokens[tokens.count - 1].text += String(scalar).lowercased()
                tokens[tokens.count - 1].original += String(scalar)
                tokens[tokens.count - 1].range = last.range.lowerBound..<(offset + width)
            } else {
                tokens.append(
                    LineToken(
                        kind: kind, text: String(scalar).lowercased(), original: String(scalar), range: offset..<(offset + width), spaced: spaced))
            }
            spaced = false
        }
        return tokens
    }
}
