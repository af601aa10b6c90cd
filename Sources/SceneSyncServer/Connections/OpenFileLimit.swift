#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The process's limit on open files: each connection takes one.
public enum OpenFileLimit {
    /// The soft limit now, if it can be read and is finite.
    public static func current() -> Int? {
        guard let limit = read(), limit.rlim_cur < rlim_t(Int.max) else { return nil }
        return Int(clamping: limit.rlim_cur)
    }

    /// Raises the soft limit to the hard one, as a server that holds one descriptor per connection
    /// should: a shell's default of 1,024 would otherwise cap its connections near 960 while the
    /// system allows far more.
    ///
    /// - Returns: the limits before and after, or `nil` if nothing changed.
    @discardableResult
    public static func raiseToHardLimit() -> (from: UInt64, to: UInt64)? {
        guard var limit = read(), limit.rlim_cur < limit.rlim_max else { return nil }
        let previous = limit.rlim_cur
        limit.rlim_cur = limit.rlim_max
        guard setrlimit(resource, &limit) == 0 else { return nil }
        return (UInt64(previous), UInt64(limit.rlim_max))
    }

    private static func read() -> rlimit? {
        var limit = rlimit()
        return getrlimit(resource, &limit) == 0 ? limit : nil
    }

    #if canImport(Glibc)
    private static let resource = __rlimit_resource_t(RLIMIT_NOFILE.rawValue)
    #else
    private static let resource = RLIMIT_NOFILE
    #endif
}
