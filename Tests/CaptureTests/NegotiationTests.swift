import Capture
import ScannerCore
import Testing

/// A typical UVC webcam: MJPEG up to 1080p at 30 fps, YUYV limited by USB 2 bandwidth.
let uvcWebcam: [FormatDescription] = [
    FormatDescription(
        fourcc: PixelFormat.yuyv.fourcc, description: "YUYV 4:2:2",
        sizes: [
            FrameSize(width: 640, height: 480, rates: [30, 15]),
            FrameSize(width: 1280, height: 720, rates: [10, 5]),
            FrameSize(width: 1920, height: 1080, rates: [5]),
        ]),
    FormatDescription(
        fourcc: PixelFormat.mjpeg.fourcc, description: "Motion-JPEG",
        sizes: [
            FrameSize(width: 640, height: 480, rates: [30, 15]),
            FrameSize(width: 1280, height: 720, rates: [30, 15]),
            FrameSize(width: 1920, height: 1080, rates: [30, 15]),
        ]),
    FormatDescription(fourcc: 0x3231_5659, description: "YV12 (unused)", sizes: [FrameSize(width: 640, height: 480, rates: [30])]),
]

@Suite(.timeLimit(.minutes(2))) struct NegotiationTests {
    @Test func prefersMJPEGAtTheRequestedSizeAndRate() {
        let choice = FormatNegotiation.choose(from: uvcWebcam, for: CaptureRequest(width: 1280, height: 720, fps: 30))
        #expect(choice == NegotiatedFormat(format: .mjpeg, width: 1280, height: 720, fps: 30))
    }

    @Test func yuyvWhenMJPEGIsNotAllowed() {
        let choice = FormatNegotiation.choose(
            from: uvcWebcam, for: CaptureRequest(width: 1280, height: 720, fps: 30, formats: [.yuyv, .grey]))
        // YUYV 720p runs at 10 fps only: still the size asked for, at the best rate there is.
        #expect(choice == NegotiatedFormat(format: .yuyv, width: 1280, height: 720, fps: 10))
    }

    @Test func aLaterFormatWinsWhenThePreferredOneCannotReachTheRate() {
        let choice = FormatNegotiation.choose(
            from: uvcWebcam, for: CaptureRequest(width: 640, height: 480, fps: 30, formats: [.yuyv, .mjpeg]))
        #expect(choice?.format == .yuyv, "YUYV reaches 640x480@30, so the preferred format stays")
        let hd = FormatNegotiation.choose(
            from: uvcWebcam, for: CaptureRequest(width: 1280, height: 720, fps: 30, formats: [.yuyv, .mjpeg]))
        #expect(hd == NegotiatedFormat(format: .mjpeg, width: 1280, height: 720, fps: 30), "YUYV 720p is 10 fps: MJPEG wins")
    }

    @Test func nearestLargerSizeThenLargest() {
        let between = FormatNegotiation.choose(from: uvcWebcam, for: CaptureRequest(width: 1000, height: 600, fps: 30))
        #expect(between?.width == 1280 && between?.height == 720)
        let huge = FormatNegotiation.choose(from: uvcWebcam, for: CaptureRequest(width: 4000, height: 3000, fps: 30))
        #expect(huge?.width == 1920 && huge?.height == 1080)
    }

    @Test func rateIsTheLowestAtOrAboveTheRequest() {
        let choice = FormatNegotiation.choose(from: uvcWebcam, for: CaptureRequest(width: 640, height: 480, fps: 12))
        #expect(choice?.fps == 15)
    }

    @Test func nothingUsable() {
        let odd = [FormatDescription(fourcc: 0x3231_5659, description: "YV12", sizes: [FrameSize(width: 640, height: 480, rates: [30])])]
        #expect(FormatNegotiation.choose(from: odd, for: CaptureRequest()) == nil)
    }
}

@Suite(.timeLimit(.minutes(2))) struct GrabTests {
    @Test func keepsTheNewestValidFrameAndRequeuesTheRest() {
        let decision = GrabDecision.decide(valid: [true, true, true])
        #expect(decision == GrabDecision(keep: 2, requeue: [0, 1], corrupt: 0, dropped: 2))
    }

    @Test func skipsACorruptNewestFrame() {
        let decision = GrabDecision.decide(valid: [true, false, true, false])
        #expect(decision.keep == 2)
        #expect(decision.requeue == [0, 1, 3])
        #expect(decision.corrupt == 2 && decision.dropped == 1)
    }

    @Test func onlyCorruptFramesDeliverNothing() {
        #expect(GrabDecision.decide(valid: [false, false]) == GrabDecision(keep: nil, requeue: [0, 1], corrupt: 2, dropped: 0))
        #expect(GrabDecision.decide(valid: []) == GrabDecision(keep: nil, requeue: [], corrupt: 0, dropped: 0))
    }

    @Test func jpegMarkersAndLength() {
        func check(_ bytes: [UInt8]) -> Bool { bytes.withUnsafeBytes { FrameValidation.isCompleteJPEG($0) } }
        let body = [UInt8](repeating: 0x11, count: 200)
        #expect(check([0xFF, 0xD8] + body + [0xFF, 0xD9]))
        #expect(check([0xFF, 0xD8] + body + [0xFF, 0xD9, 0, 0, 0]), "zero padding after EOI is allowed")
        #expect(!check([0xFF, 0xD8] + body), "truncated: no EOI")
        #expect(!check([0x00, 0xD8] + body + [0xFF, 0xD9]), "no SOI")
        #expect(!check([0xFF, 0xD8, 0xFF, 0xD9]), "too short to be a camera frame")
    }
}

@Suite(.timeLimit(.minutes(2))) struct RepeatFilterTests {
    @Test func reportsOnceCountsRepeatsAndReportsTheCountOnChange() {
        var filter = RepeatFilter()
        #expect(filter.record("ENOENT") == .report(previousRepeats: 0))
        #expect(filter.record("ENOENT") == .suppress)
        #expect(filter.record("ENOENT") == .suppress)
        #expect(filter.record("EBUSY") == .report(previousRepeats: 2))
        #expect(filter.clear() == 0)
        #expect(filter.record("EBUSY") == .report(previousRepeats: 0), "after clearing, the same error is news again")
    }
}

@Suite(.timeLimit(.minutes(2))) struct ControlSettingTests {
    @Test func parsesNameEqualsValue() {
        #expect(CameraControlSetting(parsing: "focus=120") == CameraControlSetting(name: "focus", value: "120"))
        #expect(CameraControlSetting(parsing: "exposureAuto=manual")?.value == "manual")
        #expect(CameraControlSetting(parsing: "focus") == nil)
        #expect(CameraControlSetting(parsing: "=3") == nil)
        #expect(CameraControls.names.contains("powerLineFrequency"))
    }
}
