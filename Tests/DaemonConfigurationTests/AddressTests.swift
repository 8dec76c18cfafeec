import DaemonConfiguration
import Testing

/// The addresses `http.listen` and `mqtt.broker` take, and what they refuse.
@Suite struct AddressTests {
    @Test func httpListenAddresses() {
        #expect(HTTPListen(parsing: "127.0.0.1:8390") == HTTPListen(host: "127.0.0.1", port: 8390))
        #expect(HTTPListen(parsing: "[::1]:0") == HTTPListen(host: "::1", port: 0))
        #expect(HTTPListen(parsing: "kiosk-1.local:80")?.description == "kiosk-1.local:80")
        #expect(HTTPListen(parsing: "[::1]:8390")?.description == "[::1]:8390")
        for bad in ["127.0.0.1", ":8390", "127.0.0.1:65536", "127.0.0.1:-1", "host name:80", "a/b:80", "[]:80", "[::1]x:80", "127.0.0.1:80x"] {
            #expect(HTTPListen(parsing: bad) == nil, "\(bad)")
        }
    }

    @Test func mqttBrokers() {
        #expect(MQTTBrokerAddress.parse("mqtt://broker.local")! == ("broker.local", 1883, false))
        #expect(MQTTBrokerAddress.parse("mqtts://broker.local")! == ("broker.local", 8883, true))
        #expect(MQTTBrokerAddress.parse("mqtt://10.0.0.5:1884")! == ("10.0.0.5", 1884, false))
        #expect(MQTTBrokerAddress.parse("mqtt://[::1]:1883")! == ("::1", 1883, false))
        for bad in [
            "http://broker", "mqtt://", "mqtt://user:pw@broker", "mqtt://broker/path", "mqtt://broker:0", "mqtt://broker:99999", "mqtt://bro ker",
            "mqtt://[::1",
        ] {
            #expect(MQTTBrokerAddress.parse(bad) == nil, "\(bad)")
        }
        #expect(MQTTBrokerAddress.isValidTopic("scannerd/kiosk-7"))
        for bad in ["", "a/+/b", "a/#", "/a", "a/", "a//b", String(repeating: "x", count: 201)] {
            #expect(!MQTTBrokerAddress.isValidTopic(bad), "\(bad)")
        }
    }
}
