/// A window's view held as a tree, with patches applied in place: what the renderer does in the
/// browser, done in Swift so tests can read what a window shows. Both are strict alike (the
/// fixture corpus under `Tests/Fixtures/ViewTree` holds them to it): an index out of range is
/// refused, never clamped, and so is a node whose id the tree already has.
public struct ViewTree: Equatable, Sendable {
    /// The root node.
    public private(set) var root: ViewNode
    /// Every id in the tree.
    private var ids: Set<String>

    /// A tree with `root`.
    public init(_ root: ViewNode) {
        self.root = root
        ids = []
        Self.collect(root, into: &ids)
    }

    /// Applies a patch.
    ///
    /// - Throws: ``ViewTreeError`` if it names a node that is not there, an index out of range, or
    ///   brings in an id the tree already has; the tree is unchanged then.
    public mutating func apply(_ patch: Patch) throws(ViewTreeError) {
        switch patch {
        case let .insert(parent, index, node):
            let added = try Self.newIDs(of: node, besides: ids)
            try modify(parent) { target throws(ViewTreeError) in
                guard (0...target.children.count).contains(index) else { throw .indexOutOfRange(parent, index) }
                target.children.insert(node, at: index)
            }
            ids.formUnion(added)
        case let .remove(id):
            guard id != root.id else { throw .cannotRemoveRoot }
            var removed: ViewNode?
            try modifyParent(of: id) { parent, position throws(ViewTreeError) in removed = parent.children.remove(at: position) }
            if let removed { ids.subtract(Self.allIDs(of: removed)) }
        case let .move(id, index):
            try modifyParent(of: id) { parent, position throws(ViewTreeError) in
                let node = parent.children.remove(at: position)
                guard (0...parent.children.count).contains(index) else { throw .indexOutOfRange(parent.id, index) }
                parent.children.insert(node, at: index)
            }
        case let .replace(id, node, _):
            guard let existing = self.node(id) else { throw .unknownNode(id) }
            let replaced = Self.allIDs(of: existing)
            let added = try Self.newIDs(of: node, besides: ids.subtracting(replaced))
            try modify(id) { target throws(ViewTreeError) in target = node }
            ids.subtract(replaced)
            ids.formUnion(added)
        case let .set(id, props):
            try modify(id) { target throws(ViewTreeError) in
                for (key, value) in props {
                    if value == .null { target.props[key] = nil } else { target.props[key] = value }
                }
            }
        }
    }

    /// Applies patches in order; stops at the first that fails.
    public mutating func apply(_ patches: [Patch]) throws(ViewTreeError) {
        for patch in patches { try apply(patch) }
    }

    /// The node with `id`, if present.
    public func node(_ id: String) -> ViewNode? {
        Self.find(id, in: root)
    }

    /// Every node of `kind`, depth first.
    public func nodes(of kind: ViewNode.Kind) -> [ViewNode] {
        var result: [ViewNode] = []
        func visit(_ node: ViewNode) {
            if node.kind == kind { result.append(node) }
            node.children.forEach(visit)
        }
        visit(root)
        return result
    }

    private static func collect(_ node: ViewNode, into ids: inout Set<String>) {
        ids.insert(node.id)
        for child in node.children { collect(child, into: &ids) }
    }

    private static func allIDs(of node: ViewNode) -> Set<String> {
        var result: Set<String> = []
        collect(node, into: &result)
        return result
    }

    /// The ids of `node` and its descendants, if none is in `taken` and none is used twice.
    private static func newIDs(of node: ViewNode, besides taken: Set<String>) throws(ViewTreeError) -> Set<String> {
        var result: Set<String> = []
        var duplicate: String?
        func visit(_ node: ViewNode) {
            guard duplicate == nil else { return }
            if taken.contains(node.id) || !result.insert(node.id).inserted { duplicate = node.id; return }
            for child in node.children { visit(child) }
        }
        visit(node)
        if let duplicate { throw .duplicateID(duplicate) }
        return result
    }

    private static func find(_ id: String, in node: ViewNode) -> ViewNode? {
        if node.id == id { return node }
        for child in node.children {
            if let found = find(id, in: child) { return found }
        }
        return nil
    }

    private mutating func modify(_ id: String, _ change: (inout ViewNode) throws(ViewTreeError) -> Void) throws(ViewTreeError) {
        var copy = root
        guard try Self.modify(id, in: &copy, change) else { throw .unknownNode(id) }
        root = copy
    }

    private mutating func modifyParent(of id: String, _ change: (inout ViewNode, Int) throws(ViewTreeError) -> Void) throws(ViewTreeError) {
        var copy = root
        guard try Self.modifyParent(of: id, in: &copy, change) else { throw .unknownNode(id) }
        root = copy
    }

    private static func modify(_ id: String, in node: inout ViewNode, _ change: (inout ViewNode) throws(ViewTreeError) -> Void) throws(ViewTreeError) -> Bool {
        if node.id == id {
            try change(&node)
            return true
        }
        for index in node.children.indices {
            if try modify(id, in: &node.children[index], change) { return true }
        }
        return false
    }

    private static func modifyParent(of id: String, in node: inout ViewNode, _ change: (inout ViewNode, Int) throws(ViewTreeError) -> Void) throws(ViewTreeError) -> Bool {
        if let position = node.children.firstIndex(where: { $0.id == id }) {
            try change(&node, position)
            return true
        }
        for index in node.children.indices {
            if try modifyParent(of: id, in: &node.children[index], change) { return true }
        }
        return false
    }
}

/// A patch that does not fit the tree it is applied to.
public enum ViewTreeError: Error, Equatable, Sendable {
    /// No node has this id.
    case unknownNode(String)
    /// An index outside the parent's children.
    case indexOutOfRange(String, Int)
    /// The root cannot be removed.
    case cannotRemoveRoot
    /// A node brought in has an id the tree already has, or uses one id twice.
    case duplicateID(String)

    /// The reason's name, as the fixture corpus and the renderer call it.
    public var reason: String {
        switch self {
        case .unknownNode: "unknownNode"
        case .indexOutOfRange: "indexOutOfRange"
        case .cannotRemoveRoot: "cannotRemoveRoot"
        case .duplicateID: "duplicateID"
        }
    }
}
