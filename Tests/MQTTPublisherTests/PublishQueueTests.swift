import MQTTPublisher
import Testing

@Suite struct PublishQueueTests {
    @Test func firstInFirstOutAndTheOldestGoWhenFull() {
        var queue = PublishQueue<Int>(limit: 3)
        #expect(queue.dequeue() == nil && queue.first == nil)
        for n in 1...3 { #expect(queue.enqueue(n) == nil) }
        #expect(queue.enqueue(4) == 1, "full: the oldest goes")
        #expect(queue.enqueue(5) == 2)
        #expect(queue.count == 3 && queue.dropped == 2)
        #expect(queue.first == 3, "first leaves it in place")
        #expect([queue.dequeue(), queue.dequeue(), queue.dequeue(), queue.dequeue()] == [3, 4, 5, nil])
        #expect(queue.isEmpty && queue.dropped == 2)
    }

    @Test func orderSurvivesLongRunsOfEnqueueAndDequeue() {
        var queue = PublishQueue<Int>(limit: 10_000)
        var out: [Int] = []
        for n in 0..<10_000 {
            queue.enqueue(n)
            if n % 3 != 0, let next = queue.dequeue() { out.append(next) }
        }
        while let next = queue.dequeue() { out.append(next) }
        #expect(queue.dropped == 0)
        #expect(out == Array(0..<10_000))
    }

    @Test func aLimitBelowOneIsOne() {
        var queue = PublishQueue<String>(limit: 0)
        queue.enqueue("a")
        #expect(queue.enqueue("b") == "a" && queue.first == "b")
    }
}
