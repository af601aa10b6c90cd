import Foundation
@testable import SceneSyncServer
import Testing
import SceneSyncTestSupport

/// Seeded random mutations of the corpus in `Tests/Reliability/corpus` (the one the reliability
/// runner sends over real sockets) through the window message decoder. A run is reproducible from
/// its seed; `SCENESYNC_FUZZ_SEED` and `SCENESYNC_FUZZ_ITERATIONS` choose another or a longer one.
@Suite struct DecoderFuzzTests {
    static let corpus = inputs(in: "corpus")
    /// What libFuzzer kept, minimized, from its coverage-guided runs: one input per path it found
    /// through the decoder (see `Tests/Reliability/README.md`, "libFuzzer").
    static let decoderCorpus = inputs(in: "decoder-corpus")

    static func inputs(in folder: String) -> [[UInt8]] {
        let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("../Reliability/\(folder)").standardizedFileURL
        let files = (try? FileManager.default.contentsOfDirectory(at: folder, includingPropertiesForKeys: nil)) ?? []
        return files.sorted { $0.path < $1.path }.compactMap { try? Array(Data(contentsOf: $0)) }
    }

    @Test func libFuzzersCorpusReplaysWithoutACrashAndWhatDecodesIsAVersion1WindowMessage() throws {
        try #require(Self.decoderCorpus.count >= 100, "the libFuzzer corpus is there")
        var decoded = 0
        for input in Self.decoderCorpus {
            guard (try? WindowProtocol.decodeClientMessage(Data(input))) != nil else { continue }
            decoded += 1
            try Self.checkAccepted(input, context: "decoder-corpus")
        }
        #expect(decoded > 0, "the corpus reaches messages that decode")
    }

    @Test func mutatedMessagesDecodeOnlyWhenTheyAreStrictJSONWithVersion1OrGetATypedError() throws {
        let environment = ProcessInfo.processInfo.environment
        let seed = environment["SCENESYNC_FUZZ_SEED"].flatMap(UInt64.init) ?? 0x5CE9E5
        let iterations = environment["SCENESYNC_FUZZ_ITERATIONS"].flatMap(Int.init) ?? 10_000
        try #require(Self.corpus.count >= 10, "the corpus is there")
        var random = SplitMix64(seed: seed)
        var decoded = 0
        var refused: [String: Int] = [:]
        for _ in 0..<iterations {
            let input = Mutator.mutate(Self.corpus, using: &random)
            do throws(WindowProtocolError) {
                _ = try WindowProtocol.decodeClientMessage(Data(input))
            } catch {
                refused[error.code, default: 0] += 1
                if case .tooLarge = error { #expect(input.count > WindowProtocol.maximumMessageSize) }
                continue
            }
            decoded += 1
            try Self.checkAccepted(input, context: "seed \(seed)")
        }
        // The mutations reach both sides: some messages still decode, and each kind of refusal occurs.
        #expect(decoded > iterations / 100, "seed \(seed): \(decoded) decoded")
        #expect(Set(refused.keys).isSuperset(of: ["malformed", "unknownType", "unsupportedVersion"]), "seed \(seed): \(refused)")
    }

    /// What the decoder accepted is JSON to Foundation too, an object whose `type` is a window's
    /// and whose `v` is the number 1 written as an integer.
    static func checkAccepted(_ input: [UInt8], context: String) throws {
        let object = try #require(try? JSONSerialization.jsonObject(with: Data(input)) as? [String: Any],
                                  "\(context): accepted what Foundation does not read: \(String(decoding: input, as: UTF8.self))")
        let type = try #require(object["type"] as? String)
        #expect(["hello", "action", "visibility", "closing", "ping"].contains(type))
        let text = String(decoding: input, as: UTF8.self)
        #expect((object["v"] as? NSNumber)?.intValue == 1 && !text.contains(#""v":1."#) && !text.contains(#""v":true"#),
                "\(context): \(text)")
    }
}

/// Mutations of a corpus message, byte-level and token-level.
enum Mutator {
    /// Values a number or a string in a message is swapped for.
    static let tokens: [String] = [
        "-0.0", "1.0", "1e0", "1e-400", "1e400", "9223372036854775808", "-9223372036854775809", "0x10", "01", "NaN",
        "true", "null", "\"\"", "\"\\u0000\"", "\"\\ud800\"", "[]", "{}", "[[[[[[[[[[[[[[[[[[[[1]]]]]]]]]]]]]]]]]]]",
        "\"\u{200D}\"", "\"\u{FEFF}\"", "1", "2", "-1",
    ]

    static func mutate(_ corpus: [[UInt8]], using random: inout SplitMix64) -> [UInt8] {
        var bytes = corpus.randomElement(using: &random)!
        for _ in 0..<[1, 1, 1, 2, 3].randomElement(using: &random)! {
            switch Int.random(in: 0..<8, using: &random) {
            case 0 where !bytes.isEmpty:
                bytes[Int.random(in: 0..<bytes.count, using: &random)] ^= UInt8(1 << Int.random(in: 0..<8, using: &random))
            case 1:
                bytes.insert(UInt8.random(in: 0...255, using: &random), at: Int.random(in: 0...bytes.count, using: &random))
            case 2 where !bytes.isEmpty:
                bytes.remove(at: Int.random(in: 0..<bytes.count, using: &random))
            case 3:
                bytes = replaceValue(in: bytes, with: tokens.randomElement(using: &random)!, using: &random)
            case 4:
                // A second copy of one field: a repeated key.
                bytes = repeatField(in: bytes, using: &random)
            case 5:
                let other = corpus.randomElement(using: &random)!
                let cut = Int.random(in: 0...bytes.count, using: &random)
                bytes = Array(bytes[..<cut]) + Array(other[Int.random(in: 0...other.count, using: &random)...])
            case 6:
                // An unknown field, now and then long enough to cross the size limit.
                let length = Int.random(in: 0..<20, using: &random) == 0
                    ? WindowProtocol.maximumMessageSize + Int.random(in: -200...200, using: &random) : Int.random(in: 0...200, using: &random)
                bytes = Array(#"{"padding":""#.utf8) + [UInt8](repeating: 0x61, count: length)
                    + Array(#"",""#.utf8) + bytes.dropFirst()
            default:
                bytes = replaceValue(in: bytes, with: String(Int.random(in: -3...3, using: &random)), using: &random)
            }
        }
        return bytes
    }

    /// Replaces the value after a randomly chosen `":"` with `token`.
    static func replaceValue(in bytes: [UInt8], with token: String, using random: inout SplitMix64) -> [UInt8] {
        let colons = bytes.indices.filter { bytes[$0] == UInt8(ascii: ":") }
        guard let colon = colons.randomElement(using: &random) else { return bytes }
        var end = colon + 1
        var depth = 0
        var inString = false
        while end < bytes.count {
            let byte = bytes[end]
            if inString {
                if byte == UInt8(ascii: "\\") { end += 1 } else if byte == UInt8(ascii: "\"") { inString = false }
            } else if byte == UInt8(ascii: "\"") {
                inString = true
            } else if byte == UInt8(ascii: "{") || byte == UInt8(ascii: "[") {
                depth += 1
            } else if byte == UInt8(ascii: "}") || byte == UInt8(ascii: "]") || byte == UInt8(ascii: ",") {
                if depth == 0 { break }
                if byte != UInt8(ascii: ",") { depth -= 1 }
            }
            end += 1
        }
        return Array(bytes[...colon]) + Array(token.utf8) + Array(bytes[min(end, bytes.count)...])
    }

    /// Copies the first field to just after the opening brace.
    static func repeatField(in bytes: [UInt8], using random: inout SplitMix64) -> [UInt8] {
        guard bytes.first == UInt8(ascii: "{"), let comma = bytes.firstIndex(of: UInt8(ascii: ",")) else { return bytes }
        return [UInt8(ascii: "{")] + Array(bytes[1..<comma]) + [UInt8(ascii: ",")] + Array(bytes[1...])
    }
}
