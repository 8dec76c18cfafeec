import ArgumentParser
import CommandExit
import Foundation
import ScannerClient
import ScannerCore
import ScannerProtocol

/// `scanctl`: talks to a running scannerd over its Unix socket.
///
/// Exit status: 0 success, 1 the daemon answered with an error, 2 usage error, 3 cannot connect
/// (daemon not running, or access denied).
@main
struct Scanctl: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "scanctl",
        abstract: "Watch and query a running scannerd.",
        discussion: "Exit status: 0 success, 1 the daemon refused the request, 2 usage error, 3 cannot connect.",
        version: Release.version,
        subcommands: [Watch.self, Wait.self, Items.self, Capture.self, Set.self, Pause.self, Resume.self, Stats.self, Ping.self, RawRequest.self])

    static func main() {
        do {
            var command = try parseAsRoot()
            try command.run()
        } catch let failure as ScannerConnection.Failure {
            FileHandle.standardError.write(Data("scanctl: \(failure)\n".utf8))
            switch failure {
            case .notRunning, .permissionDenied, .refused: Foundation.exit(3)
            default: Foundation.exit(1)
            }
        } catch {
            exit(after: error)
        }
    }
}

struct Connection: ParsableArguments {
    @Option(name: .long, help: ArgumentHelp("The daemon's socket.", valueName: "path"))
    var socket: String = ProcessInfo.processInfo.environment["SCANNERD_SOCKET"] ?? "/run/scannerd/scannerd.sock"

    func open() throws -> ScannerConnection {
        let connection = try ScannerConnection(path: socket)
        try connection.readHello()  // every connection starts with hello (or a refusal)
        return connection
    }
}

/// Sends one request and returns the reply; exit 1 when the daemon says no.
func ask(_ connection: Connection, _ request: Request) throws -> JSONValue {
    try ask(connection, line: request.line())
}

/// The same for a request line as written.
func ask(_ connection: Connection, line: String) throws -> JSONValue {
    let reply = try connection.open().request(line: line)
    guard reply.head.ok == true else { throw refused(reply, exit: 1) }
    return reply.object
}

/// Says why the daemon said no (`scanctl: CODE: MESSAGE`) and gives the exit status to leave with.
func refused(_ reply: ServerLine, exit status: Int32) -> ExitCode {
    FileHandle.standardError.write(Data("scanctl: \(reply.head.error?.code ?? "error"): \(reply.head.error?.message ?? "")\n".utf8))
    return ExitCode(status)
}

/// A reply's own fields, without its head (`reply`, `ok`, `id`); keys sorted, as decoded.
func body(_ reply: JSONValue) -> [(String, JSONValue)] {
    guard case .object(let fields) = reply else { return [] }
    return fields.filter { !["reply", "ok", "id"].contains($0.0) }
}

/// A value as a person reads it: strings bare, everything else as JSON.
func plain(_ value: JSONValue?) -> String? {
    switch value {
    case nil: nil
    case .string(let text)?: text
    case let other?: other.serialized()
    }
}

struct Watch: ParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Print events as they happen (until the daemon stops or Ctrl-C).")

    @OptionGroup var connection: Connection

    @Flag(name: .long, help: "Raw JSON lines instead of readable ones.")
    var json = false

    @Option(name: .long, help: ArgumentHelp("Only these item kinds: barcode, text, document.", valueName: "list"))
    var kinds: String?

    @Option(name: .long, help: ArgumentHelp("Only these symbologies (qr, ean13, …).", valueName: "list"))
    var symbologies: String?

    @Option(
        name: .long,
        help: ArgumentHelp(
            "Only these content types (telephoneNumber, url, emailAddress, shipmentTrackingNumber, currency, dateTimeDuration, flightNumber, "
                + "fullStreetAddress).", valueName: "list"))
    var contentTypes: String?

    @Option(
        name: .long,
        help: ArgumentHelp(
            "An item that comes back: always (the default), oncePerSession, or a number of seconds it must have been gone.",
            valueName: "rule"))
    var `repeat`: String?

    func run() throws {
        let socket = try ScannerConnection(path: connection.socket)
        let hello = try socket.readHello()
        func list(_ value: String?) -> [String]? { value.map { $0.split(separator: ",").map { String($0).trimmingCharacters(in: .whitespaces) } } }
        // Names go to the daemon as given: it judges them (an unknown one is its `bad-argument`).
        var fields: [(String, JSONValue)] = [("request", .string("subscribe"))]
        for (key, value) in [("kinds", kinds), ("symbologies", symbologies), ("contentTypes", contentTypes)] {
            if let names = list(value) { fields.append((key, .array(names.map { .string($0) }))) }
        }
        if let rule = `repeat` {
            // A number is `{"after": N}`; a name goes as given, for the daemon to judge.
            fields.append(("repeat", Double(rule).map { .object([("after", .number($0))]) } ?? .string(rule)))
        }
        if fields.count > 1 {
            let reply = try socket.request(line: JSONValue.object(fields).serialized()) { line in show(line) }
            if reply.head.ok != true {
                FileHandle.standardError.write(Data("scanctl: \(reply.head.error?.message ?? "subscribe refused")\n".utf8))
                throw ExitCode(1)
            }
        }
        show(hello)
        while let line = try socket.readLine() { show(line) }
    }

    func show(_ line: String) {
        // Written unbuffered, so a pipe (`scanctl watch | grep …`) sees each event as it happens.
        FileHandle.standardOutput.write(Data(((json ? line : Self.readable(line)) + "\n").utf8))
    }

    /// `12:00:01.250  added    qr                 https://example.com  3f2a9c1e`; a line that is not an
    /// event this client knows (a newer daemon's) as it came.
    static func readable(_ line: String) -> String {
        guard let decoded = try? EventLine(decoding: line) else { return line }
        let time = decoded.time.map { String($0.dropFirst(11).prefix(12)) } ?? ""
        let name = decoded.event.name
        func pad(_ s: String, _ n: Int) -> String { s.count >= n ? s : s + String(repeating: " ", count: n - s.count) }
        if let item = decoded.event.item {
            let kind = item.symbology?.rawValue ?? item.contentType?.rawValue ?? item.kind.rawValue
            let id = item.id.map { String($0.uuidString.lowercased().prefix(8)) } ?? ""
            return "\(time)  \(pad(name, 8)) \(pad(kind, 18)) \(item.payload)  \(id)"
        }
        switch decoded.event {
        case .hello(let hello):
            return
                "\(time)  hello    scannerd \(hello.daemon), source \(hello.source), camera \(hello.cameraAvailable ? "available" : "unavailable"), \(hello.items.count) item(s)"
        case .unavailable(let reason): return "\(time)  \(pad(name, 8)) \(reason)"
        case .overflow(let message): return "\(time)  overflow \(message)"
        case .guidance(let hint): return "\(time)  \(pad(name, 8)) \(hint)"
        default: return "\(time)  \(name)"
        }
    }
}

/// One-shot scanning for scripts: `payload=$(scanctl wait --types qr --timeout 30)`.
struct Wait: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Print the first item added after connecting and exit 0; exit 1 if none comes within --timeout.",
        discussion: "Items already in view when it connects do not count: it waits for the next one.")

    @OptionGroup var connection: Connection

    @Option(
        name: .long,
        help: ArgumentHelp(
            "Only these: kinds (barcode, text, document), symbologies (qr, ean13, …) or content types (telephoneNumber, url, emailAddress, shipmentTrackingNumber, currency, dateTimeDuration, flightNumber, fullStreetAddress).",
            valueName: "list")
    )
    var types: String?

    @Option(name: .long, help: ArgumentHelp("Give up after this many seconds (default: wait as long as it takes).", valueName: "seconds"))
    var timeout: Double?

    @Flag(name: .long, help: "Print the whole item as JSON instead of its payload.")
    var json = false

    func validate() throws {
        if let timeout, !(timeout > 0 && timeout <= 86_400) { throw ValidationError("--timeout: expected seconds between 0 and 86400") }
    }

    func run() throws {
        let socket = try ScannerConnection(path: connection.socket)
        _ = try socket.readHello()
        let deadline = timeout.map { Date().addingTimeInterval($0) }
        if let types {
            // Events that come before the filter is in force are not looked at: they may not match it.
            let reply = try socket.request(line: TypeList.subscription(types).serialized(), timeout: min(5, timeout ?? 5))
            guard reply.head.ok == true else { throw refused(reply, exit: 2) }
        }
        while true {
            let line = try nextLine(socket, deadline: deadline)
            guard let line else {
                FileHandle.standardError.write(Data("scanctl: the daemon closed the connection\n".utf8))
                throw ExitCode(1)
            }
            guard case .added(let item, _)? = try? EventLine(decoding: line).event else { continue }
            print(json ? item.json.serialized() : item.payload)
            return
        }
    }

    /// The next line before `deadline`; exit 1 when it passes.
    func nextLine(_ socket: ScannerConnection, deadline: Date?) throws -> String? {
        switch Result(catching: { () throws(ScannerConnection.Failure) -> String? in
            try socket.readLine(timeout: deadline.map { max(0.001, $0.timeIntervalSinceNow) })
        }) {
        case .success(let line):
            return line
        case .failure(.timeout):
            FileHandle.standardError.write(Data("scanctl: no item within \(timeout.map { "\($0)" } ?? "?") s\n".utf8))
            throw ExitCode(1)
        case .failure(let failure):
            throw failure
        }
    }
}

struct Items: ParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Print the items in view now (JSON, one per line).")
    @OptionGroup var connection: Connection

    func run() throws {
        let reply = try ask(connection, .items)
        guard case .array(let items)? = reply["items"] else { return }
        for item in items { print(item.serialized()) }
    }
}

struct Stats: ParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Print the daemon's counters.")
    @OptionGroup var connection: Connection

    @Flag(name: .long, help: "Print the reply as JSON.")
    var json = false

    func run() throws {
        let figures = JSONValue.object(body(try ask(connection, .stats)))
        if json { return print(figures.serialized()) }
        // One `stage.figure: value` line each (capture.fps: 29.9), easy to read and to grep.
        func lines(_ value: JSONValue, _ prefix: String) -> [String] {
            switch value {
            case .object(let fields): fields.flatMap { lines($0.1, prefix.isEmpty ? $0.0 : "\(prefix).\($0.0)") }
            case .null: ["\(prefix): -"]
            default: ["\(prefix): \(plain(value) ?? "")"]
            }
        }
        for line in lines(figures, "") { print(line) }
    }
}

struct Ping: ParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Check that the daemon answers.")
    @OptionGroup var connection: Connection

    func run() throws {
        let start = Date()
        _ = try ask(connection, .ping)
        print(String(format: "scannerd answered in %.1f ms", Date().timeIntervalSince(start) * 1000))
    }
}

struct Pause: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Pause recognition: the camera stays open, frames are not decoded, every item is removed.",
        discussion: "Every client is told with a `paused` event. `scanctl resume` starts recognition again.")
    @OptionGroup var connection: Connection

    func run() throws {
        _ = try ask(connection, .pause)
        print("recognition paused")
    }
}

struct Resume: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Resume recognition after `scanctl pause`; what is in view is added again.")
    @OptionGroup var connection: Connection

    func run() throws {
        _ = try ask(connection, .resume)
        print("recognition running")
    }
}

struct Set: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Change what the running scanner looks for, from the next frame.",
        discussion: "Every client is told with a `config` event. Prints the configuration now in force.")
    @OptionGroup var connection: Connection

    @Option(name: .long, help: ArgumentHelp("Region of interest x,y,w,h (normalized), or `full`.", valueName: "x,y,w,h"))
    var roi: String?

    @Option(name: .long, help: "Quality level: fast, balanced or accurate.")
    var quality: String?

    @Option(name: .long, help: ArgumentHelp("Types to recognize, comma-separated (as scannerd --types).", valueName: "list"))
    var types: String?

    @Option(name: .long, help: ArgumentHelp("Single-item mode: on or off.", valueName: "on|off"))
    var single: String?

    func run() throws {
        // Values go to the daemon as given: it judges them (a bad one is its `bad-argument`, exit 1),
        // as for any client.
        var fields: [(String, JSONValue)] = [("request", .string("set"))]
        if let roi {
            if roi == "full" {
                fields.append(("roi", .null))
            } else {
                let values = roi.split(separator: ",").compactMap { Double($0.trimmingCharacters(in: .whitespaces)) }
                guard values.count == 4 else { throw ValidationError("--roi needs four numbers x,y,w,h or `full`") }
                fields.append(("roi", .array(values.map { .number($0, decimals: 17) })))
            }
        }
        if let quality { fields.append(("quality", .string(quality))) }
        if let types {
            fields.append(("types", .array(types.split(separator: ",").map { .string(String($0).trimmingCharacters(in: .whitespaces)) })))
        }
        if let single {
            guard single == "on" || single == "off" else { throw ValidationError("--single is on or off") }
            fields.append(("single", .bool(single == "on")))
        }
        guard fields.count > 1 else { throw ValidationError("give at least one of --roi, --quality, --types, --single") }
        for (key, value) in body(try ask(connection, line: JSONValue.object(fields).serialized())) { print("\(key): \(plain(value) ?? "")") }
    }
}

struct Capture: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Save the newest full-resolution frame as a JPEG file.",
        discussion: "The photo travels over the socket (base64), so the file is written with scanctl's rights, where scanctl runs.")
    @OptionGroup var connection: Connection

    @Flag(name: .long, help: "Draw the current items' bounds on it.")
    var annotate = false

    @Flag(name: .long, help: "Save the document held up in it instead, straightened (its perspective taken out).")
    var document = false

    @Argument(help: ArgumentHelp("Where to write the JPEG.", valueName: "file"))
    var file: String

    func validate() throws {
        if annotate && document { throw ValidationError("--annotate and --document do not go together") }
    }

    func run() throws {
        let reply = try ask(connection, .capture(path: nil, content: document ? .document : annotate ? .annotated : .frame, overwrite: false))
        guard case .string(let encoded)? = reply["jpeg"], let jpeg = Data(base64Encoded: encoded) else {
            throw ScannerConnection.Failure.io("the daemon sent no photo")
        }
        do {
            try jpeg.write(to: URL(fileURLWithPath: file), options: .atomic)
        } catch {
            FileHandle.standardError.write(Data("scanctl: \(file): \(error.localizedDescription)\n".utf8))
            throw ExitCode(1)
        }
        print("\(file): \(plain(reply["width"]) ?? "?")x\(plain(reply["height"]) ?? "?"), \(jpeg.count) bytes")
    }
}

/// `scanctl request LINE`: one request line as written (docs/protocol.md), its reply line as it came.
/// For requests scanctl has no command for (`capture` with a `path` the daemon writes), and for
/// scripts that want the JSON.
struct RawRequest: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "request",
        abstract: "Send one JSON request line; print the reply line.",
        discussion: "Exit status 1 when the reply says \"ok\": false.")
    @OptionGroup var connection: Connection

    @Option(name: .long, help: "Seconds to wait for the reply (default 5).")
    var timeout: Double = 5

    @Argument(help: ArgumentHelp("The request, e.g. '{\"request\":\"stats\"}'.", valueName: "json"))
    var line: String

    func validate() throws {
        if line.contains("\n") { throw ValidationError("one line: the request may not contain a newline") }
        if !(timeout > 0) { throw ValidationError("--timeout must be positive") }
    }

    func run() throws {
        let open = try connection.open()
        try open.send(line)
        let deadline = Date().addingTimeInterval(timeout)
        while true {
            let left = deadline.timeIntervalSinceNow
            guard left > 0, let answer = try open.readLine(timeout: left) else {
                throw ScannerConnection.Failure.io("no reply within \(timeout) s")
            }
            // Events may come first; the reply is the line with a "reply" key.
            guard let reply = ServerLine(answer), reply.isReply else { continue }
            print(answer)
            if reply.head.ok != true { throw ExitCode(1) }
            return
        }
    }
}
