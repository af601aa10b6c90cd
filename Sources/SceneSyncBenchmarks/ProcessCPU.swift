import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// CPU time and machine load, reported next to wall-clock figures: on a shared machine, a low rate
/// can mean a slow code path or simply too little CPU left over, and only these tell them apart.
enum ProcessCPU {
    /// User plus system CPU time used so far by every thread of this process.
    static func used() -> Duration {
        var usage = rusage()
        #if canImport(Glibc)
        let who = RUSAGE_SELF.rawValue
        #else
        let who = RUSAGE_SELF
        #endif
        guard getrusage(Int32(who), &usage) == 0 else { return .zero }
        return .seconds(Int64(usage.ru_utime.tv_sec) + Int64(usage.ru_stime.tv_sec))
            + .microseconds(Int64(usage.ru_utime.tv_usec) + Int64(usage.ru_stime.tv_usec))
    }

    /// The machine's load average over the last minute, if the system reports one.
    static func loadAverage() -> Double? {
        var loads = [Double](repeating: 0, count: 3)
        return getloadavg(&loads, 3) >= 1 ? loads[0] : nil
    }
}

extension ProcessCPU {
    /// User plus system CPU time used so far by every process named `postgres` on this machine
    /// (the server and its backends), read from `/proc`; `nil` where there is no `/proc`.
    ///
    /// A backend that exits takes its time with it, so read this around work whose connections
    /// stay open throughout.
    static func postgresUsed() -> Duration? {
        #if os(Linux)
        guard let entries = try? FileManager.default.contentsOfDirectory(atPath: "/proc") else { return nil }
        let ticksPerSecond = Int64(sysconf(Int32(_SC_CLK_TCK)))
        guard ticksPerSecond > 0 else { return nil }
        var ticks: Int64 = 0
        for entry in entries where entry.allSatisfy(\.isNumber) {
            guard let stat = try? String(contentsOfFile: "/proc/\(entry)/stat", encoding: .utf8),
                  let open = stat.firstIndex(of: "("), let close = stat.lastIndex(of: ")"),
                  stat[stat.index(after: open)..<close] == "postgres" else { continue }
            // After the name: state, then 10 fields up to utime (14th) and stime (15th).
            let fields = stat[stat.index(after: close)...].split(separator: " ")
            guard fields.count > 12, let user = Int64(fields[11]), let system = Int64(fields[12]) else { continue }
            ticks += user + system
        }
        return .milliseconds(ticks * 1_000 / ticksPerSecond)
        #else
        return nil
        #endif
    }
}

/// CPU time of this process and of PostgreSQL's, read together: `spent(since:)` gives what each
/// used between two readings.
struct CPUReading: Sendable {
    let bench: Duration
    let postgres: Duration?

    /// A reading that starts a measurement: `/proc` is scanned before this process's time is
    /// read, so the scan's own time is not counted to this process.
    static func start() -> CPUReading {
        let postgres = ProcessCPU.postgresUsed()
        return CPUReading(bench: ProcessCPU.used(), postgres: postgres)
    }

    /// A reading that ends a measurement: this process's time is read before the scan.
    static func end() -> CPUReading {
        let bench = ProcessCPU.used()
        return CPUReading(bench: bench, postgres: ProcessCPU.postgresUsed())
    }

    func spent(since start: CPUReading) -> CPUReading {
        CPUReading(bench: bench - start.bench, postgres: postgres.flatMap { end in start.postgres.map { end - $0 } })
    }
}
