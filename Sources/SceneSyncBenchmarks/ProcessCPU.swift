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
