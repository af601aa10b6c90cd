import Logging
import NIOCore

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Sits on the listening socket: when accepting fails for want of file descriptors or memory, it
/// stops accepting for a moment instead of retrying at once, and says so in the log.
///
/// The kernel keeps a connection it could not hand over in its queue, so an immediate retry
/// fails again: without a pause the event loop would spin on it at full speed.
final class AcceptPause: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = any Channel
    typealias OutboundIn = any Channel

    private let pause: TimeAmount
    private let logger: Logger
    private var resumeAt: NIODeadline?
    private var scheduledRead: Scheduled<Void>?
    private var failures = 0
    private var lastWarning: NIODeadline?

    init(pause: TimeAmount = .milliseconds(100), logger: Logger) {
        self.pause = pause
        self.logger = logger
    }

    func read(context: ChannelHandlerContext) {
        guard scheduledRead == nil else { return }
        guard let resumeAt, resumeAt > .now() else {
            self.resumeAt = nil
            return context.read()
        }
        scheduledRead = context.eventLoop.assumeIsolated().scheduleTask(in: resumeAt - .now()) { [self] in
            scheduledRead = nil
            self.resumeAt = nil
            context.read()
        }
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        if let error = error as? IOError, Self.isExhaustion(error.errnoCode) {
            failures += 1
            resumeAt = .now() + pause
            let now = NIODeadline.now()
            if lastWarning.map({ now - $0 >= .seconds(10) }) ?? true {
                lastWarning = now
                logger.warning("Out of file descriptors: not accepting connections for a moment", metadata: [
                    "error": "\(error)", "failedAccepts": "\(failures)",
                    "pauseMilliseconds": "\(pause.nanoseconds / 1_000_000)",
                ])
                failures = 0
            }
        }
        context.fireErrorCaught(error)
    }

    func channelInactive(context: ChannelHandlerContext) {
        scheduledRead?.cancel()
        scheduledRead = nil
        context.fireChannelInactive()
    }

    static func isExhaustion(_ code: Int32) -> Bool {
        code == EMFILE || code == ENFILE || code == ENOBUFS || code == ENOMEM
    }

    /// The process's limit on open files, if it can be read.
    static func openFileLimit() -> Int? {
        var limit = rlimit()
        #if canImport(Glibc)
        let resource = __rlimit_resource_t(RLIMIT_NOFILE.rawValue)
        #else
        let resource = RLIMIT_NOFILE
        #endif
        guard getrlimit(resource, &limit) == 0, limit.rlim_cur < rlim_t(Int.max) else { return nil }
        return Int(clamping: limit.rlim_cur)
    }
}
