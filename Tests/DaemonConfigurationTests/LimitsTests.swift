import Foundation
import TestSupport
import TestTraits
import Testing

@testable import DaemonConfiguration

/// A configuration file bounds what reading it costs (issue #11, docs/security.md): each of these
/// hung the daemon or took gigabytes before the limits.
@Suite(.offThePool(minutes: 2)) struct ConfigurationLimitsTests {
    static let laughs = HostileInputs.billionLaughs

    @Test func anchorsAndAliasesAreRefusedBeforeAnythingExpandsThem() {
        let found = errors(Self.laughs)
        #expect(found.count == 1 && found[0].hasSuffix(":2:10: refused: anchors (&name) are not supported"), "\(found)")
        // An alias as a mapping key would be hashed by Yams' duplicate-key check: refused first.
        let keyed = "recognition:\n  ? *a\n  : 1\n"
        #expect(errors(keyed).first?.hasSuffix(":2:5: refused: aliases (*name) are not supported") == true, "\(errors(keyed))")
    }

    @Test func sizeNodesAndDepthAreBounded() throws {
        let many = "recognition:\n" + (0..<6000).map { "  k\($0): [1]\n" }.joined()
        #expect(many.utf8.count < YAMLLimits.maximumBytes)
        #expect(errors(many).first?.hasSuffix("refused: more than 10000 values") == true, "\(errors(many).prefix(2))")
        let deep = "recognition:\n  types: " + String(repeating: "[", count: 20) + String(repeating: "]", count: 20) + "\n"
        #expect(errors(deep).first?.hasSuffix(":2:16: refused: nested more than 8 levels deep") == true, "\(errors(deep))")
        let large = "# " + String(repeating: "x", count: YAMLLimits.maximumBytes) + "\n"
        #expect(
            errors(large).first?.hasSuffix("cannot read the configuration: too large (1048579 bytes; at most 1 MiB)") == true,
            "\(errors(large).first ?? "")")
    }

    @Test func onlyARegularFileIsRead() throws {
        let fifo = NSTemporaryDirectory() + "scannerd-\(UUID().uuidString).fifo"
        #expect(mkfifo(fifo, 0o600) == 0)
        defer { unlink(fifo) }
        // Opening a FIFO for reading would wait for a writer forever; it is refused at once instead.
        #expect(loadErrors(fifo) == ["\(fifo): cannot read the configuration: not a regular file"])
        #expect(loadErrors(NSTemporaryDirectory()) == ["\(NSTemporaryDirectory()): cannot read the configuration: is a directory"])
        #expect(loadErrors("/no/such.conf") == ["/no/such.conf: cannot read the configuration: no such file"])
        let binary = NSTemporaryDirectory() + "scannerd-\(UUID().uuidString).conf"
        try Data([0x72, 0x3A, 0xFF, 0xFE, 0x0A]).write(to: URL(fileURLWithPath: binary))
        defer { unlink(binary) }
        #expect(loadErrors(binary) == ["\(binary): cannot read the configuration: not UTF-8 text"])
    }

    @Test func thousandsOfProblemsAreCountedNotListed() {
        let unknown = "recognition:\n" + (0..<300).map { "  unknown-key-\($0): 1\n" }.joined()
        let found = errors(unknown)
        #expect(found.count == ConfigurationErrors.listed + 1)
        #expect(found.last == "… and 280 more problems")
    }

    @Test func aBadValueIsNamedNotDumped() {
        let found = errors("recognition:\n  types: [[qr, [ean13]], {a: b}]\n")
        #expect(found == [found.first ?? ""] && found.first?.contains("recognition.types: invalid value '(a list)'") == true, "\(found)")
        #expect(!(found.first ?? "").contains("Node"), "no Yams.Node dump: \(found)")
        let long = "recognition:\n  quality: " + String(repeating: "q", count: 500) + "\n"
        // The line starts with the temporary file's path, whose length is not the point.
        let line = errors(long).first ?? ""
        let message = line.drop { $0 != " " }
        #expect(message.count < 160, "a long value is shortened: \(line)")
    }

    func loadErrors(_ path: String) -> [String] {
        do {
            _ = try ConfigurationLoader(filePath: path, environment: [:]).load()
            return []
        } catch {
            return error.errors.map(\.description)
        }
    }
}
