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
    /// from the camera's JPEG, in gray from a frame that came as luma alone (YUYV).
    static func jpeg(of photo: Photo, annotating items: [Quad]?) -> Result<RequestHandler.CapturedPhoto, RequestHandler.Refusal> {
        if items == nil, let jpeg = photo.jpeg {
            return .success(.init(jpeg: jpeg, width: photo.width, height: photo.height))
        }
        do {
            let encoder = try JPEGEncoder()
            func corners(_ quad: Quad, _ width: Int, _ height: Int) -> [Point] {
                quad.corners.map { Point(x: $0.x * Double(width), y: $0.y * Double(height)) }
            }
            switch try picture(of: photo) {
            case .color(var image):
                for quad in items ?? [] { image.strokePolygon(corners(quad, image.width, image.height), width: max(3, image.width / 320)) }
                return .success(.init(jpeg: try encoder.encode(image, quality: 90), width: image.width, height: image.height))
            case .gray(var image):
                for quad in items ?? [] { image.strokePolygon(corners(quad, image.width, image.height), width: max(3, image.width / 320)) }
                return .success(.init(jpeg: try encoder.encode(image, quality: 90), width: image.width, height: image.height))
            }
        } catch {
            return .failure(.init("cannot encode the photo: \(error)"))
        }
    }

    /// The photo as a person sees it: the camera's JPEG decoded in colour, or its luma.
    enum Picture {
        case color(ColorImage)
        case gray(GrayImage)

        var luma: GrayImage {
            switch self {
            case .color(let image): image.luma
            case .gray(let image): image
            }
        }
    }

    static func picture(of photo: Photo) throws(ScannerError) -> Picture {
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
        let luma = picture.luma
        let w = Double(luma.width)
        let h = Double(luma.height)
        func found() -> Quad? {
            let candidates = EdgeQuadDetector().candidates(in: luma)
            let items = holding.map { $0.map { Point(x: $0.x * w, y: $0.y * h) } }
            if let choice = TextHolding.document(among: candidates, lines: items, width: luma.width, height: luma.height), !choice.fromText,
                !items.isEmpty
            {
                return choice.document.refined(in: luma).quad
            }
            return EdgeQuadDetector().documents(in: luma).first?.quad
        }
        let quad = tracked.max { $0.boxArea < $1.boxArea }.map { $0.map { Point(x: $0.x * w, y: $0.y * h) } } ?? found()
        guard let quad else { return .failure(.init("no document in view")) }
        do {
            let encoder = try JPEGEncoder()
            switch picture {
            case .color(let image):
                guard let flat = DocumentRectifier.rectify(image, quad: quad) else { return .failure(.init("no document in view")) }
                return .success(.init(jpeg: try encoder.encode(flat, quality: 90), width: flat.width, height: flat.height))
            case .gray(let image):
                guard let flat = DocumentRectifier.rectify(image, quad: quad) else { return .failure(.init("no document in view")) }
                return .success(.init(jpeg: try encoder.encode(flat, quality: 90), width: flat.width, height: flat.height))
            }
        } catch {
            return .failure(.init("cannot encode the document: \(error)"))
        }
    }
}
