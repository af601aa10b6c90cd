/// Why the server cannot start.
public enum SceneSyncServerError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The server would listen beyond loopback without an access token.
    case tokenRequired(host: String)
    /// The access token is empty or only white space: anyone could send it.
    case blankToken
    /// The access token has a character that cannot travel in a header or a URL as it is:
    /// anything but printable ASCII, or a space.
    case tokenNotPrintable
    /// Two hosted apps share a name.
    case duplicateApp(String)
    /// The port is not between 0 and 65535.
    case invalidPort(Int)
    /// The server stopped before it was listening.
    case notRunning

    public var description: String {
        switch self {
        case let .tokenRequired(host):
            "Listening on \(host) exposes every window beyond this machine: pass an access token (--token)."
        case .blankToken: "The access token is blank: pass one nobody can guess."
        case .tokenNotPrintable: "The access token must be printable ASCII without spaces."
        case let .duplicateApp(name): "Two apps are named \(name.debugDescription)."
        case let .invalidPort(port): "\(port) is not a TCP port."
        case .notRunning: "The server stopped before it was listening."
        }
    }
}
