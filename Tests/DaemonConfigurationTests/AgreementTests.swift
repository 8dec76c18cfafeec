import Foundation
import ScannerCore
import TestSupport
import Testing

@testable import DaemonConfiguration

/// Issue #39: `check-config` passed settings `run` refused at start. The rules are the loader's
/// now, so `check-config`, `run` and a reload refuse the same settings with the same line.
@Suite(.timeLimit(.minutes(2))) struct AgreementTests {
    @Test(arguments: [
        // run: HTTPServerError.tokenRequired
        (
            ["SCANNERD_HTTP_LISTEN": "0.0.0.0:8390"],
            "environment SCANNERD_HTTP_LISTEN: http.listen: 0.0.0.0:8390 is not loopback: set http.token-file so that only clients with the token are served"
        ),
        (["SCANNERD_HTTP_LISTEN": "kiosk.local:8390"], "http.listen: kiosk.local:8390 is not loopback"),
        // run: libmosquitto's mosquitto_will_set, "Malformed UTF-8"
        (["SCANNERD_MQTT_TOPIC": "shop/kiosk\u{7}7"], "mqtt.topic: invalid value 'shop/kiosk\\u{7}7': control characters (U+0007) are not allowed"),
        (["SCANNERD_MQTT_TOPIC": "shop/\u{FFFF}"], "mqtt.topic: invalid value 'shop/\u{FFFF}': non-characters (U+FFFF) are not allowed"),
        // accepted silently before, every event dropped by the broker (MQTT 3.1.1 §4.7.2)
        (["SCANNERD_MQTT_TOPIC": "$SYS/scannerd"], "mqtt.topic: invalid value '$SYS/scannerd': topics beginning with $ are reserved for the broker"),
        (["SCANNERD_MQTT_TOPIC": "$share/x"], "topics beginning with $ are reserved for the broker"),
        // run: MQTTBrokerAddress.parse in DaemonAssembly
        (
            ["SCANNERD_MQTT_BROKER": "mqtt://broker/path"],
            "mqtt.broker: invalid value 'mqtt://broker/path': expected mqtt://HOST[:PORT] or mqtts://HOST[:PORT]"
        ),
        (["SCANNERD_MQTT_BROKER": "tcp://broker:1883"], "expected mqtt://HOST[:PORT] or mqtts://HOST[:PORT]"),
        // run: mosquitto_new and mosquitto_username_pw_set refuse control characters
        (
            ["SCANNERD_MQTT_CLIENT_ID": "kiosk\u{1B}[2J"],
            "mqtt.client-id: invalid value 'kiosk\\u{1B}[2J': control characters (U+001B) are not allowed"
        ),
        (["SCANNERD_MQTT_USERNAME": "kiosk\u{85}"], "mqtt.username: invalid value 'kiosk\\u{85}': control characters (U+0085) are not allowed"),
        // streams never give their place: as many connections as streams would leave none for requests
        (
            ["SCANNERD_HTTP_LISTEN": "127.0.0.1:8390", "SCANNERD_HTTP_MAX_CONNECTIONS": "64"],
            "http.max-connections: 64 leaves no room for requests beside 64 event streams (server.max-clients)"
        ),
        (["SCANNERD_HTTP_LISTEN": "127.0.0.1:8390", "SCANNERD_SERVER_MAX_CLIENTS": "200"], "leaves no room for requests beside 200 event streams"),
    ])
    func settingsRunRefusesAreRefusedByTheLoader(environment: [String: String], expected: String) {
        let found = errors(nil, environment: environment)
        #expect(found.count == 1, "\(found)")
        #expect(found.first?.contains(expected) == true, "\(found) should contain \(expected)")
        #expect(
            found.allSatisfy { !$0.contains("\n") && !$0.unicodeScalars.contains { $0.value < 0x20 || (0x7F...0x9F).contains($0.value) } },
            "one line each")
    }

    @Test func theSameRuleFromTheFileAndTheCommandLineNamesItsLine() throws {
        let file = errors("http:\n  listen: 0.0.0.0:8390\n")
        #expect(
            file.count == 1
                && file.first?.hasSuffix(
                    ".conf:2: http.listen: 0.0.0.0:8390 is not loopback: set http.token-file so that only clients with the token are served") == true,
            "\(file)")
        #expect(
            errors(nil, commandLine: [flag("http.listen", "[::]:8390", "--http")]) == [
                "--http: http.listen: [::]:8390 is not loopback: set http.token-file so that only clients with the token are served"
            ])
        #expect(errors("mqtt:\n  topic: $SYS/kiosk\n").first?.contains(".conf:2: mqtt.topic: invalid value '$SYS/kiosk'") == true)
    }

    @Test func whatRunAcceptsStillLoads() throws {
        for listen in ["127.0.0.1:8390", "127.8.9.10:1", "localhost:8390", "[::1]:8390"] {
            #expect(try load(nil, environment: ["SCANNERD_HTTP_LISTEN": listen]).settings.httpListen != nil, "\(listen)")
        }
        let tokened = try load(nil, environment: ["SCANNERD_HTTP_LISTEN": "0.0.0.0:8390", "SCANNERD_HTTP_TOKEN_FILE": "/etc/scannerd/http-token"])
        #expect(tokened.settings.httpListen == HTTPListen(host: "0.0.0.0", port: 8390))
        let mqtt = try load(
            nil,
            environment: [
                "SCANNERD_MQTT_TOPIC": "shop/kiosk-7/größe", "SCANNERD_MQTT_CLIENT_ID": "kiosk 7", "SCANNERD_MQTT_USERNAME": "Jürgen",
            ])
        #expect(mqtt.settings.mqttTopic == "shop/kiosk-7/größe" && mqtt.settings.mqttUsername == "Jürgen")
        #expect(MQTTNames.topicProblem("scannerd") == nil && MQTTNames.topicProblem("a$b/c") == nil, "$ only reserves a first level")
    }

    @Test func theLoopbackRuleIsTheServers() {
        for host in ["127.0.0.1", "127.255.0.1", "localhost", "LOCALHOST", "::1", "[::1]"] { #expect(LoopbackAddress.isLoopback(host), "\(host)") }
        for host in ["0.0.0.0", "::", "10.0.0.5", "128.0.0.1", "127.0.0", "127.0.0.256", "kiosk.local", "localhost.example"] {
            #expect(!LoopbackAddress.isLoopback(host), "\(host)")
        }
    }
}

/// Issue #39: `mqtt://user:PASSWORD@host` was refused with the password in the message, on stderr
/// and in the journal.
@Suite(.timeLimit(.minutes(2))) struct CredentialRedactionTests {
    @Test func aRefusedBrokerURLIsQuotedWithoutItsPassword() {
        let url = "mqtt://kiosk:hunter2@broker.example:1883"
        let found =
            errors("mqtt:\n  broker: \(url)\n") + errors(nil, environment: ["SCANNERD_MQTT_BROKER": url])
            + errors(nil, commandLine: [flag("mqtt.broker", url, "--mqtt")])
        #expect(found.count == 3, "\(found)")
        for line in found {
            #expect(!line.contains("hunter2"), "\(line)")
            #expect(line.contains("mqtt.broker: invalid value 'mqtt://kiosk:***@broker.example:1883'"), "\(line)")
            #expect(line.contains("set mqtt.username and mqtt.password-file"), "where credentials go: \(line)")
        }
        // A token as the user name is a secret too.
        let token = errors(nil, environment: ["SCANNERD_MQTT_BROKER": "mqtts://AbC123tOkEn@iot.example"])
        #expect(
            token.count == 1 && token.first?.contains("'mqtts://***@iot.example'") == true && token.first?.contains("AbC123tOkEn") == false,
            "\(token)")
    }

    @Test func redactionKeepsTheRestOfTheURL() {
        let cases: [(String, String)] = [
            ("mqtt://broker.example:1883", "mqtt://broker.example:1883"),
            ("mqtt://kiosk:pw@broker", "mqtt://kiosk:***@broker"),
            ("mqtt://token@broker:8883", "mqtt://***@broker:8883"),
            ("mqtts://kiosk:p@ss/w?rd@[::1]:8883", "mqtts://kiosk:***@[::1]:8883"),
            ("mqtt://kiosk:two words@broker", "mqtt://kiosk:***@broker"),
            ("kiosk:pw@broker:1883", "kiosk:***@broker:1883"),
            ("[mqtt://a:b@h1, mqtt://c:d@h2]", "[mqtt://a:***@h1, mqtt://c:***@h2]"),
            ("broker", "broker"),
        ]
        for (url, shown) in cases { #expect(MQTTBrokerAddress.redacted(url) == shown, "\(url)") }
    }

    @Test func listingsShowTheBrokerRedacted() throws {
        // A valid URL has no user information; what `check-config --effective` prints goes through
        // the redaction all the same.
        let loaded = try load(nil, environment: ["SCANNERD_MQTT_BROKER": "mqtt://broker.example"])
        #expect(SettingsSchema.key("mqtt.broker")?.value(in: loaded.settings) == "mqtt://broker.example")
        var settings = loaded.settings
        settings.mqttBroker = "mqtt://kiosk:pw@broker.example"
        #expect(SettingsSchema.key("mqtt.broker")?.value(in: settings) == "mqtt://kiosk:***@broker.example")
    }
}

/// Issue #39: files the configuration names are read without waiting and within a bound.
@Suite(.timeLimit(.minutes(2))) struct RegularFileTests {
    @Test func aFIFOIsRefusedAtOnce() throws {
        let scratch = try TemporaryDirectory("scannerd-regular-file")
        let fifo = try scratch.fifo("token")
        // No writer: opening it for reading without O_NONBLOCK would wait for ever.
        #expect(throws: RegularFile.Failure.notRegular) { try RegularFile.read(fifo, limit: 4096) }
        #expect(throws: RegularFile.Failure.notRegular) { try RegularFile.check(fifo, limit: 4096) }
    }

    @Test func onlyARegularFileWithinTheLimitIsRead() throws {
        let scratch = try TemporaryDirectory("scannerd-regular-file")
        let good = try scratch.write("good", "secret\n")
        #expect(try RegularFile.read(good, limit: 4096) == Array("secret\n".utf8))
        let large = try scratch.write("large", String(repeating: "x", count: 4097))
        #expect(throws: RegularFile.Failure.tooLarge(size: 4097, limit: 4096)) { try RegularFile.read(large, limit: 4096) }
        #expect(throws: RegularFile.Failure.directory) { try RegularFile.read(scratch.path, limit: 4096) }
        #expect(throws: RegularFile.Failure.notRegular) { try RegularFile.read("/dev/zero", limit: 4096) }
        #expect(throws: RegularFile.Failure.system(ENOENT)) { try RegularFile.read(scratch.file("missing"), limit: 4096) }
        #expect(RegularFile.Failure.tooLarge(size: 4097, limit: 4096).description == "too large (4097 bytes; at most 4 KiB)")
        #expect(RegularFile.Failure.system(ENOENT).description == "no such file")
    }
}
