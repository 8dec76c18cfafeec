import Capture
import Foundation
import ScannerCore
import TestSupport
import Testing

@testable import DaemonConfiguration

/// Writes `yaml` to a temporary file and returns its path.
func temporaryConfig(_ yaml: String) throws -> String {
    let path = NSTemporaryDirectory() + "scannerd-\(UUID().uuidString).conf"
    try yaml.write(toFile: path, atomically: true, encoding: .utf8)
    return path
}

func load(_ yaml: String?, environment: [String: String] = [:], commandLine: [SettingEntry] = []) throws(ConfigurationErrors) -> LoadedConfiguration {
    let path = try! yaml.map(temporaryConfig)
    defer { if let path { unlink(path) } }
    return try ConfigurationLoader(filePath: path, environment: environment, commandLine: commandLine).load()
}

/// The errors of a configuration that must not load.
func errors(_ yaml: String?, environment: [String: String] = [:], commandLine: [SettingEntry] = []) -> [String] {
    do {
        _ = try load(yaml, environment: environment, commandLine: commandLine)
        return []
    } catch {
        return error.errors.map(\.description)
    }
}

func flag(_ key: String, _ value: String, _ name: String) -> SettingEntry {
    SettingEntry(key: key, value: .scalar(value), origin: .commandLine(name))
}

@Suite(.timeLimit(.minutes(2))) struct ShippedConfigurationTests {
    let shipped = Fixtures.packageRoot.appendingPathComponent("config/scannerd.conf").path

    @Test func theShippedFileIsEveryKeyAtItsDefault() throws {
        let entries = try ConfigurationFile.entries(path: shipped)
        #expect(entries.map(\.key).sorted() == SettingsSchema.keys.map(\.name).sorted())
        let loaded = try ConfigurationLoader(filePath: shipped, environment: [:]).load()
        #expect(loaded.settings == DaemonSettings())
    }

    @Test func theDocumentationNamesEveryKeyAndVariable() throws {
        let docs = try String(contentsOf: Fixtures.packageRoot.appendingPathComponent("docs/configuration.md"), encoding: .utf8)
        for key in SettingsSchema.keys {
            #expect(docs.contains("`\(key.name)`"), "docs/configuration.md does not document \(key.name)")
            #expect(docs.contains(key.environmentName), "docs/configuration.md does not name \(key.environmentName)")
        }
    }
}

@Suite(.timeLimit(.minutes(2))) struct PrecedenceTests {
    let file = "camera:\n  fps: 15\nlog:\n  level: debug\n"

    @Test func eachLayerOverridesTheOneBefore() throws {
        #expect(try load(nil).settings.fps == nil)
        #expect(try load(file).settings.fps == 15)
        let env = ["SCANNERD_CAMERA_FPS": "20"]
        #expect(try load(file, environment: env).settings.fps == 20)
        let loaded = try load(file, environment: env, commandLine: [flag("camera.fps", "25", "--fps")])
        #expect(loaded.settings.fps == 25)
        #expect(loaded.origins["camera.fps"] == .commandLine("--fps"))
        // Keys the upper layers leave alone keep the file's value and say where it came from.
        #expect(loaded.settings.logLevel == .debug)
        guard case .file(_, let line) = loaded.origins["log.level"] else {
            Issue.record("log.level should come from the file")
            return
        }
        #expect(line == 4)
    }

    @Test func aSourceOnTheCommandLineReplacesTheFilesDevice() throws {
        let loaded = try load("camera:\n  device: /dev/video2\n", commandLine: [flag("camera.source", "demo", "--source")])
        #expect(loaded.settings.input == .replay("demo"))
        #expect(loaded.settings.effectiveFPS == 10)
        let device = try load("camera:\n  source: demo\n", environment: ["SCANNERD_CAMERA_DEVICE": "/dev/video1"])
        #expect(device.settings.input == .device("/dev/video1"))
    }

    @Test func bothInputsInOneLayerConflict() {
        let found = errors("camera:\n  device: /dev/video0\n  source: demo\n")
        #expect(found.count == 1)
        #expect(found.first?.contains(":3: give only one of 'camera.device' or 'camera.source'") == true, "\(found)")
    }

    @Test func nullGoesBackToTheDefault() throws {
        let loaded = try load("server:\n  socket-group: ~\ncamera:\n  fps: null\n  processing-width: auto\n")
        #expect(loaded.settings.socketGroup == nil)
        #expect(loaded.settings.fps == nil)
        #expect(loaded.settings.processingWidth == nil)
    }

    @Test func anEmptyFileIsAllDefaults() throws {
        #expect(try load("# nothing here\n").settings == DaemonSettings())
    }
}

@Suite(.timeLimit(.minutes(2))) struct ValueTests {
    @Test func valuesAreReadAsWrittenNotThroughYAMLTyping() throws {
        // YAML 1.1 would make 0660 the integer 432 and NO the boolean false.
        let loaded = try load("server:\n  socket-mode: 0660\nrecognition:\n  phone-region: NO\n")
        #expect(loaded.settings.socketMode == 0o660)
        #expect(loaded.settings.phoneRegion == "NO")
    }

    @Test func listsMapsAndTheirFlatSpellings() throws {
        let yaml = """
            camera:
              formats: [yuyv, MJPG]
              controls:
                focusAuto: off
                focus: 120
            recognition:
              types: [qr, telephoneNumber]
              region-of-interest: [0.1, 0.2, 0.5, 0.5]
              languages: eng+deu
            """
        let s = try load(yaml).settings
        #expect(s.formats == [.yuyv, .mjpeg])
        #expect(s.controls == [CameraControlSetting(name: "focusAuto", value: "off"), CameraControlSetting(name: "focus", value: "120")])
        #expect(s.types == RecognitionTypes(symbologies: [.qr], contentTypes: [.telephoneNumber]))
        #expect(s.regionOfInterest == NormalizedRect(x: 0.1, y: 0.2, width: 0.5, height: 0.5))
        #expect(s.languages == ["eng", "deu"])
        #expect(s.lineModel == .installed)
        for (value, choice) in [("none", LineModelChoice.none), ("/opt/line-model", .directory("/opt/line-model")), ("auto", .installed)] {
            #expect(try load(nil, environment: ["SCANNERD_RECOGNITION_LINE_MODEL": value]).settings.lineModel == choice)
        }
        // The environment and the command line spell lists with commas and maps as name=value.
        let env = try load(
            nil,
            environment: [
                "SCANNERD_RECOGNITION_TYPES": "qr,url", "SCANNERD_CAMERA_CONTROLS": "zoom=150,exposureAuto=manual",
            ]
        ).settings
        #expect(env.types == RecognitionTypes(symbologies: [.qr], contentTypes: [.url]))
        #expect(env.controls.map(\.name) == ["zoom", "exposureAuto"])
    }

    @Test func theSettingsSurviveBeingShownAndReadBack() throws {
        var yaml = ""
        var section = ""
        let loaded = try load(
            "camera:\n  fps: 12.5\n  controls: {zoom: 150}\nrecognition:\n  types: [qr, url, text]\n  quality: accurate\nserver:\n  allow-users: [root]\n"
        )
        for key in SettingsSchema.keys {
            let parts = key.name.split(separator: ".")
            if parts[0] != section {
                section = String(parts[0])
                yaml += "\(section):\n"
            }
            yaml += "  \(parts[1]): \(key.value(in: loaded.settings))\n"
        }
        #expect(try load(yaml).settings == loaded.settings, "\(yaml)")
    }
}

@Suite(.timeLimit(.minutes(2))) struct ValidationTests {
    @Test func unknownKeysNameTheKeyTheLineAndTheClosestKnownKey() throws {
        let found = errors("camera:\n  widht: 640\n  fps: 30\nrecogniton:\n  quality: fast\n").sorted()
        try #require(found.count == 2, "\(found)")
        #expect(found[0].hasSuffix(".conf:2: unknown key 'camera.widht' (did you mean 'camera.width'?)"), "\(found)")
        #expect(found[1].hasSuffix(".conf:4: unknown key 'recogniton' (did you mean 'recognition'?)"), "\(found)")
    }

    @Test(arguments: [
        ("camera:\n  fps: fast\n", ":2: camera.fps: invalid value 'fast': expected a number above 0 and at most 1000"),
        ("camera:\n  fps: -1\n", ":2: camera.fps: invalid value '-1'"),
        ("camera:\n  width: 10\n", ":2: camera.width: invalid value '10': expected a whole number from 16 to 8192"),
        ("camera:\n  device: video0\n", ":2: camera.device: invalid value 'video0': expected an absolute path"),
        ("camera:\n  formats: [MJPG, H264]\n", ":2: camera.formats: invalid value '[MJPG, H264]': 'H264' is not MJPG, YUYV or GREY"),
        ("camera:\n  controls: {focsu: 3}\n", ":2: camera.controls: invalid value '{focsu: 3}': unknown camera control 'focsu'"),
        ("camera:\n  controls: {exposureAuto: sometimes}\n", "'sometimes' is not a number or one of"),
        ("camera:\n  pace: fast\n", ":2: camera.pace: invalid value 'fast': expected one of realtime, none"),
        ("camera:\n  loop: maybe\n", ":2: camera.loop: invalid value 'maybe': expected true or false"),
        ("recognition:\n  quality: best\n", ":2: recognition.quality: invalid value 'best': expected one of fast, balanced, accurate"),
        ("recognition:\n  types: [qr, isbn]\n", ":2: recognition.types: invalid value '[qr, isbn]': 'isbn': unknown type"),
        (
            "recognition:\n  region-of-interest: [0.5, 0.5, 0.8, 0.8]\n",
            "recognition.region-of-interest: invalid value '[0.5, 0.5, 0.8, 0.8]': rectangle must lie within 0…1"
        ),
        ("recognition:\n  region-of-interest: [0, 0, 1]\n", "expected four numbers x,y,w,h"),
        ("recognition:\n  phone-region: USA\n", ":2: recognition.phone-region: invalid value 'USA': expected a two-letter country code"),
        ("recognition:\n  languages: [eng, ../x]\n", "'../x' is not a Tesseract language name"),
        (
            "recognition:\n  line-model: models/line\n",
            ":2: recognition.line-model: invalid value 'models/line': expected auto, none or an absolute path"
        ),
        ("tracking:\n  grace-period: 0\n", ":2: tracking.grace-period: invalid value '0': expected a number above 0 and at most 60"),
        ("tracking:\n  text-window: many\n", ":2: tracking.text-window: invalid value 'many': expected a whole number from 1 to 30"),
        ("server:\n  socket-mode: 0999\n", ":2: server.socket-mode: invalid value '0999': expected an octal mode"),
        (
            "server:\n  socket: \"@scannerd\"\n",
            ":2: server.socket: invalid value '@scannerd': expected a file path (an abstract socket name has no file permissions)"
        ),
        ("server:\n  socket-group: no-such-group-here\n", ":2: server.socket-group: invalid value 'no-such-group-here': no such group"),
        ("server:\n  allow-users: [root, nobody-at-all]\n", "server.allow-users: invalid value '[root, nobody-at-all]': no such user"),
        ("server:\n  max-clients: 0\n", ":2: server.max-clients: invalid value '0'"),
        ("server:\n  enabled: [true]\n", ":2: server.enabled: invalid value '[true]': expected a single value"),
        ("log:\n  level: loud\n", ":2: log.level: invalid value 'loud': expected one of trace, debug, info, notice, warning, error, critical"),
    ])
    func badValuesNameTheKeyTheValueAndTheLine(yaml: String, expected: String) {
        let found = errors(yaml)
        #expect(found.count == 1, "\(found)")
        #expect(found.first?.contains(expected) == true, "\(found) should contain \(expected)")
    }

    @Test func syntaxErrorsGiveTheLineAndColumn() {
        let found = errors("camera:\n  fps: 30\n  width: [640\nlog:\n  level: info\n")
        #expect(found.count == 1)
        #expect(found.first?.contains("not valid YAML") == true, "\(found)")
        // libyaml finds the unclosed list where the next key starts: line 4, column 4.
        #expect(found.first?.contains(".conf:4:4: not valid YAML:") == true, "\(found)")
    }

    @Test func theShapeMustBeSectionsOfKeys() {
        #expect(errors("- camera\n- log\n").first?.contains(":1: the file must be a mapping") == true)
        #expect(errors("camera: /dev/video0\n").first?.contains(":1: 'camera' must be a mapping") == true)
        #expect(errors("camera:\n  fps: 30\n  fps: 15\n").first?.contains("fps") == true)
    }

    @Test func everyProblemIsReportedAtOnce() {
        let found = errors("camera:\n  fps: x\n  width: y\nlog:\n  level: z\n  colour: blue\n")
        #expect(found.count == 4, "\(found)")
    }

    @Test func theEnvironmentIsCheckedLikeTheFile() {
        let found = errors(
            nil, environment: ["SCANNERD_CAMERA_FPS": "fast", "SCANNERD_CAMERA_DEVCE": "/dev/video0", "SCANNERD_CONFIG": "/x", "HOME": "/root"])
        #expect(found.count == 2, "\(found)")
        #expect(
            found.contains("environment SCANNERD_CAMERA_FPS: camera.fps: invalid value 'fast': expected a number above 0 and at most 1000"),
            "\(found)")
        #expect(
            found.contains("environment SCANNERD_CAMERA_DEVCE: unknown key 'SCANNERD_CAMERA_DEVCE' (did you mean 'SCANNERD_CAMERA_DEVICE'?)"),
            "\(found)")
    }

    @Test func theCommandLineIsCheckedLikeTheFile() {
        #expect(
            errors(nil, commandLine: [flag("camera.width", "wide", "--width")]) == [
                "--width: camera.width: invalid value 'wide': expected a whole number from 16 to 8192"
            ])
    }

    @Test func anUnreadableFileSaysWhy() {
        #expect(throws: ConfigurationErrors([.unreadable(path: "/nonexistent/scannerd.conf", reason: "no such file")])) {
            try ConfigurationLoader(filePath: "/nonexistent/scannerd.conf", environment: [:]).load()
        }
        #expect(
            ConfigurationErrors([.unreadable(path: "/nonexistent/scannerd.conf", reason: "no such file")]).description
                == "/nonexistent/scannerd.conf: cannot read the configuration: no such file")
    }
}

@Suite(.timeLimit(.minutes(2))) struct ReloadDiffTests {
    @Test func changedKeysSayWhichApplyLive() throws {
        let before = try load("recognition:\n  quality: fast\ncamera:\n  width: 640\n")
        let after = try load("recognition:\n  quality: accurate\ncamera:\n  width: 1920\n")
        let changed = after.changedKeys(from: before)
        #expect(changed.map(\.name) == ["camera.width", "recognition.quality"])
        #expect(changed.map(\.live) == [false, true])
        #expect(after.changedKeys(from: after).isEmpty)
    }

    @Test func environmentNamesFollowTheKeys() {
        #expect(SettingsSchema.key("camera.processing-width")?.environmentName == "SCANNERD_CAMERA_PROCESSING_WIDTH")
        #expect(Set(SettingsSchema.keys.map(\.environmentName)).count == SettingsSchema.keys.count)
    }
}

/// issue #18: scannerd.conf(5) is written from the schema, so it names every key, its default and its
/// environment variable, and stays valid roff.
@Suite struct ManualPageTests {
    @Test func theManualPageNamesEveryKeyWithItsDefault() {
        let page = ManualPage.configuration(version: "9.9.9", date: "2026-11-23")
        #expect(page.hasPrefix(#".TH SCANNERD.CONF 5 "2026-11-23" "scannerd 9.9.9""#))
        let defaults = DaemonSettings()
        for key in SettingsSchema.keys {
            #expect(page.contains(".B \(ManualPage.escape(key.name))\n"), "\(key.name)")
            #expect(page.contains("Default: \(ManualPage.escape(key.value(in: defaults)))"), "\(key.name)")
            #expect(page.contains(ManualPage.escape(key.environmentName)), "\(key.name)")
        }
        // No line starts with a dot or quote that roff would take for a request, unless it is one.
        let requests = Set([".TH", ".SH", ".SS", ".TP", ".B", ".BR", ".RB", ".I", ".PP", ".br"])
        for line in page.split(separator: "\n") where line.hasPrefix(".") || line.hasPrefix("'") {
            #expect(requests.contains(String(line.split(separator: " ").first ?? "")), "\(line)")
        }
    }
}
