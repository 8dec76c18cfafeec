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
}
