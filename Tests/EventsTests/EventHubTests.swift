import Events
import Foundation
import ScannerCore
import ScannerProtocol
import Synchronization
import TestSupport
import Testing
import Tracking

@Suite(.timeLimit(.minutes(2))) struct EventHubTests {
    @Test func helloCarriesTheCurrentItemsAndNothingIsLostOrRepeated() async throws {
        let hub = EventHub(daemonVersion: "t", sourceName: "test")
        hub.publish(.sourceAvailable)
        hub.publish(.item(.added(tracked("A")), frame: 1))
        hub.publish(.item(.added(tracked("B", id: 2)), frame: 2))
        hub.publish(.item(.removed(tracked("A")), frame: 3))
        let (_, hello, events) = hub.subscribe()
        guard case .hello(let h) = try EventLine(decoding: hello).event else {
            Issue.record("expected hello: \(hello)")
            return
        }
        #expect(h.version == 1 && h.cameraAvailable)
        #expect(h.items.map(\.payload) == ["B"])
        hub.publish(.item(.updated(tracked("B", id: 2)), frame: 4))
        hub.publish(.end(frames: 5))
        var iterator = events.makeAsyncIterator()
        guard case .line(let first, _) = await iterator.next(), case .line(let second, _) = await iterator.next() else {
            Issue.record("expected two lines")
            return
        }
        let updated = try EventLine(decoding: first)
        #expect(updated.event.name == "updated" && updated.seq == 5)
        #expect(try EventLine(decoding: second).event == .end(frames: 5))
    }

    /// An SSE client reconnecting with `Last-Event-ID` gets what it missed while the hub still holds
    /// it, then the live stream; otherwise a fresh `hello`.
    @Test func aResumingSubscriberGetsWhatItMissedOrAFreshHello() async {
        let hub = EventHub(daemonVersion: "t", sourceName: "test", replayLimit: 3)
        hub.publish(.sourceAvailable)  // 1
        for n in 2...5 { hub.publish(.item(.added(tracked("P\(n)", id: n)), frame: n)) }  // 2…5
        func seqs(_ s: EventHub.Subscription) -> [Int] { s.opening.map(\.seq) }
        func names(_ s: EventHub.Subscription) -> [String] { s.opening.map { (try? EventLine(decoding: $0.line).event.name) ?? "?" } }
        // Held: 3, 4, 5. Had up to 2 or later: the rest, in order.
        let resumed = hub.resume(after: 2)
        #expect(resumed.resumed && seqs(resumed) == [3, 4, 5] && names(resumed) == ["added", "added", "added"])
        #expect(seqs(hub.resume(after: 4)) == [5])
        let upToDate = hub.resume(after: 5)
        #expect(upToDate.resumed && upToDate.opening.isEmpty)
        // Missed more than the hub holds, or a seq from before a restart: a hello as of the last event.
        for gone in [1, 0, 6, 99] {
            let fresh = hub.resume(after: gone)
            #expect(!fresh.resumed && names(fresh) == ["hello"] && seqs(fresh) == [5], "after \(gone)")
            guard case .hello(let hello)? = try? EventLine(decoding: fresh.opening[0].line).event else {
                Issue.record("expected hello")
                continue
            }
            #expect(hello.items.count == 4)
        }
        // A filter applies to the missed events as to live ones; source events always pass.
        hub.publish(.sourceUnavailable(reason: "gone"))  // 6
        let texts = hub.resume(after: 3, filter: EventFilter(kinds: [.text]))
        #expect(seqs(texts) == [6])
        // Then the live stream, with nothing lost or repeated in between.
        hub.publish(.end(frames: 7))  // 7
        var iterator = resumed.events.makeAsyncIterator()
        var live: [Int] = []
        for _ in 0..<2 { if case .line(_, let seq) = await iterator.next() { live.append(seq) } }
        #expect(live == [6, 7])
    }

    @Test func filtersNarrowItemEventsButNotSourceEvents() async throws {
        let hub = EventHub(daemonVersion: "t", sourceName: "test")
        let (_, _, events) = hub.subscribe(filter: EventFilter(kinds: [.text]))
        hub.publish(.item(.added(tracked("QR")), frame: 1))
        hub.publish(.item(.added(tracked("+14155550123", kind: .text, id: 2)), frame: 2))
        hub.publish(.sourceUnavailable(reason: "gone"))
        var iterator = events.makeAsyncIterator()
        var names: [String] = []
        for _ in 0..<2 {
            if case .line(let line, _) = await iterator.next() {
                let event = try EventLine(decoding: line).event
                names.append("\(event.name) \(event.item?.payload ?? "")")
            }
        }
        #expect(names == ["added +14155550123", "unavailable "])
    }

    /// A client that goes away (its reading task cancelled) is removed, but not from inside the
    /// stream's termination handler: cancellation runs it holding the task's status lock, and
    /// `publish` resumes that task holding the hub's lock (a deadlock seen under load).
    @Test func aCancelledSubscriberIsRemovedOutsideItsTerminationHandler() async {
        let scheduled = Mutex<[@Sendable () -> Void]>([])
        let hub = EventHub(daemonVersion: "t", sourceName: "test", later: { job in scheduled.withLock { $0.append(job) } })
        let (_, _, events) = hub.subscribe()
        let reader = Task { for await _ in events {} }
        reader.cancel()
        await reader.value
        #expect(hub.subscriberCount == 1, "not removed by the handler itself")
        let jobs = scheduled.withLock { $0 }
        #expect(jobs.count == 1)
        for job in jobs { job() }
        #expect(hub.subscriberCount == 0)
        // The default runs it on another thread, soon.
        let live = EventHub(daemonVersion: "t", sourceName: "test")
        let (_, _, more) = live.subscribe()
        let other = Task { for await _ in more {} }
        other.cancel()
        await other.value
        let deadline = ContinuousClock.now + .seconds(10)
        while live.subscriberCount > 0, ContinuousClock.now < deadline { await Task.yield() }
        #expect(live.subscriberCount == 0)
    }

    @Test func aSubscriberThatStopsReadingIsCutOffWithANotice() async {
        let hub = EventHub(daemonVersion: "t", sourceName: "test")
        let (slowID, _, slow) = hub.subscribe(queueLimit: 3)
        let (fastID, _, fast) = hub.subscribe(queueLimit: 3)
        var fastIterator = fast.makeAsyncIterator()
        for i in 0..<10 {
            hub.publish(.item(.updated(tracked("A")), frame: i))
            // The fast one writes each line out and says so.
            if case .line = await fastIterator.next() { hub.acknowledge(fastID) }
        }
        var received: [Outbound] = []
        for await outbound in slow { received.append(outbound) }
        #expect(received.count == 4 && received.last == .overflow, "three lines, then the notice, then the end")
        #expect(hub.overflows == 1 && hub.subscriberCount == 1)
        _ = slowID
    }
    /// A reply waits behind the events queued before it: once a client has the `ok` to its
    /// `subscribe`, every item it gets passes the new filter (`scanctl wait --types …` relies on it).
    @Test func aReplyComesAfterTheEventsQueuedBeforeItAndNothingTheNewFilterExcludesFollowsIt() async throws {
        let hub = EventHub(daemonVersion: "t", sourceName: "test")
        let (id, _, events) = hub.subscribe()
        hub.publish(.item(.added(tracked("QR")), frame: 1))  // queued under the old filter
        hub.setFilter(EventFilter(kinds: [.text]), for: id)
        #expect(hub.reply(#"{"ok":true}"#, to: id))
        hub.publish(.item(.added(tracked("QR2", id: 2)), frame: 2))
        hub.publish(.item(.added(tracked("+14155550123", kind: .text, id: 3)), frame: 2))
        hub.publish(.end(frames: 3))
        var received: [String] = []
        for await outbound in events {
            switch outbound {
            case .line(let line, _):
                let event = try EventLine(decoding: line).event
                received.append("\(event.name) \(event.item?.payload ?? "")")
                hub.acknowledge(id)
            case .reply(let line):
                received.append(line)
                hub.acknowledge(id)
            case .overflow: received.append("overflow")
            }
            if received.last == "end " { break }
        }
        #expect(received == ["added QR", #"{"ok":true}"#, "added +14155550123", "end "])
    }

    /// Replies count against the queue like events: a client that sends requests and reads nothing
    /// is cut off, not buffered for without end.
    @Test func aClientThatAsksAndNeverReadsIsCutOff() async {
        let hub = EventHub(daemonVersion: "t", sourceName: "test")
        let (id, _, events) = hub.subscribe(queueLimit: 3)
        #expect((0..<3).allSatisfy { _ in hub.reply("{}", to: id) })
        #expect(!hub.reply("{}", to: id), "the fourth finds the queue full")
        #expect(!hub.reply("{}", to: id), "and the subscriber gone")
        var received: [Outbound] = []
        for await outbound in events { received.append(outbound) }
        #expect(received == [.reply("{}"), .reply("{}"), .reply("{}"), .overflow])
        #expect(hub.overflows == 1 && hub.subscriberCount == 0)
    }

    /// The budget is in bytes too: a handful of photo replies, not 1024 of them, may wait.
    @Test func aClientIsCutOffByBytesWaitingAsByCount() async {
        let hub = EventHub(daemonVersion: "t", sourceName: "test")
        let photo = String(repeating: "A", count: 400)
        let (id, _, events) = hub.subscribe(queueLimit: 1024, byteLimit: 1000)
        #expect(hub.reply(photo, to: id) && hub.reply(photo, to: id))
        #expect(hub.queuedBytes == 800)
        hub.acknowledge(id)
        #expect(hub.queuedBytes == 400, "written out: its bytes are given back")
        #expect(hub.reply(photo, to: id))
        #expect(!hub.reply(photo, to: id), "1200 bytes would wait: cut off")
        var received = 0
        for await outbound in events { if case .reply = outbound { received += 1 } }
        #expect(received == 3 && hub.overflows == 1 && hub.queuedBytes == 0)
        // One line larger than the whole budget still goes to a client with nothing waiting.
        let (big, _, bigEvents) = hub.subscribe(queueLimit: 1024, byteLimit: 100)
        withExtendedLifetime(bigEvents) {
            #expect(hub.reply(photo, to: big))
            #expect(!hub.reply("{}", to: big))
        }
    }

    /// `replyAndWait` returns once the reply is written, and at once for a subscriber that is gone.
    @Test func aReplyCanBeWaitedForUntilItIsWritten() async {
        let hub = EventHub(daemonVersion: "t", sourceName: "test")
        let (id, _, events) = hub.subscribe()
        hub.publish(.sourceAvailable)
        let returned = Mutex(false)
        let waiter = Task {
            let queued = await hub.replyAndWait(#"{"ok":true}"#, to: id)
            returned.withLock { $0 = true }
            return queued
        }
        var iterator = events.makeAsyncIterator()
        _ = await iterator.next()  // the event
        hub.acknowledge(id)
        _ = await iterator.next()  // the reply, not yet acknowledged
        try? await Task.sleep(for: .milliseconds(100))
        #expect(!returned.withLock { $0 }, "not written yet")
        hub.acknowledge(id)
        #expect(await waiter.value)
        // Gone: the wait ends with the subscription.
        let (other, _, _) = hub.subscribe()
        let pending = Task { await hub.replyAndWait("{}", to: other) }
        try? await Task.sleep(for: .milliseconds(50))
        hub.unsubscribe(other)
        #expect(await pending.value == false)
    }

    @Test func eachRunHasItsOwnID() {
        let a = EventHub(daemonVersion: "t", sourceName: "test")
        let b = EventHub(daemonVersion: "t", sourceName: "test")
        #expect(a.runID != b.runID && a.runID.count == 8 && a.runID.allSatisfy { $0.isLowercase || $0.isNumber })
    }
}
