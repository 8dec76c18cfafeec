// swift-tools-version:6.1
//
// The targets follow the data flow (see docs/architecture.md):
//
//   capture ─▶ decode ─▶ (sequence pipeline) ─▶ recognizers ─▶ tracking ─▶ events ─▶ requests ─▶ socket · HTTP
//                                                                                └──▶ MQTT
//
// Each C library sits behind one `Sources/C*` target that exactly one Swift module imports. A stage
// depends on `ScannerCore` (the shared value types), its own C module, and the stages before it that it
// builds on (the whole graph: docs/architecture.md, "Targets"); the `Daemon` library wires them together
// for `scannerd run`.
import PackageDescription

/// Where `make deps` unpacks OpenVINO's C runtime (config/runtime/fetch-openvino.sh).
let openVINO = Context.packageDirectory + "/.build/openvino"
/// Where `make deps` builds zxing-cpp from its release source (config/runtime/build-zxing.sh).
let zxing = Context.packageDirectory + "/.build/zxing"
/// Where `make deps` unpacks zbar's headers (config/runtime/fetch-zbar-header.sh).
let zbar = Context.packageDirectory + "/.build/zbar"

/// The modules that work on pixels and tensors, optimised in debug builds too: `make test` runs a debug
/// build, and unoptimised Swift image loops made its tests several times slower (documents on a clip:
/// 8.5×; docs/benchmarks.md, "`make test` on 2 cores without AVX-512"). Not BarcodeRecognition, whose
/// work is in C.
let pixelWork: [SwiftSetting] = [.unsafeFlags(["-O"], .when(configuration: .debug))]

let package = Package(
    name: "scannerd",
    platforms: [.macOS(.v14)],
    products: [
        .executable(name: "scannerd", targets: ["scannerd"]),
        .executable(name: "scanctl", targets: ["scanctl"]),
        .executable(name: "scannerd-bench", targets: ["scannerd-bench"]),
        // The emulated camera for tests: LD_PRELOAD=.build/<config>/libFakeCamera.so (see docs/emulated-camera.md).
        .library(name: "FakeCamera", type: .dynamic, targets: ["CFakeCamera"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
        .package(url: "https://github.com/apple/swift-log", from: "1.6.0"),
        .package(url: "https://github.com/apple/swift-system", from: "1.4.0"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.0"),
        // YAML for the configuration file: libyaml underneath, and every node keeps its line (errors name it).
        .package(url: "https://github.com/jpsim/Yams", from: "6.0.0"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.6.0"),
        // HTTP for web kiosks (issue #15): server-sent events, WebSocket, the preview page.
        // Without its default traits: swift-configuration (which `ConfigurationSupport` brings, 47 of the
        // ~940 compile steps of `make run`) is not used here, nor full-Foundation URL-encoded forms.
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.0.0", traits: []),
        .package(url: "https://github.com/hummingbird-project/hummingbird-websocket", from: "2.0.0"),
        .package(url: "https://github.com/apple/swift-http-types", from: "1.0.0"),
        // Metrics: the stages time themselves through swift-metrics; the daemon exports Prometheus text.
        .package(url: "https://github.com/apple/swift-metrics", from: "2.4.1"),
        .package(url: "https://github.com/swift-server/swift-prometheus", from: "2.0.0"),
    ],
    targets: [
        // MARK: C libraries (one shim each)
        // zbar's headers are Debian's libzbar-dev's, unpacked into .build/zbar (`make deps`; installed, that
        // package brings ImageMagick's and GTK's development packages); the library is libzbar0's.
        .systemLibrary(name: "CZBar"),
        .systemLibrary(name: "CTesseract", pkgConfig: "tesseract", providers: [.apt(["libtesseract-dev"])]),
        .systemLibrary(name: "CTurboJPEG", pkgConfig: "libturbojpeg", providers: [.apt(["libturbojpeg0-dev"])]),
        .systemLibrary(name: "CV4L2"),
        // MQTT for fleets (issue #16): Debian's libmosquitto, no MQTT written here.
        .systemLibrary(name: "CMosquitto", pkgConfig: "libmosquitto", providers: [.apt(["libmosquitto-dev"])]),
        // SHA-256 from OpenSSL's libcrypto: the compiled-network cache's names and checks (InferenceRuntime).
        .systemLibrary(name: "CCrypto", pkgConfig: "libcrypto", providers: [.apt(["libssl-dev"])]),
        // libphonenumber is C++ only: a small C-ABI shim so Swift sees plain C.
        .target(
            name: "CPhoneNumber",
            linkerSettings: [.linkedLibrary("phonenumber"), .linkedLibrary("stdc++")]
        ),

        // Leptonica (Tesseract's image library) decodes everything but JPEG; a C file takes its and
        // libtiff's messages, which would otherwise go straight to stderr.
        .target(
            name: "CLeptonica",
            linkerSettings: [.linkedLibrary("lept"), .linkedLibrary("tiff")]
        ),

        // zxing-cpp 3.x through its own C API (ZXingC.h): every symbology, every code in the image (issue #41).
        // Debian 12's libzxing is 1.4; `make deps` builds the release source from PyPI into .build/zxing,
        // static (config/runtime/build-zxing.sh).
        .target(
            name: "CZXing",
            cSettings: [.unsafeFlags(["-I", zxing + "/include"])],
            // The archive by its file name (-l:), so that a libZXing.so of Debian's on the system is never taken instead.
            linkerSettings: [.unsafeFlags(["-L", zxing + "/lib", "-Xlinker", "-l:libZXing.a"]), .linkedLibrary("stdc++")]
        ),

        // The text networks (issue #40) run on OpenVINO's C API, from the PyPI wheel that `make deps` unpacks
        // into .build/openvino (config/runtime/fetch-openvino.sh; Debian 12 has no inference runtime with C
        // headers). Products find its libraries in ../lib/scannerd beside their own directory: the installed
        // tree's PREFIX/lib/scannerd, and in .build a link to .build/openvino/lib that `make deps` makes.
        .target(
            name: "COpenVINO",
            cSettings: [.unsafeFlags(["-I", openVINO + "/include"])],
            linkerSettings: [
                .unsafeFlags(["-L", openVINO + "/lib", "-Xlinker", "-rpath", "-Xlinker", "$ORIGIN/../lib/scannerd"]),
                .linkedLibrary("openvino_c"),
            ]
        ),

        // Test double: answers V4L2 for a fake /dev/videoN when LD_PRELOADed. Nothing in the daemon knows it.
        .target(
            name: "CFakeCamera",
            linkerSettings: [.linkedLibrary("turbojpeg"), .linkedLibrary("dl"), .linkedLibrary("pthread")]
        ),

        // MARK: Core value types (no C, no I/O)
        .target(name: "ScannerCore", swiftSettings: pixelWork),

        // MARK: Decode: encoded image → GrayImage
        .target(name: "ImageDecoding", dependencies: ["ScannerCore", "CTurboJPEG", "CLeptonica"], swiftSettings: pixelWork),

        // MARK: Capture: V4L2 cameras and replay sources → decoded frames
        .target(
            name: "Capture",
            dependencies: [
                "ScannerCore", "ImageDecoding", "CV4L2", "CDemoClip",
                .product(name: "SystemPackage", package: "swift-system"),
                .product(name: "CoreMetrics", package: "swift-metrics"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        // The demo clip (made by Tests/Fixtures/generate.py), compiled into the binary (C23 #embed):
        // `scannerd run --source demo` works wherever the binary is installed.
        .target(name: "CDemoClip", exclude: ["demo.mjpeg"]),

        // MARK: Recognizers: GrayImage → observations
        // zxing-cpp's and zbar's headers are in .build (`make deps`), not beside the shims: every target is
        // told where they are (at the end of this file); the one module that imports CZXing and CZBar links
        // libzbar0's library by its name.
        .target(
            name: "BarcodeRecognition", dependencies: ["ScannerCore", "CZBar", "CZXing"],
            linkerSettings: [.linkedLibrary(":libzbar.so.0")]
        ),
        // Where the lines of text are, behind one seam (LineDetector): PP-OCRv6's detector network, or the
        // classical detector (pure Swift); the recognizers read line by line (issues #13, #40).
        .target(name: "TextDetection", dependencies: ["ScannerCore", "InferenceRuntime"], swiftSettings: pixelWork),
        // Where a held-up page, card or label lies, behind one seam (DocumentDetector): straight edges
        // and the quadrilateral they bound (pure Swift; issue #43).
        .target(name: "DocumentDetection", dependencies: ["ScannerCore"], swiftSettings: pixelWork),
        .target(name: "TextRecognition", dependencies: ["ScannerCore", "CTesseract"], swiftSettings: pixelWork),
        // The networks' runtime: a model read, compiled for the CPU (or taken from the compiled-network
        // cache), run on a tensor.
        .target(
            name: "InferenceRuntime", dependencies: ["COpenVINO", "CCrypto", .product(name: "Logging", package: "swift-log")],
            swiftSettings: pixelWork),
        // The line recognizer network (PP-OCRv6 small): where its model is installed, the first recognizer
        // of `scan` and of the live pipeline (`Recognition.ReadingFusion`).
        .target(name: "LineNetwork", dependencies: ["ScannerCore", "InferenceRuntime"], swiftSettings: pixelWork),
        .target(name: "ContentTypes", dependencies: ["ScannerCore", "CPhoneNumber"]),
        // What a code's payload means: Wi-Fi, contact cards, links, GS1 element strings, AAMVA licences.
        .target(name: "PayloadParsing", dependencies: ["ScannerCore"]),
        // One still image through every requested recognizer (Vision's VNImageRequestHandler).
        .target(
            name: "Recognition",
            dependencies: [
                "ScannerCore", "BarcodeRecognition", "TextDetection", "TextRecognition", "LineNetwork", "ContentTypes", "PayloadParsing",
            ],
            swiftSettings: pixelWork
        ),

        // MARK: Tracking: evidence over frames, ids and lifecycle (pure state machines)
        .target(name: "Tracking", dependencies: ["ScannerCore"]),

        // MARK: Sequence pipeline: scheduling, gates, recognizers and trackers per frame
        .target(
            name: "Pipeline",
            dependencies: [
                "ScannerCore", "Capture", "BarcodeRecognition", "TextDetection", "Recognition", "DocumentDetection", "Tracking",
                .product(name: "CoreMetrics", package: "swift-metrics"), .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: pixelWork
        ),

        // MARK: Events: numbering, current items, fan-out with bounded queues
        .target(name: "Events", dependencies: ["ScannerCore", "Tracking", "ScannerProtocol"]),

        // MARK: Requests: the protocol's requests answered alike for every transport
        .target(
            name: "ClientRequests",
            dependencies: ["Events", "ScannerCore", "ScannerProtocol", .product(name: "Logging", package: "swift-log")]
        ),

        // MARK: Socket: the event server (SwiftNIO)
        .target(
            name: "EventServer",
            dependencies: [
                "ClientRequests", "Events", "ScannerCore", "ScannerProtocol",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),

        // MARK: HTTP: the same events and requests for browsers (Hummingbird 2, SwiftNIO underneath)
        .target(
            name: "HTTPServer",
            dependencies: [
                "ClientRequests", "Events", "ScannerCore", "ScannerProtocol",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdCore", package: "hummingbird"),
                .product(name: "HummingbirdWebSocket", package: "hummingbird-websocket"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                // The connection guard sits right after NIO's HTTP/1 decoder (HTTPConnections.swift).
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),

        // MARK: MQTT: the events to a broker, for fleets (libmosquitto)
        .target(
            name: "MQTTPublisher",
            dependencies: ["CMosquitto", "Events", "ScannerCore", "ScannerProtocol", .product(name: "Logging", package: "swift-log")]
        ),

        // MARK: Configuration: defaults < file < environment < command line, validated with lines
        .target(
            name: "DaemonConfiguration",
            dependencies: [
                "ScannerCore", "Capture",
                .product(name: "Yams", package: "Yams"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),

        // MARK: The daemon: services (swift-service-lifecycle), systemd notification, reload, logs
        .target(
            name: "Daemon",
            dependencies: [
                "ScannerCore", "ImageDecoding", "Recognition", "DocumentDetection", "Capture", "Tracking", "Pipeline", "Events",
                "ClientRequests", "EventServer", "HTTPServer", "MQTTPublisher", "DaemonConfiguration", "ScannerProtocol",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "UnixSignals", package: "swift-service-lifecycle"),
                .product(name: "Prometheus", package: "swift-prometheus"),
            ]
        ),

        // MARK: Client side of the socket (scanctl, scripts, tests)
        // MARK: The wire protocol's one home: requests (both ways), replies, error codes, filters
        .target(name: "ScannerProtocol", dependencies: ["ScannerCore"]),

        .target(name: "ScannerClient", dependencies: ["ScannerCore", "ScannerProtocol"]),

        // MARK: Executables
        .executableTarget(
            name: "scannerd",
            dependencies: [
                "ScannerCore", "ImageDecoding", "Recognition", "TextDetection", "DocumentDetection", "Capture", "DaemonConfiguration",
                "Daemon", "ScannerProtocol", "CommandExit", .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),

        .executableTarget(
            name: "scanctl",
            dependencies: [
                "CommandExit", "ScannerClient", "ScannerProtocol", "ScannerCore", .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),

        // How the command-line tools end on an error: one rule for `scannerd` and `scanctl` (docs/cli.md).
        .target(name: "CommandExit", dependencies: [.product(name: "ArgumentParser", package: "swift-argument-parser")]),

        // `make bench`: per-stage costs, each against the naive way of calling the same library.
        .executableTarget(
            name: "scannerd-bench",
            dependencies: [
                "ScannerCore", "ImageDecoding", "BarcodeRecognition", "TextDetection", "TextRecognition", "LineNetwork", "ContentTypes",
                "Recognition", "DocumentDetection",
                "Capture", "Tracking", "Pipeline", "Events", "EventServer", "ScannerClient", "ScannerProtocol", "TestSupport",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),

        // MARK: Tests
        // Fixture paths and helpers shared by the test targets and the benchmarks.
        .target(name: "TestSupport", dependencies: ["ScannerCore", "Tracking", "ScannerClient", "ScannerProtocol"], path: "Tests/TestSupport"),
        // Swift Testing traits of our own (tests only: the benchmarks do not link Testing).
        .target(name: "TestTraits", path: "Tests/TestTraits"),
        .testTarget(name: "ScannerCoreTests", dependencies: ["ScannerCore", "TestSupport"]),
        .testTarget(name: "ScannerProtocolTests", dependencies: ["ScannerProtocol", "ScannerCore", "TestSupport"]),
        .testTarget(name: "ContentTypesTests", dependencies: ["ContentTypes", "ScannerCore", "TestSupport"]),
        .testTarget(name: "PayloadParsingTests", dependencies: ["PayloadParsing", "ScannerCore"]),
        .testTarget(
            name: "RecognitionTests",
            dependencies: [
                "ScannerCore", "ImageDecoding", "BarcodeRecognition", "TextDetection", "TextRecognition", "InferenceRuntime", "LineNetwork",
                "ContentTypes", "Recognition", "TestSupport", "TestTraits",
            ]
        ),
        .testTarget(name: "DaemonConfigurationTests", dependencies: ["DaemonConfiguration", "ScannerCore", "Capture", "TestSupport", "TestTraits"]),
        .testTarget(
            name: "DaemonTests",
            dependencies: [
                "Daemon", "DaemonConfiguration", "Pipeline", "Capture", "ScannerCore", "TestSupport", "TestTraits",
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        .testTarget(name: "TrackingTests", dependencies: ["Tracking", "ScannerCore", "TestSupport"]),
        .testTarget(name: "DocumentDetectionTests", dependencies: ["DocumentDetection", "ScannerCore", "ImageDecoding", "Capture", "TestSupport"]),
        .testTarget(
            name: "TextDetectionTests",
            dependencies: [
                "TextDetection", "InferenceRuntime", "LineNetwork", "ImageDecoding", "Recognition", "ScannerCore", "TestSupport", "TestTraits",
            ]
        ),
        .testTarget(name: "EventsTests", dependencies: ["Events", "Tracking", "ScannerCore", "ScannerProtocol", "TestSupport"]),
        .testTarget(
            name: "EventServerTests",
            dependencies: [
                "ClientRequests", "EventServer", "Events", "Tracking", "ScannerCore", "ScannerClient", "ScannerProtocol", "TestSupport",
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        .testTarget(
            name: "HTTPServerTests",
            dependencies: [
                "HTTPServer", "ClientRequests", "Events", "Tracking", "ScannerCore", "ScannerProtocol", "TestSupport",
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        .testTarget(name: "MQTTPublisherTests", dependencies: ["MQTTPublisher"]),
        .testTarget(
            name: "PipelineTests",
            dependencies: [
                "Pipeline", "Tracking", "Capture", "Recognition", "TextDetection", "TextRecognition", "ImageDecoding", "ScannerCore", "TestSupport",
                "TestTraits", .product(name: "Logging", package: "swift-log"),
            ]
        ),
        .testTarget(name: "CaptureTests", dependencies: ["Capture", "ScannerCore", "ImageDecoding", "TestSupport", "TestTraits"]),
        .testTarget(
            name: "ScannerCLITests",
            dependencies: ["ScannerCore", "ScannerClient", "ScannerProtocol", "ImageDecoding", "DaemonConfiguration", "TestSupport", "TestTraits"]),
    ],
    cxxLanguageStandard: .cxx17
)

// Where zxing-cpp's and zbar's headers are (`make deps` puts them in .build), for every Swift target, not
// only BarcodeRecognition, the one that imports CZXing and CZBar: an optimised module that imports it
// (Recognition, Pipeline) makes its own importers load those C modules too, and a fresh clone's debug
// build failed with "'zbar.h' file not found" without the paths.
for target in package.targets where target.type != .system && target.type != .binary && target.type != .plugin {
    target.swiftSettings =
        (target.swiftSettings ?? []) + [
            .unsafeFlags(["-Xcc", "-I", "-Xcc", zxing + "/include", "-Xcc", "-I", "-Xcc", zbar + "/include"])
        ]
}
