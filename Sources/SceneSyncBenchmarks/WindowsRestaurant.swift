#if os(Linux)
import Foundation
import Glibc

/// What the Restaurant measurement found.
struct WindowsRestaurantResult: Sendable {
    /// Windows connected.
    let windows: Int
    /// "Add to Order" in window 0, until the Order badge changed in every window.
    let badge: WindowsFanOutResult
    /// Per round, the message bytes (frame headers included) each other window received for the badge.
    let badgeBytesPerWindow: [Int]
    /// `POST /order`, until the order's row (with its countdown) reached every window on the Order tab.
    let kitchen: WindowsFanOutResult
    /// The message bytes each window received for the new order.
    let kitchenBytesPerWindow: [Int]
    /// How long the windows were listened to while the countdown showed.
    let quiet: Duration
    /// Every message byte all windows received meanwhile.
    let quietBytes: Int

    var quietBytesPerSecondPerWindow: Double { Double(quietBytes) / max(quiet.seconds, 0.001) / Double(max(windows, 1)) }
}

/// Restaurant in many windows: one window taps "Add to Order" and every window's Order badge
/// changes; then every window shows the Order tab, an order arrives through the menu API, and
/// the windows are listened to while its countdown runs, which the browser ticks by itself.
struct WindowsRestaurant: Sendable {
    let port: Int
    let serverPID: Int32
    let rounds: Int
    let warmup: Int
    let interval: Duration
    let connectBatch: Int
    let quiet: Duration

    static let app = "restaurant"
    /// The dish window 0 adds: Tomato Basil Soup, in soups.
    static let category = "soups"
    static let dish = 9

    func run(windows count: Int) async throws -> WindowsRestaurantResult {
        try await RawWindows.measure(count, port: port, app: Self.app, batch: connectBatch,
                                     thread: "scenesync-bench restaurant windows") { windows, connectTime in
            try measure(&windows, connectTime: connectTime)
        }
    }

    private func measure(_ windows: inout RawWindows, connectTime: Duration) throws -> WindowsRestaurantResult {
        let clock = ContinuousClock()
        let count = windows.count
        var ref = 0

        // Window 0 goes to the dish: the category, then the dish.
        for node in ["category-\(Self.category)", "dish-\(Self.dish)"] {
            ref += 1
            try act(&windows, window: 0, ref: ref, name: "select", node: node, clock: clock)
        }

        var roundLatencies: [Duration] = []
        var windowLatencies: [Duration] = []
        var bytes: [Int] = []
        var cpuBefore: Duration?
        for round in 0..<(warmup + rounds) {
            if round == warmup { cpuBefore = WindowsServerProcess.cpuTime(pid: serverPID) }
            ref += 1
            var arrivals = [ContinuousClock.Instant?](repeating: nil, count: count)
            var received = [Int](repeating: 0, count: count)
            var acknowledged = false
            let sent = clock.now
            let expected = #""badge":"\#(round + 1)""#
            try windows.send(WindowsWebSocketFraming.action(ref: ref, name: "tap", node: "add-to-order"), to: 0)
            try windows.wait(for: Array(0..<count), what: "the badge", clock: clock) { [ref] index, message in
                if message.type == "patch" {
                    received[index] += message.wireBytes
                    if arrivals[index] == nil, message.text.contains(expected) { arrivals[index] = clock.now }
                }
                if index == 0, message.text == #"{"ref":\#(ref),"type":"ack","v":1}"# { acknowledged = true }
                return arrivals[index] != nil && (index != 0 || acknowledged)
            }
            if round >= warmup {
                let latencies = arrivals.map { sent.duration(to: $0!) }
                roundLatencies.append(latencies.max()!)
                windowLatencies += latencies
                bytes += received.dropFirst()
            }
            let next = sent.advanced(by: interval)
            if clock.now < next { Thread.sleep(forTimeInterval: clock.now.duration(to: next).seconds) }
        }
        let cpuAfter = WindowsServerProcess.cpuTime(pid: serverPID)
        let badge = WindowsFanOutResult(
            windows: count, rounds: rounds, roundLatencies: roundLatencies, windowLatencies: windowLatencies,
            connectTime: connectTime, serverCPU: cpuBefore.flatMap { before in cpuAfter.map { $0 - before } }, meanPollGap: nil)

        // Every window shows the Order tab; an order comes in through the menu API.
        ref += 1
        for index in 0..<count {
            try windows.send(WindowsWebSocketFraming.action(ref: ref, name: "select", node: "tab-order"), to: index)
        }
        try windows.wait(for: Array(0..<count), what: "the Order tab", clock: clock) { _, message in
            message.text == #"{"ref":\#(ref),"type":"ack","v":1}"#
        }
        var arrivals = [ContinuousClock.Instant?](repeating: nil, count: count)
        var received = [Int](repeating: 0, count: count)
        let cpuKitchen = WindowsServerProcess.cpuTime(pid: serverPID)
        let posted = clock.now
        try postOrder()
        try windows.wait(for: Array(0..<count), what: "the kitchen's order", clock: clock) { index, message in
            guard message.type == "patch" else { return false }
            received[index] += message.wireBytes
            if message.text.contains(#""countdown":"#) { arrivals[index] = clock.now }
            return arrivals[index] != nil
        }
        let latencies = arrivals.map { posted.duration(to: $0!) }
        let kitchen = WindowsFanOutResult(
            windows: count, rounds: 1, roundLatencies: [latencies.max()!], windowLatencies: latencies, connectTime: connectTime,
            serverCPU: cpuKitchen.flatMap { before in WindowsServerProcess.cpuTime(pid: serverPID).map { $0 - before } }, meanPollGap: nil)

        // The countdown runs in the browser: listen for whatever the server still sends.
        var quietBytes = 0
        try windows.listen(for: quiet, clock: clock) { _, message in quietBytes += message.wireBytes }
        return WindowsRestaurantResult(
            windows: count, badge: badge, badgeBytesPerWindow: bytes, kitchen: kitchen, kitchenBytesPerWindow: received,
            quiet: quiet, quietBytes: quietBytes)
    }

    private func act(_ windows: inout RawWindows, window: Int, ref: Int, name: String, node: String, clock: ContinuousClock) throws {
        try windows.send(WindowsWebSocketFraming.action(ref: ref, name: name, node: node), to: window)
        try windows.wait(for: [window], what: "\(name) on \(node)", clock: clock) { _, message in
            message.text == #"{"ref":\#(ref),"type":"ack","v":1}"#
        }
    }

    /// `POST /order` of two dishes, as the course's iOS client sends it: JSON, no `Origin`.
    private func postOrder() throws {
        let body = #"{"menuIds":[1,\#(Self.dish)]}"#
        let request = "POST /order HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nContent-Type: application/json\r\n"
            + "Content-Length: \(body.utf8.count)\r\nConnection: close\r\n\r\n\(body)"
        let descriptor = try WindowsPOSIX.connect(port: port)
        defer { close(descriptor) }
        try WindowsPOSIX.write(Array(request.utf8), to: descriptor)
        var response: [UInt8] = []
        let deadline = ContinuousClock.now.advanced(by: .seconds(30))
        while !response.contains(UInt8(ascii: "\n")) {
            guard ContinuousClock.now < deadline else { throw WindowsBenchmarkError.timedOut("the answer to POST /order") }
            response += (try? WindowsPOSIX.readAvailable(from: descriptor)) ?? []
            Thread.sleep(forTimeInterval: 0.001)
        }
        let status = String(decoding: response.prefix { $0 != UInt8(ascii: "\r") }, as: UTF8.self)
        guard status.hasPrefix("HTTP/1.1 200") else { throw WindowsBenchmarkError.unexpected("POST /order answered \(status)") }
    }
}
#endif
