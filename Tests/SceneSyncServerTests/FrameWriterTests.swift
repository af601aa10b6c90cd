import NIOCore
import NIOWebSocket
@testable import SceneSyncServer
import Testing

/// A message larger than a frame goes in frames of at most the frame size, the first a text
/// frame, the rest continuations, the last marked final; their bytes are the message's own.
@Suite struct FrameWriterTests {
    @Test func aSmallMessageIsOneFinalTextFrameSharingItsBytes() {
        let bytes = ByteBuffer(string: #"{"type":"pong","v":1}"#)
        let frames = FrameWriter.frames(of: bytes, maximumFrameSize: 64)
        #expect(frames.count == 1)
        #expect(frames[0].opcode == .text && frames[0].fin)
        #expect(frames[0].data == bytes)
    }

    @Test func aLargeMessageIsSplitIntoFramesOfAtMostTheFrameSize() {
        let text = String(repeating: "0123456789", count: 25)
        let frames = FrameWriter.frames(of: ByteBuffer(string: text), maximumFrameSize: 100)
        #expect(frames.map(\.data.readableBytes) == [100, 100, 50])
        #expect(frames.map(\.opcode) == [.text, .continuation, .continuation])
        #expect(frames.map(\.fin) == [false, false, true])
        #expect(frames.map { String(buffer: $0.data) }.joined() == text)
    }

    @Test func aMessageOfExactlyTheFrameSizeIsOneFrame() {
        let frames = FrameWriter.frames(of: ByteBuffer(string: String(repeating: "x", count: 100)), maximumFrameSize: 100)
        #expect(frames.count == 1 && frames[0].fin && frames[0].opcode == .text)
    }
}

/// A window's queue: bounded in messages and bytes, and done with once its window closes, even if
/// writes still in flight finish afterwards.
@Suite struct OutboundQueueTests {
    @Test func aQueueRefusesPastItsMessageLimitAndTakesAgainOnceAMessageIsWritten() {
        let budget = OutboundBudget(perWindow: 1_000, total: 10_000)
        let queue = OutboundBudget.Queue(budget: budget, messageLimit: 2)
        #expect(queue.reserve(10) && queue.reserve(10))
        #expect(!queue.reserve(10), "a third message waiting is one too many")
        #expect(queue.queuedBytes == 20 && budget.queuedBytes == 20)
        queue.release(10)
        #expect(queue.reserve(10))
        #expect(!queue.reserve(2_000) && queue.queuedBytes == 20, "refused bytes are not counted")
    }

    @Test func writesFinishingAfterTheWindowClosedDoNotCountAgainstTheServer() {
        let budget = OutboundBudget(perWindow: 1_000, total: 10_000)
        let queue = OutboundBudget.Queue(budget: budget)
        #expect(queue.reserve(300) && queue.reserve(200))
        queue.releaseAll()
        #expect(budget.queuedBytes == 0)
        queue.release(300)
        queue.release(200)
        #expect(budget.queuedBytes == 0 && queue.queuedBytes == 0)
        #expect(!queue.reserve(1), "a closed window's queue takes nothing more")
    }
}
