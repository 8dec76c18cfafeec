import ScannerCore

/// What a document's edges are looked for in (issue #53): the image's luma and, where it has colour,
/// its two chroma planes. A red card on a gray desk of the same luma has no edge in the luma; its
/// sides are steps in chroma. `scan` and captures decode the image in colour; live, an MJPEG frame is
/// decoded again in colour at the processing size for each look (`Frame.color`).
public struct DocumentImage: Sendable {
    /// Luma first, then the chroma planes, if any; all of one size.
    public let planes: [GrayImage]

    public init(_ luma: GrayImage) {
        planes = [luma]
    }

    public init(_ color: ColorImage) {
        self.init(luma: color.luma, color: color)
    }

    /// `luma` (a camera frame's, as decoded) with the chroma of `color`, the same frame in colour at
    /// the same size; `luma` alone when the sizes differ.
    public init(luma: GrayImage, color: ColorImage?) {
        guard let color, color.width == luma.width, color.height == luma.height else {
            planes = [luma]
            return
        }
        let chroma = color.chroma
        planes = [luma, chroma.blue, chroma.red]
    }

    init(planes: [GrayImage]) {
        precondition(!planes.isEmpty && planes.allSatisfy { $0.width == planes[0].width && $0.height == planes[0].height })
        self.planes = planes
    }

    public var luma: GrayImage { planes[0] }
    public var width: Int { planes[0].width }
    public var height: Int { planes[0].height }

    /// Every plane brought to `factor` of its size.
    func scaled(by factor: Double) -> DocumentImage {
        DocumentImage(planes: planes.map { $0.scaled(by: factor) })
    }
}
