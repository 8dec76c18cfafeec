import Foundation  // trimmingCharacters(in:)

/// A point in some 2-D coordinate space (pixels or normalized), top-left origin, y down.
public struct Point: Sendable, Equatable, Hashable {
    public var x: Double
    public var y: Double

    public init(x: Double, y: Double) {
        self.x = x
        self.y = y
    }

    public static func - (a: Point, b: Point) -> Point { Point(x: a.x - b.x, y: a.y - b.y) }
    public static func + (a: Point, b: Point) -> Point { Point(x: a.x + b.x, y: a.y + b.y) }

    public func distance(to other: Point) -> Double {
        let d = self - other
        return (d.x * d.x + d.y * d.y).squareRoot()
    }
}

/// The four corners of a recognized item, named as the item itself is oriented: `topLeft` is the
/// top-left corner of the code or text *as read*, which is not the image's top-left when the item
/// is rotated. Matches the corner naming of Vision's `VNRectangleObservation`.
public struct Quad: Sendable, Equatable {
    public var topLeft: Point
    public var topRight: Point
    public var bottomRight: Point
    public var bottomLeft: Point

    public init(topLeft: Point, topRight: Point, bottomRight: Point, bottomLeft: Point) {
        self.topLeft = topLeft
        self.topRight = topRight
        self.bottomRight = bottomRight
        self.bottomLeft = bottomLeft
    }

    /// An axis-aligned box.
    public init(x: Double, y: Double, width: Double, height: Double) {
        self.init(
            topLeft: Point(x: x, y: y), topRight: Point(x: x + width, y: y),
            bottomRight: Point(x: x + width, y: y + height), bottomLeft: Point(x: x, y: y + height))
    }

    public var corners: [Point] { [topLeft, topRight, bottomRight, bottomLeft] }

    public var center: Point {
        let c = corners
        return Point(x: c.map(\.x).reduce(0, +) / 4, y: c.map(\.y).reduce(0, +) / 4)
    }

    /// The smallest axis-aligned box holding all four corners: (minX, minY, maxX, maxY).
    public var boundingBox: (minX: Double, minY: Double, maxX: Double, maxY: Double) {
        let c = corners
        return (c.map(\.x).min()!, c.map(\.y).min()!, c.map(\.x).max()!, c.map(\.y).max()!)
    }

    /// The mean of its top and bottom sides: a tilted line's length.
    public var meanLength: Double { (topRight.distance(to: topLeft) + bottomRight.distance(to: bottomLeft)) / 2 }

    /// The mean of its left and right sides: a tilted line's height.
    public var meanHeight: Double { (bottomLeft.distance(to: topLeft) + bottomRight.distance(to: topRight)) / 2 }

    /// The longer side of the bounding box: a code's length whatever its orientation.
    public var boxLength: Double {
        let b = boundingBox
        return max(b.maxX - b.minX, b.maxY - b.minY)
    }

    /// The area of the bounding box.
    public var boxArea: Double {
        let b = boundingBox
        return (b.maxX - b.minX) * (b.maxY - b.minY)
    }

    /// How much the bounding boxes of `self` and `other` overlap: the intersection over the smaller
    /// box's area, 1 when one holds the other, 0 when they are apart (or one has no area).
    public func boxOverlap(_ other: Quad) -> Double {
        let p = boundingBox
        let q = other.boundingBox
        let w = min(p.maxX, q.maxX) - max(p.minX, q.minX)
        let h = min(p.maxY, q.maxY) - max(p.minY, q.minY)
        guard w > 0, h > 0 else { return 0 }
        let smaller = min((p.maxX - p.minX) * (p.maxY - p.minY), (q.maxX - q.minX) * (q.maxY - q.minY))
        return smaller > 0 ? w * h / smaller : 0
    }

    /// Applies `transform` to every corner.
    public func map(_ transform: (Point) -> Point) -> Quad {
        Quad(
            topLeft: transform(topLeft), topRight: transform(topRight),
            bottomRight: transform(bottomRight), bottomLeft: transform(bottomLeft))
    }
}

/// A rectangle in normalized image coordinates: 0…1 on both axes, origin top-left.
/// Used for the region of interest and for every reported bound.
public struct NormalizedRect: Sendable, Equatable, CustomStringConvertible {
    public var x: Double
    public var y: Double
    public var width: Double
    public var height: Double

    public static let full = NormalizedRect(x: 0, y: 0, width: 1, height: 1)

    public init(x: Double, y: Double, width: Double, height: Double) {
        self.x = x
        self.y = y
        self.width = width
        self.height = height
    }

    /// Parses `"x,y,w,h"` (normalized, top-left origin) and checks it lies inside the image.
    public init(parsing text: String) throws(ScannerError) {
        let parts = text.split(separator: ",", omittingEmptySubsequences: false)
            .map { $0.trimmingCharacters(in: .whitespaces) }
        let values = parts.compactMap(Double.init)
        guard parts.count == 4, values.count == 4 else {
            throw .invalidArgument(name: "roi", value: text, reason: "expected four numbers x,y,w,h")
        }
        let rect = NormalizedRect(x: values[0], y: values[1], width: values[2], height: values[3])
        if let problem = rect.validationProblem {
            throw .invalidArgument(name: "roi", value: text, reason: problem)
        }
        self = rect
    }

    /// The smallest width and height a region of interest may have: a thousandth of the image. Smaller
    /// ones round to nothing where the region is reported (four decimals) and cover no pixel of a
    /// camera frame.
    public static let minimumSize = 0.001

    /// Why this rectangle is not a usable region of interest, or nil.
    public var validationProblem: String? {
        guard [x, y, width, height].allSatisfy({ $0.isFinite }) else { return "values must be finite" }
        guard x >= 0, y >= 0 else { return "x and y must be ≥ 0" }
        guard width >= Self.minimumSize, height >= Self.minimumSize else { return "width and height must be at least \(Self.minimumSize)" }
        let eps = 1e-9
        guard x + width <= 1 + eps, y + height <= 1 + eps else { return "rectangle must lie within 0…1" }
        return nil
    }

    /// The pixel rectangle this covers in a `width`×`height` image (rounded outwards, at least 1×1).
    public func pixelRect(width w: Int, height h: Int) -> PixelRect {
        let x0 = Int((x * Double(w)).rounded(.down))
        let y0 = Int((y * Double(h)).rounded(.down))
        let x1 = Int(((x + width) * Double(w)).rounded(.up))
        let y1 = Int(((y + height) * Double(h)).rounded(.up))
        return PixelRect(x: x0, y: y0, width: x1 - x0, height: y1 - y0).clamped(width: w, height: h)
    }

    /// The overlap of two rectangles, nil when they do not overlap.
    public func intersection(_ other: NormalizedRect) -> NormalizedRect? {
        let x0 = max(x, other.x)
        let y0 = max(y, other.y)
        let x1 = min(x + width, other.x + other.width)
        let y1 = min(y + height, other.y + other.height)
        guard x1 > x0, y1 > y0 else { return nil }
        return NormalizedRect(x: x0, y: y0, width: x1 - x0, height: y1 - y0)
    }

    /// The smallest rectangle holding both.
    public func union(_ other: NormalizedRect) -> NormalizedRect {
        let x0 = min(x, other.x)
        let y0 = min(y, other.y)
        return NormalizedRect(x: x0, y: y0, width: max(x + width, other.x + other.width) - x0, height: max(y + height, other.y + other.height) - y0)
    }

    public func contains(_ point: Point) -> Bool {
        point.x >= x && point.x <= x + width && point.y >= y && point.y <= y + height
    }

    public var description: String { "\(x),\(y),\(width),\(height)" }
}
