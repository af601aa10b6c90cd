import Foundation
import GRDB

/// Where and when the figures were measured, printed with them because throughput on one
/// machine says little about another.
struct MachineContext: Sendable {
    let date: Date
    let processorCount: Int
    let activeProcessorCount: Int
    let physicalMemory: UInt64
    let operatingSystem: String
    let sqliteVersion: String
    let scratchParent: String
    /// The 1-minute load average when the run started; other work on a shared machine shows here.
    let loadAverage: Double?

    static func current(scratchParent: URL) async throws -> MachineContext {
        let info = ProcessInfo.processInfo
        let sqliteVersion = try await DatabaseQueue().read { db in
            try String.fetchOne(db, sql: "SELECT sqlite_version()") ?? "unknown"
        }
        return MachineContext(
            date: Date(),
            processorCount: info.processorCount,
            activeProcessorCount: info.activeProcessorCount,
            physicalMemory: info.physicalMemory,
            operatingSystem: info.operatingSystemVersionString,
            sqliteVersion: sqliteVersion,
            scratchParent: scratchParent.path,
            loadAverage: ProcessCPU.loadAverage())
    }

    var lines: [(String, String)] {
        #if DEBUG
        let build = "debug (figures are not representative; use -c release)"
        #else
        let build = "release"
        #endif
        return [
            ("Date", ISO8601DateFormatter().string(from: date)),
            ("Cores", "\(processorCount) (\(activeProcessorCount) active)"),
            ("Memory", "\(physicalMemory / 1_048_576) MiB"),
            ("OS", operatingSystem),
            ("SQLite", sqliteVersion),
            ("Build", build),
            ("Databases in", scratchParent),
            ("Load average at start", loadAverage.map { String(format: "%.2f (1 min)", $0) } ?? "unknown"),
        ]
    }
}
