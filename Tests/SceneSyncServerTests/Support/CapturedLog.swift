import InMemoryLogging
import Logging

/// A logger that keeps what it logs at `level` and above, and the handler to read it from.
func capturedLog(_ level: Logger.Level) -> (InMemoryLogHandler, Logger) {
    let log = InMemoryLogHandler()
    var logger = Logger(label: "scenesync.tests") { _ in log }
    logger.logLevel = level
    return (log, logger)
}
