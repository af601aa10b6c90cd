import NIOCore
import SceneSyncUI

/// Encodes an app's messages for its windows into bytes ready for a WebSocket frame, reusing the
/// bytes of a recent patch when a window is sent the same one.
///
/// When a model changes, every window that shows it is sent a patch, one after another on the
/// main actor, and windows that show the same screen are sent the same one, with the same
/// sequence numbers: only the first of them is encoded. Windows that show the same screen to
/// different people (a chat's "You:" in one, "Ana:" in another) are sent a few different patches,
/// interleaved; the last ``recentPatchCount`` are kept, so each of those is encoded once too.
/// Comparing costs a fraction of encoding. The bytes are a `ByteBuffer` that every window's frame
/// shares: a thousand windows sent one patch hold one copy of it, not a thousand.
///
/// A window's first render is kept too, the last one only: windows that open on the same screen
/// in the same state (a thousand windows opening on one list between two changes) are sent the
/// same render, and share its bytes, however long the list. Comparing is cheap where it matters:
/// a screen's rows built once per state (`SharedModel.oncePerState`) are one array in every
/// window's tree, and arrays that share their storage compare equal at once. The kept render, its
/// tree and its bytes, stay until the next render takes their place.
///
/// Windows are sent their patches in the same order at every change, so which kept patch the
/// next window matches follows a pattern: the same one again (windows alike), or the one beside
/// the last match (people's windows in turn). That one is compared first, so a window usually
/// costs one comparison however many different patches are kept.
struct SharedPatchEncoder {
    /// Patches encoded to more text than this are not kept for the next window.
    static let sharedPatchLimit = 64 * 1024
    /// How many of the last distinct patches are kept.
    static let recentPatchCount = 16

    /// The last patches encoded, and their bytes, the newest first.
    private var recent: [(message: ServerMessage, bytes: ByteBuffer)] = []
    /// The last render encoded, and its bytes.
    private var lastRender: (message: ServerMessage, bytes: ByteBuffer)?
    /// How many patches were encoded rather than reused.
    private(set) var patchEncodings = 0
    /// How many renders were encoded rather than reused, and how many reused.
    private(set) var renderEncodings = 0
    private(set) var renderReuses = 0
    /// How many times a patch was compared with a kept one.
    private(set) var comparisons = 0
    /// Where in ``recent`` the last window's patch was found, and how far that was from the one
    /// before: the next is looked for at the last place plus that step first.
    private var lastMatch = 0
    private var step = 0

    /// Encodes `message`, or reuses the bytes of a recent patch, or of the last render, if this is
    /// the same message.
    mutating func encode(_ message: ServerMessage) -> ByteBuffer {
        if case .render = message { return render(message) }
        guard case .patch = message else { return WindowProtocol.encodeBuffer(message) }
        if let index = keptIndex(of: message) { return recent[index].bytes }
        patchEncodings += 1
        let bytes = WindowProtocol.encodeBuffer(message)
        guard bytes.readableBytes <= Self.sharedPatchLimit else { return bytes }
        // A newer sequence number makes every kept patch stale for good.
        if case let .patch(_, seq) = message, case let .patch(_, keptSeq)? = recent.first?.message, keptSeq != seq {
            recent.removeAll()
        }
        recent.insert((message, bytes), at: 0)
        if recent.count > Self.recentPatchCount { recent.removeLast() }
        (lastMatch, step) = (0, 0)
        return bytes
    }

    /// The bytes of the last render if `message` is the same, else `message` encoded and kept
    /// in its place.
    private mutating func render(_ message: ServerMessage) -> ByteBuffer {
        if let lastRender, lastRender.message == message {
            renderReuses += 1
            return lastRender.bytes
        }
        renderEncodings += 1
        let bytes = WindowProtocol.encodeBuffer(message)
        lastRender = (message, bytes)
        return bytes
    }

    /// Where `message` is among the kept patches: the place the pattern of the last matches
    /// predicts is compared first, then the others, newest first.
    private mutating func keptIndex(of message: ServerMessage) -> Int? {
        let count = recent.count
        guard count > 0 else { return nil }
        let predicted = ((lastMatch + step) % count + count) % count
        comparisons += 1
        if recent[predicted].message == message { return matched(at: predicted) }
        for index in recent.indices where index != predicted {
            comparisons += 1
            if recent[index].message == message { return matched(at: index) }
        }
        return nil
    }

    private mutating func matched(at index: Int) -> Int {
        (lastMatch, step) = (index, index - lastMatch)
        return index
    }
}
