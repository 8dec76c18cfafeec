import Capture
import ClientRequests
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
}
