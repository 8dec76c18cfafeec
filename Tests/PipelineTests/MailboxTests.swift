import Foundation
import TestTraits
import Testing

@testable import Pipeline

@Suite(.offThePool(minutes: 2)) struct MailboxTests {
    @Test func keepsOnlyTheNewestValue() {
        let box = Mailbox<Int>()
        box.put(1)
        box.put(2)
        box.put(3)
        #expect(box.take() == 3)
        #expect(box.dropped == 2)
    }

    @Test func takeIfPresentDoesNotWait() {
        let box = Mailbox<Int>()
        #expect(box.takeIfPresent() == nil)
        box.put(4)
        #expect(box.takeIfPresent() == 4)
        #expect(box.takeIfPresent() == nil)
    }

    @Test func takeWaitsForAValueAndReturnsNilOnceClosed() {
        let box = Mailbox<Int>()
        let taken = NSLock()
        nonisolated(unsafe) var values: [Int?] = []
        let done = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            let first = box.take()
            let second = box.take()
            taken.lock()
            values = [first, second]
            taken.unlock()
            done.signal()
        }
        box.put(7)
        Thread.sleep(forTimeInterval: 0.05)
        box.close()
        done.wait()
        #expect(values == [7, nil])
    }

    /// The text stage confirms a pass's reads on the frame after the pass's own: the value put right
    /// after the one taken, however many came since; the newest stays for the next take.
    @Test func takeFollowingGivesTheValueRightAfterTheOneTaken() {
        let box = Mailbox<Int>()
        box.put(1)
        #expect(box.take() == 1)
        box.put(2)
        box.put(3)
        box.put(4)
        #expect(box.takeFollowing() == 2)
        #expect(box.take() == 4)
        // Only once per take, and not the newest twice: taken as the following, it is gone.
        box.put(5)
        #expect(box.takeFollowing() == 5)
        #expect(box.takeIfPresent() == nil)
        #expect(box.takeFollowing() == nil)
    }

    @Test func takeFollowingWaitsForTheNextValueAndReturnsNilOnceClosed() {
        let box = Mailbox<Int>()
        box.put(1)
        #expect(box.takeIfPresent() == 1)
        let taken = NSLock()
        nonisolated(unsafe) var values: [Int?] = []
        let done = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            let first = box.takeFollowing()
            let second = box.takeFollowing()
            taken.lock()
            values = [first, second]
            taken.unlock()
            done.signal()
        }
        Thread.sleep(forTimeInterval: 0.05)
        box.put(2)
        box.put(3)
        done.wait()
        #expect(values == [2, nil])
        #expect(box.take() == 3)
        box.close()
        #expect(box.takeFollowing() == nil)
    }
}
