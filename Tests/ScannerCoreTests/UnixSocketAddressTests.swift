import Foundation
import ScannerCore
import Testing

/// One `sockaddr_un` builder for the server, the client and the systemd notifier.
@Suite struct UnixSocketAddressTests {
    /// The family, the path and its NUL; an abstract name (`@…`) has no NUL and a leading zero byte.
    @Test func lengthsAndBytes() {
        let path = UnixSocketAddress(path: "/run/scannerd/scannerd.sock")
        #expect(path?.length == socklen_t(MemoryLayout<sa_family_t>.size + 27 + 1))
        let abstract = UnixSocketAddress(path: "@/org/freedesktop/systemd1/notify")
        #expect(abstract?.length == socklen_t(MemoryLayout<sa_family_t>.size + 33))
        abstract?.withSockaddr { pointer, _ in
            pointer.withMemoryRebound(to: UInt8.self, capacity: MemoryLayout<sa_family_t>.size + 2) { bytes in
                #expect(bytes[MemoryLayout<sa_family_t>.size] == 0, "the abstract namespace's leading zero")
                #expect(bytes[MemoryLayout<sa_family_t>.size + 1] == UInt8(ascii: "/"))
            }
        }
    }

    /// A path that does not fit `sun_path` (107 bytes and its NUL), or none at all, is no address.
    @Test func pathsThatDoNotFitAreRefused() {
        #expect(UnixSocketAddress(path: "") == nil)
        #expect(UnixSocketAddress(path: "/" + String(repeating: "a", count: 106)) != nil)
        #expect(UnixSocketAddress(path: "/" + String(repeating: "a", count: 107)) == nil)
    }
}
