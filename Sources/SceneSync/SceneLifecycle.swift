/// A scene's lifecycle as a plain value: UIKit's activation states and the legal moves between
/// them. Each move returns the scene-delegate call it stands for; an illegal move is an error and
/// changes nothing.
///
/// ```swift
/// var lifecycle = SceneLifecycle()
/// try lifecycle.apply(.connect)          // .willConnect
/// try lifecycle.apply(.enterForeground)  // .willEnterForeground
/// try lifecycle.apply(.activate)         // .didBecomeActive
/// lifecycle.path(to: .disconnected)      // [.deactivate, .enterBackground, .disconnect]
/// ```
public struct SceneLifecycle: Sendable, Equatable {
    /// UIKit's activation states, plus the end of a connection.
    public enum State: String, Sendable, Codable, CaseIterable {
        /// Created, not yet connected to a delegate.
        case unattached
        /// Connected and visible, but not receiving input.
        case foregroundInactive
        /// Visible and receiving input.
        case foregroundActive
        /// Connected but not visible.
        case background
        /// Disconnected: the scene's resources are freed; its session lives on. Final.
        case disconnected
    }

    /// A move between states.
    public enum Transition: String, Sendable, Codable, CaseIterable {
        case connect, enterForeground, activate, deactivate, enterBackground, disconnect
    }

    /// The scene-delegate call a transition stands for.
    public enum Callback: String, Sendable, Equatable, CaseIterable {
        case willConnect, willEnterForeground, didBecomeActive, willResignActive, didEnterBackground, didDisconnect
    }

    /// The current state.
    public private(set) var state: State

    /// A lifecycle in ``State/unattached``.
    public init() { state = .unattached }

    /// Moves to the next state.
    ///
    /// - Returns: the delegate call to make.
    /// - Throws: ``SceneLifecycleError/illegalTransition(_:from:)`` if `transition` is not legal
    ///   in the current state; the state does not change.
    @discardableResult
    public mutating func apply(_ transition: Transition) throws(SceneLifecycleError) -> Callback {
        guard let (next, callback) = Self.table[state]?[transition] else {
            throw .illegalTransition(transition, from: state)
        }
        state = next
        return callback
    }

    /// The legal transitions that lead from the current state to `target`, shortest first; empty if
    /// already there or if `target` cannot be reached (nothing leaves ``State/disconnected``).
    public func path(to target: State) -> [Transition] {
        var visited: Set<State> = [state]
        var frontier: [(State, [Transition])] = [(state, [])]
        while !frontier.isEmpty {
            var next: [(State, [Transition])] = []
            for (current, route) in frontier {
                if current == target { return route }
                for transition in Transition.allCases {
                    guard let (reached, _) = Self.table[current]?[transition], !visited.contains(reached) else { continue }
                    visited.insert(reached)
                    next.append((reached, route + [transition]))
                }
            }
            frontier = next
        }
        return []
    }

    private static let table: [State: [Transition: (State, Callback)]] = [
        .unattached: [.connect: (.background, .willConnect)],
        .background: [
            .enterForeground: (.foregroundInactive, .willEnterForeground),
            .disconnect: (.disconnected, .didDisconnect),
        ],
        .foregroundInactive: [
            .activate: (.foregroundActive, .didBecomeActive),
            .enterBackground: (.background, .didEnterBackground),
        ],
        .foregroundActive: [.deactivate: (.foregroundInactive, .willResignActive)],
        .disconnected: [:],
    ]
}

/// A lifecycle move that UIKit's semantics do not allow.
public enum SceneLifecycleError: Error, Equatable, Sendable, CustomStringConvertible {
    /// `transition` is not legal in state `from`.
    case illegalTransition(SceneLifecycle.Transition, from: SceneLifecycle.State)

    public var description: String {
        switch self {
        case let .illegalTransition(transition, state):
            "A scene cannot \(transition.rawValue) while it is \(state.rawValue)."
        }
    }
}
