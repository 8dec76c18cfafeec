import Capture
import ClientRequests
import DocumentDetection
import Foundation
import ImageDecoding
import ScannerCore

/// What a `capture` request sends back, from the frame the source handed over: pure, so every case
/// is a test without a camera.
enum PhotoRendering {
    /// The camera's own JPEG, untouched, when it sent one and nothing is to be drawn; otherwise the
    /// frame with `items` (normalized quads) drawn when given, encoded here at quality 90: in colour
    /// from the camera's JPEG or its YUYV frame, in gray from a frame that came as luma alone (GREY).
    static func jpeg(of photo: Photo, annotating items: [Quad]?) -> Result<RequestHandler.CapturedPhoto, RequestHandler.Refusal> {
        if items == nil, let jpeg = photo.jpeg {
            return .success(.init(jpeg: jpeg, width: photo.width, height: photo.height))
        }
        do {
            var picture = try picture(of: photo)
            let (width, height) = picture.size
            for quad in items ?? [] {
                picture.strokePolygon(quad.corners.map { Point(x: $0.x * Double(width), y: $0.y * Double(height)) }, width: max(3, width / 320))
            }
            return .success(.init(jpeg: try picture.jpeg(), width: width, height: height))
        } catch {
            return .failure(.init("cannot encode the photo: \(error)"))
        }
    }

    /// The photo as a person sees it: the camera's JPEG decoded in colour, or its luma.
    enum Picture {
        case color(ColorImage)
        case gray(GrayImage)

        /// What its document's edges are looked for in: luma, and chroma where it has colour.
        var edges: DocumentImage {
            switch self {
            case .color(let image): DocumentImage(image)
            case .gray(let image): DocumentImage(image)
            }
        }

        var size: (width: Int, height: Int) {
            switch self {
            case .color(let image): (image.width, image.height)
            case .gray(let image): (image.width, image.height)
            }
        }

        mutating func strokePolygon(_ points: [Point], width: Int) {
            switch self {
            case .color(var image):
                image.strokePolygon(points, width: width)
                self = .color(image)
            case .gray(var image):
                image.strokePolygon(points, width: width)
                self = .gray(image)
            }
        }

        /// Straightened (`DocumentRectifier`); nil for a degenerate quadrilateral.
        func rectified(_ quad: Quad) -> Picture? {
            switch self {
            case .color(let image): DocumentRectifier.rectify(image, quad: quad).map(Picture.color)
            case .gray(let image): DocumentRectifier.rectify(image, quad: quad).map(Picture.gray)
            }
        }

        /// As JPEG at quality 90.
        func jpeg() throws(ScannerError) -> Data {
            switch self {
            case .color(let image): try JPEGEncoder().encode(image, quality: 90)
            case .gray(let image): try JPEGEncoder().encode(image, quality: 90)
            }
        }
    }

    static func picture(of photo: Photo) throws(ScannerError) -> Picture {
        if let yuyv = photo.yuyv, let color = try yuyv.decodeColor(targetWidth: yuyv.width) { return .color(color) }
        if let luma = photo.luma { return .gray(luma) }
        return .color(try ImageDecoder().decodeColor(photo.jpeg ?? Data()))
    }

    /// The document in the photo, straightened (`DocumentRectifier`) at the photo's full resolution,
    /// in colour where the camera sent colour: the largest of the `tracked` documents (normalized
    /// corners: what clients were told), or, when none is tracked (documents not asked for, or not yet
    /// confirmed), the detector's quadrilateral on the photo that holds the items clients were told
    /// of (`holding`, normalized: their text and codes belong inside the document, `TextHolding`), else
    /// its best-edged one (a few items do not outline a page of their own).
    static func document(of photo: Photo, tracked: [Quad], holding: [Quad] = []) -> Result<RequestHandler.CapturedPhoto, RequestHandler.Refusal> {
        let picture: Picture
        do {
            picture = try Self.picture(of: photo)
        } catch {
            return .failure(.init("cannot decode the photo: \(error)"))
        }
        let w = Double(picture.size.width)
        let h = Double(picture.size.height)
        func found() -> Quad? {
            let edges = picture.edges
            let candidates = EdgeQuadDetector().candidates(in: edges)
            let items = holding.map { $0.map { Point(x: $0.x * w, y: $0.y * h) } }
            let holdingItems = items.isEmpty ? nil : TextHolding.document(among: candidates, lines: items, width: edges.width, height: edges.height)
            // Without an outline holding the items, the best-edged one (`DocumentDetector.documents`).
            let chosen = holdingItems.flatMap { $0.fromText ? nil : $0.document } ?? DocumentCandidate.select(candidates, heldUp: nil).first
            return chosen?.refined(in: edges).quad
        }
        let quad = tracked.max { $0.boxArea < $1.boxArea }.map { $0.map { Point(x: $0.x * w, y: $0.y * h) } } ?? found()
        guard let quad, let flat = picture.rectified(quad) else { return .failure(.init("no document in view")) }
        do {
            let (width, height) = flat.size
            return .success(.init(jpeg: try flat.jpeg(), width: width, height: height))
        } catch {
            return .failure(.init("cannot encode the document: \(error)"))
        }
    }
}
