/// What MQTT takes as a topic prefix, a client id or a user name: the rules the configuration checks
/// (`mqtt.topic`, `mqtt.client-id`, `mqtt.username`, so that `check-config` refuses what `run`
/// would) and the publisher checks again. Pure.
public enum MQTTNames {
    /// Why a string cannot go to the broker, or nil. MQTT 3.1.1 §1.5.3 forbids U+0000 and lets a
    /// server close the connection over control characters and non-characters; libmosquitto refuses
    /// them outright (`mosquitto_validate_utf8`: "Malformed UTF-8"), so they are refused here first.
    public static func textProblem(_ text: String) -> String? {
        for scalar in text.unicodeScalars {
            let v = scalar.value
            if v <= 0x1F || (0x7F...0x9F).contains(v) {
                return "control characters (U+\(hex(v))) are not allowed"
            }
            if (0xFDD0...0xFDEF).contains(v) || v & 0xFFFE == 0xFFFE {
                return "non-characters (U+\(hex(v))) are not allowed"
            }
        }
        return nil
    }

    /// Why `topic` cannot be the prefix of the daemon's topics (`PREFIX/events`, …), or nil.
    public static func topicProblem(_ topic: String) -> String? {
        if topic.isEmpty || topic.utf8.count > 200 || topic.contains("+") || topic.contains("#") || topic.hasPrefix("/")
            || topic.hasSuffix("/") || topic.contains("//")
        {
            return "expected a topic without wildcards (+ #), empty levels or a leading or trailing /, at most 200 bytes"
        }
        // MQTT 3.1.1 §4.7.2: topics beginning with $ are the broker's ($SYS/…). A broker may drop what a
        // client publishes there (mosquitto does for $SYS/…, acknowledging it all the same): every
        // event would vanish without a word.
        if topic.hasPrefix("$") { return "topics beginning with $ are reserved for the broker ($SYS/…)" }
        return textProblem(topic)
    }

    private static func hex(_ value: UInt32) -> String {
        let digits = String(value, radix: 16, uppercase: true)
        return String(repeating: "0", count: max(0, 4 - digits.count)) + digits
    }
}
