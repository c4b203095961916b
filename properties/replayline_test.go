package properties_test

import (
	"errors"
	"os"
	"os/exec"
	"regexp"
	"testing"

	"github.com/converge-sim/converge/faults"
	"github.com/converge-sim/converge/properties"
	"github.com/converge-sim/converge/scenarios"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// userFailureEnv makes TestAUserScenarioFails run, under the fault mix it
// names: it is the user's test that TestTheReplayLineReplaysAUserTest runs
// in a subprocess.
const userFailureEnv = "CONVERGE_USER_FAILURE"

// TestAUserScenarioFails stands for a user's own property test: a
// scenario no fuzzrun program knows (no Program), which fails.
func TestAUserScenarioFails(t *testing.T) {
	env := os.Getenv(userFailureEnv)
	if env == "" {
		t.Skip("a failing user test, run in a subprocess by TestTheReplayLineReplaysAUserTest")
	}
	mix, err := faults.ParseMix(env)
	require.NoError(t, err)
	sc := scenarios.ReplicaSetEdge()
	sc.Name, sc.Program = "my-edge", ""
	properties.Check(t, sc, mix)
}

// reportPattern matches Check's report of the user's failure, from its
// seed to its replay line.
var reportPattern = regexp.MustCompile(`(?s)scenario my-edge, faults [a-z,]+, seed (\d+): .*?replay: ([^\n]*)\n`)

// TestTheReplayLineReplaysAUserTest runs the user's failing test with go
// test, as a user does, reads the replay line it printed, runs that exact
// line from the module root, and requires the same failure, seed and
// report.
func TestTheReplayLineReplaysAUserTest(t *testing.T) {
	skipUnderRace(t)
	if testing.Short() {
		t.Skip("runs go test six times")
	}
	for _, tc := range []struct {
		name, mix string
		// start is the seed the user's run starts from.
		start string
		// seed is the line's seed: the failing one, or for a
		// counterexample of the second search (one bug, one finding)
		// the one both searches started from.
		seed string
	}{
		// From seed 3 rapid's first two runs pass, and so do the planned
		// runs between them (docs/design.md, "Faults planned from the
		// reference run"); rapid's third, seed 6, fails.
		{"first search", "drop", "3", "6"},
		// drop's counterexample needs the adversarial fault; a second
		// search under restart alone finds one.
		{"second search", "drop,restart", "3", "3"},
		// From seed 2 the first planned run fails: the line searches
		// from seed 2 again, and makes it again.
		{"a planned run", "drop", "2", "2"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			run := func(dir, name string, args ...string) string {
				cmd := exec.Command(name, args...)
				cmd.Dir = dir
				cmd.Env = append(os.Environ(), userFailureEnv+"="+tc.mix)
				out, err := cmd.CombinedOutput()
				var exit *exec.ExitError
				require.True(t, errors.As(err, &exit), "the user's test must fail: %v\n%s", err, out)
				return string(out)
			}
			first := run(".", "go", "test", "-count=1", "-run", "^TestAUserScenarioFails$", "-rapid.seed="+tc.start)
			m := reportPattern.FindStringSubmatch(first)
			require.NotNil(t, m, "no report in:\n%s", first)
			line := m[2]
			require.Equal(t, `go test ./properties -run '^TestAUserScenarioFails$' -rapid.seed=`+tc.seed, line)

			again := run("..", "sh", "-c", line)
			m2 := reportPattern.FindStringSubmatch(again)
			require.NotNil(t, m2, "no report in:\n%s", again)
			assert.Equal(t, m[0], m2[0], "the replay reports the same failure, seed and line")
		})
	}
}

// TestASearchWithNoWayToReplayIsAnError: a scenario without Program,
// searched outside a test, could print no line that replays its findings.
func TestASearchWithNoWayToReplayIsAnError(t *testing.T) {
	sc := scenarios.ReplicaSetEdge()
	sc.Program = ""
	_, err := properties.Search(sc, faults.Mix{faults.KindDrop}, properties.SearchOptions{Checks: 1, Seed: 1})
	assert.ErrorContains(t, err, "scenario replicaset-edge: a finding could not be replayed: declare Scenario.Program")
}

// TestExploreLine: the line explores to the counterexample's depth without
// a budget, names a deviation bound only where it binds at that depth and,
// for a scenario with inputs, the number of input specs unless it is the
// default, and leaves out an empty mix.
func TestExploreLine(t *testing.T) {
	drop := faults.Mix{faults.KindDrop}
	plain := properties.Scenario{Name: "s"}
	withInputs := properties.Scenario{Name: "s", Inputs: &properties.Inputs{}}
	for _, tc := range []struct {
		sc    properties.Scenario
		mix   faults.Mix
		depth int
		opts  properties.ExploreOptions
		want  string
	}{
		{plain, drop, 4, properties.ExploreOptions{}, "fr -strategy exhaustive -scenario s -faults drop -depth 4 -max-faults 1 -duration 0"},
		{plain, drop, 6, properties.ExploreOptions{Deviations: 2, Faults: 2}, "fr -strategy exhaustive -scenario s -faults drop -depth 6 -max-faults 2 -deviations 2 -duration 0"},
		{plain, drop, 2, properties.ExploreOptions{Deviations: 2}, "fr -strategy exhaustive -scenario s -faults drop -depth 2 -max-faults 1 -duration 0"},
		{plain, drop, 1, properties.ExploreOptions{Deviations: 3, Inputs: 4}, "fr -strategy exhaustive -scenario s -faults drop -depth 1 -max-faults 1 -duration 0"},
		{withInputs, nil, 3, properties.ExploreOptions{}, "fr -strategy exhaustive -scenario s -depth 3 -max-faults 1 -duration 0"},
		{withInputs, nil, 3, properties.ExploreOptions{Inputs: 6}, "fr -strategy exhaustive -scenario s -depth 3 -max-faults 1 -duration 0"},
		{withInputs, nil, 3, properties.ExploreOptions{Inputs: 4}, "fr -strategy exhaustive -scenario s -depth 3 -max-faults 1 -inputs 4 -duration 0"},
		{withInputs, nil, 3, properties.ExploreOptions{NoInputs: true}, "fr -strategy exhaustive -scenario s -depth 3 -max-faults 1 -inputs 0 -duration 0"},
	} {
		assert.Equal(t, tc.want, properties.ExploreLine("fr", tc.sc, tc.mix, tc.depth, tc.opts))
	}
}
