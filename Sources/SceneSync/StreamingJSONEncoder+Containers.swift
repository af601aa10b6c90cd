import Foundation

/// The `Encoder` one value is given: it may take one container, or write itself as a single value.
struct StreamValueEncoder: Encoder {
    let writer: JSONStreamWriter
    let slot: Int

    // A single pass keeps no path: nothing SceneSync encodes reads it but error messages, and an
    // error hands the value to `JSONEncoder`, which gives them their path.
    var codingPath: [any CodingKey] { [] }
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        let id = writer.fill(slot) ? writer.openContainer(UInt8(ascii: "{"), closer: UInt8(ascii: "}")) : 0
        return KeyedEncodingContainer(StreamKeyedContainer<Key>(writer: writer, id: id))
    }

    func unkeyedContainer() -> any UnkeyedEncodingContainer {
        let id = writer.fill(slot) ? writer.openContainer(UInt8(ascii: "["), closer: UInt8(ascii: "]")) : 0
        return StreamUnkeyedContainer(writer: writer, id: id)
    }

    func singleValueContainer() -> any SingleValueEncodingContainer {
        StreamSingleValueContainer(writer: writer, slot: slot)
    }
}

/// Encodes nothing: what `superEncoder` returns once the value has been handed to the fallback.
private func abandoned(_ writer: JSONStreamWriter) -> StreamValueEncoder {
    writer.fail()
    return StreamValueEncoder(writer: writer, slot: 0)
}

struct StreamKeyedContainer<Key: CodingKey>: KeyedEncodingContainerProtocol {
    let writer: JSONStreamWriter
    let id: Int

    var codingPath: [any CodingKey] { [] }

    private func next(_ key: Key) -> Bool {
        guard writer.nextElement(of: id) else { return false }
        writer.key(key)
        return true
    }

    mutating func encodeNil(forKey key: Key) throws { if next(key) { writer.null() } }
    mutating func encode(_ value: Bool, forKey key: Key) throws { if next(key) { writer.bool(value) } }
    mutating func encode(_ value: String, forKey key: Key) throws { if next(key) { writer.string(value) } }
    mutating func encode(_ value: Double, forKey key: Key) throws { if next(key) { writer.float(value) } }
    mutating func encode(_ value: Float, forKey key: Key) throws { if next(key) { writer.float(value) } }
    mutating func encode(_ value: Int, forKey key: Key) throws { if next(key) { writer.integer(value) } }
    mutating func encode(_ value: Int8, forKey key: Key) throws { if next(key) { writer.integer(value) } }
    mutating func encode(_ value: Int16, forKey key: Key) throws { if next(key) { writer.integer(value) } }
    mutating func encode(_ value: Int32, forKey key: Key) throws { if next(key) { writer.integer(value) } }
    mutating func encode(_ value: Int64, forKey key: Key) throws { if next(key) { writer.integer(value) } }
    mutating func encode(_ value: UInt, forKey key: Key) throws { if next(key) { writer.integer(value) } }
    mutating func encode(_ value: UInt8, forKey key: Key) throws { if next(key) { writer.integer(value) } }
    mutating func encode(_ value: UInt16, forKey key: Key) throws { if next(key) { writer.integer(value) } }
    mutating func encode(_ value: UInt32, forKey key: Key) throws { if next(key) { writer.integer(value) } }
    mutating func encode(_ value: UInt64, forKey key: Key) throws { if next(key) { writer.integer(value) } }
    mutating func encode<T: Encodable>(_ value: T, forKey key: Key) throws { if next(key) { writer.write(value) } }

    mutating func nestedContainer<NestedKey: CodingKey>(
        keyedBy keyType: NestedKey.Type, forKey key: Key
    ) -> KeyedEncodingContainer<NestedKey> {
        let nested = next(key) ? writer.openContainer(UInt8(ascii: "{"), closer: UInt8(ascii: "}")) : 0
        return KeyedEncodingContainer(StreamKeyedContainer<NestedKey>(writer: writer, id: nested))
    }

    mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
        let nested = next(key) ? writer.openContainer(UInt8(ascii: "["), closer: UInt8(ascii: "]")) : 0
        return StreamUnkeyedContainer(writer: writer, id: nested)
    }

    mutating func superEncoder() -> any Encoder { abandoned(writer) }
    mutating func superEncoder(forKey key: Key) -> any Encoder { abandoned(writer) }
}

struct StreamUnkeyedContainer: UnkeyedEncodingContainer {
    let writer: JSONStreamWriter
    let id: Int

    var codingPath: [any CodingKey] { [] }
    var count: Int { writer.count(of: id) }

    private func next() -> Bool { writer.nextElement(of: id) }

    mutating func encodeNil() throws { if next() { writer.null() } }
    mutating func encode(_ value: Bool) throws { if next() { writer.bool(value) } }
    mutating func encode(_ value: String) throws { if next() { writer.string(value) } }
    mutating func encode(_ value: Double) throws { if next() { writer.float(value) } }
    mutating func encode(_ value: Float) throws { if next() { writer.float(value) } }
    mutating func encode(_ value: Int) throws { if next() { writer.integer(value) } }
    mutating func encode(_ value: Int8) throws { if next() { writer.integer(value) } }
    mutating func encode(_ value: Int16) throws { if next() { writer.integer(value) } }
    mutating func encode(_ value: Int32) throws { if next() { writer.integer(value) } }
    mutating func encode(_ value: Int64) throws { if next() { writer.integer(value) } }
    mutating func encode(_ value: UInt) throws { if next() { writer.integer(value) } }
    mutating func encode(_ value: UInt8) throws { if next() { writer.integer(value) } }
    mutating func encode(_ value: UInt16) throws { if next() { writer.integer(value) } }
    mutating func encode(_ value: UInt32) throws { if next() { writer.integer(value) } }
    mutating func encode(_ value: UInt64) throws { if next() { writer.integer(value) } }
    mutating func encode<T: Encodable>(_ value: T) throws { if next() { writer.write(value) } }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type) -> KeyedEncodingContainer<NestedKey> {
        let nested = next() ? writer.openContainer(UInt8(ascii: "{"), closer: UInt8(ascii: "}")) : 0
        return KeyedEncodingContainer(StreamKeyedContainer<NestedKey>(writer: writer, id: nested))
    }

    mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer {
        let nested = next() ? writer.openContainer(UInt8(ascii: "["), closer: UInt8(ascii: "]")) : 0
        return StreamUnkeyedContainer(writer: writer, id: nested)
    }

    mutating func superEncoder() -> any Encoder { abandoned(writer) }
}

struct StreamSingleValueContainer: SingleValueEncodingContainer {
    let writer: JSONStreamWriter
    let slot: Int

    var codingPath: [any CodingKey] { [] }

    private func fill() -> Bool { writer.fill(slot) }

    mutating func encodeNil() throws { if fill() { writer.null() } }
    mutating func encode(_ value: Bool) throws { if fill() { writer.bool(value) } }
    mutating func encode(_ value: String) throws { if fill() { writer.string(value) } }
    mutating func encode(_ value: Double) throws { if fill() { writer.float(value) } }
    mutating func encode(_ value: Float) throws { if fill() { writer.float(value) } }
    mutating func encode(_ value: Int) throws { if fill() { writer.integer(value) } }
    mutating func encode(_ value: Int8) throws { if fill() { writer.integer(value) } }
    mutating func encode(_ value: Int16) throws { if fill() { writer.integer(value) } }
    mutating func encode(_ value: Int32) throws { if fill() { writer.integer(value) } }
    mutating func encode(_ value: Int64) throws { if fill() { writer.integer(value) } }
    mutating func encode(_ value: UInt) throws { if fill() { writer.integer(value) } }
    mutating func encode(_ value: UInt8) throws { if fill() { writer.integer(value) } }
    mutating func encode(_ value: UInt16) throws { if fill() { writer.integer(value) } }
    mutating func encode(_ value: UInt32) throws { if fill() { writer.integer(value) } }
    mutating func encode(_ value: UInt64) throws { if fill() { writer.integer(value) } }

    mutating func encode<T: Encodable>(_ value: T) throws {
        guard fill() else { return }
        writer.write(value)
    }
}
