import ScannerCore

/// A decoded image ready for recognition, with the size of the source it came from.
///
/// Recognizers report bounds normalized to the processing image, which are the same numbers in the
/// source frame: DCT scaling keeps the aspect ratio. `scale` says how much detail was given up.
public struct DecodedImage: Sendable {
    public var image: GrayImage
    public var sourceWidth: Int
    public var sourceHeight: Int

    /// Processing pixels per source pixel (1, 1/2, 1/4 or 1/8).
    public var scale: Double { Double(image.width) / Double(sourceWidth) }

    public init(image: GrayImage, sourceWidth: Int, sourceHeight: Int) {
        self.image = image
        self.sourceWidth = sourceWidth
        self.sourceHeight = sourceHeight
    }
}

/// The container formats told apart by their first bytes.
public enum ImageFormat: String, Sendable {
    case jpeg
    case png
    case pnm
    case other

    /// Sniffs the format from magic bytes; file name extensions are not trusted.
    public init(sniffing bytes: some Collection<UInt8>) {
        let head = Array(bytes.prefix(8))
        if head.starts(with: [0xFF, 0xD8, 0xFF]) {
            self = .jpeg
        } else if head.starts(with: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) {
            self = .png
        } else if head.count >= 2, head[0] == UInt8(ascii: "P"), (UInt8(ascii: "1")...UInt8(ascii: "6")).contains(head[1]) {
            self = .pnm
        } else {
            self = .other
        }
    }
}
