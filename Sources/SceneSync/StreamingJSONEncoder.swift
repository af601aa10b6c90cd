import Foundation

/// Encodes an app's events and records as JSON in one pass, writing bytes as the value encodes
/// itself, where `JSONEncoder` first builds a tree of the whole value and then writes that.
///
/// What it writes, `JSONDecoder` reads as it reads `JSONEncoder`'s output with default options
/// (dates as their `Double`, `Data` as Base64, `URL` as its string, `Decimal` as a number), so the
/// stored log and records stay readable both ways. A value that encodes itself in a way a single
/// pass cannot follow (a container used again after a later sibling was written, a
/// `superEncoder`, two containers for one value) and a value `JSONEncoder` would refuse (an
/// infinite `Double`) are handed to `fallback`, which encodes them as before or throws its error.
/// One instance belongs to one task at a time: it reuses its buffer from value to value.
final class StreamingJSONEncoder {
    private let fallback: JSONEncoder
    private let writer = JSONStreamWriter()

    init(fallback: JSONEncoder) {
        self.fallback = fallback
    }

    func encode<Value: Encodable>(_ value: Value) throws -> Data {
        writer.reset()
        writer.write(value)
        if writer.unsupported { return try fallback.encode(value) }
        return Data(writer.bytes)
    }
}

/// The bytes written so far and the containers open, innermost last. Anything it cannot follow
/// sets ``unsupported``, after which every write is ignored.
///
/// Its state lives behind a pointer rather than in stored properties: Swift checks every write
/// to a class's stored property for exclusive access at run time, a cost per byte written here,
/// and this writer belongs to one task at a time.
final class JSONStreamWriter {
    private struct OpenContainer {
        let id: Int
        let closer: UInt8
        var count = 0
    }

    private struct State {
        var bytes: [UInt8] = []
        var unsupported = false
        var open: [OpenContainer] = []
        var lastID = 0
        /// The value that may be written now: set by ``write(_:)`` for the value it encodes,
        /// cleared once the value opens a container or writes itself.
        var fillable: Int?
    }

    private let state: UnsafeMutablePointer<State>

    init() {
        state = .allocate(capacity: 1)
        var initial = State()
        // Room for a typical event or record without growing.
        initial.bytes.reserveCapacity(512)
        initial.open.reserveCapacity(8)
        state.initialize(to: initial)
    }

    deinit {
        state.deinitialize(count: 1)
        state.deallocate()
    }

    private(set) var bytes: [UInt8] {
        _read { yield state.pointee.bytes }
        _modify { yield &state.pointee.bytes }
    }

    private(set) var unsupported: Bool {
        get { state.pointee.unsupported }
        set { state.pointee.unsupported = newValue }
    }

    private var open: [OpenContainer] {
        _read { yield state.pointee.open }
        _modify { yield &state.pointee.open }
    }

    private var lastID: Int {
        get { state.pointee.lastID }
        set { state.pointee.lastID = newValue }
    }

    private var fillable: Int? {
        get { state.pointee.fillable }
        set { state.pointee.fillable = newValue }
    }

    func reset() {
        bytes.removeAll(keepingCapacity: true)
        open.removeAll(keepingCapacity: true)
        unsupported = false
        fillable = nil
    }

    func fail() { unsupported = true }

    /// Writes one whole value where the caller has made room for it (after a key, a comma, or at
    /// the top), and closes the containers it opened.
    func write<Value: Encodable>(_ value: Value) {
        guard !unsupported else { return }
        if Value.self == UUID.self {
            uuid(value as! UUID)
        } else if Value.self == Data.self {
            string((value as! Data).base64EncodedString())
        } else if Value.self == URL.self {
            string((value as! URL).absoluteString)
        } else if Value.self == Decimal.self {
            bytes.append(contentsOf: (value as! Decimal).description.utf8)
        } else {
            let depth = open.count
            let start = bytes.count
            lastID += 1
            let slot = lastID
            fillable = slot
            do {
                try value.encode(to: StreamValueEncoder(writer: self, slot: slot))
            } catch {
                // The fallback encodes the value again and throws its error, or succeeds.
                unsupported = true
            }
            fillable = nil
            guard !unsupported else { return }
            while open.count > depth { close() }
            // `JSONEncoder` writes a value that encoded nothing as an empty object.
            if bytes.count == start { bytes.append(contentsOf: "{}".utf8) }
        }
    }

    /// Claims the value `slot` for a container or a single value; false if it was claimed already
    /// or is no longer being written.
    func fill(_ slot: Int) -> Bool {
        guard !unsupported, fillable == slot else {
            unsupported = true
            return false
        }
        fillable = nil
        return true
    }

    /// Opens a container, writing `opener`; returns its id.
    func openContainer(_ opener: UInt8, closer: UInt8) -> Int {
        lastID += 1
        bytes.append(opener)
        open.append(OpenContainer(id: lastID, closer: closer))
        return lastID
    }

    /// Makes room for the next element of container `id`: closes the containers nested in it,
    /// which are done, and writes a comma after its previous element. False if the container
    /// itself is done or anything failed before.
    func nextElement(of id: Int) -> Bool {
        guard !unsupported else { return false }
        while let last = open.last, last.id != id {
            close()
        }
        guard !open.isEmpty else {
            unsupported = true
            return false
        }
        if open[open.count - 1].count > 0 { bytes.append(UInt8(ascii: ",")) }
        open[open.count - 1].count += 1
        return true
    }

    func count(of id: Int) -> Int {
        open.last(where: { $0.id == id })?.count ?? 0
    }

    private func close() {
        bytes.append(open.removeLast().closer)
    }

    func key(_ key: some CodingKey) {
        string(key.stringValue)
        bytes.append(UInt8(ascii: ":"))
    }

    func null() { bytes.append(contentsOf: "null".utf8) }

    func bool(_ value: Bool) { bytes.append(contentsOf: (value ? "true" : "false").utf8) }

    func integer(_ value: some BinaryInteger) {
        var magnitude = UInt64(value.magnitude)
        if value < 0 { bytes.append(UInt8(ascii: "-")) }
        var digits: (UInt64, UInt64, UInt64) = (0, 0, 0)
        withUnsafeMutableBytes(of: &digits) { buffer in
            var start = buffer.count
            repeat {
                start -= 1
                buffer[start] = UInt8(ascii: "0") + UInt8(magnitude % 10)
                magnitude /= 10
            } while magnitude > 0
            bytes.append(contentsOf: buffer[start...])
        }
    }

    /// A floating-point number as `JSONEncoder` writes it; a non-finite one is left to the fallback.
    func float<F: FloatingPoint & LosslessStringConvertible>(_ value: F) {
        guard value.isFinite else {
            unsupported = true
            return
        }
        var text = value.description
        if text.hasSuffix(".0") { text.removeLast(2) }
        bytes.append(contentsOf: text.utf8)
    }

    func string(_ value: String) {
        bytes.append(UInt8(ascii: "\""))
        var value = value
        value.withUTF8 { utf8 in
            // Runs of bytes that need no escape, most strings whole, are copied at once.
            var run = 0
            for index in utf8.indices where utf8[index] == UInt8(ascii: "\"") || utf8[index] == UInt8(ascii: "\\") || utf8[index] < 0x20 {
                bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[run..<index]))
                escape(utf8[index])
                run = index + 1
            }
            bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[run...]))
        }
        bytes.append(UInt8(ascii: "\""))
    }

    /// A UUID as `JSONEncoder` writes it, its upper-case `uuidString`, without formatting the
    /// string first (Foundation formats it through `snprintf`, a cost paid per key per intent).
    func uuid(_ value: UUID) {
        bytes.append(UInt8(ascii: "\""))
        value.forEachKeyStringByte { bytes.append($0) }
        bytes.append(UInt8(ascii: "\""))
    }

    private func escape(_ byte: UInt8) {
        switch byte {
        case UInt8(ascii: "\""): bytes.append(contentsOf: "\\\"".utf8)
        case UInt8(ascii: "\\"): bytes.append(contentsOf: "\\\\".utf8)
        case 0x0A: bytes.append(contentsOf: "\\n".utf8)
        case 0x0D: bytes.append(contentsOf: "\\r".utf8)
        case 0x09: bytes.append(contentsOf: "\\t".utf8)
        case 0x08: bytes.append(contentsOf: "\\b".utf8)
        case 0x0C: bytes.append(contentsOf: "\\f".utf8)
        default:
            let hex = Array("0123456789abcdef".utf8)
            bytes.append(contentsOf: "\\u00".utf8)
            bytes.append(hex[Int(byte >> 4)])
            bytes.append(hex[Int(byte & 0xF)])
        }
    }
}
