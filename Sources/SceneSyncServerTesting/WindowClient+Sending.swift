import Foundation
import SceneSync
public import SceneSyncUI
import SceneSyncServer
import NIOCore
import NIOWebSocket

/// What a window sends: the protocol's messages, as the renderer writes them.
extension WindowClient {
    /// Says hello, as the first message on every connection; `device` stands for the browser
    /// profile (32 lowercase hex digits), shared by the windows of one profile.
    public func hello(session: String? = nil, seq: [String: UInt64]? = nil, route: String? = nil, open: String? = nil,
                      token: String? = nil, device: String? = nil, visible: Bool = true, focused: Bool = true) {
        self.device = device
        send(.hello, ClientMessage.Hello(session: session, seq: seq, route: route, open: open, token: token, device: device,
                                         visible: visible, focused: focused))
    }

    /// Reports a user action on `node` and returns its `ref`.
    @discardableResult
    public func act(_ name: ActionName, on node: String, value: ViewValue? = nil) -> Int {
        lastRef += 1
        send(.action, UserAction(ref: lastRef, node: node, name: name, value: value))
        return lastRef
    }

    /// Sends action `ref` again with `resend: true`, as a window does after reconnecting when the
    /// connection the action went out on ended before its answer came.
    public func resend(_ name: ActionName, on node: String, ref: Int, value: ViewValue? = nil) {
        lastRef = max(lastRef, ref)
        send(.action, Resent(action: UserAction(ref: ref, node: node, name: name, value: value)))
    }

    /// Taps a button or bar button and returns the action's `ref`.
    @discardableResult
    public func tap(_ node: String) -> Int {
        act(.tap, on: node)
    }

    /// Reports that the window was shown, hidden, focused or blurred.
    public func setVisibility(visible: Bool, focused: Bool) {
        send(.visibility, Visibility(visible: visible, focused: focused))
    }

    /// Says the window is closing for good, as `pagehide` does.
    public func sayClosing() {
        send(.closing, Visibility?.none)
    }

    /// Sends a keep-alive.
    public func ping() {
        send(.ping, Visibility?.none)
    }

    /// Sends `text` as it is, to test what the server does with it.
    public func sendRaw(_ text: String) {
        write(.text, ByteBuffer(string: text))
    }

    /// Closes the socket, as closing the tab does, and waits until it is closed.
    public func close(timeout: Duration = .seconds(10)) async throws {
        if !isClosed && !sentClose {
            sentClose = true
            var data = ByteBuffer()
            data.write(webSocketErrorCode: .normalClosure)
            write(.connectionClose, data)
        }
        try await waitUntil("the socket to close", timeout: timeout) { isClosed }
    }

    /// An action's fields and `resend: true`.
    private struct Resent: Encodable {
        let action: UserAction
        private enum CodingKeys: String, CodingKey { case resend }

        func encode(to encoder: any Encoder) throws {
            try action.encode(to: encoder)
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(true, forKey: .resend)
        }
    }

    struct Visibility: Encodable {
        let visible: Bool
        let focused: Bool
    }

    /// A message body with the protocol's `type` and `v` added.
    private struct Envelope<Body: Encodable>: Encodable {
        let type: WindowProtocol.MessageType
        let body: Body?
        private enum CodingKeys: String, CodingKey { case type, v }

        func encode(to encoder: any Encoder) throws {
            try body?.encode(to: encoder)
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(type, forKey: .type)
            try container.encode(WindowProtocol.version, forKey: .v)
        }
    }

    func send<Body: Encodable>(_ type: WindowProtocol.MessageType, _ body: Body?) {
        // Hellos, actions and flags always encode.
        let data = (try? JSONEncoder().encode(Envelope(type: type, body: body))) ?? Data()
        write(.text, ByteBuffer(bytes: data))
    }

    func write(_ opcode: WebSocketOpcode, _ data: ByteBuffer) {
        outgoing.yield(WebSocketFrame(fin: true, opcode: opcode, maskKey: .random(), data: data))
    }
}
