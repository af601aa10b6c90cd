import Foundation
import SceneSyncServer

/// The window message decoder under libFuzzer, coverage-guided.
///
/// Built with `-sanitize=fuzzer -DSCENESYNC_LIBFUZZER`, libFuzzer drives this function (see `Tests/Reliability/README.md`, "libFuzzer"). Built plainly, `scenesync-fuzz`
/// replays files or folders of inputs through it, to reproduce what libFuzzer found.
///
/// Besides not crashing, an input the decoder accepts must be JSON to Foundation too, an object
/// whose `type` is a window's and whose `v` is the number 1; anything else stops the run with the
/// input saved.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ bytes: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    let data = Data(bytes: bytes, count: count)
    guard (try? WindowProtocol.decodeClientMessage(data)) != nil else { return 0 }
    guard let object = (try? JSONSerialization.jsonObject(with: data)) as? [String: Any],
          let type = object["type"] as? String, ["hello", "action", "visibility", "closing", "ping"].contains(type),
          (try? JSONDecoder().decode(Version.self, from: data))?.v == 1
    else {
        fatalError("Accepted a message that is not a window's version 1 JSON object: \(String(decoding: data, as: UTF8.self))")
    }
    return 0
}

/// The version field alone; `JSONDecoder` does not read `true` as an `Int`.
private struct Version: Decodable {
    let v: Int
}

#if SCENESYNC_LIBFUZZER
/// libFuzzer's driver, linked in by `-sanitize=fuzzer`.
@_silgen_name("LLVMFuzzerRunDriver")
func runFuzzerDriver(
    _ argc: UnsafeMutablePointer<CInt>, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>>,
    _ callback: @convention(c) (UnsafePointer<UInt8>, Int) -> CInt
) -> CInt

/// Hands the command line to libFuzzer, which runs ``fuzzOneInput(_:_:)`` until told to stop.
@main
struct FuzzDriver {
    static func main() {
        var argc = CommandLine.argc
        var argv = CommandLine.unsafeArgv
        exit(runFuzzerDriver(&argc, &argv) { fuzzOneInput($0, $1) })
    }
}
#else
/// Replays inputs (files, or every file in a folder) through the fuzz target.
@main
struct ReplayInputs {
    static func main() throws {
        var count = 0
        for path in CommandLine.arguments.dropFirst() {
            let url = URL(fileURLWithPath: path)
            let files = (try? FileManager.default.contentsOfDirectory(at: url, includingPropertiesForKeys: nil)) ?? [url]
            for file in files.sorted(by: { $0.path < $1.path }) {
                let data = try Data(contentsOf: file)
                _ = data.withUnsafeBytes { raw in
                    fuzzOneInput(raw.bindMemory(to: UInt8.self).baseAddress ?? UnsafePointer(bitPattern: 1)!, raw.count)
                }
                count += 1
            }
        }
        print("\(count) inputs replayed: no crash, and every message accepted was a window's version 1 message")
    }
}
#endif
