// Checks what only an optimized build can get wrong: `swift test` builds for debugging, so CI
// also runs this in a release build (`swift run -c release SceneSyncReleaseCheck`). It exits 0
// if every check holds, 1 if one does not; a miscompiled check may crash instead, which fails
// too.

import Foundation
import SceneSync
import SceneSyncMetrics

/// A recorder that records nothing: what matters is that a controller can be handed one.
struct SilentRecorder: ModelControllerRecorder {
    func committed(intents: Int, duration: Duration) {}
    func published(lastSequence: UInt64, timestamp: Date) {}
    func followed(lag: Duration) {}
}

var failures: [String] = []

// Binding `ModelControllerRecording.makeRecorder`, as a server or a test does to choose how the
// model controllers it creates are measured. Swift 6.3's optimizer hands the runtime no metadata
// for a task-local value whose type is a function type, and the binding crashes; the factory
// type exists so that the value is not one.
let factory = ModelControllerRecorderFactory { _ in SilentRecorder() }
let boundNow = ModelControllerRecording.$makeRecorder.withValue(factory) {
    ModelControllerRecording.makeRecorder?("lootlogger") != nil
}
if !boundNow { failures.append("the recorder factory bound in synchronous code was not found") }
let boundAcrossASuspension = await ModelControllerRecording.$makeRecorder.withValue(factory) { () async -> Bool in
    await Task.yield()
    return ModelControllerRecording.makeRecorder?("lootlogger") != nil
}
if !boundAcrossASuspension { failures.append("the recorder factory bound in asynchronous code was not found after a suspension") }
if ModelControllerRecording.makeRecorder != nil { failures.append("the recorder factory stayed bound after its scope") }
// As the server binds it: through `SceneSyncMetrics`, another module, on the caller's actor.
let boundByMetrics = await ModelControllerMetrics().measuring { () async -> Bool in
    await Task.yield()
    return ModelControllerRecording.makeRecorder?("lootlogger") != nil
}
if !boundByMetrics { failures.append("the recorder factory ModelControllerMetrics.measuring binds was not found") }

// A window's action runs with its attempt bound the same way (a class, which optimized builds
// bind correctly): model controllers read it to commit the action once.
let action = SceneActionID(session: SceneSession.ID(), ref: 1)
var seenInAction: SceneActionID?
let outcome = try await action.carryOut(resent: false) {
    await Task.yield()
    seenInAction = SceneActionID.current
}
if seenInAction != action { failures.append("the action carried out was not current inside its body") }
if outcome != .carriedOut { failures.append("an action that no other attempt committed did not end as carried out") }
if SceneActionID.current != nil { failures.append("the action stayed current after it was carried out") }

if failures.isEmpty {
    print("release checks: all hold")
} else {
    for failure in failures { print("release check failed: \(failure)") }
    exit(1)
}
