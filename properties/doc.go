// Package properties is converge's oracle: it runs a scenario in the model
// cluster under a fault schedule, judges the run (convergence to a fixed
// point where every goal holds, no hot loop, no fight, invariants,
// idempotence, no panic, termination) and, through rapid, searches for a
// run that fails and shrinks it to a minimal counterexample
// (docs/design.md, "The oracle").
//
// The entry points, in the order of use:
//
//   - [Scenario] declares the world: Build returns a fresh, unstarted
//     model.Cluster with its controllers, actors and objects; Edits and
//     Rivals say what outside writes faults may make; [Invariant] values
//     must hold after every step; Expect lists the fault mixes the scenario
//     runs under and, as an [Expectation], whether each must converge or
//     fail with a given [Verdict].
//   - [Inputs], in Scenario.Inputs, declares state transitions of one
//     object, drawn from a spec generator and shrunk like the fault
//     schedule; the goal-free differential oracle ([HistoryDependent])
//     compares the state they lead to with a fresh cluster given the final
//     spec directly (docs/design.md, "State-transition inputs").
//   - [Check] (or [CheckWith] and its [CheckOptions]) runs the search in a
//     Go test and fails it with the report and the line that replays it.
//   - [Search] runs the same search outside a test, with [SearchOptions],
//     and returns a [SearchResult] whose [Counterexample] holds the
//     [Failure], the shrunk fault schedule, the interleaving choices and
//     the trace; its Report is what Check prints.
//   - [Strategy] and [ParseStrategy] choose how the fault phase is
//     interleaved: random, or probabilistic concurrency testing (PCT); or
//     how runs are chosen at all: coverage-guided search keeps the runs
//     that reach new coverage in a [Corpus] and mutates them (Search
//     only; docs/design.md, "Coverage-guided search"), and exhaustive
//     exploration ([Explore], or Search to the strategy's bounds). Each
//     strategy is a file behind one interface ([Strategies] lists them;
//     docs/design.md, "Strategies").
//   - [Replay] re-runs a counterexample's schedule and choices, byte for
//     byte; [Execute] runs one schedule with any model.Chooser. Both return
//     an [Outcome], which Outcome.Timeline turns into a page for package
//     timeline.
//   - [Converges] and [ConvergesWith] are the property itself, for
//     rapid.Check or rapid.MakeFuzz, when a test wants rapid's own loop.
//
// Package fuzzrun runs scenarios as long campaigns on every core and keeps
// each finding in a file; the package example is a controller author's own
// property test.
package properties
