import CV4L2
import Logging

/// A camera setting from the configuration, by name: `focusAuto=0`, `focus=120`, `exposureAuto=manual`,
/// `exposure=300`, `zoom=150`, `brightness=140`, `powerLineFrequency=50`.
public struct CameraControlSetting: Sendable, Equatable {
    public var name: String
    public var value: String

    public init(name: String, value: String) {
        self.name = name
        self.value = value
    }

    /// Parses `name=value`.
    public init?(parsing text: String) {
        let parts = text.split(separator: "=", maxSplits: 1).map(String.init)
        guard parts.count == 2, !parts[0].isEmpty, !parts[1].isEmpty else { return nil }
        self.init(name: parts[0], value: parts[1])
    }
}

/// The controls scannerd knows, their V4L2 ids and value words.
public enum CameraControls {
    struct Known {
        var id: UInt32
        /// Words accepted besides numbers.
        var words: [String: Int]
        /// Lower values apply first: an automatic mode must be off before its manual value sticks.
        var order: Int
    }

    static let known: [String: Known] = [
        "focusAuto": Known(id: cv4l2_CID_FOCUS_AUTO(), words: ["on": 1, "off": 0, "true": 1, "false": 0], order: 0),
        "exposureAuto": Known(
            id: cv4l2_CID_EXPOSURE_AUTO(),
            // V4L2_EXPOSURE_AUTO = 0, MANUAL = 1, SHUTTER_PRIORITY = 2, APERTURE_PRIORITY = 3 (what UVC cameras call auto).
            words: ["auto": 3, "manual": 1, "aperturePriority": 3, "shutterPriority": 2], order: 0),
        "focus": Known(id: cv4l2_CID_FOCUS_ABSOLUTE(), words: [:], order: 1),
        "exposure": Known(id: cv4l2_CID_EXPOSURE_ABSOLUTE(), words: [:], order: 1),
        "zoom": Known(id: cv4l2_CID_ZOOM_ABSOLUTE(), words: [:], order: 1),
        "brightness": Known(id: cv4l2_CID_BRIGHTNESS(), words: [:], order: 1),
        "powerLineFrequency": Known(
            id: cv4l2_CID_POWER_LINE_FREQUENCY(), words: ["off": 0, "disabled": 0, "50": 1, "60": 2, "auto": 3], order: 1),
    ]

    public static var names: [String] { known.keys.sorted() }

    /// What is wrong with a setting before any camera is asked (unknown name, a value that is neither a
    /// number nor one of the control's words), or nil. Ranges depend on the camera: checked when applied.
    public static func problem(name: String, value: String) -> String? {
        guard let control = known[name] else { return "unknown camera control '\(name)' (known: \(names.joined(separator: ", ")))" }
        guard control.words[value] != nil || Int(value) != nil else {
            return "camera control '\(name)': '\(value)' is not a number or one of \(control.words.keys.sorted().joined(separator: ", "))"
        }
        return nil
    }

    /// Applies `settings` to `device`. Nothing here fails the capture: a control the camera lacks, an
    /// unknown name or a bad value is a warning naming the control. Returns the warnings given.
    @discardableResult
    public static func apply(_ settings: [CameraControlSetting], to device: V4L2Device, logger: Logger) -> [String] {
        var warnings: [String] = []
        func warn(_ message: String) {
            warnings.append(message)
            logger.warning("\(message)", metadata: ["device": "\(device.path)"])
        }
        let ordered = settings.sorted { (known[$0.name]?.order ?? 9) < (known[$1.name]?.order ?? 9) }
        for setting in ordered {
            guard let control = known[setting.name] else {
                warn("unknown camera control '\(setting.name)' (known: \(names.joined(separator: ", ")))")
                continue
            }
            guard let value = control.words[setting.value] ?? Int(setting.value) else {
                warn(
                    "camera control '\(setting.name)': '\(setting.value)' is not a number or one of \(control.words.keys.sorted().joined(separator: ", "))"
                )
                continue
            }
            do {
                guard let info = try device.control(control.id), !info.isDisabled else {
                    warn("camera has no '\(setting.name)' control")
                    continue
                }
                guard (info.minimum...info.maximum).contains(value) else {
                    warn("camera control '\(setting.name)': \(value) is outside \(info.minimum)…\(info.maximum)")
                    continue
                }
                try device.setControl(control.id, to: value)
            } catch {
                warn("camera control '\(setting.name)': \(error)")
            }
        }
        return warnings
    }
}
