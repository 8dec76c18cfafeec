import Foundation
import ScannerCore
import TestTraits
import Testing

@testable import TextRecognition

/// Tesseract runs on the thread that calls it, whichever thread made the recognizer. The daemon makes
/// one on the main thread and reads lines on its text thread; with OpenMP's limit set only where
/// the recognizer was made, each line's LSTM ran on four threads on two cores (docs/benchmarks.md).
@Suite(.offThePool(minutes: 2)) struct TesseractThreadTests {
    final class Outcome: @unchecked Sendable {
        var before: Int?
        var after: Int?
    }

    @Test func recognitionOnAnotherThreadStaysOnThatThread() throws {
        let recognizer = try TextRecognizer()
        guard TextRecognizer.openMPLevelsOnThisThread() != nil else { return }  // Tesseract without OpenMP
        var pixels = [UInt8](repeating: 255, count: 200 * 36)
        for x in stride(from: 20, to: 180, by: 12) { for y in 10..<26 { pixels[y * 200 + x] = 0 } }
        let image = GrayImage(width: 200, height: 36, pixels: pixels)
        nonisolated(unsafe) let shared = recognizer
        let outcome = Outcome()
        let done = DispatchSemaphore(value: 0)
        Thread {
            outcome.before = TextRecognizer.openMPLevelsOnThisThread()
            _ = shared.recognize(image, segmentation: .singleLine)
            outcome.after = TextRecognizer.openMPLevelsOnThisThread()
            done.signal()
        }.start()
        try #require(done.wait(timeout: .now() + 60) == .success)
        // The limit is the thread's own: a new thread starts without it...
        #expect(outcome.before != 0, "libgomp's limit reached a new thread; the per-call limit may be unneeded")
        // ...and has it once it has recognized.
        #expect(outcome.after == 0)
    }
}
