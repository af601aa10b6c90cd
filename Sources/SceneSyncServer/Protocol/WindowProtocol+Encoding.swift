import SceneSyncUI

/// Writes server messages as JSON by hand.
///
/// The output is the text `JSONEncoder` gives with `.sortedKeys` (keys in order of their UTF-8
/// bytes, `/` escaped as `\/`, control characters as `\b`, `\f`, `\n`, `\r`, `\t` or `\u00XX`,
/// everything else as UTF-8), so the renderer reads exactly what it read before, at a fraction of
/// the cost: no boxing of every value, no dictionaries of keys, no runtime type checks. Every
/// connected window is sent a patch each time a model it shows changes, so this is on the path
/// of every change.
struct MessageJSONWriter {
    /// A number JSON cannot carry (infinity or NaN).
    struct InvalidNumber: Error {}

    private(set) var bytes: [UInt8] = []

    init(capacity: Int = 256) {
        bytes.reserveCapacity(capacity)
    }

    /// Writes `message`, keys sorted, as one JSON object.
    ///
    /// Every key is named by the enum its type's `Codable` conformance uses
    /// (`ServerMessage.CodingKeys`, ``Patch/WireKey``, ``ViewNode/WireKey``), so the names are
    /// spelled once; the order they are written in is this writer's own, the order of their bytes.
    mutating func write(_ message: ServerMessage) throws(InvalidNumber) {
        switch message {
        case let .welcome(session, app, title, time):
            key(Message.app, first: true); string(app)
            key(Message.session); string(session)
            key(Message.time); try value(.time(time))
            key(Message.title); string(title)
            type(.welcome)
        case let .render(root, seq, route):
            key(Message.root, first: true); try node(root)
            key(Message.route); string(route)
            key(Message.seq); sequences(seq)
            type(.render)
        case let .patch(ops, seq):
            key(Message.ops, first: true); try patches(ops)
            key(Message.seq); sequences(seq)
            type(.patch)
        case let .resumed(seq):
            key(Message.seq, first: true); sequences(seq)
            type(.resumed)
        case let .ack(ref):
            key(Message.ref, first: true); integer(ref)
            type(.ack)
        case let .error(ref, code, message):
            key(Message.code, first: true); string(code)
            key(Message.message); string(message)
            if let ref { key(Message.ref); integer(ref) }
            type(.error)
        case let .open(url):
            // "type" sorts before "url", so this one is written out of the usual order.
            key(Message.type, first: true); quoted(WindowProtocol.MessageType.open.rawValue)
            key(Message.url); string(url)
            version()
        case let .shutdown(retryAfter):
            key(Message.retryAfter, first: true); integer(retryAfter)
            type(.shutdown)
        case .pong:
            type(.pong, first: true)
        }
    }

    private typealias Message = ServerMessage.CodingKeys
    private typealias PatchKey = Patch.WireKey
    private typealias NodeKey = ViewNode.WireKey

    /// Writes the patches of a `patch` message as a JSON array.
    mutating func patches(_ ops: [Patch]) throws(InvalidNumber) {
        bytes.append(UInt8(ascii: "["))
        for (index, op) in ops.enumerated() {
            if index > 0 { bytes.append(UInt8(ascii: ",")) }
            try patch(op)
        }
        bytes.append(UInt8(ascii: "]"))
    }

    /// Writes one patch; its keys in order: id, index, node, op, parent, props, transition.
    mutating func patch(_ patch: Patch) throws(InvalidNumber) {
        switch patch {
        case let .insert(parent, index, node):
            key(PatchKey.index, first: true); integer(index)
            key(PatchKey.node); try self.node(node)
            operation(.insert)
            key(PatchKey.parent); string(parent)
        case let .remove(id):
            key(PatchKey.id, first: true); string(id)
            operation(.remove)
        case let .move(id, index):
            key(PatchKey.id, first: true); string(id)
            key(PatchKey.index); integer(index)
            operation(.move)
        case let .replace(id, node, transition):
            key(PatchKey.id, first: true); string(id)
            key(PatchKey.node); try self.node(node)
            operation(.replace)
            if let transition { key(PatchKey.transition); string(transition.rawValue) }
        case let .set(id, props):
            key(PatchKey.id, first: true); string(id)
            operation(.set)
            key(PatchKey.props); try object(props)
        }
        bytes.append(UInt8(ascii: "}"))
    }

    /// Writes a node and its children; its keys in order: children, id, kind, props.
    mutating func node(_ node: ViewNode) throws(InvalidNumber) {
        key(NodeKey.children, first: true)
        bytes.append(UInt8(ascii: "["))
        for (index, child) in node.children.enumerated() {
            if index > 0 { bytes.append(UInt8(ascii: ",")) }
            try self.node(child)
        }
        bytes.append(UInt8(ascii: "]"))
        key(NodeKey.id); string(node.id)
        key(NodeKey.kind); quoted(node.kind.rawValue)
        key(NodeKey.props); try object(node.props)
        bytes.append(UInt8(ascii: "}"))
    }

    /// Writes a view value.
    mutating func value(_ value: ViewValue) throws(InvalidNumber) {
        switch value {
        case let .string(text): string(text)
        case let .int(number): integer(number)
        case let .double(number): try double(number)
        case let .bool(flag): raw(flag ? "true" : "false")
        case let .array(elements):
            bytes.append(UInt8(ascii: "["))
            for (index, element) in elements.enumerated() {
                if index > 0 { bytes.append(UInt8(ascii: ",")) }
                try self.value(element)
            }
            bytes.append(UInt8(ascii: "]"))
        case let .object(members): try object(members)
        case .null: raw("null")
        }
    }

    /// Writes an object of view values, keys sorted.
    mutating func object(_ members: [String: ViewValue]) throws(InvalidNumber) {
        bytes.append(UInt8(ascii: "{"))
        switch members.count {
        case 0: break
        case 1:
            let (name, member) = members.first!
            string(name); bytes.append(UInt8(ascii: ":")); try value(member)
        default:
            for (index, member) in members.sorted(by: { Self.precedes($0.key, $1.key) }).enumerated() {
                if index > 0 { bytes.append(UInt8(ascii: ",")) }
                string(member.key); bytes.append(UInt8(ascii: ":")); try value(member.value)
            }
        }
        bytes.append(UInt8(ascii: "}"))
    }

    /// Writes sequence numbers per app, keys sorted.
    mutating func sequences(_ seq: [String: UInt64]) {
        bytes.append(UInt8(ascii: "{"))
        for (index, entry) in seq.sorted(by: { Self.precedes($0.key, $1.key) }).enumerated() {
            if index > 0 { bytes.append(UInt8(ascii: ",")) }
            string(entry.key); bytes.append(UInt8(ascii: ":")); unsigned(entry.value)
        }
        bytes.append(UInt8(ascii: "}"))
    }

    /// Writes a JSON string, escaped the way `JSONEncoder` escapes it.
    mutating func string(_ text: String) {
        bytes.append(UInt8(ascii: "\""))
        var text = text
        text.withUTF8 { utf8 in
            var start = 0
            for (index, byte) in utf8.enumerated() where byte < 0x20 || byte == 0x22 || byte == 0x5C || byte == 0x2F {
                bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[start..<index]))
                escape(byte)
                start = index + 1
            }
            bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[start...]))
        }
        bytes.append(UInt8(ascii: "\""))
    }

    // MARK: - Pieces

    /// The key `name` with its colon, after a comma unless it is the object's first (which opens
    /// the object). Keys are plain ASCII and need no escaping.
    private mutating func key(_ name: some CodingKey, first: Bool = false) {
        bytes.append(first ? UInt8(ascii: "{") : UInt8(ascii: ","))
        quoted(name.stringValue)
        bytes.append(UInt8(ascii: ":"))
    }

    /// `text` in quotes, unescaped: only for names that are plain ASCII without quotes, slashes
    /// or backslashes (keys, operations, kinds, message types).
    private mutating func quoted(_ text: String) {
        bytes.append(UInt8(ascii: "\""))
        bytes.append(contentsOf: text.utf8)
        bytes.append(UInt8(ascii: "\""))
    }

    /// The key "op" and a patch's operation.
    private mutating func operation(_ op: Patch.Op) {
        key(PatchKey.op)
        quoted(op.rawValue)
    }

    /// The last two keys of every message, "type" and "v", and the closing brace.
    private mutating func type(_ type: WindowProtocol.MessageType, first: Bool = false) {
        key(Message.type, first: first)
        quoted(type.rawValue)
        version()
    }

    /// The key "v" with the protocol's version, and the closing brace.
    private mutating func version() {
        key(Message.v)
        integer(WindowProtocol.version)
        bytes.append(UInt8(ascii: "}"))
    }

    private mutating func raw(_ text: StaticString) {
        text.withUTF8Buffer { bytes.append(contentsOf: $0) }
    }

    private mutating func escape(_ byte: UInt8) {
        bytes.append(UInt8(ascii: "\\"))
        switch byte {
        case 0x22, 0x5C, 0x2F: bytes.append(byte)
        case 0x08: bytes.append(UInt8(ascii: "b"))
        case 0x0C: bytes.append(UInt8(ascii: "f"))
        case 0x0A: bytes.append(UInt8(ascii: "n"))
        case 0x0D: bytes.append(UInt8(ascii: "r"))
        case 0x09: bytes.append(UInt8(ascii: "t"))
        default:
            let hex: StaticString = "0123456789abcdef"
            raw("u00")
            hex.withUTF8Buffer { digits in
                bytes.append(digits[Int(byte >> 4)])
                bytes.append(digits[Int(byte & 0x0F)])
            }
        }
    }

    private mutating func integer(_ number: Int) {
        if number < 0 {
            bytes.append(UInt8(ascii: "-"))
            unsigned(number.magnitude)
        } else {
            unsigned(UInt(number))
        }
    }

    private mutating func unsigned<Number: UnsignedInteger & FixedWidthInteger>(_ number: Number) {
        guard number >= 10 else {
            bytes.append(UInt8(ascii: "0") + UInt8(number))
            return
        }
        // At most 20 digits; written backwards into a small buffer, then copied in order.
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 20) { digits in
            var remaining = number
            var start = 20
            while remaining > 0 {
                start -= 1
                digits[start] = UInt8(ascii: "0") + UInt8(remaining % 10)
                remaining /= 10
            }
            bytes.append(contentsOf: UnsafeBufferPointer(rebasing: digits[start...]))
        }
    }

    /// The shortest text that reads back as `number`, the way `JSONEncoder` writes it: no ".0"
    /// on whole numbers, exponents as `1e+21`.
    private mutating func double(_ number: Double) throws(InvalidNumber) {
        guard number.isFinite else { throw InvalidNumber() }
        var text = number.description
        if text.hasSuffix(".0") { text.removeLast(2) }
        bytes.append(contentsOf: text.utf8)
    }

    /// Whether `left`'s UTF-8 bytes sort before `right`'s, compared in place: the order in which
    /// `JSONEncoder` sorts keys.
    private static func precedes(_ left: String, _ right: String) -> Bool {
        var left = left, right = right
        return left.withUTF8 { left in
            right.withUTF8 { right in
                for index in 0..<min(left.count, right.count) where left[index] != right[index] {
                    return left[index] < right[index]
                }
                return left.count < right.count
            }
        }
    }
}
