import Foundation
@testable import SceneSyncUI
import Testing

/// The view tree against the fixture corpus the renderer is held to as well
/// (`Tests/Fixtures/ViewTree`, run in the browser by `Tests/Browser/test_wire_contract.py`): the
/// same tree and ops give the same tree, or the same refusal, on both sides.
@Suite struct ViewTreeContractTests {
    struct Case: Decodable, CustomTestStringConvertible, Sendable {
        let name: String
        let tree: ViewNode
        let ops: [Patch]
        let expected: ViewNode?
        let refused: String?

        var testDescription: String { name }
    }

    static let fixtures = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("Fixtures/ViewTree")

    static let cases: [Case] = (try? JSONDecoder().decode([Case].self, from: Data(contentsOf: fixtures.appendingPathComponent("cases.json")))) ?? []

    @Test func theCorpusIsThere() {
        #expect(Self.cases.count > 50)
        #expect(Set(Self.cases.compactMap(\.refused)) == ["unknownNode", "indexOutOfRange", "duplicateID", "cannotRemoveRoot"])
    }

    @Test(arguments: cases)
    func theViewTreeAgreesWithTheRenderer(_ contract: Case) {
        var tree = ViewTree(contract.tree)
        do {
            try tree.apply(contract.ops)
            #expect(contract.refused == nil, "applied what the renderer refuses as \(contract.refused ?? "")")
            #expect(tree.root == contract.expected)
        } catch {
            #expect(error.reason == contract.refused, "refused with \(error)")
        }
    }

    /// Indexes that are not integers reach a renderer only from a broken server: Swift cannot
    /// even decode them as patches.
    @Test func opsTheRendererAloneMeetsDoNotDecode() throws {
        struct RawCase: Decodable { let name: String; let ops: [[String: ViewValue]] }
        let data = try Data(contentsOf: Self.fixtures.appendingPathComponent("renderer-only.json"))
        let raw = try JSONDecoder().decode([RawCase].self, from: data)
        #expect(!raw.isEmpty)
        for entry in raw {
            let ops = try JSONEncoder().encode(entry.ops)
            #expect(throws: DecodingError.self, "\(entry.name)") { try JSONDecoder().decode([Patch].self, from: ops) }
        }
    }
}
