import Foundation
import Testing

/// Waits until `condition`, which may suspend (to ask an actor), holds; records an issue and
/// throws after ten seconds.
func waitUntilTrue(_ condition: @Sendable () async -> Bool) async throws {
    let deadline = ContinuousClock.now.advanced(by: .seconds(10))
    while await !condition() {
        guard ContinuousClock.now < deadline else {
            Issue.record("timed out")
            throw CancellationError()
        }
        try await Task.sleep(for: .milliseconds(2))
    }
}
