import NIOCore
import NIOWebSocket
import Synchronization

/// Writes windows' text frames straight to their channels, gathered per event loop.
///
/// A change shown in a thousand windows is a thousand writes of the same bytes. Handing each to
/// its window's writer task would wake a thousand tasks, each of which hands its frame on to its
/// channel's event loop. Here the main actor only appends each write to its event loop's list;
/// the first write of a list asks the loop to run it, and the loop writes every frame on the list
/// in one pass and flushes each channel once. The frames an event loop writes of one message
/// share its bytes (see ``writeWaiting(on:)``).
///
/// A window's frames reach its channel in the order they were written here, and before anything
/// its connection asks for afterwards (the close frame, which ``WindowSocketHandler`` writes): both
/// go through the event loop's queue, in turn. They are written by the window's handler, below
/// itself in the pipeline, rather than from the pipeline's tail.
final class FrameWriter: Sendable {
    /// A window a message goes to, and the queue its bytes are counted in until written.
    private struct Target {
        let channel: any Channel
        /// The window's handler, which writes below itself in the pipeline.
        let handler: NIOLoopBound<WindowSocketHandler>
        let queue: OutboundBudget.Queue
    }

    /// One message, and the windows it goes to in the order they were written. Windows sent the
    /// same bytes one after another (the same patch for every window on a list) share one batch,
    /// so the main actor adds a window to a list rather than another reference to the bytes.
    private struct Batch {
        let bytes: ByteBuffer
        /// Where the bytes are: the same address and length are the same bytes, since the batch
        /// keeps them alive.
        let address: UInt
        var targets: [Target]
    }

    /// The messages waiting for each event loop, by event loop.
    private let waiting = Mutex<[ObjectIdentifier: [Batch]]>([:])
    /// The largest frame written whole; larger messages go in several frames of this size.
    let maximumFrameSize: Int
    /// A message up to this size going to several windows in a row is copied once for the
    /// event loop's pass before it is written: see ``writeWaiting(on:)``.
    static let copiedMessageLimit = 64 * 1024

    init(maximumFrameSize: Int) {
        self.maximumFrameSize = max(1, maximumFrameSize)
    }

    /// Writes `bytes` as one text message to `channel` through its window's `handler`, and
    /// releases them from `queue` once written, or once they could not be (the channel closed).
    ///
    /// Nearly every message costs one entry in its event loop's list here, and nothing else on
    /// the caller's side; the loop splits a large one into frames.
    func writeText(_ bytes: ByteBuffer, to channel: any Channel, through handler: NIOLoopBound<WindowSocketHandler>,
                   releasingFrom queue: OutboundBudget.Queue) {
        let loop = channel.eventLoop
        let key = ObjectIdentifier(loop)
        let address = bytes.withUnsafeReadableBytes { UInt(bitPattern: $0.baseAddress) }
        let target = Target(channel: channel, handler: handler, queue: queue)
        let first = waiting.withLock { (pending: inout [ObjectIdentifier: [Batch]]) -> Bool in
            Self.add(target, bytes: bytes, at: address, to: &pending[key, default: []])
        }
        if first { loop.execute { self.writeWaiting(on: key) } }
    }

    /// Adds `target` to the last batch if it holds the same bytes, else a batch of its own;
    /// returns whether the list was empty.
    private static func add(_ target: Target, bytes: ByteBuffer, at address: UInt, to batches: inout [Batch]) -> Bool {
        guard let last = batches.indices.last else {
            batches.append(Batch(bytes: bytes, address: address, targets: [target]))
            return true
        }
        if batches[last].address == address, batches[last].bytes.readableBytes == bytes.readableBytes {
            batches[last].targets.append(target)
        } else {
            batches.append(Batch(bytes: bytes, address: address, targets: [target]))
        }
        return false
    }

    /// On the event loop: writes everything waiting for it, and flushes each channel once (at
    /// its write when the pass holds one message, as nearly every change's does; else once all
    /// are written).
    ///
    /// A message going to several windows in a row is first copied for this pass alone. Every write
    /// retains and releases the bytes a few times on its way down the pipeline; were they shared
    /// with the main actor and the other event loops, each of those would be an atomic on a
    /// memory line that the threads take from one another, which costs more than the copy.
    private func writeWaiting(on key: ObjectIdentifier) {
        let batches: [Batch] = waiting.withLock { (pending: inout [ObjectIdentifier: [Batch]]) -> [Batch] in
            pending.removeValue(forKey: key) ?? []
        }
        let flushEach = batches.count == 1
        var written: [ObjectIdentifier: WindowSocketHandler] = [:]
        for batch in batches {
            guard let first = batch.targets.first else { continue }
            let size = batch.bytes.readableBytes
            var bytes = batch.bytes
            if batch.targets.count > 1, size <= Self.copiedMessageLimit {
                bytes = first.channel.allocator.buffer(capacity: size)
                bytes.writeImmutableBuffer(batch.bytes)
            }
            let frames = Self.frames(of: bytes, maximumFrameSize: maximumFrameSize)
            for target in batch.targets {
                let handler = target.handler.value
                for frame in frames.dropLast() { handler.writeMessage(frame, promise: nil, flush: false) }
                let promise = target.channel.eventLoop.makePromise(of: Void.self)
                let queue = target.queue
                promise.futureResult.whenComplete { _ in
                    queue.release(size)
                    // A large message's bytes are free now, but glibc keeps them (HeapTrim).
                    HeapTrim.shared.note(messageOf: size)
                }
                handler.writeMessage(frames[frames.count - 1], promise: promise, flush: flushEach)
                if !flushEach { written[ObjectIdentifier(handler)] = handler }
            }
        }
        for handler in written.values { handler.flushMessages() }
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
