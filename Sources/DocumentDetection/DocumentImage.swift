import ScannerCore

/// What a document's edges are looked for in (issue #53): the image's luma and, where it has colour,
/// its two chroma planes. A red card on a gray desk of the same luma has no edge in the luma; its
/// sides are steps in chroma. A camera's frames are luma alone (the pipeline decodes them gray);
/// `scan` and captures have the colour.
public struct DocumentImage: Sendable {
    /// Luma first, then the chroma planes, if any; all of one size.
    public let planes: [GrayImage]

    public init(_ luma: GrayImage) {
        planes = [luma]
    }

    public init(_ color: ColorImage) {
        let chroma = color.chroma
        planes = [color.luma, chroma.blue, chroma.red]
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
