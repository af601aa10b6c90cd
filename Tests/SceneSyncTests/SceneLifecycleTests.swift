import SceneSync
import Testing

struct SceneLifecycleTests {
    @Test func followsUIKitsStatesThroughAFullLife() throws {
        var lifecycle = SceneLifecycle()
        var callbacks: [SceneLifecycle.Callback] = []
        for transition: SceneLifecycle.Transition in [
            .connect, .enterForeground, .activate, .deactivate, .enterBackground, .enterForeground, .activate,
            .deactivate, .enterBackground, .disconnect,
        ] {
            callbacks.append(try lifecycle.apply(transition))
        }
        #expect(callbacks == [
            .willConnect, .willEnterForeground, .didBecomeActive, .willResignActive, .didEnterBackground,
            .willEnterForeground, .didBecomeActive, .willResignActive, .didEnterBackground, .didDisconnect,
        ])
        #expect(lifecycle.state == .disconnected)
    }

    @Test func refusesEveryIllegalTransitionAndStaysPut() throws {
        let legal: [SceneLifecycle.State: Set<SceneLifecycle.Transition>] = [
            .unattached: [.connect],
            .background: [.enterForeground, .disconnect],
            .foregroundInactive: [.activate, .enterBackground],
            .foregroundActive: [.deactivate],
            .disconnected: [],
        ]
        for state in SceneLifecycle.State.allCases {
            for transition in SceneLifecycle.Transition.allCases where !legal[state]!.contains(transition) {
                var lifecycle = SceneLifecycle()
                for step in SceneLifecycle().path(to: state) { try lifecycle.apply(step) }
                #expect(lifecycle.state == state)
                #expect(throws: SceneLifecycleError.illegalTransition(transition, from: state)) {
                    try lifecycle.apply(transition)
                }
                #expect(lifecycle.state == state)
            }
        }
    }

    @Test func findsTheLegalPathBetweenStates() throws {
        var lifecycle = SceneLifecycle()
        #expect(lifecycle.path(to: .foregroundActive) == [.connect, .enterForeground, .activate])
        for step in lifecycle.path(to: .foregroundActive) { try lifecycle.apply(step) }
        #expect(lifecycle.path(to: .disconnected) == [.deactivate, .enterBackground, .disconnect])
        #expect(lifecycle.path(to: .foregroundActive) == [])
        for step in lifecycle.path(to: .disconnected) { try lifecycle.apply(step) }
        #expect(lifecycle.path(to: .foregroundActive) == [])
    }

    @Test func illegalTransitionsReadAsSentences() {
        let error = SceneLifecycleError.illegalTransition(.activate, from: .background)
        #expect(error.description == "A scene cannot activate while it is background.")
    }
}
