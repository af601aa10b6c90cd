/// Tasks that run on the main actor for as long as their owner wants them, each let go as soon as
/// it ends: an owner that lives as long as a window (a scene, a screen) keeps no finished task,
/// nor the memory a finished task's frames grew to.
@MainActor
package final class OwnedTasks {
    private var running: [Int: Task<Void, Never>] = [:]
    private var lastID = 0

    package init() {}

    /// How many of the tasks have not ended yet.
    package var count: Int { running.count }

    /// Starts `operation` in a task of its own.
    package func start(_ operation: @escaping @MainActor () async -> Void) {
        lastID += 1
        let id = lastID
        // The task cannot end before it is recorded: both happen on the main actor, this first.
        running[id] = Task { @MainActor [weak self] in
            await operation()
            self?.running[id] = nil
        }
    }

    /// Cancels every task not ended yet, and lets go of them.
    package func cancelAll() {
        for task in running.values { task.cancel() }
        running = [:]
    }

    deinit {
        for task in running.values { task.cancel() }
    }
}
