import NIOCore
import NIOWebSocket
import Synchronization

/// Writes windows' text frames straight to their channels, gathered per event loop.
///
/// A change shown in a thousand windows is a thousand writes of the same bytes. Handing each to
/// its window's writer task would wake a thousand tasks, each of which hands its frame on to its
/// channel's event loop. Here the main actor only appends each write to its event loop's list;
/// the first write of a list asks the loop to run it, and the loop writes every frame on the list
/// in one pass and flushes each channel once. The frames share the message's bytes.
///
/// A window's frames reach its channel in the order they were written here, and before anything
/// its connection asks for afterwards (the close frame, which ``WindowSocketHandler`` writes): both
/// go through the event loop's queue, in turn.
final class FrameWriter: Sendable {
    /// One frame for one channel, and on a message's last frame the queue its bytes are counted in.
    private struct Write {
        let channel: any Channel
        let frame: WebSocketFrame
        /// Releases `size` bytes once the frame is written, or could not be (the channel closed).
        let queue: OutboundBudget.Queue?
        let size: Int
    }

    /// The writes waiting for each event loop, by event loop.
    private let waiting = Mutex<[ObjectIdentifier: [Write]]>([:])
    /// The largest frame written whole; larger messages go in several frames of this size.
    let maximumFrameSize: Int

    init(maximumFrameSize: Int) {
        self.maximumFrameSize = max(1, maximumFrameSize)
    }

    /// Writes `bytes` as one text message to `channel`, and releases them from `queue` once
    /// written, or once they could not be (the channel closed).
    ///
    /// A message that fits one frame (nearly every patch) costs one entry in its event loop's list here,
    /// and nothing else on the caller's side.
    func writeText(_ bytes: ByteBuffer, to channel: any Channel, releasingFrom queue: OutboundBudget.Queue) {
        let loop = channel.eventLoop
        let key = ObjectIdentifier(loop)
        let size = bytes.readableBytes
        let first: Bool
        if size <= maximumFrameSize {
            let write = Write(channel: channel, frame: WebSocketFrame(fin: true, opcode: .text, data: bytes), queue: queue, size: size)
            first = waiting.withLock { (pending: inout [ObjectIdentifier: [Write]]) -> Bool in
                let wasEmpty = pending[key]?.isEmpty ?? true
                pending[key, default: []].append(write)
                return wasEmpty
            }
        } else {
            let frames = Self.frames(of: bytes, maximumFrameSize: maximumFrameSize)
            let writes = frames.indices.map { index in
                let last = index == frames.count - 1
                return Write(channel: channel, frame: frames[index], queue: last ? queue : nil, size: last ? size : 0)
            }
            first = waiting.withLock { (pending: inout [ObjectIdentifier: [Write]]) -> Bool in
                let wasEmpty = pending[key]?.isEmpty ?? true
                pending[key, default: []].append(contentsOf: writes)
                return wasEmpty
            }
        }
        if first { loop.execute { self.writeWaiting(on: key) } }
    }

    /// On the event loop: writes everything waiting for it, then flushes each channel once.
    private func writeWaiting(on key: ObjectIdentifier) {
        let writes: [Write] = waiting.withLock { (pending: inout [ObjectIdentifier: [Write]]) -> [Write] in
            pending.removeValue(forKey: key) ?? []
        }
        var written: [ObjectIdentifier: any Channel] = [:]
        for write in writes {
            if let queue = write.queue {
                let promise = write.channel.eventLoop.makePromise(of: Void.self)
                let size = write.size
                promise.futureResult.whenComplete { _ in
                    queue.release(size)
                    // A large message's bytes are free now, but glibc keeps them (HeapTrim).
                    HeapTrim.shared.note(messageOf: size)
                }
                write.channel.write(write.frame, promise: promise)
            } else {
                write.channel.write(write.frame, promise: nil)
            }
            written[ObjectIdentifier(write.channel)] = write.channel
        }
        for channel in written.values { channel.flush() }
    }

    /// The frames of one text message: one, or several of at most `maximumFrameSize` bytes for a
    /// larger one (the first render of a long list).
    static func frames(of bytes: ByteBuffer, maximumFrameSize: Int) -> [WebSocketFrame] {
        guard bytes.readableBytes > maximumFrameSize else { return [WebSocketFrame(fin: true, opcode: .text, data: bytes)] }
        var rest = bytes
        var frames: [WebSocketFrame] = []
        var opcode = WebSocketOpcode.text
        repeat {
            let part = rest.readSlice(length: min(maximumFrameSize, rest.readableBytes))!
            frames.append(WebSocketFrame(fin: rest.readableBytes == 0, opcode: opcode, data: part))
            opcode = .continuation
        } while rest.readableBytes > 0
        return frames
    }
}
