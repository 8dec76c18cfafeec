import Foundation
import ScannerCore
import TestSupport
import Testing

@Suite(.timeLimit(.minutes(2))) struct GeometryTests {
    @Test func convexHullDropsInteriorPoints() {
        let points = [Point(x: 0, y: 0), Point(x: 4, y: 0), Point(x: 4, y: 3), Point(x: 0, y: 3), Point(x: 2, y: 1), Point(x: 1, y: 2)]
        let hull = ConvexGeometry.convexHull(points)
        #expect(Set(hull) == Set([Point(x: 0, y: 0), Point(x: 4, y: 0), Point(x: 4, y: 3), Point(x: 0, y: 3)]))
    }

    @Test func minimumAreaRectangleOfRotatedSquareIsTheSquare() {
        // A square rotated 45°, with extra points along its edges (as zbar's scan-line end points are).
        let square = [Point(x: 5, y: 0), Point(x: 10, y: 5), Point(x: 5, y: 10), Point(x: 0, y: 5), Point(x: 7.5, y: 2.5), Point(x: 2.5, y: 7.5)]
        let corners = ConvexGeometry.minimumAreaRectangle(square)
        for expected in [Point(x: 5, y: 0), Point(x: 10, y: 5), Point(x: 5, y: 10), Point(x: 0, y: 5)] {
            #expect(corners.contains(where: { $0.isNear(expected, tolerance: 1e-6) }), "missing corner \(expected) in \(corners)")
        }
    }

    @Test(arguments: [0, 1, 2, 3])
    func cornersAreNamedFromTheReadersOrientation(quarterTurns: Int) {
        let rect = [Point(x: 0, y: 0), Point(x: 10, y: 0), Point(x: 10, y: 4), Point(x: 0, y: 4)]
        let quad = ConvexGeometry.label(rect, quarterTurns: quarterTurns)
        // Upright: the image's top-left is the symbol's. Each clockwise quarter turn of the symbol moves
        // its top-left one corner clockwise around the rectangle.
        let expectedTopLeft = [Point(x: 0, y: 0), Point(x: 10, y: 0), Point(x: 10, y: 4), Point(x: 0, y: 4)][quarterTurns]
        #expect(quad.topLeft == expectedTopLeft)
        #expect(Set(quad.corners) == Set(rect))
    }

    @Test func regionOfInterestParsesAndValidates() throws {
        let roi = try NormalizedRect(parsing: "0.1, 0.2,0.5,0.5")
        #expect(roi == NormalizedRect(x: 0.1, y: 0.2, width: 0.5, height: 0.5))
        #expect(roi.pixelRect(width: 100, height: 200) == PixelRect(x: 10, y: 40, width: 50, height: 100))
        for bad in ["", "1,2,3", "a,b,c,d", "0.5,0.5,0.6,0.1", "-0.1,0,0.5,0.5", "0,0,0,1", "0,0,nan,1"] {
            #expect(throws: ScannerError.self, "'\(bad)' should be refused") { try NormalizedRect(parsing: bad) }
        }
    }

    @Test func errorNamesTheArgumentAndWhy() {
        #expect(throws: ScannerError.invalidArgument(name: "roi", value: "0.5,0.5,0.6,0.1", reason: "rectangle must lie within 0…1")) {
            try NormalizedRect(parsing: "0.5,0.5,0.6,0.1")
        }
    }

    @Test func quadCenterAndBoundingBox() {
        let quad = Quad(x: 1, y: 2, width: 4, height: 6)
        #expect(quad.center == Point(x: 3, y: 5))
        #expect(quad.boundingBox.maxX == 5 && quad.boundingBox.maxY == 8)
    }
}

@Suite(.timeLimit(.minutes(2))) struct GrayImageTests {
    static func ramp(width: Int, height: Int, stride: Int) -> GrayImage {
        var pixels = [UInt8](repeating: 0xEE, count: stride * height)  // padding bytes are 0xEE
        for y in 0..<height { for x in 0..<width { pixels[y * stride + x] = UInt8(y * 16 + x) } }
        return GrayImage(width: width, height: height, stride: stride, pixels: pixels)
    }

    @Test func cropCopiesTheRectangleAndDropsTheStride() {
        let image = Self.ramp(width: 8, height: 6, stride: 12)
        let crop = image.cropped(to: PixelRect(x: 2, y: 1, width: 3, height: 2))
        #expect(crop.width == 3 && crop.height == 2 && crop.isPacked)
        #expect(crop.pixels == [0x12, 0x13, 0x14, 0x22, 0x23, 0x24])
    }

    @Test func cropIsClampedToTheImage() {
        let image = Self.ramp(width: 8, height: 6, stride: 8)
        let crop = image.cropped(to: PixelRect(x: 6, y: 4, width: 10, height: 10))
        #expect(crop.width == 2 && crop.height == 2)
        #expect(crop[1, 1] == 0x57)
    }

    @Test func packedRemovesPadding() {
        let image = Self.ramp(width: 4, height: 2, stride: 7)
        #expect(!image.isPacked)
        #expect(image.packed().pixels == [0, 1, 2, 3, 16, 17, 18, 19])
    }

    @Test func scalingKeepsUniformImagesUniformAndResizes() {
        let image = GrayImage(width: 10, height: 5, filledWith: 77)
        let big = image.scaled(by: 2)
        #expect(big.width == 20 && big.height == 10)
        #expect(big.pixels.allSatisfy { $0 == 77 })
    }

    @Test func scalingInterpolatesBetweenNeighbours() {
        let image = GrayImage(width: 2, height: 1, pixels: [0, 200])
        let big = image.scaled(by: 2)
        let firstRow = Array(big.pixels[0..<big.width])
        #expect(firstRow.first == 0 && firstRow.last == 200)
        #expect(firstRow == firstRow.sorted() && Set(firstRow).count == 4, "a ramp stays a ramp: \(firstRow)")
    }
}

@Suite(.timeLimit(.minutes(2))) struct ContrastTests {
    @Test func blankAndNoisyImagesHaveLittleSpreadPrintHasMuch() {
        #expect(GrayImage(width: 64, height: 64, filledWith: 200).contrastSpread() == 0)
        var noisy = [UInt8](repeating: 0, count: 64 * 64)
        var seed: UInt32 = 7
        for i in noisy.indices {
            seed = seed &* 1_103_515_245 &+ 12345
            noisy[i] = UInt8(190 + Int(seed >> 16) % 21)  // 190…210
        }
        #expect(GrayImage(width: 64, height: 64, pixels: noisy).contrastSpread() <= 20)
        var page = [UInt8](repeating: 240, count: 64 * 64)
        for i in stride(from: 0, to: page.count, by: 7) { page[i] = 20 }  // ink
        #expect(GrayImage(width: 64, height: 64, pixels: page).contrastSpread(step: 1) >= 200)
    }
}

/// Straightening a line of text for a single-line recognizer (issue #13).
@Suite(.timeLimit(.minutes(1))) struct RectifyTests {
    @Test func anUprightQuadIsItsOwnCrop() {
        var image = GrayImage(width: 64, height: 48, filledWith: 0)
        for y in 0..<48 { for x in 0..<64 { image.pixels[y * 64 + x] = UInt8(x * 3 + y) } }
        let quad = Quad(x: 10, y: 10, width: 40, height: 20)
        let straight = image.rectified(quad, height: 20)
        #expect(straight.width == 40 && straight.height == 20)
        for (u, v) in [(0, 0), (39, 0), (20, 10), (39, 19)] {
            #expect(abs(Int(straight[u, v]) - Int(image[10 + u, 10 + v])) <= 1, "(\(u), \(v))")
        }
    }

    @Test func aTiltedBarComesOutLevel() {
        // A dark bar 6 px thick along a line rising 30°, on a light ground.
        var image = GrayImage(width: 200, height: 200, filledWith: 220)
        let angle = 30.0 * .pi / 180
        let c = Point(x: 100, y: 100)
        for t in -60...60 {
            for n in -3...3 {
                let x = c.x + Double(t) * cos(angle) + Double(n) * sin(angle)
                let y = c.y - Double(t) * sin(angle) + Double(n) * cos(angle)
                image.pixels[Int(y.rounded()) * 200 + Int(x.rounded())] = 20
            }
        }
        func p(_ t: Double, _ n: Double) -> Point { Point(x: c.x + t * cos(angle) + n * sin(angle), y: c.y - t * sin(angle) + n * cos(angle)) }
        let quad = Quad(topLeft: p(-50, -12), topRight: p(50, -12), bottomRight: p(50, 12), bottomLeft: p(-50, 12))
        let straight = image.rectified(quad, height: 24)
        func rowMean(_ v: Int) -> Double { (0..<straight.width).map { Double(straight[$0, v]) }.reduce(0, +) / Double(straight.width) }
        #expect(rowMean(12) < 60 && rowMean(1) > 180 && rowMean(22) > 180, "\(rowMean(1)) \(rowMean(12)) \(rowMean(22))")
        #expect(abs(straight.width - 100) <= 2)
    }

    @Test func lightTextOnDarkComesOutDarkOnLightAtFullRange() {
        // A dark-mode line: ground 30, strokes 200, in 1 of 5 pixels.
        var line = GrayImage(width: 100, height: 20, filledWith: 30)
        for i in line.pixels.indices where i % 5 == 0 { line.pixels[i] = 200 }
        let normal = line.normalizedForReading()
        #expect(normal.pixels.filter { $0 == 255 }.count == line.pixels.filter { $0 == 30 }.count, "the ground is white")
        #expect(normal.pixels.filter { $0 == 0 }.count == line.pixels.filter { $0 == 200 }.count, "the strokes are black")
        var print = line
        print.pixels = line.pixels.map { 255 - $0 }
        #expect(print.normalizedForReading() == normal, "either polarity gives the same")
    }
}
