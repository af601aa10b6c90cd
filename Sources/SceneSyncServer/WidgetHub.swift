import Foundation
import Hummingbird
import NIOCore
import SceneSync
import ServiceLifecycle
import Synchronization

/// An app's widget summary as the server serves it: the latest one, encoded once with its `ETag`
/// and as the Server-Sent Event every follower is sent, and the streams that follow it.
///
/// It runs as one of the app's services: it publishes the summary when the server starts, then
/// each new one the app's feed gives, until the server shuts down. Followers are told at most once
/// per ``Limits/interval``, with the newest summary: however fast the app's data changes, the work
/// of telling them is bounded, and it never runs on the path of a commit. Followers are bounded in
/// total and per client address.
final class WidgetHub: Service, Sendable {
    /// One summary, ready to send.
    struct Published: Sendable, Equatable {
        /// The summary itself, as the home page shows it.
        let summary: WidgetSummary
        let body: ByteBuffer
        /// A strong validator: the same summary always has the same tag.
        let etag: String
        /// The whole Server-Sent Event: `event: summary`, the tag as its `id`, the body as its data.
        let event: ByteBuffer
    }

    /// How many may follow, and how often they are told.
    struct Limits: Sendable {
        /// The most followers at once.
        var maximumFollowers = 1_024
        /// The most followers at once from one client address.
        var maximumFollowersPerAddress = 16
        /// The least time between two summaries sent to followers.
        var interval = Duration.milliseconds(250)
        /// How long a follower's write may wait for it to read before it is dropped.
        var stallTimeout = Duration.seconds(10)
    }

    /// Why a follower was turned away.
    enum Refusal: Error, Equatable {
        case full
        case addressFull
    }

    let limits: Limits
    private let feed: WidgetFeed
    private let state = Mutex(State())

    private struct State {
        var published: Published?
        var followers: [UUID: Follower] = [:]
        var perAddress: [String: Int] = [:]
        var isFinished = false
        /// When followers were last told.
        var lastSent: ContinuousClock.Instant?
        /// Whether a send is due, waiting for the interval to pass.
        var isSendScheduled = false
    }

    private struct Follower {
        let address: String
        let continuation: AsyncStream<Published>.Continuation
    }

    init(feed: WidgetFeed, limits: Limits = Limits()) {
        self.feed = feed
        self.limits = limits
    }

    /// How many follow now.
    var followerCount: Int { state.withLock(\.followers.count) }

    /// The summary now.
    func current() async -> Published {
        if let published = state.withLock({ $0.published }) { return published }
        let published = Self.publish(await feed.current())
        return state.withLock { state in
            if state.published == nil { state.published = published }
            return state.published!
        }
    }

    /// The summary now, then the newest one at most once per interval, until the server shuts
    /// down or the caller stops.
    ///
    /// - Throws: ``Refusal`` if as many follow as may, in all or from `address`.
    func follow(from address: String) async throws(Refusal) -> AsyncStream<Published> {
        let first = await current()
        let (stream, continuation) = AsyncStream.makeStream(of: Published.self, bufferingPolicy: .bufferingNewest(1))
        let id = UUID()
        let admitted: Result<Bool, Refusal> = state.withLock { state in
            guard state.followers.count < limits.maximumFollowers else { return .failure(.full) }
            guard state.perAddress[address, default: 0] < limits.maximumFollowersPerAddress else { return .failure(.addressFull) }
            // Yielded under the lock, so that no newer summary can reach the stream before it.
            continuation.yield(state.published ?? first)
            guard !state.isFinished else { return .success(false) }
            state.followers[id] = Follower(address: address, continuation: continuation)
            state.perAddress[address, default: 0] += 1
            return .success(true)
        }
        switch admitted {
        case let .failure(refusal):
            throw refusal
        case .success(true):
            continuation.onTermination = { [weak self] _ in
                self?.state.withLock { state in
                    guard state.followers.removeValue(forKey: id) != nil else { return }
                    let left = state.perAddress[address, default: 1] - 1
                    state.perAddress[address] = left > 0 ? left : nil
                }
            }
        case .success(false):
            continuation.finish()
        }
        return stream
    }

    func run() async throws {
        set(Self.publish(await feed.current()))
        for await summary in feed.changes().cancelOnGracefulShutdown() {
            set(Self.publish(summary))
        }
        let followers = state.withLock { state in
            state.isFinished = true
            defer { state.followers = [:] }
            return state.followers.values.map(\.continuation)
        }
        for follower in followers { follower.finish() }
    }

    /// Keeps `published` as the summary now, and tells the followers now if they were not told
    /// within the interval, or else once it has passed.
    private func set(_ published: Published) {
        let now = ContinuousClock.now
        let wait: Duration? = state.withLock { state in
            guard state.published != published else { return nil }
            state.published = published
            guard !state.isSendScheduled else { return nil }
            state.isSendScheduled = true
            guard let last = state.lastSent else { return .zero }
            return max(.zero, limits.interval - (now - last))
        }
        guard let wait else { return }
        if wait == .zero { return sendToFollowers() }
        Task {
            try? await Task.sleep(for: wait)
            sendToFollowers()
        }
    }

    private func sendToFollowers() {
        let (published, followers) = state.withLock { state in
            state.isSendScheduled = false
            state.lastSent = .now
            return (state.published, state.followers.values.map(\.continuation))
        }
        guard let published else { return }
        for follower in followers { follower.yield(published) }
    }

    static func publish(_ summary: WidgetSummary) -> Published {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let data = (try? encoder.encode(summary)) ?? Data(#"{"lines":[],"title":""}"#.utf8)
        // FNV-1a, 64 bits: stable across runs and processes, unlike Swift's hashing.
        var hash: UInt64 = 0xCBF2_9CE4_8422_2325
        for byte in data {
            hash ^= UInt64(byte)
            hash = hash &* 0x0000_0100_0000_01B3
        }
        let etag = "\"\(String(hash, radix: 16))\""
        var event = ByteBuffer(string: "event: summary\nid: \(etag)\ndata: ")
        event.writeBytes(data)
        event.writeString("\n\n")
        return Published(summary: summary, body: ByteBuffer(bytes: data), etag: etag, event: event)
    }
}
