import Foundation
import ScannerCore
import ScannerProtocol
import TestSupport
import Testing

@testable import ClientRequests
@testable import EventServer

/// What a hostile or careless client can send, and what the server's files are exposed to
/// (docs/security.md). Each test names the finding of issue #11 it guards.
@Suite(.timeLimit(.minutes(2))) struct RequestValidationTests {
    func failure(_ line: String) -> Request.Failure? {
        if case .failure(let failure) = Request.parse(line).result { return failure }
        return nil
    }

    @Test func booleansAreBooleans() {
        #expect(failure(#"{"request":"set","single":1}"#)?.message == #""single" must be true or false"#)
        #expect(failure(#"{"request":"set","single":"true"}"#)?.code.rawValue == "bad-argument")
        #expect(failure(#"{"request":"capture","annotate":1}"#)?.message == #""annotate" must be true or false"#)
        #expect(failure(#"{"request":"capture","path":"/tmp/x.jpg","overwrite":"yes"}"#)?.code.rawValue == "bad-argument")
        guard case .success(.set(let change)) = Request.parse(#"{"request":"set","single":true}"#).result else {
            Issue.record("a real boolean is taken")
            return
        }
        #expect(change.singleItem == true)
    }

    @Test func idsAreStringsOrNumbers() {
        for id in [#"{"a":1}"#, "[1]", "true", "null"] {
            let (echo, result) = Request.parse(#"{"request":"ping","id":\#(id)}"#)
            guard case .failure(let failure) = result else {
                Issue.record("id \(id) was accepted")
                continue
            }
            #expect(failure.code.rawValue == "bad-argument" && failure.message == #""id" must be a string or a number"#)
            #expect(echo.id == nil && echo.name == "ping")
            #expect(Reply.error(echo, code: failure.code, message: failure.message).hasPrefix(#"{"reply":"ping","ok":false"#))
        }
        #expect(Reply.ok(Request.parse(#"{"request":"ping","id":"a"}"#).echo) == #"{"reply":"ping","id":"a","ok":true}"#)
        #expect(Reply.ok(Request.parse(#"{"request":"ping","id":7}"#).echo) == #"{"reply":"ping","id":7,"ok":true}"#)
        #expect(Reply.ok(Request.parse(#"{"request":"ping","id":2.5}"#).echo) == #"{"reply":"ping","id":2.5,"ok":true}"#)
    }

    @Test func aRegionOfInterestThatRoundsToNothingIsRefused() {
        #expect(failure(#"{"request":"set","roi":[0,0,1e-300,1e-300]}"#)?.message == "roi: width and height must be at least 0.001")
        #expect(failure(#"{"request":"set","roi":[0,0,0.0009,0.5]}"#)?.code.rawValue == "bad-argument")
        #expect(failure(#"{"request":"set","roi":[0,0,"1",1]}"#)?.code.rawValue == "bad-argument")
        guard case .success(.set(let change)) = Request.parse(#"{"request":"set","roi":[0.5,0.5,0.001,0.001]}"#).result else {
            Issue.record("the smallest region is taken")
            return
        }
        #expect(change.regionOfInterest == NormalizedRect(x: 0.5, y: 0.5, width: 0.001, height: 0.001))
    }

    @Test func capturePathsAreAbsoluteAndOverwriteNeedsOne() {
        #expect(failure(#"{"request":"capture","path":"photo.jpg"}"#)?.message == #""path" must be an absolute file path"#)
        #expect(failure(#"{"request":"capture","path":"/tmp/"}"#)?.code.rawValue == "bad-argument")
        #expect(failure(#"{"request":"capture","path":7}"#)?.code.rawValue == "bad-argument")
        #expect(failure(#"{"request":"capture","overwrite":true}"#)?.message == #""overwrite" goes with "path""#)
        #expect(failure(#"{"request":"capture","annotate":true,"document":true}"#)?.message == #""annotate" and "document" do not go together"#)
        #expect(failure(#"{"request":"capture","document":"yes"}"#)?.code.rawValue == "bad-argument")
        #expect(
            Request.parse(#"{"request":"capture","path":"/tmp/a.jpg","overwrite":true}"#).result
                == .success(.capture(path: "/tmp/a.jpg", content: .frame, overwrite: true)))
    }

    @Test func malformedLinesGetOneErrorEach() {
        for line in ["", "[]", "1", "\"ping\"", "{", #"{"request":1}"#, "\u{FFFD}{}"] {
            #expect(failure(line)?.code.rawValue == "malformed", "\(line)")
        }
    }
}

@Suite(.timeLimit(.minutes(2))) struct AdmissionTests {
    let admission = Admission(maximumClients: 10, maximumClientsPerUser: 3)

    @Test func theLastSlotsAreKeptForControlPeers() {
        #expect(admission.reservedControlSlots == 4)
        #expect(admission.decide(privileged: false, connected: 5, connectedBySameUser: 0) == .admit)
        guard case .refuse(let code, let message) = admission.decide(privileged: false, connected: 6, connectedBySameUser: 0) else {
            Issue.record("a watcher took a reserved slot")
            return
        }
        #expect(code.rawValue == "too-many-clients" && message.contains("kept for control users"))
        #expect(admission.decide(privileged: true, connected: 9, connectedBySameUser: 9) == .admit)
        #expect(admission.decide(privileged: true, connected: 10, connectedBySameUser: 0) != .admit, "nobody past the maximum")
    }

    @Test func oneUserHoldsAtMostItsShare() {
        #expect(admission.decide(privileged: false, connected: 2, connectedBySameUser: 2) == .admit)
        #expect(
            admission.decide(privileged: false, connected: 3, connectedBySameUser: 3)
                == .refuse(code: ErrorCode(rawValue: "too-many-clients")!, message: "one user may hold at most 3 connections"))
        #expect(admission.decide(privileged: true, connected: 3, connectedBySameUser: 3) == .admit)
    }

    @Test func aSmallServerStillLetsSomebodyIn() {
        #expect(Admission(maximumClients: 1, maximumClientsPerUser: 16).reservedControlSlots == 0)
        #expect(Admission(maximumClients: 1, maximumClientsPerUser: 16).decide(privileged: false, connected: 0, connectedBySameUser: 0) == .admit)
        #expect(Admission(maximumClients: 3, maximumClientsPerUser: 16).reservedControlSlots == 2)
    }

    @Test func theOpenFileLimitIsCheckedAndRaisedWhereItCanBe() {
        let needed = UInt64(100 + DescriptorBudget.headroom)
        #expect(DescriptorBudget.decide(maximumClients: 100, softLimit: needed, hardLimit: needed) == .enough)
        #expect(DescriptorBudget.decide(maximumClients: 100, softLimit: 64, hardLimit: 4096) == .raiseSoftLimit(to: needed))
        guard case .refuse(let message) = DescriptorBudget.decide(maximumClients: 2000, softLimit: 1024, hardLimit: 1024) else {
            Issue.record("2000 clients within 1024 descriptors")
            return
        }
        #expect(message.contains("max-clients 2000 needs 2064 open files, but the limit is 1024") && message.contains("at most 960"))
        // The HTTP port's connections hold descriptors from the same budget.
        #expect(
            DescriptorBudget.decide(maximumClients: 100, httpConnections: 128, softLimit: needed, hardLimit: 4096)
                == .raiseSoftLimit(to: needed + 128))
        guard case .refuse(let both) = DescriptorBudget.decide(maximumClients: 900, httpConnections: 128, softLimit: 1024, hardLimit: 1024) else {
            Issue.record("900 clients and 128 HTTP connections within 1024 descriptors")
            return
        }
        #expect(both.contains("max-clients 900 and 128 HTTP connections need 1092 open files") && both.contains("at most 832"), "\(both)")
    }
}

extension TemporaryDirectory {
    /// Leftover temporary files of PhotoFile.
    var leftovers: [String] { ((try? FileManager.default.contentsOfDirectory(atPath: path)) ?? []).filter { $0.contains(".scannerd-") } }
}

@Suite(.timeLimit(.minutes(2))) struct PhotoFileTests {
    let jpeg = Data([0xFF, 0xD8, 0xFF, 0xE0, 1, 2, 3, 0xFF, 0xD9])

    func contents(_ path: String) -> String? { try? String(contentsOfFile: path, encoding: .utf8) }

    @Test func aNewFileIsCreatedPrivateToTheDaemonsGroup() throws {
        let scratch = try TemporaryDirectory("scannerd-photo")
        let path = scratch.path + "/photo.jpg"
        let old = umask(0)
        defer { umask(old) }
        try PhotoFile.write(jpeg, to: path, overwrite: false)
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == jpeg)
        let mode = try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int
        #expect(mode == 0o640)
        #expect(scratch.leftovers.isEmpty)
    }

    @Test func anExistingFileIsKeptUnlessOverwriteIsAsked() throws {
        let scratch = try TemporaryDirectory("scannerd-photo")
        let path = try scratch.write("secret.conf", "precious")
        #expect(throws: PhotoFile.Failure.exists(path: path)) { try PhotoFile.write(jpeg, to: path, overwrite: false) }
        #expect(contents(path) == "precious")
        try PhotoFile.write(jpeg, to: path, overwrite: true)
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == jpeg, "a regular file of the daemon's own is replaced when asked")
        #expect(scratch.leftovers.isEmpty)
    }

    @Test func nothingButARegularFileOfTheDaemonsIsEverReplaced() throws {
        let scratch = try TemporaryDirectory("scannerd-photo")
        // A link to a file elsewhere: neither the link nor its target changes.
        let target = try scratch.write("target.conf", "precious")
        let link = scratch.path + "/link.jpg"
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: target)
        // A FIFO, a directory, and a socket.
        let fifo = scratch.path + "/fifo.jpg"
        #expect(mkfifo(fifo, 0o600) == 0)
        let directory = scratch.path + "/dir.jpg"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: false)
        let socket = scratch.path + "/s.sock"
        let fd = Glibc.socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            raw.copyBytes(from: Array(socket.utf8))
            raw[socket.utf8.count] = 0
        }
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        try #require(bound == 0)

        for (path, kind) in [(link, "a symbolic link"), (fifo, "a FIFO"), (directory, "a directory"), (socket, "a socket")] {
            #expect(throws: PhotoFile.Failure.notReplaceable(path: path, reason: "is \(kind)")) {
                try PhotoFile.write(jpeg, to: path, overwrite: true)
            }
            #expect(throws: PhotoFile.Failure.exists(path: path)) { try PhotoFile.write(jpeg, to: path, overwrite: false) }
        }
        #expect(contents(target) == "precious")
        #expect(try FileManager.default.destinationOfSymbolicLink(atPath: link) == target)
        var info = stat()
        #expect(lstat(fifo, &info) == 0 && info.st_mode & S_IFMT == S_IFIFO)
        #expect(lstat(socket, &info) == 0 && info.st_mode & S_IFMT == S_IFSOCK)
        #expect(scratch.leftovers.isEmpty)
    }

    @Test func anotherUsersFileIsNotReplaced() throws {
        try #require(geteuid() == 0, "needs root to give a file away")
        let scratch = try TemporaryDirectory("scannerd-photo")
        let path = try scratch.write("theirs.jpg", "theirs")
        try #require(chown(path, 65534, 65534) == 0)
        #expect(throws: PhotoFile.Failure.notReplaceable(path: path, reason: "belongs to another user (uid 65534)")) {
            try PhotoFile.write(jpeg, to: path, overwrite: true)
        }
        #expect(contents(path) == "theirs")
    }

    @Test func aMissingDirectoryIsAClearError() throws {
        let scratch = try TemporaryDirectory("scannerd-photo")
        let path = scratch.path + "/no/such/photo.jpg"
        #expect(throws: PhotoFile.Failure.failed(path: path, reason: "directory: No such file or directory")) {
            try PhotoFile.write(jpeg, to: path, overwrite: false)
        }
    }
}

@Suite(.timeLimit(.minutes(2))) struct SocketFileTests {
    @Test func aFileAtTheSocketPathIsNeverRemoved() throws {
        let scratch = try TemporaryDirectory("scannerd-photo")
        let path = try scratch.write("x.conf", "precious")
        #expect(throws: EventServerError.self) { try EventServer.clearStaleSocket(at: path) }
        #expect(try String(contentsOfFile: path, encoding: .utf8) == "precious")
    }

    @Test func stoppingLeavesWhatTookTheSocketsPlace() async throws {
        let server = try await RunningServer()
        #expect(FileIdentity(lstat: server.path)?.isSocket == true)
        unlink(server.path)
        try Data("precious".utf8).write(to: URL(fileURLWithPath: server.path))
        await server.stop()
        #expect(try String(contentsOfFile: server.path, encoding: .utf8) == "precious")
        unlink(server.path)
    }

    /// The socket file is private from the instant it exists (before its configured mode is set),
    /// and binding does not borrow the process-wide umask, which every thread and child shares.
    @Test func theSocketListensOwnerOnlyWithoutTouchingTheUmask() throws {
        let scratch = try TemporaryDirectory("scannerd-bind")
        let umaskBefore = try processUmask()
        let fd = try UnixSocket.listenOwnerOnly(path: scratch.file("s.sock"))
        defer { close(fd) }
        #expect(try processUmask() == umaskBefore)
        var info = stat()
        #expect(lstat(scratch.file("s.sock"), &info) == 0 && info.st_mode & S_IFMT == S_IFSOCK)
        // Not yet given its mode: 0600 (or less where the umask takes more away).
        #expect(info.st_mode & 0o777 == 0o600 & ~umaskBefore, "mode \(String(info.st_mode & 0o777, radix: 8))")
        // Listening from the moment the file exists: a client that waits for the file may connect.
        #expect(UnixSocket.canConnect(to: scratch.file("s.sock")))
        #expect(throws: EventServerError.self) { try UnixSocket.listenOwnerOnly(path: scratch.file("s.sock")) }
        #expect(throws: EventServerError.self) { try UnixSocket.listenOwnerOnly(path: "/" + String(repeating: "x", count: 120)) }
        #expect(throws: EventServerError.self) { try UnixSocket.listenOwnerOnly(path: "@abstract") }
    }

    /// The umask, read without changing it (`umask(2)` can only be read by setting it).
    func processUmask() throws -> mode_t {
        let status = try String(contentsOfFile: "/proc/self/status", encoding: .utf8)
        let line = try #require(status.split(separator: "\n").first { $0.hasPrefix("Umask:") })
        return try #require(mode_t(line.dropFirst("Umask:".count).trimmingCharacters(in: .whitespaces), radix: 8))
    }

    @Test func stoppingRemovesTheSocketItBound() async throws {
        let server = try await RunningServer()
        await server.stop()
        #expect(FileIdentity(lstat: server.path) == nil)
    }
}
