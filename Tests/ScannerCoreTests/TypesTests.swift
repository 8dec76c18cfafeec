import Foundation
import ScannerCore
import Testing

@Suite(.timeLimit(.minutes(2))) struct RecognitionTypesTests {
    @Test func parsesNamesAndGroups() throws {
        let types = try RecognitionTypes(parsing: "qr,ean13, telephoneNumber")
        #expect(types.symbologies == [.qr, .ean13])
        #expect(types.contentTypes == [.telephoneNumber])
        #expect(!types.plainText)

        let groups = try RecognitionTypes(parsing: "barcodes,text")
        #expect(groups.symbologies == Set(Symbology.allCases))
        #expect(groups.contentTypes.isEmpty && groups.plainText)
        #expect(try RecognitionTypes(parsing: "contentTypes").contentTypes == TextContentType.standard)
    }

    @Test func unknownNameIsAnErrorNamingIt() {
        #expect {
            try RecognitionTypes(parsing: "qr,qrcode")
        } throws: { error in
            guard case ScannerError.invalidArgument(name: "types", value: "qrcode", _) = error else { return false }
            return true
        }
        #expect(throws: ScannerError.self) { try RecognitionTypes(parsing: ",") }
    }

    @Test func defaultTypesDoNotReportPlainText() {
        #expect(RecognitionTypes.all.wantsText && RecognitionTypes.all.wantsBarcodes)
        #expect(!RecognitionTypes.all.plainText)
    }
}

@Suite(.timeLimit(.minutes(2))) struct JSONValueTests {
    @Test func keepsKeyOrderAndEscapes() {
        let value = JSONValue.object([
            ("z", .string("a\"b\\c\nd\u{01}é")), ("a", .integer(-3)), ("m", .array([.bool(true), .null])),
        ])
        #expect(value.serialized() == #"{"z":"a\"b\\c\nd\u0001é","a":-3,"m":[true,null]}"#)
    }

    /// Escapes inside grapheme clusters (a quote with a combining accent, CR LF) and long runs
    /// without any: what is written decodes back to the very string.
    @Test func everyStringRoundTrips() throws {
        let long = String(repeating: "QUJD+/9=", count: 100_000)
        for text in ["\"\u{301}x", "a\r\nb", "\u{301}\"", "👩‍👩‍👧\"\\", "", "\u{7F}\u{1F}", long, "end\""] {
            let line = JSONValue.string(text).serialized()
            let decoded = try JSONDecoder().decode(String.self, from: Data(line.utf8))
            #expect(decoded == text, "\(line.prefix(40))")
        }
    }

    @Test func numbersAreRoundedAndTrimmed() {
        #expect(JSONValue.number(0.123456, decimals: 4).serialized() == "0.1235")
        #expect(JSONValue.number(1.0, decimals: 3).serialized() == "1")
        #expect(JSONValue.number(0.5, decimals: 3).serialized() == "0.5")
        #expect(JSONValue.number(-0.00001, decimals: 3).serialized() == "0")
        #expect(JSONValue.number(.nan).serialized() == "null")
    }
}
