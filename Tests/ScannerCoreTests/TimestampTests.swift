import Foundation
import ScannerCore
import Testing

/// docs/protocol.md: every `time` is ISO 8601 in UTC with milliseconds.
@Suite struct TimestampTests {
    @Test func utcWithMilliseconds() {
        #expect(Timestamp.string(Date(timeIntervalSince1970: 1_795_384_326.6081)) == "2026-11-22T21:52:06.608Z")
        #expect(Timestamp.string(Date(timeIntervalSince1970: 1_795_384_326)) == "2026-11-22T21:52:06.000Z")
    }
}
