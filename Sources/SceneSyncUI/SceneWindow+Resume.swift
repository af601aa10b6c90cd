import Foundation
import SceneSync

/// Resuming a reconnecting window with patches instead of a redraw.
extension SceneWindow {
    /// What a window showed when its connection went away: the tree, the sequence numbers it had
    /// been sent, and its route. Saved with the scene so a reconnect can be patched, not redrawn.
    struct ResumePoint: Codable {
        var root: ViewNode
        var seq: [String: UInt64]
        var route: String
    }

    static let resumePointKey = "scenesync.window.resumePoint"
    /// The largest resume point kept, encoded. A window whose tree is larger is redrawn when it
    /// reconnects, which costs its bytes once instead of keeping them for every closed window.
    public static let resumePointLimit = 2 * 1024 * 1024

    /// Saves what the other end showed when it went away, so that a reconnect, even to a restarted
    /// process, can be patched instead of redrawn. Nothing is saved if patches were held back.
    func persistResumePoint() async {
        captureResumePoint()
        guard let scene else { return }
        if let departed,
           let data = resumePointWriter.map({ $0(departed.root, departed.seq, departed.route) }) ?? (try? JSONEncoder().encode(departed)),
           data.count <= Self.resumePointLimit {
            try? await scene.drafts.setData(data, for: Self.resumePointKey, limit: Self.resumePointLimit)
        } else {
            try? await scene.drafts.remove(Self.resumePointKey)
        }
    }

    func captureResumePoint() {
        guard outlet != nil else { return }
        departed = hasRendered && held.isEmpty && !needsRedraw && !tabs.isEmpty
            ? ResumePoint(root: makeRoot(), seq: sentSequences, route: routeKey) : nil
    }

    /// The patches that bring a window that resumes from `resume` up to date, or `nil` if it must
    /// be redrawn. A window that sends a route still has its page; the tree saved when it went away
    /// is what that page shows if the sequence numbers match (its route may be older than that
    /// tree: navigation since the last render came as patches).
    func resumePatches(for resume: (seq: [String: UInt64], route: String)) -> [Patch]? {
        let saved = scene?.drafts.data(for: Self.resumePointKey).flatMap { try? JSONDecoder().decode(ResumePoint.self, from: $0) }
        guard let saved else {
            guard resume.route == routeKey && resume.seq == sequences else { return nil }
            // Nothing is sent, but the visible screen must know the handlers of what the window shows.
            _ = makeRoot()
            return []
        }
        guard saved.seq == resume.seq else { return nil }
        let root = makeRoot()
        let patches = ViewNode.patches(from: saved.root, to: root)
        return Self.patchesKeepIDsUnique(patches, from: saved.root) ? patches : nil
    }

    /// Whether no patch inserts a node whose id the old tree still has elsewhere, which the renderer
    /// would take as being out of step (a node that changed parents).
    static func patchesKeepIDsUnique(_ patches: [Patch], from old: ViewNode) -> Bool {
        var oldIDs = Set<String>()
        func collect(_ node: ViewNode, into ids: inout Set<String>) {
            ids.insert(node.id)
            for child in node.children { collect(child, into: &ids) }
        }
        collect(old, into: &oldIDs)
        let tree = ViewTree(old)
        for patch in patches {
            var added = Set<String>()
            switch patch {
            case let .insert(_, _, node):
                collect(node, into: &added)
            case let .replace(id, node, _):
                collect(node, into: &added)
                var replaced = Set<String>()
                if let existing = tree.node(id) { collect(existing, into: &replaced) }
                added.subtract(replaced)
            default:
                continue
            }
            guard added.isDisjoint(with: oldIDs) else { return false }
        }
        return true
    }
}
