import SceneSync
@testable import SceneSyncUI
import Testing

struct ViewDiffTests {
    /// A small deterministic random source, so a failing case can be replayed from its seed.
    struct SeededGenerator: RandomNumberGenerator {
        var state: UInt64
        mutating func next() -> UInt64 {
            state = state &* 6364136223846793005 &+ 1442695040888963407
            return state
        }
    }

    func randomTree(_ generator: inout SeededGenerator, counter: inout Int, depth: Int = 0) -> ViewNode {
        counter += 1
        let kinds: [ViewNode.Kind] = [.stack, .section, .row, .text]
        var node = ViewNode(id: "n\(counter)", kind: kinds.randomElement(using: &generator)!,
                            props: ["title": .string("t\(Int.random(in: 0..<3, using: &generator))")])
        if depth < 3 {
            for _ in 0..<Int.random(in: 0..<4, using: &generator) {
                node.children.append(randomTree(&generator, counter: &counter, depth: depth + 1))
            }
        }
        return node
    }

    /// Changes a tree the way screens change between two renders: properties, inserted, removed
    /// and reordered children, a node of another kind.
    func mutate(_ node: ViewNode, _ generator: inout SeededGenerator, counter: inout Int) -> ViewNode {
        var node = node
        switch Int.random(in: 0..<10, using: &generator) {
        case 0: node.props["title"] = .string("changed")
        case 1: node.props["detail"] = .string("new")
        case 2: node.props["title"] = nil
        default: break
        }
        node.children = node.children.map { mutate($0, &generator, counter: &counter) }
        if !node.children.isEmpty, Bool.random(using: &generator) {
            node.children.remove(at: Int.random(in: 0..<node.children.count, using: &generator))
        }
        if Int.random(in: 0..<3, using: &generator) == 0 {
            node.children.insert(randomTree(&generator, counter: &counter, depth: 2),
                                 at: Int.random(in: 0...node.children.count, using: &generator))
        }
        if node.children.count > 1, Bool.random(using: &generator) { node.children.shuffle(using: &generator) }
        if Int.random(in: 0..<25, using: &generator) == 0 { node.kind = node.kind == .row ? .text : .row }
        return node
    }

    @Test(arguments: 0..<200)
    func applyingTheDiffOfTwoTreesToTheFirstGivesTheSecond(seed: Int) throws {
        var generator = SeededGenerator(state: UInt64(seed) &+ 1)
        var counter = 0
        var old = randomTree(&generator, counter: &counter)
        old.kind = .window
        var new = mutate(old, &generator, counter: &counter)
        new.kind = .window
        var tree = ViewTree(old)
        try tree.apply(ViewNode.patches(from: old, to: new))
        #expect(tree.root == new)
    }

    @Test func identicalTreesNeedNoPatches() {
        let node = ViewNode(id: "a", kind: .stack, children: [.text(id: "b", "hello")])
        #expect(ViewNode.patches(from: node, to: node).isEmpty)
    }

    @Test func aChangedRowIsOneSetAndReorderedRowsAreMovesNotReinserts() throws {
        let rows = (0..<4).map { ViewNode.row(id: "r\($0)", title: "Row \($0)") }
        let old = ViewNode.section(id: "s", children: rows)
        var changed = rows
        changed[2].props["title"] = "Renamed"
        changed.swapAt(0, 3)
        let new = ViewNode.section(id: "s", children: changed)
        let patches = ViewNode.patches(from: old, to: new)
        #expect(patches.filter { if case .set = $0 { true } else { false } } == [.set(id: "r2", props: ["title": "Renamed"])])
        #expect(!patches.contains { if case .insert = $0 { true } else if case .remove = $0 { true } else { false } })
        var tree = ViewTree(old)
        try tree.apply(patches)
        #expect(tree.root == new)
    }
}
