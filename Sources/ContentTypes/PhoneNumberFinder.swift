import CPhoneNumber
import ScannerCore

/// A phone number found by libphonenumber in a piece of text.
public struct PhoneNumberMatch: Sendable, Equatable {
    /// Byte range in the UTF-8 text that was searched.
    public var utf8Range: Range<Int>
    /// E.164, e.g. `+14155550123`.
    public var e164: String
}

/// libphonenumber's `PhoneNumberMatcher` (via the `CPhoneNumber` shim): finds numbers that are valid
/// for their region, written in any of the ways people write them.
public struct PhoneNumberFinder: Sendable {
    /// ISO 3166-1 alpha-2 region assumed for numbers written without a country code.
    public let defaultRegion: String

    public init(defaultRegion: String) throws(ScannerError) {
        let region = defaultRegion.uppercased()
        guard cpn_is_supported_region(region) == 1 else {
            throw .invalidArgument(
                name: "region", value: defaultRegion,
                reason: "not a region libphonenumber knows (use an ISO 3166 code such as US, GB, DE)")
        }
        self.defaultRegion = region
    }

    /// Every valid number in `text`.
    public func matches(in text: String) -> [PhoneNumberMatch] {
        var capacity: Int32 = 8
        while true {
            var buffer = [cpn_match](repeating: cpn_match(), count: Int(capacity))
            let found = cpn_find_numbers(text, defaultRegion, CPN_LENIENCY_VALID, &buffer, capacity)
            if found < 0 { return [] }
            if found > capacity {
                capacity = found
                continue
            }
            return buffer.prefix(Int(found)).map { match in
                var e164 = match.e164
                let number = withUnsafeBytes(of: &e164) { raw in
                    String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
                }
                return PhoneNumberMatch(
                    utf8Range: Int(match.start)..<Int(match.start + match.length), e164: number)
            }
        }
    }
}
