import CCrypto
import Foundation
import Logging
import Synchronization

/// Networks compiled before, kept on disk (issue #56). OpenVINO reading an ONNX model, fixing its
/// input shape and compiling it for the CPU costs 0.4–0.6 s a network on a CPU without AVX-512, and
/// a process compiles two or three (`scan`: the recognizer and the detector at the image's size; the
/// live pipeline: the recognizer and the detector at each window shape, the later ones on the text
/// thread when first needed); importing what the runtime compiled before takes ~0.15 s
/// (docs/benchmarks.md).
///
/// One file an entry, `<identity>.network`: a header line, then the runtime's export of the
/// compiled network (`cov_export`):
///
///     scannerd-compiled-network 1 <identity> <payload bytes> <payload SHA-256>\n<payload>
///
/// The identity is the SHA-256 of what the compiled network depends on: the model file's SHA-256,
/// the input shape, the thread count, the runtime's version and the CPU (`/proc/cpuinfo`'s model
/// name and flags: the runtime compiles for the instructions it finds). A model replaced is a new
/// identity, so its old entry is never read again.
///
/// The runtime's importer parses the bytes it is given as they are, so an entry is imported only
/// when it is a regular file (not a link) of this user's, written by no one else (neither it nor
/// its directory writable by group or others), of at most `maximumBytes`, whose header names this
/// identity and whose payload has the length and digest the header gives. Anything else — corrupt,
/// cut short, written for another model, shape or machine, or placed there by someone else — is
/// refused with one log line, the network compiled again and its entry written anew. A directory
/// that cannot be made or written costs the cache, nothing else.
public struct NetworkCache: Sendable, Equatable {
    public let directory: String
    /// The most the entries may hold together (bytes): after an entry is written, the entries used
    /// least recently (an import touches its entry) are removed until the rest fit. `scan` compiles
    /// the detector for each size of photo it is given, so a folder of photos of many sizes would
    /// otherwise leave an entry of ~10 MB for each; the live pipeline needs three.
    public let maximumTotalBytes: Int
    /// The largest entry read: the two networks' entries are 10–13 MB.
    public static let maximumBytes = 64 << 20

    static let magic = "scannerd-compiled-network"
    static let version = 1
    static let log = Logger(label: "scannerd.networks")

    public init(directory: String, maximumTotalBytes: Int = 256 << 20) {
        self.directory = directory
        self.maximumTotalBytes = maximumTotalBytes
    }

    /// The process's cache: systemd's `$CACHE_DIRECTORY` (the unit's `CacheDirectory=scannerd`;
    /// `make run` and `make test` set it to one under .build), else `$XDG_CACHE_HOME/scannerd`, else
    /// `~/.cache/scannerd`; its `networks` directory. Nil when none of them is set.
    public static let process: NetworkCache? = resolve(ProcessInfo.processInfo.environment)

    /// The cache the environment names (`process`).
    public static func resolve(_ environment: [String: String]) -> NetworkCache? {
        let base: String
        if let systemd = environment["CACHE_DIRECTORY"], !systemd.isEmpty {
            // systemd may name several, separated by colons: the first is the unit's own.
            base = String(systemd.split(separator: ":").first ?? Substring(systemd))
        } else if let xdg = environment["XDG_CACHE_HOME"], xdg.hasPrefix("/") {
            base = (xdg as NSString).appendingPathComponent("scannerd")
        } else if let home = environment["HOME"], home.hasPrefix("/") {
            base = (home as NSString).appendingPathComponent(".cache/scannerd")
        } else {
            return nil
        }
        return NetworkCache(directory: (base as NSString).appendingPathComponent("networks"))
    }

    /// What a compiled network depends on, digested: its entry's name.
    struct Identity: Equatable {
        var digest: String
    }

    /// The identity of `model` (its file at `path`) compiled for `shape` on `threads` threads.
    static func identity(path: String, shape: [Int64], threads: Int, runtime: String) throws(InferenceError) -> Identity {
        let model = try ModelDigests.digest(of: path)
        let text = [
            magic, "\(version)", model, shape.map(String.init).joined(separator: "x"), "threads \(threads)", runtime, cpu,
        ].joined(separator: "\n")
        return Identity(digest: hex(sha256(Data(text.utf8))))
    }

    /// The entry's path.
    func path(of identity: Identity) -> String {
        (directory as NSString).appendingPathComponent(identity.digest + ".network")
    }

    /// What looking an identity up found.
    enum Lookup: Equatable {
        /// Nothing there: the network is compiled and its entry written.
        case missing
        /// The compiled network, checked.
        case found(Data)
        /// Something there that is not this identity's entry, and why.
        case refused(String)
        /// The directory is not one only this user writes: the cache is not used at all.
        case unusable(String)
    }

    func lookup(_ identity: Identity) -> Lookup {
        if FileManager.default.fileExists(atPath: directory), let problem = Self.directoryProblem(directory) { return .unusable(problem) }
        let path = path(of: identity)
        var status = stat()
        guard lstat(path, &status) == 0 else { return .missing }
        guard (status.st_mode & S_IFMT) == S_IFREG else { return .refused("not a regular file") }
        guard status.st_uid == geteuid() else { return .refused("owned by another user") }
        guard status.st_mode & (S_IWGRP | S_IWOTH) == 0 else { return .refused("writable by others") }
        guard Int(status.st_size) <= Self.maximumBytes else { return .refused("\(status.st_size) bytes, more than \(Self.maximumBytes)") }
        guard let handle = FileHandle(forReadingAtPath: path) else { return .refused("cannot be read") }
        defer { try? handle.close() }
        guard let data = try? handle.read(upToCount: Self.maximumBytes + 1), data.count <= Self.maximumBytes else {
            return .refused("cannot be read")
        }
        guard let newline = data.prefix(256).firstIndex(of: UInt8(ascii: "\n")) else { return .refused("no header") }
        let fields = String(decoding: data[data.startIndex..<newline], as: UTF8.self).split(separator: " ")
        guard fields.count == 5, fields[0] == Self.magic, fields[1] == "\(Self.version)" else { return .refused("not a compiled network") }
        guard fields[2] == identity.digest else { return .refused("written for another model, shape, runtime or CPU") }
        let payload = data[(newline + 1)...]
        guard Int(fields[3]) == payload.count else { return .refused("cut short or grown: \(payload.count) bytes, its header says \(fields[3])") }
        guard fields[4] == Self.hex(Self.sha256(payload)) else { return .refused("corrupt: its digest does not match") }
        // Used now: the last to be removed when the entries outgrow `maximumTotalBytes`.
        utimes(path, nil)
        return .found(payload)
    }

    /// Writes `identity`'s entry: `export` writes the runtime's bytes to the path it is given (a
    /// temporary file beside the entry); they are framed and the entry put in place by a rename, so a
    /// reader never sees half an entry. Nil, or why it was not written.
    func store(_ identity: Identity, export: (String) -> String?) -> String? {
        do {
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        } catch {
            return "cannot make the directory: \(error.localizedDescription)"
        }
        if let problem = Self.directoryProblem(directory) { return "the directory is \(problem)" }
        let unique = "\(getpid())-\(UUID().uuidString)"
        let exported = (directory as NSString).appendingPathComponent(".\(identity.digest).\(unique).export")
        let framed = (directory as NSString).appendingPathComponent(".\(identity.digest).\(unique).tmp")
        defer {
            unlink(exported)
            unlink(framed)
        }
        if let problem = export(exported) { return problem }
        guard let payload = FileManager.default.contents(atPath: exported), payload.count <= Self.maximumBytes - 512 else {
            return "the runtime's export cannot be read back"
        }
        let header = "\(Self.magic) \(Self.version) \(identity.digest) \(payload.count) \(Self.hex(Self.sha256(payload)))\n"
        guard FileManager.default.createFile(atPath: framed, contents: Data(header.utf8) + payload, attributes: [.posixPermissions: 0o600])
        else { return "cannot write \(framed)" }
        guard rename(framed, path(of: identity)) == 0 else { return "cannot put the entry in place: \(String(cString: strerror(errno)))" }
        prune()
        return nil
    }

    /// Removes the entries used least recently until the rest hold at most `maximumTotalBytes`. Only
    /// entries are touched: regular files of this user's named as the cache names them
    /// (`<64 hex digits>.network`); anything else in the directory is left alone.
    func prune() {
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: directory) else { return }
        var entries: [(path: String, size: Int, used: Int)] = []
        for name in names where Self.isEntryName(name) {
            let path = (directory as NSString).appendingPathComponent(name)
            var status = stat()
            guard lstat(path, &status) == 0, (status.st_mode & S_IFMT) == S_IFREG, status.st_uid == geteuid() else { continue }
            entries.append((path, Int(status.st_size), Int(status.st_mtim.tv_sec) * 1_000_000_000 + Int(status.st_mtim.tv_nsec)))
        }
        var total = 0
        for entry in entries.sorted(by: { $0.used > $1.used }) {
            total += entry.size
            if total > maximumTotalBytes { unlink(entry.path) }
        }
    }

    /// Whether `name` is one the cache gives an entry: 64 lowercase hex digits and `.network`.
    static func isEntryName(_ name: String) -> Bool {
        guard name.hasSuffix(".network") else { return false }
        let digest = name.dropLast(".network".count)
        return digest.count == 64 && digest.allSatisfy { $0.isHexDigit && !$0.isUppercase }
    }

    /// Logs `message` once a process: a cache that cannot be used says so once, not for each network.
    static func logOnce(_ level: Logger.Level, _ message: String) {
        guard logged.withLock({ $0.insert(message).inserted }) else { return }
        log.log(level: level, "\(message)")
    }

    private static let logged = Mutex<Set<String>>([])

    /// Why `directory` is not one only this user writes: nil when it is.
    static func directoryProblem(_ directory: String) -> String? {
        var status = stat()
        guard stat(directory, &status) == 0, (status.st_mode & S_IFMT) == S_IFDIR else { return "not a directory" }
        guard status.st_uid == geteuid() else { return "owned by another user" }
        guard status.st_mode & (S_IWGRP | S_IWOTH) == 0 else { return "writable by others" }
        return nil
    }

    /// The CPU the runtime compiles for: `/proc/cpuinfo`'s first model name and flags.
    static let cpu: String = {
        guard let text = try? String(contentsOfFile: "/proc/cpuinfo", encoding: .utf8) else { return "unknown CPU" }
        let lines = text.split(separator: "\n")
        let wanted = ["model name", "flags", "Features", "CPU implementer", "CPU part"]
        return wanted.compactMap { key in lines.first { $0.hasPrefix(key) }.map(String.init) }.joined(separator: "\n")
    }()

    /// SHA-256 of `bytes` (a slice of a file read whole is digested in place, not copied).
    static func sha256(_ bytes: Data) -> [UInt8] {
        var digest = [UInt8](repeating: 0, count: 32)
        let ok = bytes.withUnsafeBytes { ccrypto_sha256($0.baseAddress, $0.count, &digest) }
        return ok == 1 ? digest : []
    }

    static func hex(_ bytes: [UInt8]) -> String {
        bytes.map { String(format: "%02x", $0) }.joined()
    }
}

/// Model files' digests, each computed once a process (the detector is compiled for several shapes);
/// a file changed since (its size or time) is digested again.
enum ModelDigests {
    private static let known = Mutex<[String: (size: Int, modified: Int, digest: String)]>([:])

    static func digest(of path: String) throws(InferenceError) -> String {
        var status = stat()
        guard stat(path, &status) == 0 else { throw .missing(path: path) }
        let size = Int(status.st_size)
        let modified = Int(status.st_mtim.tv_sec) * 1_000_000_000 + Int(status.st_mtim.tv_nsec)
        if let entry = known.withLock({ $0[path] }), entry.size == size, entry.modified == modified { return entry.digest }
        let data = try ModelFile.contents(of: path, limit: NetworkCache.maximumBytes)
        let digest = NetworkCache.hex(NetworkCache.sha256(data))
        known.withLock { $0[path] = (size, modified, digest) }
        return digest
    }
}
