import Foundation
import ScannerClient
import ScannerCore
import ScannerProtocol
import Tracking

/// One home for what several test targets need.

/// A tracked item for event tests: a QR code, or a phone number when `kind` is text.
public func tracked(_ payload: String, kind: RecognizedItem.Kind = .barcode, id: Int = 1) -> TrackedItem {
    let item =
        kind == .barcode
        ? RecognizedItem(kind: .barcode, symbology: .qr, payload: payload, bounds: Quad(x: 0.1, y: 0.1, width: 0.2, height: 0.2), confidence: 1)
        : RecognizedItem(
            kind: .text, contentType: .telephoneNumber, payload: payload, transcript: payload, bounds: Quad(x: 0.1, y: 0.5, width: 0.3, height: 0.05),
            confidence: 0.9)
    return TrackedItem(id: UUID(uuidString: String(format: "00000000-0000-0000-0000-%012d", id))!, item: item, firstFrame: 0, lastFrame: 0)
}

/// Event and reply lines, as tests read them: events typed (`EventLine`, the protocol's one
/// decoder), anything else as `JSONValue`.
public enum JSONLines {
    /// One line's JSON; `.null` when it is not JSON.
    public static func object(_ line: String?) -> JSONValue {
        guard let line, let value = try? JSONDecoder().decode(JSONValue.self, from: Data(line.utf8)) else { return .null }
        return value
    }

    /// The JSON objects among `lines` (log lines and the like are skipped).
    public static func objects(_ lines: [String]) -> [JSONValue] {
        lines.map(object).filter { if case .object = $0 { true } else { false } }
    }

    /// The events among `lines`, in order (replies and log lines are skipped).
    public static func events(_ lines: [String]) -> [Event] { lines.compactMap { try? EventLine(decoding: $0).event } }

    /// The `event` names, in order.
    public static func eventNames(_ lines: [String]) -> [String] { events(lines).map(\.name) }

    /// The ids of the items in view after `lines`: `hello`'s items, then each `added` and `removed`.
    /// (Counting `added` against `removed` is wrong for a watcher that connects while items are in
    /// view: it sees their `removed` without their `added`.)
    public static func inView(_ lines: [String]) -> Set<UUID> {
        var ids = Set<UUID>()
        for event in events(lines) {
            switch event {
            case .hello(let hello): ids = Set(hello.items.compactMap(\.id))
            case .added(let item, _): if let id = item.id { ids.insert(id) }
            case .removed(let item, _): if let id = item.id { ids.remove(id) }
            default: break
            }
        }
        return ids
    }

    /// Payloads of the items added so far.
    public static func addedPayloads(_ lines: [String]) -> Set<String> {
        Set(events(lines).compactMap { if case .added(let item, _) = $0 { item.payload } else { nil } })
    }
}

/// A test that needed a certain event first and got something else.
public struct ExpectedEvent: Error, CustomStringConvertible {
    public let description: String
    public init(_ name: String, _ line: String?) { description = "expected \(name), got \(line ?? "nothing")" }
}

extension JSONValue {
    public var string: String? { if case .string(let text) = self { text } else { nil } }
    public var int: Int? { if case .integer(let number) = self { number } else { nil } }
    public var bool: Bool? { if case .bool(let flag) = self { flag } else { nil } }
    public var array: [JSONValue]? { if case .array(let values) = self { values } else { nil } }
    /// An object's keys, in order.
    public var keys: [String] { if case .object(let fields) = self { fields.map(\.0) } else { [] } }
}

/// One request at a time over a real connection to a running daemon (on `ScannerConnection`, the
/// client the daemon's users have). Every read has a time limit.
public struct ScannerClientProbe {
    let connection: ScannerConnection

    public init(path: String) throws {
        connection = try ScannerConnection(path: path)
    }

    /// The `hello` line the daemon greets a new connection with.
    public func hello(timeout: Double = answerWithin) throws -> String { try connection.readHello(timeout: timeout) }

    /// Sends `line`, returns the first reply line (skipping hello and events); "" when the daemon
    /// closed the connection or said nothing for `timeout` seconds.
    public func ask(_ line: String, timeout: Double = answerWithin) throws -> String {
        try connection.send(line)
        let deadline = Date().addingTimeInterval(timeout)
        while deadline.timeIntervalSinceNow > 0 {
            guard let reply = try? connection.readLine(timeout: deadline.timeIntervalSinceNow) else { return "" }
            if reply.contains(#""reply""#) { return reply }
        }
        return ""
    }
}

/// Hostile inputs more than one target uses (the image bombs are files: Tests/Fixtures/hostile).
public enum HostileInputs {
    /// 558 bytes of YAML that stand for 9^10 nodes ("billion laughs"), under `recognition:`.
    public static let billionLaughs: String = {
        var lines = ["recognition:", "  types: &a0 [x, x, x, x, x, x, x, x, x]"]
        for i in 1..<10 { lines.append("  l\(i): &a\(i) [" + Array(repeating: "*a\(i - 1)", count: 9).joined(separator: ", ") + "]") }
        return lines.joined(separator: "\n") + "\n"
    }()
}

extension TemporaryDirectory {
    /// A FIFO named `name` inside it.
    public func fifo(_ name: String) throws -> String {
        let path = file(name)
        guard mkfifo(path, 0o600) == 0 else { throw CocoaError(.fileWriteUnknown) }
        return path
    }
}

/// Other users to run clients as (root, util-linux's setpriv, Debian's nobody/nogroup, daemon, bin):
/// tests of access control are skipped, not failed, where they are missing.
public let canRunAsOtherUsers: Bool =
    geteuid() == 0 && FileManager.default.isExecutableFile(atPath: "/usr/bin/setpriv")
    && ["nobody", "daemon", "bin"].allSatisfy { (name: String) in getpwnam(name) != nil } && getgrnam("nogroup") != nil

/// Runs `arguments` as `user` (group `group`, and supplementary `groups`), hermetically and bounded.
public func runAs(
    _ user: String, group: String? = nil, groups: [String] = [], _ arguments: [String], timeout: Double = 60
) throws -> Subprocess.Result {
    let primary = group ?? (user == "nobody" ? "nogroup" : user)
    let supplementary =
        groups.isEmpty ? ["--clear-groups"] : ["--groups=" + groups.map { String(getgrnam($0)?.pointee.gr_gid ?? 0) }.joined(separator: ",")]
    return try Subprocess.run("/usr/bin/setpriv", ["--reuid=\(user)", "--regid=\(primary)"] + supplementary + arguments, timeout: timeout)
}
