/// Checks that decide whether a dequeued buffer holds a usable frame, as ustreamer does.
public enum FrameValidation {
    /// ustreamer's floor: anything shorter is not a real frame from a UVC camera.
    public static let minimumJPEGSize = 128

    /// A complete JPEG: long enough, starts with SOI (FF D8) and ends with EOI (FF D9). Some cameras pad
    /// the buffer after EOI with zeros, so trailing zero bytes are allowed.
    public static func isCompleteJPEG(_ bytes: UnsafeRawBufferPointer) -> Bool {
        guard bytes.count >= minimumJPEGSize, bytes[0] == 0xFF, bytes[1] == 0xD8 else { return false }
        var end = bytes.count
        while end > 2 && bytes[end - 1] == 0 && bytes.count - end < 4096 { end -= 1 }
        return end >= 4 && bytes[end - 2] == 0xFF && bytes[end - 1] == 0xD9
    }
}

/// What to do with the buffers one grab dequeued: keep the newest valid one, give every other back
/// at once. Pure, so the newest-frame rule is a unit test.
public struct GrabDecision: Equatable, Sendable {
    /// Index (into the dequeued list) of the frame to deliver, if any is valid.
    public var keep: Int?
    /// Indices to requeue immediately: stale frames and corrupt ones.
    public var requeue: [Int]
    /// How many of the dequeued frames were corrupt.
    public var corrupt: Int
    /// How many valid frames were skipped because a newer one was there.
    public var dropped: Int

    public init(keep: Int?, requeue: [Int], corrupt: Int, dropped: Int) {
        self.keep = keep
        self.requeue = requeue
        self.corrupt = corrupt
        self.dropped = dropped
    }

    /// `valid[i]` says whether the i-th dequeued buffer (oldest first) holds a usable frame.
    public static func decide(valid: [Bool]) -> GrabDecision {
        let keep = valid.lastIndex(of: true)
        let requeue = valid.indices.filter { $0 != keep }
        let corrupt = valid.filter { !$0 }.count
        return GrabDecision(keep: keep, requeue: requeue, corrupt: corrupt, dropped: requeue.count - corrupt)
    }
}
