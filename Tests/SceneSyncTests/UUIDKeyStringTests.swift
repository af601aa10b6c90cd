import Foundation
import SceneSync
import Testing

struct UUIDKeyStringTests {
    @Test func spellsAUUIDAsUUIDStringDoes() throws {
        let known = try #require(UUID(uuidString: "0a1b2c3d-4e5f-6071-8293-a4b5c6d7e8f9"))
        #expect(known.keyString == "0A1B2C3D-4E5F-6071-8293-A4B5C6D7E8F9")
        let edges = [UUID(uuid: (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)),
                     UUID(uuid: (255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255))]
        for uuid in edges + (0..<1_000).map({ _ in UUID() }) {
            #expect(uuid.keyString == uuid.uuidString)
            #expect(UUID(uuidString: uuid.keyString) == uuid)
        }
    }
}
