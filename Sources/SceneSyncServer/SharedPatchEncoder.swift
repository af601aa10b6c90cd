import SceneSyncUI

/// Encodes an app's messages for its windows, reusing the text of the last patch when the next
/// window is sent the same one.
///
/// When a model changes, every window that shows it is sent a patch, one after another on the
/// main actor, and windows that show the same screen are sent the same one, with the same
/// sequence numbers: only the first of them is encoded. Comparing costs a fraction of encoding.
struct SharedPatchEncoder {
    /// Patches encoded to more text than this are not kept for the next window.
    static let sharedPatchLimit = 64 * 1024

    /// The last patch encoded, and its text.
    private var lastPatch: (message: ServerMessage, text: String)?
    /// How many patches were encoded rather than reused.
    private(set) var patchEncodings = 0

    /// Encodes `message`, or reuses the text of the previous patch if this is the same patch.
    mutating func encode(_ message: ServerMessage) -> String {
        guard case .patch = message else { return WindowProtocol.encodeText(message) }
        if let lastPatch, lastPatch.message == message { return lastPatch.text }
        patchEncodings += 1
        let text = WindowProtocol.encodeText(message)
        lastPatch = text.utf8.count <= Self.sharedPatchLimit ? (message, text) : nil
        return text
    }
}
