/// The camera pixel formats scannerd consumes, by their V4L2 FourCC.
public enum PixelFormat: String, Sendable, CaseIterable, Comparable {
    /// Motion-JPEG: one JPEG per frame. UVC cameras offer it at their highest sizes and rates.
    case mjpeg = "MJPG"
    /// Packed 4:2:2, Y0 U Y1 V: two bytes per pixel, luma in every even byte.
    case yuyv = "YUYV"
    /// 8-bit luma only.
    case grey = "GREY"

    /// The FourCC as V4L2 packs it (little-endian ASCII).
    public var fourcc: UInt32 {
        rawValue.utf8.enumerated().reduce(0) { $0 | UInt32($1.element) << (8 * UInt32($1.offset)) }
    }

    public init?(fourcc: UInt32) {
        guard let match = Self.allCases.first(where: { $0.fourcc == fourcc }) else { return nil }
        self = match
    }

    /// A FourCC as text ("MJPG"), also for formats scannerd does not use.
    public static func name(ofFourCC fourcc: UInt32) -> String {
        String(decoding: (0..<4).map { UInt8(truncatingIfNeeded: fourcc >> (8 * $0)) }, as: UTF8.self)
    }

    /// Preference order for negotiation: MJPEG gives the largest sizes at full frame rate over USB 2
    /// and decodes to gray cheaply with DCT scaling; YUYV needs no decode but is bandwidth-limited.
    public static func < (a: PixelFormat, b: PixelFormat) -> Bool {
        allCases.firstIndex(of: a)! < allCases.firstIndex(of: b)!
    }
}
