/// Waits until `condition` holds, checking it in the caller's isolation every few milliseconds, so
/// that work on the same actor (a subscription delivering, a timer firing) runs in between.
///
/// ```swift
/// try await waitUntil("the order to be ready") { recorder.events.count == 3 }
/// ```
///
/// - Throws: ``HostTimeout`` if it does not hold within `timeout`.
public func waitUntil(
    _ what: @autoclosure () -> String = "a condition",
    timeout: Duration = .seconds(30),
    isolation: isolated (any Actor)? = #isolation,
    _ condition: () -> Bool
) async throws {
    let clock = ContinuousClock()
    let deadline = clock.now.advanced(by: timeout)
    while !condition() {
        guard clock.now < deadline else { throw HostTimeout(waitingFor: what()) }
        try await Task.sleep(for: .milliseconds(2))
    }
}
