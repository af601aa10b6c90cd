extension ViewNode {
    /// The patches that turn `old` into `new`, matching children by id: unchanged nodes cost
    /// nothing, a changed property is one `set`, a new or gone child one `insert` or `remove`, a
    /// child in another place one `move`. A node whose kind or id changed is replaced whole.
    ///
    /// Applying the result to a ``ViewTree`` of `old` gives `new`.
    public static func patches(from old: ViewNode, to new: ViewNode) -> [Patch] {
        guard old.id == new.id, old.kind == new.kind else {
            return [.replace(id: old.id, node: new, transition: nil)]
        }
        var patches: [Patch] = []
        diff(old, new, into: &patches)
        return patches
    }

    private static func diff(_ old: ViewNode, _ new: ViewNode, into patches: inout [Patch]) {
        var changed: [String: ViewValue] = [:]
        for (key, value) in new.props where old.props[key] != value { changed[key] = value }
        for key in old.props.keys where new.props[key] == nil { changed[key] = .null }
        if !changed.isEmpty { patches.append(.set(id: new.id, props: changed)) }

        let newIDs = Set(new.children.map(\.id))
        var current: [ViewNode] = []
        for child in old.children {
            if newIDs.contains(child.id) { current.append(child) } else { patches.append(.remove(id: child.id)) }
        }
        for (index, child) in new.children.enumerated() {
            if index < current.count, current[index].id == child.id {
                reconcile(current[index], child, at: index, parent: new.id, into: &patches)
            } else if let from = current.firstIndex(where: { $0.id == child.id }) {
                let moved = current.remove(at: from)
                current.insert(moved, at: index)
                patches.append(.move(id: child.id, index: index))
                reconcile(moved, child, at: index, parent: new.id, into: &patches)
            } else {
                current.insert(child, at: index)
                patches.append(.insert(parent: new.id, index: index, node: child))
            }
        }
    }

    private static func reconcile(_ old: ViewNode, _ new: ViewNode, at index: Int, parent: String, into patches: inout [Patch]) {
        guard old != new else { return }
        if old.kind != new.kind {
            patches.append(.replace(id: old.id, node: new, transition: nil))
        } else {
            diff(old, new, into: &patches)
        }
    }
}
