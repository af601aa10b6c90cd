public import SceneSyncServer

extension ServerMessage {
    /// The error code, if this is an error.
    public var errorCode: String? {
        if case let .error(_, code, _) = self { code } else { nil }
    }
}
