import ArgumentParser
import Foundation
import ScannerClient

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
        subcommands: [Watch.self, Items.self, Capture.self, Set.self, Stats.self, Ping.self, RawRequest.self])

    static func main() {
        do {
            var command = try parseAsRoot()
            try command.run()
        } catch let exit as ExitCode {
            Foundation.exit(exit.rawValue)
        } catch let failure as ScannerConnection.Failure {
            FileHandle.standardError.write(Data("scanctl: \(failure)\n".utf8))
            switch failure {
            case .notRunning, .permissionDenied, .refused: Foundation.exit(3)
            default: Foundation.exit(1)
            }
        } catch {
            let code = exitCode(for: error)
            if code == .success {
                print(fullMessage(for: error))
                Foundation.exit(0)
            }
            FileHandle.standardError.write(Data((fullMessage(for: error) + "\n").utf8))
            Foundation.exit(2)
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

/// Sends one request and prints the reply; exit 1 when the daemon says no.
func ask(_ connection: Connection, _ request: [String: Any]) throws -> [String: Any] {
    let reply = try connection.open().request(request)
    if reply["ok"] as? Bool != true {
        let error = reply["error"] as? [String: Any]
        FileHandle.standardError.write(Data("scanctl: \(error?["code"] ?? "error"): \(error?["message"] ?? "")\n".utf8))
        throw ExitCode(1)
    }
    return reply
}

func printJSON(_ object: Any) {
    if let data = try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes]) {
        print(String(decoding: data, as: UTF8.self))
    }
}

struct Watch: ParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Print events as they happen (until the daemon stops or Ctrl-C).")

    @OptionGroup var connection: Connection

    @Flag(name: .long, help: "Raw JSON lines instead of readable ones.")
    var json = false

    @Option(name: .long, help: ArgumentHelp("Only these item kinds: barcode, text.", valueName: "list"))
    var kinds: String?

    @Option(name: .long, help: ArgumentHelp("Only these symbologies (qr, ean13, …).", valueName: "list"))
    var symbologies: String?

    @Option(name: .long, help: ArgumentHelp("Only these content types (telephoneNumber, url, emailAddress).", valueName: "list"))
    var contentTypes: String?

    func run() throws {
        let socket = try ScannerConnection(path: connection.socket)
        let hello = try socket.readHello()
        var filter: [String: Any] = [:]
        func list(_ value: String?) -> [String]? { value.map { $0.split(separator: ",").map { String($0).trimmingCharacters(in: .whitespaces) } } }
        if let k = list(kinds) { filter["kinds"] = k }
        if let s = list(symbologies) { filter["symbologies"] = s }
        if let c = list(contentTypes) { filter["contentTypes"] = c }
        if !filter.isEmpty {
            filter["request"] = "subscribe"
            let reply = try socket.request(filter) { line in show(line) }
            if reply["ok"] as? Bool != true {
                let error = reply["error"] as? [String: Any]
                FileHandle.standardError.write(Data("scanctl: \(error?["message"] ?? "subscribe refused")\n".utf8))
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

    /// `12:00:01.250  added    qr                 https://example.com  3f2a9c1e`
    static func readable(_ line: String) -> String {
        guard let event = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any] else { return line }
        let time = (event["time"] as? String).map { String($0.dropFirst(11).prefix(12)) } ?? ""
        let name = event["event"] as? String ?? "?"
        func pad(_ s: String, _ n: Int) -> String { s.count >= n ? s : s + String(repeating: " ", count: n - s.count) }
        if let item = event["item"] as? [String: Any] {
            let kind = item["symbology"] as? String ?? item["contentType"] as? String ?? item["kind"] as? String ?? ""
            let id = (item["id"] as? String).map { String($0.prefix(8)) } ?? ""
            return "\(time)  \(pad(name, 8)) \(pad(kind, 18)) \(item["payload"] as? String ?? "")  \(id)"
        }
        switch name {
        case "hello":
            let items = (event["items"] as? [Any])?.count ?? 0
            return "\(time)  hello    scannerd \(event["daemon"] ?? "?"), source \(event["source"] ?? "?"), camera \(event["camera"] ?? "?"), \(items) item(s)"
        case "unavailable": return "\(time)  \(pad(name, 8)) \(event["reason"] as? String ?? "")"
        case "overflow": return "\(time)  overflow \(event["message"] as? String ?? "")"
        default: return "\(time)  \(name)"
        }
    }
}

struct Items: ParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Print the items in view now (JSON, one per line).")
    @OptionGroup var connection: Connection

    func run() throws {
        let reply = try ask(connection, ["request": "items"])
        for item in reply["items"] as? [Any] ?? [] { printJSON(item) }
    }
}

struct Stats: ParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Print the daemon's counters.")
    @OptionGroup var connection: Connection

    @Flag(name: .long, help: "Print the reply as JSON.")
    var json = false

    func run() throws {
        var reply = try ask(connection, ["request": "stats"])
        reply["reply"] = nil
        reply["ok"] = nil
        if json { return printJSON(reply) }
        // One `stage.figure: value` line each (capture.fps: 29.9), easy to read and to grep.
        func lines(_ value: Any, _ prefix: String) -> [String] {
            if let object = value as? [String: Any] {
                return object.keys.sorted().flatMap { lines(object[$0]!, prefix.isEmpty ? $0 : "\(prefix).\($0)") }
            }
            if value is NSNull { return ["\(prefix): -"] }
            return ["\(prefix): \(value)"]
        }
        for line in lines(reply, "") { print(line) }
    }
}

struct Ping: ParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Check that the daemon answers.")
    @OptionGroup var connection: Connection

    func run() throws {
        let start = Date()
        _ = try ask(connection, ["request": "ping"])
        print(String(format: "scannerd answered in %.1f ms", Date().timeIntervalSince(start) * 1000))
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
        var request: [String: Any] = ["request": "set"]
        if let roi {
            if roi == "full" {
                request["roi"] = NSNull()
            } else {
                let values = roi.split(separator: ",").compactMap { Double($0.trimmingCharacters(in: .whitespaces)) }
                guard values.count == 4 else { throw ValidationError("--roi needs four numbers x,y,w,h or `full`") }
                request["roi"] = values
            }
        }
        if let quality { request["quality"] = quality }
        if let types { request["types"] = types.split(separator: ",").map { String($0).trimmingCharacters(in: .whitespaces) } }
        if let single {
            guard single == "on" || single == "off" else { throw ValidationError("--single is on or off") }
            request["single"] = single == "on"
        }
        guard request.count > 1 else { throw ValidationError("give at least one of --roi, --quality, --types, --single") }
        var reply = try ask(connection, request)
        reply["reply"] = nil
        reply["ok"] = nil
        reply["id"] = nil
        for key in reply.keys.sorted() { print("\(key): \(reply[key]!)") }
    }
}

struct Capture: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Save the newest full-resolution frame as a JPEG file.",
        discussion: "The photo travels over the socket (base64), so the file is written with scanctl's rights, where scanctl runs.")
    @OptionGroup var connection: Connection

    @Flag(name: .long, help: "Draw the current items' bounds on it.")
    var annotate = false

    @Argument(help: ArgumentHelp("Where to write the JPEG.", valueName: "file"))
    var file: String

    func run() throws {
        let reply = try ask(connection, ["request": "capture", "annotate": annotate])
        guard let encoded = reply["jpeg"] as? String, let jpeg = Data(base64Encoded: encoded) else {
            throw ScannerConnection.Failure.io("the daemon sent no photo")
        }
        do {
            try jpeg.write(to: URL(fileURLWithPath: file), options: .atomic)
        } catch {
            FileHandle.standardError.write(Data("scanctl: \(file): \(error.localizedDescription)\n".utf8))
            throw ExitCode(1)
        }
        print("\(file): \(reply["width"] ?? "?")x\(reply["height"] ?? "?"), \(jpeg.count) bytes")
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

    struct Head: Decodable {
        var reply: String?
        var ok: Bool?
    }

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
            guard let head = try? JSONDecoder().decode(Head.self, from: Data(answer.utf8)), head.reply != nil || head.ok != nil else { continue }
            print(answer)
            if head.ok != true { throw ExitCode(1) }
            return
        }
    }
}
