import Foundation

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
