/// Why the windows benchmark could not report a figure.
enum WindowsBenchmarkError: Error, CustomStringConvertible {
    /// A socket call failed.
    case socket(String)
    /// Nothing matching arrived in time.
    case timedOut(String)
    /// The server process could not be started, or stopped on its own.
    case server(String)
    /// The server or a window did something the benchmark does not expect.
    case unexpected(String)

    var description: String {
        switch self {
        case let .socket(detail): "Socket: \(detail)"
        case let .timedOut(what): "Timed out waiting for \(what)."
        case let .server(detail): "Server: \(detail)"
        case let .unexpected(detail): detail
        }
    }
}
