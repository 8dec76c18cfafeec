/// The release this build is: `scannerd --version`, `scanctl --version`, the `hello` event's `daemon`
/// field, MQTT's status message, and the Debian package's version (`make deb` asks the binary).
public enum Release {
    public static let version = "0.2.0"
}
