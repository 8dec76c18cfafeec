import Glibc

/// A camera as `scannerd devices` lists it.
public struct CameraDescription: Sendable {
    public var path: String
    /// The stable /dev/v4l/by-id/… link to this node, if udev made one.
    public var byID: String?
    public var capabilities: DeviceCapabilities
    public var formats: [FormatDescription]
}

/// Finds the capture devices on this machine.
public enum DeviceList {
    static let byIDDirectory = "/dev/v4l/by-id"

    /// Every streaming capture node among `/dev/video0…63` (probed by opening them, which also works
    /// for emulated devices) and `extraPaths`. UVC cameras expose a second, metadata-only node; such
    /// nodes are not capture devices and are left out.
    public static func cameras(extraPaths: [String] = []) -> [CameraDescription] {
        let links = byIDLinks()
        var seen = Set<String>()
        var found: [CameraDescription] = []
        for path in extraPaths + (0..<64).map({ "/dev/video\($0)" }) {
            guard let device = try? V4L2Device(path: path),
                let caps = try? device.capabilities(),
                let formats = try? device.formats()
            else { continue }
            // The same camera reached by its by-id link and by /dev/videoN is listed once: same node
            // after resolving links, or (where the node cannot be resolved) the same USB bus position.
            let node = realPath(path) ?? "bus:\(caps.driver):\(caps.busInfo)"
            guard seen.insert(node).inserted else { continue }
            let byID = path.hasPrefix(byIDDirectory) ? path : links[node]
            found.append(CameraDescription(path: path, byID: byID, capabilities: caps, formats: formats))
        }
        return found
    }

    /// by-id link → the node it points to, inverted.
    static func byIDLinks() -> [String: String] {
        guard let dir = opendir(byIDDirectory) else { return [:] }
        defer { closedir(dir) }
        var links: [String: String] = [:]
        while let entry = readdir(dir) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
            }
            guard !name.hasPrefix(".") else { continue }
            let link = "\(byIDDirectory)/\(name)"
            if let target = realPath(link) { links[target] = link }
        }
        return links
    }

    static func realPath(_ path: String) -> String? {
        guard let resolved = realpath(path, nil) else { return nil }
        defer { free(resolved) }
        return String(cString: resolved)
    }
}
