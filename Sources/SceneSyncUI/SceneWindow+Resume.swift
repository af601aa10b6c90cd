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
    /// The largest resume point kept, encoded: 256 KiB. A window whose tree is larger (a list of a
    /// few thousand rows) is redrawn when it reconnects, which costs its bytes once, on the wire,
    /// instead of keeping them on disk for every window that may come back.
    public static let resumePointLimit = 256 * 1024

    /// Saves what the other end showed when it went away, so that a reconnect, even to a restarted
    /// process, can be patched instead of redrawn. Nothing is saved if patches were held back.
    func persistResumePoint() async {
        captureResumePoint()
        guard let scene else { return }
        if let departed {
            try? await scene.drafts.setData(departed, for: Self.resumePointKey, limit: Self.resumePointLimit)
        } else {
            try? await scene.drafts.remove(Self.resumePointKey)
        }
    }

    /// Deletes the saved tree once the window has been drawn or resumed: from then on it no
    /// longer says what the window shows, and after a crash a stale one would resume the window
    /// out of step. Losing a newer one in a race costs a redraw, nothing more.
    func forgetResumePoint() {
        guard let scene, scene.drafts.data(for: Self.resumePointKey) != nil else { return }
        Task { try? await scene.drafts.remove(Self.resumePointKey) }
    }

    /// Notes what the other end shows, encoded at once (see ``departed``), while the window still
    /// has its host.
    func captureResumePoint() {
        guard outlet != nil else { return }
        guard hasRendered, held.isEmpty, !needsRedraw, !tabs.isEmpty else {
            departed = nil
            return
        }
        let point = ResumePoint(root: makeRoot(), seq: sentSequences, route: routeKey)
        let data = resumePointWriter.map { $0(point.root, point.seq, point.route) } ?? (try? JSONEncoder().encode(point))
        departed = data.flatMap { $0.count <= Self.resumePointLimit ? $0 : nil }
    }

    /// The patches that bring a window that resumes from `resume` up to date, or `nil` if it must
    /// be redrawn. A window that sends a route still has its page; the tree saved when it went away
    /// is what that page shows if the sequence numbers match (its route may be older than that
    /// tree: navigation since the last render came as patches).
    ///
    /// Without a saved tree (a crash, a tree too large to keep) the window is redrawn: its `route`
    /// is that of its last render, and navigation since then came as patches, so it does not say
    /// what the window shows.
    func resumePatches(for resume: (seq: [String: UInt64], route: String)) -> [Patch]? {
        let saved = scene?.drafts.data(for: Self.resumePointKey).flatMap { try? JSONDecoder().decode(ResumePoint.self, from: $0) }
        guard let saved, saved.seq == resume.seq else { return nil }
        let root = makeRoot()
        let patches = ViewNode.patches(from: saved.root, to: root)
        // Patches the renderer would refuse (a node that changed parents keeps its id, so an
        // insert meets the id still in place) mean a redraw: the view tree refuses exactly those.
        var tree = ViewTree(saved.root)
        return (try? tree.apply(patches)) != nil ? patches : nil
    }
}
