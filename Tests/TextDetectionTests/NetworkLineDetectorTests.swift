import Foundation
import ImageDecoding
import InferenceRuntime
import LineNetwork
import Recognition
import ScannerCore
import TestSupport
import TestTraits
import Testing

@testable import TextDetection

/// The detector network (PP-OCRv6 small, fetched by `make deps`) and its post-processing: a map in,
/// rectangles out, by PaddleOCR's rules; on a real image, the lines a person reads.
@Suite(.offThePool(minutes: 2)) struct NetworkLineDetectorTests {
    static let modelDirectory = Fixtures.packageRoot.appendingPathComponent(".build/models").path

    /// A map of `width` × `height`, `value` inside each rectangle (x, y, w, h), 0 elsewhere.
    func map(_ width: Int, _ height: Int, _ rectangles: [(Int, Int, Int, Int)], value: Float = 0.9) -> [Float] {
        var map = [Float](repeating: 0, count: width * height)
        for (x, y, w, h) in rectangles {
            for row in y..<(y + h) { for column in x..<(x + w) { map[row * width + column] = value } }
        }
        return map
    }

    func candidates(
        _ map: [Float], _ width: Int, _ height: Int, _ post: ProbabilityMapLines = ProbabilityMapLines()
    ) -> [ProbabilityMapLines.Candidate] {
        map.withUnsafeBufferPointer { post.candidates($0, width: width, height: height) }
    }

    /// A 40 × 8 region, dilated to 41 × 9 (one pixel right and down), grows by area × 1.6 / perimeter
    /// = 5.9 px on every side (the unclip), and is read left to right, level; its score is the map's
    /// mean inside the dilated region's rectangle.
    @Test func aRegionGrowsByTheUnclipDistance() throws {
        let found = candidates(map(80, 40, [(10, 10, 40, 8)]), 80, 40)
        try #require(found.count == 1)
        let line = found[0]
        let d = 41 * 9 * 1.6 / 100
        #expect(abs(line.height - (9 + 2 * d)) < 1e-6)
        #expect(abs(line.angle) < 1e-6)
        #expect(abs(line.quad.topLeft.x - (9.5 - d)) < 1e-6 && abs(line.quad.topLeft.y - (9.5 - d)) < 1e-6)
        #expect(abs(line.quad.bottomRight.x - (50.5 + d)) < 1e-6 && abs(line.quad.bottomRight.y - (18.5 + d)) < 1e-6)
        #expect(abs(line.score - 0.9 * 320 / 369) < 1e-5)
    }

    /// Above the binary threshold but below the box threshold is no line; thinner than three pixels
    /// is none either; two regions are two lines.
    @Test func faintThinAndSeparateRegions() {
        #expect(candidates(map(80, 40, [(10, 10, 40, 8)], value: 0.4), 80, 40).isEmpty)
        #expect(candidates(map(80, 40, [(10, 10, 40, 1)]), 80, 40).isEmpty)
        #expect(candidates(map(80, 40, [(5, 5, 30, 6), (5, 20, 60, 6)]), 80, 40).count == 2)
        #expect(candidates(map(80, 40, [(10, 10, 40, 8)], value: 0.2), 80, 40).isEmpty)
    }

    /// A tilted region gives its tilt, and a region read upward still runs left to right.
    @Test func aTiltedRegionGivesItsAngle() throws {
        let width = 100
        let height = 100
        var map = [Float](repeating: 0, count: width * height)
        // A band 6 px thick along y = 0.3 x + 20.
        for x in 10..<90 {
            let centre = 0.3 * Double(x) + 20
            for y in Int(centre - 3)..<Int(centre + 3) { map[y * width + x] = 0.9 }
        }
        let found = candidates(map, width, height)
        try #require(found.count == 1)
        #expect(abs(found[0].angle - atan(0.3) * 180 / .pi) < 1.5, "\(found[0].angle)")
        #expect(found[0].quad.topLeft.x < found[0].quad.topRight.x)
        #expect(found[0].quad.topLeft.y < found[0].quad.bottomLeft.y)
    }

    /// No more regions than `maximumCandidates` are looked at (a map of noise is bounded work).
    @Test func theRegionsLookedAtAreBounded() {
        var post = ProbabilityMapLines()
        post.maximumCandidates = 3
        let rectangles = (0..<10).map { (4 + 8 * $0, 4, 5, 5) }
        #expect(candidates(map(90, 20, rectangles), 90, 20).count == 10)
        #expect(candidates(map(90, 20, rectangles), 90, 20, post).count == 3)
    }

    /// The network's input, as RapidOCR sizes it: the shorter side enlarged to the first limit, the
    /// longer then at most the second, multiples of 32.
    /// A camera's detector makes the network for a size's transpose with it (a window turned portrait
    /// when a card is held upright must not wait for its network); a still's detector only the size
    /// its image needs.
    @Test func aCamerasDetectorPreparesTheTransposedSizeToo() throws {
        let landscape = GrayImage(width: 128, height: 64, pixels: [UInt8](repeating: 200, count: 128 * 64))
        let portrait = GrayImage(width: 64, height: 128, pixels: [UInt8](repeating: 200, count: 64 * 128))
        let live = try NetworkLineDetector(directory: Self.modelDirectory, shorterSideAtLeast: 128, longerSideAtMost: 128)
        live.preparesTransposed = true
        _ = try live.detect(landscape)
        #expect(live.compiledSizes.map { [$0.width, $0.height] }.sorted { $0[0] < $1[0] } == [[64, 128], [128, 64]])
        _ = try live.detect(portrait)
        #expect(live.compiledSizes.count == 2, "the portrait look found its network made")
        let still = try NetworkLineDetector(directory: Self.modelDirectory, shorterSideAtLeast: 128, longerSideAtMost: 128)
        _ = try still.detect(landscape)
        #expect(still.compiledSizes.map { [$0.width, $0.height] } == [[128, 64]])
    }

    @Test func inputSizes() {
        func size(_ w: Int, _ h: Int, _ shorter: Int = 736, _ longer: Int = 2000) -> [Int] {
            let size = NetworkLineDetector.inputSize(width: w, height: h, shorterSideAtLeast: shorter, longerSideAtMost: longer)
            return [size.width, size.height]
        }
        #expect(size(1280, 720) == [1312, 736])
        #expect(size(750, 1000) == [736, 992])
        #expect(size(300, 200) == [1120, 736])
        #expect(size(10, 5000) == [32, 2016])
        #expect(size(4000, 3000) == [2016, 1504])
        #expect(size(1280, 720, 0, 640) == [640, 352])
    }

    /// On the business-card fixture the network finds the lines of its four typed items, and the
    /// line network reads each of them from the line found.
    @Test func theCardsLinesAreFoundAndRead() throws {
        let detector = try NetworkLineDetector(directory: Self.modelDirectory)
        let network = try LineNetwork(directory: Self.modelDirectory)
        let image = try ImageDecoder().decodeFile(atPath: Fixtures.path("card-us.jpg")).image
        let lines = detector.lines(in: image)
        #expect(detector.lastFailure == nil)
        let recognizer = NetworkLineRecognizer(network)
        let texts = lines.compactMap { recognizer.read($0.quad, in: image)?.line.text }
        for expected in ["(415) 555-0123", "+1 650 253 0000", "jane.doe@example.com", "acme-optics.com/contact"] {
            #expect(texts.contains { $0.contains(expected) }, "\(expected) in \(texts)")
        }
        for line in lines {
            #expect(line.quad.corners.allSatisfy { $0.x >= 0 && $0.x <= Double(image.width) && $0.y >= 0 && $0.y <= Double(image.height) })
        }
    }

    @Test func aMissingOrBrokenModelIsAnError() throws {
        let directory = try TemporaryDirectory()
        #expect(throws: InferenceError.missing(path: directory.file("text-detector.onnx"))) { try NetworkLineDetector(directory: directory.path) }
        try Data("not a model".utf8).write(to: URL(fileURLWithPath: directory.file("text-detector.onnx")))
        #expect(throws: InferenceError.self) { try NetworkLineDetector(directory: directory.path) }
    }
}
