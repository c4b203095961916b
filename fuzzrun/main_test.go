package fuzzrun_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/converge-sim/converge/actors"
	"github.com/converge-sim/converge/controllers/replicaset"
	"github.com/converge-sim/converge/faults"
	"github.com/converge-sim/converge/fuzzrun"
	"github.com/converge-sim/converge/model"
	"github.com/converge-sim/converge/properties"
	"github.com/converge-sim/converge/scenarios"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestMain routes worker processes: campaigns with -workers above 1
// re-execute this test binary as their workers.
//
// With cliEnv set, the test binary is fuzzrun itself, over the built-in
// scenarios and the broken ones of these tests: CLI tests run it as a
// real subprocess (see cli).
func TestMain(m *testing.M) {
	all := append(scenarios.All(), testScenarios()...)
	if os.Getenv(cliEnv) != "" {
		fuzzrun.Main(all...)
	}
	fuzzrun.ServeIfWorker(all...)
	os.Exit(m.Run())
}

// broken builds a scenario around a ReplicaSet controller whose reconcile
// does what bug says, deliberately.
func broken(name string, bug func()) properties.Scenario {
	ctrl := replicaset.Level(replicaset.LevelOptions{Name: name, Resync: 20})
	ctrl.NewReconciler = func(model.Client) model.Reconciler {
		return model.ReconcilerFunc(func(model.Request) (model.Result, error) {
			bug()
			return model.Result{}, nil
		})
	}
	return properties.Scenario{
		Name:   name,
		Build:  worldOf(ctrl),
		Expect: []properties.Expectation{{Faults: faults.Mix{faults.KindDrop}}},
	}
}

// worldOf builds a one-ReplicaSet cluster around ctrl, with a chaos actor.
func worldOf(ctrl model.Controller) func(model.Config) (*model.Cluster, error) {
	return func(cfg model.Config) (*model.Cluster, error) {
		c := model.NewCluster(cfg)
		if err := c.AddController(ctrl); err != nil {
			return nil, err
		}
		if err := c.AddActor(actors.Killer{Kind: replicaset.PodKind}, 1); err != nil {
			return nil, err
		}
		return c, c.Apply(replicaset.New("default", "web", 1))
	}
}

// hanging never returns from a reconcile: a worker must be killed.
func hanging() properties.Scenario { return broken("hanging", func() { time.Sleep(time.Hour) }) }

// crashing exits the process from a reconcile: its worker dies.
func crashing() properties.Scenario { return broken("crashing", func() { os.Exit(3) }) }

func run(args ...string) (code int, stdout, stderr string) {
	return runWith(scenarios.All(), args...)
}

func runWith(scs []properties.Scenario, args ...string) (code int, stdout, stderr string) {
	var out, errOut bytes.Buffer
	code = fuzzrun.Run(args, &out, &errOut, scs)
	return code, out.String(), errOut.String()
}

// events parses -json output into its events, by type.
func events(t *testing.T, out string) map[string][]map[string]any {
	t.Helper()
	byType := map[string][]map[string]any{}
	sc := bufio.NewScanner(strings.NewReader(out))
	sc.Buffer(nil, 1<<24)
	for sc.Scan() {
		var ev map[string]any
		require.NoError(t, json.Unmarshal(sc.Bytes(), &ev), sc.Text())
		typ, _ := ev["type"].(string)
		require.NotEmpty(t, typ, sc.Text())
		byType[typ] = append(byType[typ], ev)
	}
	return byType
}

func TestListShowsScenariosFaultKindsAndStrategies(t *testing.T) {
	code, out, _ := run("-list")
	require.Equal(t, fuzzrun.ExitOK, code)
	for _, want := range []string{"replicaset-level", "replicaset-noresync", "replicaset-edge", "under drop: fails: goal-unmet", "restart", "pct"} {
		assert.Contains(t, out, want)
	}
}

// TestCampaignRowsShowWhatEachScenarioMust runs a campaign of a fixed
// number of seeds (no wall clock) over scenarios whose failing rows all
// fail within the first six seeds: rows that must converge, rows that must
// fail with goal-unmet, fight and a liveness failure.
func TestCampaignRowsShowWhatEachScenarioMust(t *testing.T) {
	selected := []string{"replicaset-level", "replicaset-edge", "pdb-drain"}
	// Rapid's seeds alone (-no-plan): with the plan, its runs take seeds
	// 2, 4 and 6, and replicaset-edge under duplicate shows nothing in 6.
	code, out, stderr := run("-json", "-scenario", strings.Join(selected, ","), "-runs", "6", "-workers", "2", "-no-plan")
	require.Equal(t, fuzzrun.ExitOK, code, "stdout:\n%s\nstderr:\n%s", out, stderr)
	evs := events(t, out)
	rows := 0
	for _, name := range selected {
		sc, ok := scenarios.ByName(name)
		require.True(t, ok)
		rows += len(sc.Expect)
	}
	require.Len(t, evs["row"], rows)
	for _, row := range evs["row"] {
		for _, key := range []string{"scenario", "faults", "runs", "failures", "expect", "ok"} {
			assert.Contains(t, row, key)
		}
		assert.Equal(t, true, row["ok"], row)
		assert.Positive(t, row["runs"], row)
	}
	require.Len(t, evs["summary"], 1)
	assert.InDelta(t, 0, evs["summary"][0]["exit_code"], 0)
	assert.NotEmpty(t, evs["finding"], "the edge-triggered rows fail, and each failure is announced")
}

func TestTableWithoutATerminalHasNoProgressLine(t *testing.T) {
	code, out, _ := run("-scenario", "replicaset-level", "-runs", "3", "-workers", "1")
	require.Equal(t, fuzzrun.ExitOK, code, out)
	assert.NotContains(t, out, "\r", "no progress line when stdout is not a terminal")
	assert.True(t, strings.HasPrefix(out, "SCENARIO"), out)
}

func TestUnexpectedRowExitsOne(t *testing.T) {
	// A scenario that claims the edge-triggered controller converges under
	// drop is wrong, and the campaign says so.
	wrong := scenarios.ReplicaSetEdge()
	wrong.Expect = []properties.Expectation{{Faults: faults.Mix{faults.KindDrop}}}
	code, out, _ := runWith([]properties.Scenario{wrong}, "-seed", "6", "-runs", "1", "-workers", "1")
	assert.Equal(t, fuzzrun.ExitUnexpected, code)
	assert.Contains(t, out, "UNEXPECTED")
	assert.Contains(t, out, `expected to show "converges", but failed`)
	assert.Contains(t, out, "replay: go run ./cmd/fuzzrun -scenario replicaset-edge -faults drop -seed 6")
}

// TestExpectedFailureNotFoundIsNotShownNotUnexpected: a row that must
// fail and passes every seed -runs gives it ran out of budget; that is no
// wrong verdict, and it exits with its own code (issue 37, item 2).
func TestExpectedFailureNotFoundIsNotShownNotUnexpected(t *testing.T) {
	code, out, _ := run("-scenario", "replicaset-noresync", "-faults", "drop", "-runs", "2", "-workers", "1")
	assert.Equal(t, fuzzrun.ExitNotShown, code, "seeds 1 and 2 pass, so the row did not show its failure within its budget")
	assert.Contains(t, out, "NOT SHOWN")
	assert.NotContains(t, out, "UNEXPECTED")
	assert.Contains(t, out, `replicaset-noresync under drop was expected to show "fails: goal-unmet": not shown within its budget, all 2 runs passed`)
	assert.Contains(t, out, "no wrong verdict, but 1 row was not shown within its budget")
}

func TestReplayOfASeedIsByteIdentical(t *testing.T) {
	args := []string{"-scenario", "replicaset-edge", "-faults", "restart", "-seed", edgeSeed}
	code1, out1, _ := run(args...)
	code2, out2, _ := run(args...)
	assert.Equal(t, fuzzrun.ExitOK, code1, "the failure is what the scenario must show")
	assert.Equal(t, code1, code2)
	assert.Equal(t, out1, out2)
	assert.Contains(t, out1, "trace (")
	assert.Contains(t, out1, "replay: go run ./cmd/fuzzrun -scenario replicaset-edge -faults restart -seed "+edgeSeed)
}

func TestReplayOfASeedWithPCTNamesTheStrategy(t *testing.T) {
	code, out, _ := run("-scenario", "replicaset-edge", "-faults", "restart", "-strategy", "pct", "-seed", pctEdgeSeed)
	assert.Equal(t, fuzzrun.ExitOK, code, out)
	assert.Contains(t, out, "-strategy pct -seed "+pctEdgeSeed+"\n")
}

func TestReplayOfASeedAsJSONLines(t *testing.T) {
	var out, errOut bytes.Buffer
	code := fuzzrun.Run([]string{"-scenario", "replicaset-edge", "-faults", "restart", "-seed", edgeSeed, "-trace-json"}, &out, &errOut, scenarios.All())
	require.Equal(t, fuzzrun.ExitOK, code)
	assert.Contains(t, errOut.String(), "goal-unmet", "the report goes to stderr")
	dec := json.NewDecoder(&out)
	n := 0
	for {
		var rec map[string]any
		err := dec.Decode(&rec)
		if err == io.EOF {
			break
		}
		require.NoError(t, err)
		assert.Contains(t, rec, "step")
		n++
	}
	assert.Positive(t, n)
}

// TestTimeTravelRows: a campaign over the time-travel pair shows the
// broken row failing with its invariant under timetravel alone, a
// faithful fault, and the fixed row converging under every faithful fault.
// About one run in 27 of the broken row fails, the first at seed 33: 40
// runs a row.
func TestTimeTravelRows(t *testing.T) {
	code, out, stderr := run("-json", "-scenario", "timetravel,timetravel-fixed", "-runs", "40", "-workers", "2")
	require.Equal(t, fuzzrun.ExitOK, code, "stdout:\n%s\nstderr:\n%s", out, stderr)
	evs := events(t, out)
	require.Len(t, evs["row"], 3)
	for _, row := range evs["row"] {
		assert.Equal(t, true, row["ok"], row)
		if row["scenario"] == "timetravel" {
			assert.Equal(t, "invariant", row["first_verdict"], row)
			assert.InDelta(t, 0, row["adversarial"], 0, row)
		} else {
			assert.InDelta(t, 0, row["failures"], 0, row)
		}
	}
}
