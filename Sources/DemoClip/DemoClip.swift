/// The bundled demo clip (`scannerd run --source demo`; made by Tests/Fixtures/generate.py), compiled
/// into the binary: an installed scannerd finds it with no resource bundle beside it and no build
/// directory behind it (a SwiftPM resource bundle is looked up in exactly those two places, and a
/// packaged binary has neither). A target of its own, so that its ~200 kB array literal (about 25 s
/// to compile in release) is compiled once, not whenever Capture changes.
public enum DemoClip {
    /// The clip's MJPEG stream: 30 JPEG frames of 640×480, back to back.
    public static var mjpeg: [UInt8] { PackageResources.demo_mjpeg }
}
