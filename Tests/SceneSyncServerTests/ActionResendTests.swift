import Foundation
import SceneSync
@testable import SceneSyncServer
import SceneSyncServerTesting
import SceneSyncSQLite
import SceneSyncUI
import Testing

/// A window that lost its connection before an action's answer sends the action again with
/// `resend: true`; the server does it at most once, on the same server or after a restart.
@MainActor
struct ActionResendTests {
    func lineCount(_ server: TestServer) async throws -> Int {
        let controller = try #require(server.delegates.tally?.controller)
        return await controller.snapshot().state.lines.count
    }

    @Test func anActionSentAgainAfterItsAckWasLostIsAnsweredAndNotDoneTwice() async throws {
        let server = try await TestServer.start()
        let window = try await server.openWindow()
        let ref = window.tap(TallyScreen.NodeID.add)
        try await window.next("the ack") { $0 == .ack(ref: ref) }
        #expect(try await lineCount(server) == 1)

        // The ack was lost with the connection: the window reconnects and sends the action again.
        try await window.close()
        let again = try await window.reconnect(resuming: false)
        try await again.next("the window drawn") { $0.type == .render }
        again.resend(.tap, on: TallyScreen.NodeID.add, ref: ref)
        try await again.next("the ack of the action sent again") { $0 == .ack(ref: ref) }
        #expect(try await lineCount(server) == 1)

        // An action that never arrived before is done when it comes as a resend.
        again.resend(.tap, on: TallyScreen.NodeID.add, ref: ref + 1)
        try await again.next("the ack of the action that was lost") { $0 == .ack(ref: ref + 1) }
        #expect(try await lineCount(server) == 2)
        #expect(again.problems.isEmpty)
        try await server.stop()
    }

    @Test func anActionSentAgainToTheServerStartedAgainIsNotDoneTwice() async throws {
        let first = try await TestServer.start()
        let window = try await first.openWindow()
        let session = try #require(window.session)
        let ref = window.tap(TallyScreen.NodeID.add)
        try await window.next("the ack") { $0 == .ack(ref: ref) }
        try await first.stop(removingData: false)
        // The commit itself says the action was done: another node would find it there.
        let storage = try SQLiteStorage(path: first.directory.appendingPathComponent("\(TallyAppDelegate.app).sqlite").path)
        let id = SceneActionID(session: try #require(SceneSession.ID(session)), ref: ref)
        #expect(try await storage.committedAction(id) != nil)

        let second = try await TestServer.start(directory: first.directory)
        let again = try await second.window()
        again.hello(session: session, seq: window.seq)
        try await again.next(.welcome)
        try await again.next("the window drawn") { $0.type == .render }
        #expect(again.session == session)
        again.resend(.tap, on: TallyScreen.NodeID.add, ref: ref)
        try await again.next("the ack of the action sent again") { $0 == .ack(ref: ref) }
        #expect(try await lineCount(second) == 1)
        try await second.stop()
    }

    @Test func aResentFlagThatIsNotABooleanIsRefusedAndChangesNothing() async throws {
        let server = try await TestServer.start()
        let window = try await server.openWindow()
        window.sendRaw(#"{"type":"action","v":1,"ref":1,"node":"add","name":"tap","resend":"yes"}"#)
        let error = try await window.next(.error)
        guard case let .error(ref, code, _) = error else { Issue.record("not an error: \(error)"); return }
        #expect(ref == nil)
        #expect(code == "malformed")
        #expect(try await lineCount(server) == 0)
        try await server.stop()
    }
}
