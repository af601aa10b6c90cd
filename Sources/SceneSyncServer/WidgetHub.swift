import Foundation
import Hummingbird
import NIOCore
import SceneSync
import ServiceLifecycle
import Synchronization

/// An app's widget summary as the server serves it: the latest one, encoded once with its `ETag`,
/// and the Server-Sent Events streams that follow it.
///
/// It runs as one of the app's services: it publishes the summary when the server starts, then
/// each new one the app's feed gives, until the server shuts down.
final class WidgetHub: Service, Sendable {
    /// One summary, ready to send.
    struct Published: Sendable, Equatable {
        let body: ByteBuffer
        /// A strong validator: the same summary always has the same tag.
        let etag: String
    }

    private let feed: WidgetFeed
    private let state = Mutex(State())

    private struct State {
        var published: Published?
        var followers: [UUID: AsyncStream<Published>.Continuation] = [:]
        var isFinished = false
    }

    init(feed: WidgetFeed) {
        self.feed = feed
    }

    /// The summary now.
    func current() async -> Published {
        if let published = state.withLock({ $0.published }) { return published }
        let published = Self.publish(await feed.current())
        return state.withLock { state in
            if state.published == nil { state.published = published }
            return state.published!
        }
    }

    /// The summary now, then each new one, until the server shuts down or the caller stops.
    func follow() async -> AsyncStream<Published> {
        let first = await current()
        let (stream, continuation) = AsyncStream.makeStream(of: Published.self, bufferingPolicy: .bufferingNewest(1))
        let id = UUID()
        let isFollowing = state.withLock { state in
            // Yielded under the lock, so that no newer summary can reach the stream before it.
            continuation.yield(state.published ?? first)
            guard !state.isFinished else { return false }
            state.followers[id] = continuation
            return true
        }
        if isFollowing {
            continuation.onTermination = { [weak self] _ in
                _ = self?.state.withLock { $0.followers.removeValue(forKey: id) }
            }
        } else {
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
            return Array(state.followers.values)
        }
        for follower in followers { follower.finish() }
    }

    private func set(_ published: Published) {
        let followers: [AsyncStream<Published>.Continuation] = state.withLock { state in
            guard state.published != published else { return [] }
            state.published = published
            return Array(state.followers.values)
        }
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
        return Published(body: ByteBuffer(bytes: data), etag: "\"\(String(hash, radix: 16))\"")
    }
}
