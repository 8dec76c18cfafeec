import Foundation
import Recognition
import ScannerCore
import Testing
import TextDetection

@testable import Pipeline

/// Where the live line detector looks, and at what scale (issue #52): pure, no threads, no network.
@Suite(.timeLimit(.minutes(1))) struct TextLooksTests {
    static let frame = PixelRect(x: 0, y: 0, width: 1280, height: 720)
    /// What the detector network makes of a 1280×720 frame at the live detection size.
    static let input = (width: 640, height: 352)

    /// The looks that are windows, not the whole frame.
    static func windows(_ looks: [TextLooks.Look]) -> [TextLooks.Look] { looks.filter { $0.rect != frame } }

    /// A line `height` px high and `length` long, its top-left corner at (x, y).
    func line(x: Double, y: Double, length: Double = 200, height: Double, readAsGarbage: Bool = false) -> TextLooks.SeenLine {
        TextLooks.SeenLine(Quad(x: x, y: y, width: length, height: height), readAsGarbage: readAsGarbage)
    }

    /// An empty desk: the whole frame, reduced as it always was.
    @Test func nothingHeldUpIsTheWholeFrameReduced() {
        var looks = TextLooks()
        let planned = looks.plan(area: Self.frame, input: Self.input, changed: nil, lines: [], time: 0)
        #expect(planned.count == 1 && planned[0].rect == Self.frame && abs(planned[0].scale - 352.0 / 720) < 1e-9, "\(planned)")
    }

    /// A card held up at arm's length, nothing read on it yet: its print may be small, so it is
    /// looked at in full resolution or closer — windows of the input's size, each no more costly
    /// than the whole frame reduced.
    @Test func somethingNewHeldUpIsLookedAtInFull() {
        var looks = TextLooks()
        let card = PixelRect(x: 500, y: 300, width: 420, height: 260)
        let planned = looks.plan(area: Self.frame, input: Self.input, changed: card, lines: [], time: 0)
        let windows = Self.windows(planned)
        #expect(!windows.isEmpty && windows.count <= TextLooks.Configuration().maximumLooks, "\(planned)")
        #expect(
            windows.allSatisfy {
                $0.scale >= 1 && abs(Double($0.rect.width) * $0.scale - 640) < 2 && abs(Double($0.rect.height) * $0.scale - 352) < 2
            })
        #expect(coversSampled(windows, card))
    }

    /// Large print (lines 48 px high) needs no close look once a look in full found nothing smaller:
    /// the whole frame, reduced, until the next look in full a second later.
    @Test func largePrintIsReadReducedAndLookedAtInFullOnceASecond() {
        var looks = TextLooks()
        let card = PixelRect(x: 300, y: 200, width: 500, height: 300)
        let lines = [line(x: 340, y: 240, height: 48), line(x: 340, y: 320, height: 52)]
        let first = looks.plan(area: Self.frame, input: Self.input, changed: card, lines: lines, time: 0)
        #expect(first.contains { $0.scale >= 1 }, "\(first)")
        let next = looks.plan(area: Self.frame, input: Self.input, changed: card, lines: lines, time: 0.1)
        #expect(next.count == 1 && next[0].rect == Self.frame, "\(next)")
        let later = looks.plan(area: Self.frame, input: Self.input, changed: card, lines: lines, time: 1.05)
        #expect(later.contains { $0.scale >= 1 }, "\(later)")
    }

    /// A card coming into view, blurred, is found as one "line" the size of the card, read as
    /// garbage: it says nothing of the print's height, and the windows go on looking close (taken for
    /// print, it sent the looks to the reduced frame for a second; the generator's `smallprint` clip).
    @Test func aLineReadAsGarbageIsNoPrintHeight() {
        let card = PixelRect(x: 600, y: 250, width: 200, height: 180)
        func second(garbage: Bool) -> [TextLooks.Look] {
            var looks = TextLooks()
            _ = looks.plan(area: Self.frame, input: Self.input, changed: card, lines: [], time: 0)
            let blob = [line(x: 600, y: 250, length: 300, height: 190, readAsGarbage: garbage)]
            return looks.plan(area: Self.frame, input: Self.input, changed: card, lines: blob, time: 0.1)
        }
        #expect(second(garbage: false) == [TextLooks.Look(rect: Self.frame, scale: 352.0 / 720)], "taken for print, the blob is large print")
        let close = second(garbage: true)
        #expect(!Self.windows(close).isEmpty && Self.windows(close).allSatisfy { $0.scale > 352.0 / 720 * 1.1 }, "\(close)")
    }

    /// Small print found (lines 12 px high: 6 at the whole frame's scale): every pass looks at it in
    /// full resolution, and the whole frame too once a second.
    @Test func smallPrintIsFollowedInFull() {
        var looks = TextLooks()
        let card = PixelRect(x: 500, y: 300, width: 300, height: 180)
        let lines = [line(x: 520, y: 320, length: 150, height: 12), line(x: 520, y: 340, length: 180, height: 12)]
        var whole = 0
        for pass in 0..<20 {
            let planned = looks.plan(area: Self.frame, input: Self.input, changed: card, lines: lines, time: Double(pass) * 0.1)
            let windows = Self.windows(planned)
            #expect(windows.count == 1 && windows[0].scale >= 1, "pass \(pass): \(planned)")
            #expect(coversSampled(windows, card))
            whole += planned.count - windows.count
        }
        #expect(whole == 2, "the whole frame once a second besides")
    }

    /// Print the reduced frame does not find (24 px lines: 12 px at its input) is read at the
    /// largest scale, not at one just large enough (lines of small print are found two at a time
    /// there, and a scale that changes from pass to pass changes the quads the schedule follows).
    @Test func printTooSmallForTheReducedFrameIsReadAtTheLargestScale() {
        var looks = TextLooks()
        let lines = [line(x: 400, y: 300, length: 300, height: 24)]
        for pass in 0..<5 {
            let planned = looks.plan(area: Self.frame, input: Self.input, changed: nil, lines: lines, time: Double(pass) * 0.1)
            let windows = Self.windows(planned)
            #expect(windows.count == 1 && windows[0].scale == TextLooks.Configuration().maximumScale, "pass \(pass): \(planned)")
        }
    }

    /// A tall receipt is covered in at most two windows, one above the other: windows side by side
    /// would cut every line across.
    @Test func aTallRegionIsOneColumnOfWindows() {
        var looks = TextLooks()
        let receipt = PixelRect(x: 600, y: 60, width: 260, height: 560)
        let planned = looks.plan(area: Self.frame, input: Self.input, changed: receipt, lines: [], time: 0)
        let windows = Self.windows(planned)
        #expect(!windows.isEmpty && windows.count <= 2 && Set(windows.map(\.rect.x)).count == 1, "\(planned)")
        #expect(windows.allSatisfy { $0.scale >= 1 })
        #expect(coversSampled(windows, receipt))
    }

    /// A page held up close fills the frame: at most `maximumLooks` windows, the scale lowered until
    /// they cover it; every window inside the frame.
    @Test func aLargeRegionIsCoveredByAFewWindowsAtALowerScale() {
        var looks = TextLooks()
        let page = PixelRect(x: 200, y: 40, width: 900, height: 640)
        let planned = looks.plan(area: Self.frame, input: Self.input, changed: page, lines: [], time: 0)
        let windows = Self.windows(planned)
        #expect(!windows.isEmpty && windows.count <= TextLooks.Configuration().maximumLooks, "\(planned)")
        #expect(windows.allSatisfy { $0.scale < 1 && $0.scale > 0.5 })
        #expect(planned.allSatisfy { $0.rect.x >= 0 && $0.rect.y >= 0 && $0.rect.x + $0.rect.width <= 1280 && $0.rect.y + $0.rect.height <= 720 })
        #expect(coversSampled(windows, page))
    }

    /// Whatever is held up and wherever, the windows lie inside the area read (a region of interest
    /// too) and cover the part of the region inside it, within the look budget.
    @Test func windowsStayInsideTheAreaAndCoverTheRegion() {
        var generator = SystemRandomNumberGenerator()
        let roi = PixelRect(x: 100, y: 50, width: 1000, height: 620)
        for _ in 0..<200 {
            var looks = TextLooks()
            let width = Int.random(in: 20...1200, using: &generator)
            let height = Int.random(in: 20...700, using: &generator)
            let held = PixelRect(
                x: Int.random(in: -50...1280 - width / 2, using: &generator), y: Int.random(in: -50...720 - height / 2, using: &generator),
                width: width, height: height)
            let planned = looks.plan(area: roi, input: Self.input, changed: held, lines: [], time: 0)
            #expect(planned.count <= TextLooks.Configuration().maximumLooks + 1)
            for look in planned {
                #expect(look.rect.x >= roi.x && look.rect.y >= roi.y, "\(look) outside \(roi)")
                #expect(look.rect.x + look.rect.width <= roi.x + roi.width && look.rect.y + look.rect.height <= roi.y + roi.height, "\(look)")
            }
            if let inside = held.grown(by: TextLooks.Configuration().changedMargin).intersection(roi) {
                #expect(coversSampled(planned, inside), "\(planned) do not cover \(inside)")
            }
        }
    }

    /// Whether every 7th pixel of `region` lies in some look.
    func coversSampled(_ looks: [TextLooks.Look], _ region: PixelRect) -> Bool {
        stride(from: region.x, to: region.x + region.width, by: 7).allSatisfy { x in
            stride(from: region.y, to: region.y + region.height, by: 7).allSatisfy { y in
                looks.contains { $0.rect.x <= x && x < $0.rect.x + $0.rect.width && $0.rect.y <= y && y < $0.rect.y + $0.rect.height }
            }
        }
    }

    /// A frame the detector sees whole at full resolution (640×480 at 640) needs no windows.
    @Test func aFrameAlreadySeenInFullIsOneLook() {
        var looks = TextLooks()
        let vga = PixelRect(x: 0, y: 0, width: 640, height: 480)
        let planned = looks.plan(area: vga, input: (640, 480), changed: PixelRect(x: 100, y: 100, width: 200, height: 100), lines: [], time: 0)
        #expect(planned == [TextLooks.Look(rect: vga, scale: 1)])
    }

    /// Lines found by two looks are one line each: the longer stays (a window may cut a line the
    /// whole frame saw whole), and lines elsewhere are kept.
    @Test func linesFoundTwiceAreKeptOnce() {
        func text(_ seen: TextLooks.SeenLine) -> DetectedLine { DetectedLine(quad: seen.quad, textHeight: seen.quad.meanHeight) }
        let whole = [text(line(x: 100, y: 100, length: 300, height: 20)), text(line(x: 100, y: 400, length: 200, height: 20))]
        let window = [text(line(x: 102, y: 101, length: 296, height: 19)), text(line(x: 600, y: 100, length: 100, height: 12))]
        let merged = TextLooks.merged(whole, window)
        #expect(merged.count == 3)
        let cut = [text(line(x: 100, y: 100, length: 150, height: 20))]
        #expect(TextLooks.merged(whole, cut).count == 2, "a part of a line found whole is not a line of its own")
        #expect(TextLooks.merged(whole, cut).contains { $0.quad.meanLength == 300 })
        // A line two windows cut in two (they overlap by 30 px) is one line again, end to end.
        let left = [text(line(x: 100, y: 100, length: 230, height: 20))]
        let right = [text(line(x: 300, y: 101, length: 250, height: 20))]
        let joined = TextLooks.merged(left, right)
        #expect(joined.count == 1 && abs(joined[0].quad.topLeft.x - 100) < 1e-9 && abs(joined[0].quad.topRight.x - 550) < 1e-9, "\(joined)")
    }

    /// The whole frame, looked at beside windows, adds only the lines the windows do not hold whole:
    /// a line a window found closer is not found again at the coarser scale with another quad (a
    /// label's lines had come twice, the same line read twice in a pass); a line a window's side
    /// cuts stays. The windows' own lines all stay.
    @Test func theWholeFrameAddsOnlyWhatTheWindowsDoNotHoldWhole() {
        func text(_ seen: TextLooks.SeenLine) -> DetectedLine { DetectedLine(quad: seen.quad, textHeight: seen.quad.meanHeight) }
        let area = PixelRect(x: 0, y: 0, width: 1280, height: 720)
        let window = TextLooks.Look(rect: PixelRect(x: 400, y: 200, width: 512, height: 282), scale: 1.25)
        let whole = TextLooks.Look(rect: area, scale: 0.5)
        let plan = [whole, window]
        // Inside the window, in another quad than the window's (twice as high: two lines as one);
        // outside it, a line only the whole frame can find; across its right side, a line the
        // window cuts.
        let coarse = [
            text(line(x: 450, y: 300, length: 300, height: 40)), text(line(x: 50, y: 600, length: 200, height: 30)),
            text(line(x: 800, y: 400, length: 300, height: 20)),
        ]
        let kept = TextLooks.keeping(coarse, of: whole, in: plan)
        #expect(kept.map(\.quad.center) == [coarse[1].quad.center, coarse[2].quad.center])
        let close = [text(line(x: 450, y: 300, length: 300, height: 18)), text(line(x: 450, y: 325, length: 280, height: 18))]
        #expect(TextLooks.keeping(close, of: window, in: plan).count == 2, "no look is closer than the window")
        #expect(TextLooks.keeping(coarse, of: whole, in: [whole]).count == 3, "the whole frame alone keeps all it finds")
    }

    /// Neighbouring lines of a tilted card are two lines: their bounding boxes overlap (a line 400 px
    /// long tilted by 8° is 56 px higher than it is thick), but they do not lie on one axis.
    @Test func tiltedNeighboursStayApart() {
        func tilted(y: Double) -> DetectedLine {
            let angle = 8.0 * Double.pi / 180
            let (dx, dy) = (400 * cos(angle), 400 * sin(angle))
            let (nx, ny) = (-30 * sin(angle), 30 * cos(angle))
            let start = Point(x: 100, y: y)
            return DetectedLine(
                quad: Quad(
                    topLeft: start, topRight: Point(x: start.x + dx, y: start.y + dy),
                    bottomRight: Point(x: start.x + dx + nx, y: start.y + dy + ny), bottomLeft: Point(x: start.x + nx, y: start.y + ny)),
                textHeight: 30)
        }
        let merged = TextLooks.merged([tilted(y: 100), tilted(y: 145)], [tilted(y: 146)])
        #expect(merged.count == 2, "\(merged.map(\.quad.center))")
    }
}
