import Foundation
import InferenceRuntime
import TestSupport
import TestTraits
import Testing

/// The compiled-network cache (issue #56): a network compiled once is imported after, and computes
/// the same; an entry that is not exactly what the cache wrote for this model, shape, runtime and CPU
/// is refused and the network compiled again; a cache that cannot be written costs only itself.
/// Each test has its own directory; the detector at 64 × 64 compiles in a fraction of a second.
@Suite(.offThePool(minutes: 3)) struct NetworkCacheTests {
    static let models = Fixtures.packageRoot.appendingPathComponent(".build/models").path
    static let detector = (models as NSString).appendingPathComponent("text-detector.onnx")
    static let recognizer = (models as NSString).appendingPathComponent("text-recognizer.onnx")
    static let shape: [Int?] = [1, 3, 64, 64]
    static let limit = 64 << 20

    /// A fresh cache directory (removed by `cleanUp`).
    func makeCache() throws -> NetworkCache {
        let base = FileManager.default.temporaryDirectory.appendingPathComponent("network-cache-\(UUID().uuidString)").path
        return NetworkCache(directory: (base as NSString).appendingPathComponent("networks"))
    }

    func cleanUp(_ cache: NetworkCache) {
        try? FileManager.default.removeItem(atPath: (cache.directory as NSString).deletingLastPathComponent)
    }

    func entries(_ cache: NetworkCache) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: cache.directory)) ?? []).filter { $0.hasSuffix(".network") }.sorted()
    }

    func detector(_ cache: NetworkCache?, shape: [Int?] = Self.shape) throws -> NetworkModel {
        try NetworkModel(path: Self.detector, inputShape: shape, maximumBytes: Self.limit, cache: cache)
    }

    /// The network's output for a fixed input, to compare two of them.
    func output(_ model: NetworkModel) throws -> [Float] {
        let input: [Float] = (0..<(3 * 64 * 64)).map { (n: Int) -> Float in Float((n * 7919) % 255) / 255 - 0.5 }
        return try model.run(input, shape: [1, 3, 64, 64]) { values, _ in Array(values) }
    }

    @Test func aNetworkCompiledOnceIsImportedAfterAndComputesTheSame() throws {
        let cache = try makeCache()
        defer { cleanUp(cache) }
        let first = try detector(cache)
        #expect(first.origin == .compiled(refused: nil))
        #expect(entries(cache).count == 1, "one entry written")
        let second = try detector(cache)
        #expect(second.origin == .cache)
        let uncached = try detector(nil)
        #expect(uncached.origin == .compiled(refused: nil))
        let expected = try output(uncached)
        #expect(try output(second) == expected)
        #expect(try output(first) == expected)
        // Another shape is another entry; the directory is this user's alone.
        #expect(try detector(cache, shape: [1, 3, 32, 64]).origin == .compiled(refused: nil))
        #expect(entries(cache).count == 2)
        let mode = try #require(try FileManager.default.attributesOfItem(atPath: cache.directory)[.posixPermissions] as? Int)
        #expect(mode & 0o077 == 0)
    }

    @Test func aCorruptEntryIsRefusedAndWrittenAnew() throws {
        let cache = try makeCache()
        defer { cleanUp(cache) }
        _ = try detector(cache)
        let entry = (cache.directory as NSString).appendingPathComponent(try #require(entries(cache).first))
        var bytes = try Data(contentsOf: URL(fileURLWithPath: entry))
        bytes[bytes.count / 2] ^= 0x5A
        try bytes.write(to: URL(fileURLWithPath: entry))
        let refused = try detector(cache)
        guard case .compiled(let reason?) = refused.origin else {
            Issue.record("a corrupt entry was taken: \(refused.origin)")
            return
        }
        #expect(reason.contains("corrupt"))
        // Written anew: the next one imports it.
        #expect(try detector(cache).origin == .cache)
        // Cut short.
        try Data(bytes.prefix(bytes.count / 3)).write(to: URL(fileURLWithPath: entry))
        guard case .compiled(let short?) = try detector(cache).origin else {
            Issue.record("a truncated entry was taken")
            return
        }
        #expect(short.contains("cut short"))
    }

    /// Another model's entry put in this one's place, and files no one else may have written.
    @Test func aForeignEntryIsRefused() throws {
        let cache = try makeCache()
        defer { cleanUp(cache) }
        _ = try detector(cache)
        let mine = (cache.directory as NSString).appendingPathComponent(try #require(entries(cache).first))
        _ = try NetworkModel(path: Self.recognizer, inputShape: [1, 3, 48, nil], maximumBytes: Self.limit, cache: cache)
        let theirs = (cache.directory as NSString).appendingPathComponent(try #require(entries(cache).first { !mine.hasSuffix($0) }))
        try FileManager.default.removeItem(atPath: mine)
        try FileManager.default.copyItem(atPath: theirs, toPath: mine)
        guard case .compiled(let reason?) = try detector(cache).origin else {
            Issue.record("another model's entry was taken")
            return
        }
        #expect(reason.contains("another model"))
        // Arbitrary bytes with no header.
        try Data(repeating: 0x41, count: 4096).write(to: URL(fileURLWithPath: mine))
        guard case .compiled(let garbage?) = try detector(cache).origin else {
            Issue.record("bytes without a header were taken")
            return
        }
        #expect(garbage.contains("header") || garbage.contains("not a compiled network"))
        // A good entry anyone could have written, and a link to one.
        try FileManager.default.setAttributes([.posixPermissions: 0o666], ofItemAtPath: mine)
        guard case .compiled(let writable?) = try detector(cache).origin else {
            Issue.record("an entry writable by others was taken")
            return
        }
        #expect(writable.contains("writable by others"))
        #expect(try detector(cache).origin == .cache, "written anew, this user's alone")
        let copy = (cache.directory as NSString).appendingPathComponent("elsewhere")
        try FileManager.default.moveItem(atPath: mine, toPath: copy)
        try FileManager.default.createSymbolicLink(atPath: mine, withDestinationPath: copy)
        guard case .compiled(let link?) = try detector(cache).origin else {
            Issue.record("a link was followed")
            return
        }
        #expect(link.contains("not a regular file"))
        #expect(FileManager.default.fileExists(atPath: copy), "the link's target is left alone")
    }

    /// A cache directory that cannot be made (a file is in its place): the network is compiled, and
    /// nothing else changes.
    @Test func aCacheThatCannotBeWrittenCostsOnlyItself() throws {
        let cache = try makeCache()
        defer { cleanUp(cache) }
        let parent = (cache.directory as NSString).deletingLastPathComponent
        try FileManager.default.createDirectory(atPath: parent, withIntermediateDirectories: true)
        try Data("not a directory".utf8).write(to: URL(fileURLWithPath: cache.directory))
        let model = try detector(cache)
        #expect(model.origin == .compiled(refused: nil))
        #expect(try output(model).count == 64 * 64)
        #expect(try String(contentsOfFile: cache.directory, encoding: .utf8) == "not a directory")
        // A directory others may write: neither read nor written.
        try FileManager.default.removeItem(atPath: cache.directory)
        _ = try detector(cache)
        let entry = try #require(entries(cache).first)
        try FileManager.default.setAttributes([.posixPermissions: 0o777], ofItemAtPath: cache.directory)
        #expect(try detector(cache).origin == .compiled(refused: nil), "its entry is not taken")
        #expect(try detector(cache, shape: [1, 3, 32, 32]).origin == .compiled(refused: nil))
        #expect(entries(cache) == [entry], "nothing written there")
    }

    /// The entries are bounded: past `maximumTotalBytes` the least recently used go (an import counts
    /// as a use); files the cache did not name are left alone.
    @Test func theEntriesUsedLeastRecentlyGoFirst() throws {
        let base = try makeCache()
        defer { cleanUp(base) }
        // Room for two detector entries (~10 MB each), not three.
        let cache = NetworkCache(directory: base.directory, maximumTotalBytes: 25 << 20)
        _ = try detector(cache, shape: [1, 3, 32, 32])
        _ = try detector(cache, shape: [1, 3, 32, 64])
        try FileManager.default.createDirectory(atPath: cache.directory, withIntermediateDirectories: true)
        let other = (cache.directory as NSString).appendingPathComponent("notes.network")
        try Data("not ours".utf8).write(to: URL(fileURLWithPath: other))
        Thread.sleep(forTimeInterval: 0.05)
        // The first is used again: the second is now the least recently used.
        #expect(try detector(cache, shape: [1, 3, 32, 32]).origin == .cache)
        Thread.sleep(forTimeInterval: 0.05)
        _ = try detector(cache, shape: [1, 3, 64, 32])
        #expect(entries(cache).count == 3, "two entries and the file that is not one")
        #expect(try detector(cache, shape: [1, 3, 32, 32]).origin == .cache)
        #expect(try detector(cache, shape: [1, 3, 64, 32]).origin == .cache)
        #expect(try detector(cache, shape: [1, 3, 32, 64]).origin == .compiled(refused: nil), "removed")
        #expect(FileManager.default.fileExists(atPath: other))
    }

    /// Where the process's cache is: systemd's directory first, then the user's.
    @Test func theCacheIsWhereTheEnvironmentSays() {
        #expect(NetworkCache.resolve(["CACHE_DIRECTORY": "/var/cache/scannerd", "HOME": "/home/k"])?.directory == "/var/cache/scannerd/networks")
        #expect(NetworkCache.resolve(["CACHE_DIRECTORY": "/a:/b"])?.directory == "/a/networks")
        #expect(NetworkCache.resolve(["XDG_CACHE_HOME": "/x", "HOME": "/home/k"])?.directory == "/x/scannerd/networks")
        #expect(NetworkCache.resolve(["HOME": "/home/k"])?.directory == "/home/k/.cache/scannerd/networks")
        #expect(NetworkCache.resolve(["HOME": "relative"]) == nil)
        #expect(NetworkCache.resolve([:]) == nil)
    }
}
