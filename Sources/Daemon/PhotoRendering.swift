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
    /// frame's luma (or its JPEG decoded) with `items` (normalized quads) drawn when given, encoded
    /// here at quality 90.
    static func jpeg(of photo: Photo, annotating items: [Quad]?) -> Result<RequestHandler.CapturedPhoto, RequestHandler.Refusal> {
        if items == nil, let jpeg = photo.jpeg {
            return .success(.init(jpeg: jpeg, width: photo.width, height: photo.height))
        }
        do {
            var image: GrayImage
            if let luma = photo.luma {
                image = luma
            } else {
                image = try ImageDecoder().decode(photo.jpeg ?? Data()).image
            }
            if let items {
                let w = Double(image.width)
                let h = Double(image.height)
                for quad in items { image.strokePolygon(quad.corners.map { Point(x: $0.x * w, y: $0.y * h) }, width: max(3, image.width / 320)) }
            }
            let jpeg = try JPEGEncoder().encode(image, quality: 90)
            return .success(.init(jpeg: jpeg, width: image.width, height: image.height))
        } catch {
            return .failure(.init("cannot encode the photo: \(error)"))
        }
    }

    /// The document in the photo, straightened (`DocumentRectifier`) at the photo's full resolution:
    /// the largest of the `tracked` documents (normalized corners: what clients were told), or, when
    /// none is tracked (documents not asked for, or not yet confirmed), the detector's best on the
    /// photo itself, as `scan --document` finds it.
    static func document(of photo: Photo, tracked: [Quad]) -> Result<RequestHandler.CapturedPhoto, RequestHandler.Refusal> {
        let image: GrayImage
        do {
            image = try photo.luma ?? ImageDecoder().decode(photo.jpeg ?? Data()).image
        } catch {
            return .failure(.init("cannot decode the photo: \(error)"))
        }
        let w = Double(image.width)
        let h = Double(image.height)
        let quad =
            tracked.max { $0.boxArea < $1.boxArea }.map { $0.map { Point(x: $0.x * w, y: $0.y * h) } }
            ?? EdgeQuadDetector().documents(in: image).first?.quad
        guard let quad, let flat = DocumentRectifier.rectify(image, quad: quad) else {
            return .failure(.init("no document in view"))
        }
        do {
            let jpeg = try JPEGEncoder().encode(flat, quality: 90)
            return .success(.init(jpeg: jpeg, width: flat.width, height: flat.height))
        } catch {
            return .failure(.init("cannot encode the document: \(error)"))
        }
    }
}
