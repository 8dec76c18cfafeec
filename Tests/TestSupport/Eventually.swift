import Foundation

/// How long a test waits for an answer it expects (a line, a reply, the end of a stream, a close).
/// Generous: only a failing test waits it out, and a full test run on 2 cores has kept a hello, a
/// ping's answer and an HTTP response past 5 s (fresh clones, 2026-11-26; CI is busier still).
public let answerWithin: Double = 20

/// How long a test waits for a running daemon to add an item its replay or the demo shows. Generous
/// for the same reason: a clean `make test` on 2 cores whose CPU runs the text networks in f32 (no
/// AVX-512) kept the demo's phone number past 30 s while other tests' daemons ran (2026-11-28).
public let itemWithin: Double = 90

/// Whether `condition` held within `seconds`, asked every 50 ms: for state that another thread
/// reaches soon, but on a loaded machine not at any fixed moment.
public func eventually(within seconds: Double, _ condition: () -> Bool) -> Bool {
    let deadline = Date().addingTimeInterval(seconds)
    while !condition() {
        guard Date() < deadline else { return false }
        Thread.sleep(forTimeInterval: 0.05)
    }
    return true
}
