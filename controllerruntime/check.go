package controllerruntime

import (
	"testing"

	"github.com/converge-sim/converge/faults"
	"github.com/converge-sim/converge/properties"
)

// Check runs properties.CheckWith in a Go test with every run inside its
// own testing/synctest bubble (properties.InBubble), so that the time user
// code reads is the model's virtual time and a run replays byte for byte,
// timestamps included. A failure ends with the line that replays it:
//
//	go test ./<package> -run '^TestName$' -rapid.seed=N
func Check(t *testing.T, sc properties.Scenario, mix faults.Mix) {
	t.Helper()
	properties.CheckWith(t, sc, mix, properties.CheckOptions{Wrap: properties.InBubble(t)})
}

// Explore runs properties.Explore in a Go test with every execution, and
// the replay of its counterexample, inside its own testing/synctest bubble
// (properties.InBubble), as Check runs each run: the time user code reads
// is the model's virtual time, so every execution starts from the same
// clock, states that differ only in when user code read the wall clock do
// not exist, and the counterexample replays byte for byte; its replay line
// is the test's go test line, unless the scenario names a Program.
func Explore(t *testing.T, sc properties.Scenario, mix faults.Mix, opts properties.ExploreOptions) (properties.ExploreResult, error) {
	t.Helper()
	opts.Wrap, opts.Test = properties.InBubble(t), t
	return properties.Explore(sc, mix, opts)
}
