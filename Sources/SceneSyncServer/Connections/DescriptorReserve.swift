import Logging
import NIOCore

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Sits on the listening socket and keeps accepting from turning into a busy loop when the
/// process runs out of file descriptors.
///
/// The kernel keeps a connection it could not hand over in its queue, and the listening socket
/// stays readable: retried at once, accepting fails again and again at full speed. So this
/// handler holds one descriptor in reserve. When accepting fails for want of descriptors, it
/// lowers the connection limit to the connections open now and gives its reserve up: the waiting
/// connection is accepted with it, answered `503` (over the limit) and closed, and the next
/// one after it, until the queue is empty and the socket quiet. It takes its reserve back as soon
/// as a descriptor is free, and says all this in the log at warning, at most every 10 seconds.
final class DescriptorReserve: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = any Channel

    private let admission: ConnectionAdmission
    private let logger: Logger
    /// The descriptor held in reserve, or -1 while it is given up.
    private var reserve: Int32
    private var retakeTask: Scheduled<Void>?
    private var failures = 0
    private var lastWarning: NIODeadline?

    init(admission: ConnectionAdmission, logger: Logger) {
        self.admission = admission
        self.logger = logger
        reserve = Self.openReserve()
    }

    deinit {
        if reserve >= 0 { close(reserve) }
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        if let error = error as? IOError, Self.isExhaustion(error.errnoCode) {
            failures += 1
            let lowered = admission.lowerLimitToOpenConnections()
            if reserve >= 0 {
                close(reserve)
                reserve = -1
                scheduleRetake(context: context)
            }
            let now = NIODeadline.now()
            if lowered != nil || lastWarning.map({ now - $0 >= .seconds(10) }) ?? true {
                lastWarning = now
                logger.warning("Out of file descriptors: connections over those open are refused with 503", metadata: [
                    "error": "\(error)", "failedAccepts": "\(failures)",
                    "maximumConnections": "\(admission.maximumTotal)",
                ])
                failures = 0
            }
        }
        context.fireErrorCaught(error)
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        retakeTask?.cancel()
        retakeTask = nil
    }

    /// Takes a descriptor back into reserve as soon as one is free.
    private func scheduleRetake(context: ChannelHandlerContext) {
        guard retakeTask == nil else { return }
        retakeTask = context.eventLoop.assumeIsolated().scheduleTask(in: .milliseconds(10)) { [self] in
            retakeTask = nil
            reserve = Self.openReserve()
            if reserve < 0 { scheduleRetake(context: context) }
        }
    }

    private static func openReserve() -> Int32 {
        open("/dev/null", O_RDONLY | O_CLOEXEC)
    }

    static func isExhaustion(_ code: Int32) -> Bool {
        code == EMFILE || code == ENFILE || code == ENOBUFS || code == ENOMEM
    }
}
