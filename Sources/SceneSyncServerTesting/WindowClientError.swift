/// Why a ``WindowClient`` could not do what a test asked.
public enum WindowClientError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The server refused the WebSocket upgrade.
    case upgradeRefused
    /// The socket is closed.
    case closed
    /// Nothing matching arrived in time.
    case timedOut(waitingFor: String)

    public var description: String {
        switch self {
        case .upgradeRefused: "The server refused the WebSocket upgrade."
        case .closed: "The window's socket is closed."
        case let .timedOut(what): "Timed out waiting for \(what)."
        }
    }
}
