import DaemonConfiguration
import Foundation
import TestSupport
import TestTraits
import Testing

@testable import Daemon

/// Issue #39: a token, password or CA file that is a FIFO hung the start (`FileHandle` and
/// libmosquitto's `fopen` wait for a writer). Each is refused at once with one line now.
@Suite(.offThePool(minutes: 1)) struct NamedFilesTests {
    /// Runs `body` on a thread of its own and waits at most `seconds`: nil if it did not return (the
    /// thread is left blocked, but the test fails instead of hanging).
    static func within<T: Sendable>(_ seconds: Double, _ body: @escaping @Sendable () -> T) -> T? {
        let done = DispatchSemaphore(value: 0)
        let box = ResultBox<T>()
        let thread = Thread {
            box.value = body()
            done.signal()
        }
        thread.start()
        guard done.wait(timeout: .now() + seconds) == .success else { return nil }
        return box.value
    }

    static func refusal(_ body: @escaping @Sendable () throws(DaemonError) -> Void) -> String? {
        within(5) { () -> String? in
            do throws(DaemonError) {
                try body()
                return nil
            } catch {
                return error.description
            }
        } ?? "did not return within 5 s"
    }

    @Test func aFIFOAsTheTokenOrPasswordFileIsRefusedAtOnce() throws {
        let scratch = try TemporaryDirectory("scannerd-named-files")
        let fifo = try scratch.fifo("token")
        let token = Self.refusal { () throws(DaemonError) in _ = try DaemonAssembly.readToken(fifo) }
        #expect(token == "http.token-file \(fifo): not a regular file", "\(token ?? "accepted")")
        let password = Self.refusal { () throws(DaemonError) in _ = try DaemonAssembly.readToken(fifo, key: "mqtt.password-file") }
        #expect(password?.hasPrefix("mqtt.password-file \(fifo): not a regular file") == true, "\(password ?? "accepted")")
    }

    @Test func aFIFOAsTheCAFileIsRefusedAtOnce() throws {
        let scratch = try TemporaryDirectory("scannerd-named-files")
        let fifo = try scratch.fifo("ca.pem")
        var settings = DaemonSettings()
        settings.mqttBroker = "mqtts://broker.example"
        settings.mqttCAFile = fifo
        let refused = Self.refusal { [settings] () throws(DaemonError) in _ = try DaemonAssembly.mqttConfiguration(settings) }
        #expect(refused == "mqtt.ca-file \(fifo): not a regular file", "\(refused ?? "accepted")")
        // Plain mqtt:// does not use the CA file: it is not opened at all.
        settings.mqttBroker = "mqtt://broker.example"
        let plain = Self.refusal { [settings] () throws(DaemonError) in _ = try DaemonAssembly.mqttConfiguration(settings) }
        #expect(plain == nil, "\(plain ?? "")")
    }

    /// Issue #39: the loader refuses such a URL first; should one reach the daemon, its refusal does
    /// not print the password either.
    @Test func aBrokerURLRefusedAtStartIsQuotedRedacted() {
        var settings = DaemonSettings()
        settings.mqttBroker = "mqtt://kiosk:hunter2@broker.example"
        let refused = Self.refusal { [settings] () throws(DaemonError) in _ = try DaemonAssembly.mqttConfiguration(settings) }
        #expect(refused?.hasPrefix("mqtt.broker mqtt://kiosk:***@broker.example: expected mqtt://HOST[:PORT]") == true, "\(refused ?? "accepted")")
        #expect(refused?.contains("hunter2") == false)
        #expect(refused?.contains("mqtt.username and mqtt.password-file") == true)
    }

    @Test func theTokenFileStillReadsAsBefore() throws {
        let scratch = try TemporaryDirectory("scannerd-named-files")
        #expect(try DaemonAssembly.readToken(try scratch.write("token", "  s3cret\n")) == "s3cret")
        let long = try scratch.write("long", String(repeating: "x", count: 4097))
        #expect(
            Self.refusal { () throws(DaemonError) in _ = try DaemonAssembly.readToken(long) } == "http.token-file \(long): longer than 4096 bytes")
        let missing = scratch.file("missing")
        #expect(
            Self.refusal { () throws(DaemonError) in _ = try DaemonAssembly.readToken(missing) }
                == "http.token-file \(missing): cannot be read: no such file")
    }
}

/// What a thread returned: written before its semaphore is signalled, read after the wait for it.
final class ResultBox<T>: @unchecked Sendable {
    var value: T?
}
