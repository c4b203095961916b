//go:build unix

package fuzzrun_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/converge-sim/converge/fuzzrun"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestExhaustiveCLIWritesAReplayableFinding: fuzzrun -strategy exhaustive
// finds replicaset-noresync's lost rescale at its minimal depth, writes it
// as an ordinary finding file, and -replay reproduces it; the row must
// fail this way, so the exit code is 0. The rescale takes three choices
// off the canonical schedule within four decisions, or two within six:
// with -deviations 2 it is found at depth 6, and the finding file and the
// command that explores the row again keep the bound. That command,
// exploring to the counterexample's depth without a budget, finds the
// same counterexample.
func TestExhaustiveCLIWritesAReplayableFinding(t *testing.T) {
	for _, tc := range []struct {
		args       []string
		found      string
		deviations int
		again      string
	}{
		{[]string{"-depth", "5"}, "exhaustive depth 4", 0, "-depth 4 -max-faults 1 -duration 0"},
		{[]string{"-depth", "8", "-deviations", "2", "-duration", "0"}, "exhaustive depth 6, ≤2 deviations", 2, "-depth 6 -max-faults 1 -deviations 2 -duration 0"},
	} {
		dir := t.TempDir()
		args := append([]string{"-strategy", "exhaustive", "-scenario", "replicaset-noresync", "-faults", "drop", "-out", dir}, tc.args...)
		code, out, stderr := cli(t, args...)
		require.Equal(t, fuzzrun.ExitOK, code, "stdout:\n%s\nstderr:\n%s", out, stderr)
		assert.Contains(t, out, "scenario replicaset-noresync, faults drop, "+tc.found+": converges violated (goal-unmet)")
		files, err := filepath.Glob(filepath.Join(dir, "finding-replicaset-noresync-goal-unmet-*.json"))
		require.NoError(t, err)
		require.Len(t, files, 1)
		f, err := fuzzrun.ReadFinding(files[0])
		require.NoError(t, err)
		assert.Equal(t, "exhaustive", f.Strategy)
		assert.Equal(t, tc.deviations, f.Deviations)
		assert.True(t, f.Expected)
		assert.Contains(t, f.ReplaySeed, "-strategy exhaustive -scenario replicaset-noresync -faults drop "+tc.again)
		// The report up to its replay line, which names the finding file.
		report := out[strings.Index(out, "scenario replicaset-noresync, faults drop"):strings.Index(out, "\nreplay: ")]

		_, line, ok := strings.Cut(f.ReplaySeed, "fuzzrun ")
		require.True(t, ok, f.ReplaySeed)
		code, out, stderr = cli(t, strings.Fields(line)...)
		require.Equal(t, fuzzrun.ExitOK, code, "stdout:\n%s\nstderr:\n%s", out, stderr)
		assert.Contains(t, out, report, "the line finds the same counterexample")

		code, out, stderr = cli(t, "-replay", files[0])
		assert.Contains(t, out, "converges violated (goal-unmet)", "stderr:\n%s", stderr)
		assert.NotContains(t, stderr, "nondeterministic")
		assert.NotContains(t, stderr, "does not fit")
		assert.Equal(t, fuzzrun.ExitOK, code, "the finding shows what the row must")
	}
}

// TestExhaustiveCLINamesTheDeviationBound: a bound of one deviation shows
// no lost rescale through depth 8, and the guarantee says within which
// bound.
func TestExhaustiveCLINamesTheDeviationBound(t *testing.T) {
	code, out, stderr := cli(t, "-strategy", "exhaustive", "-scenario", "replicaset-noresync", "-faults", "drop", "-depth", "8", "-deviations", "1", "-duration", "0")
	require.Equal(t, fuzzrun.ExitOK, code, "stderr:\n%s", stderr)
	assert.Contains(t, out, "replicaset-noresync: no counterexample with ≤1 fault (drop) and ≤8 decisions, ≤1 of them off the canonical schedule (")
}

// TestExhaustiveCLIPrintsTheGuarantee: a row that converges prints what
// was shown, with its limits, and exits 0.
func TestExhaustiveCLIPrintsTheGuarantee(t *testing.T) {
	code, out, stderr := cli(t, "-strategy", "exhaustive", "-scenario", "replicaset-level", "-faults", "drop", "-depth", "2", "-workers", "1")
	require.Equal(t, fuzzrun.ExitOK, code, "stderr:\n%s", stderr)
	assert.Contains(t, out, "replicaset-level: no counterexample with ≤1 fault (drop) and ≤2 decisions (")
	assert.Contains(t, out, "64-bit fingerprints, sleep sets; one canonical completion after the bound) [drop, ")
	assert.Contains(t, out, "\nexhaustive: rows without a counterexample within their bounds: 1; with one: 0, unexpected: 0\n")
	assert.Empty(t, stderr)
}

// TestExhaustiveCLIExploresWithWorkers: -workers explores a row's fault
// trees side by side; the guarantee says how many, and the counterexample
// and the finding written are those of one tree after another.
func TestExhaustiveCLIExploresWithWorkers(t *testing.T) {
	findings := map[string]string{}
	for _, workers := range []string{"1", "2"} {
		dir := t.TempDir()
		code, out, stderr := cli(t, "-strategy", "exhaustive", "-scenario", "replicaset-noresync", "-faults", "drop", "-depth", "5", "-workers", workers, "-out", dir)
		require.Equal(t, fuzzrun.ExitOK, code, "stderr:\n%s", stderr)
		assert.Contains(t, out, "replicaset-noresync: counterexample at depth 4 (goal-unmet)")
		if workers == "2" {
			assert.Contains(t, out, "sleep sets, 2 workers;")
		} else {
			assert.NotContains(t, out, "workers")
		}
		_, path := onlyFinding(t, dir)
		data, err := os.ReadFile(path)
		require.NoError(t, err)
		findings[workers] = strings.ReplaceAll(string(data), dir, "DIR")
	}
	assert.Equal(t, findings["1"], findings["2"])
}

// TestExhaustiveCLISaysWhichRowsStoppedShort: a row whose budget runs out
// before the requested depth says so (and the depth it finished), and the summary
// counts it and says how to explore deeper (with fewer input specs too,
// for a row that explores inputs). Depth 12 of either row takes hours,
// not a millisecond.
func TestExhaustiveCLISaysWhichRowsStoppedShort(t *testing.T) {
	code, out, stderr := cli(t, "-strategy", "exhaustive", "-scenario", "replicaset-level", "-faults", "drop", "-depth", "12", "-duration", "1ms")
	require.Equal(t, fuzzrun.ExitOK, code, "stderr:\n%s", stderr)
	assert.Regexp(t, `replicaset-level: no .*budget (was )?spent.* \[drop, `, out)
	assert.Contains(t, out, "\nexhaustive: rows that spent their budget (-duration 1ms) before depth 12: 1; a longer -duration or a deviation bound (-deviations K) explores deeper\n")

	code, out, stderr = cli(t, "-strategy", "exhaustive", "-scenario", "replicaset-level", "-faults", "drop", "-depth", "12", "-duration", "1ms", "-json")
	require.Equal(t, fuzzrun.ExitOK, code, "stderr:\n%s", stderr)
	assert.Contains(t, out, `"type":"explore-summary","rows":1,"short_of_depth":1,`)

	// A row that explores inputs may also take fewer of them.
	code, out, stderr = cli(t, "-strategy", "exhaustive", "-scenario", "cache-fixed", "-faults", "restart", "-depth", "12", "-duration", "1ms")
	require.Equal(t, fuzzrun.ExitOK, code, "stderr:\n%s", stderr)
	assert.Contains(t, out, "\nexhaustive: rows that spent their budget (-duration 1ms) before depth 12: 1; a longer -duration, a deviation bound (-deviations K) or fewer input specs (-inputs N) explores deeper\n")
}

// TestExhaustiveCLIExploresInputs: a scenario with state-transition inputs
// is explored with them: the tier the Cache operator never removes shows
// at depth 1 after two transitions, its finding file holds them and
// replays, and the line that explores the row again finds it again.
// -inputs 0 explores none, and the guarantee says so.
func TestExhaustiveCLIExploresInputs(t *testing.T) {
	dir := t.TempDir()
	code, out, stderr := cli(t, "-strategy", "exhaustive", "-scenario", "cache-stale-tier", "-depth", "2", "-out", dir)
	require.Equal(t, fuzzrun.ExitOK, code, "stdout:\n%s\nstderr:\n%s", out, stderr)
	assert.Contains(t, out, "cache-stale-tier: counterexample at depth 1 (history-dependent) (")
	assert.Contains(t, out, "; inputs: ≤3 transitions among 6 specs) [none, ")
	assert.Contains(t, out, "\ninputs (2 transitions of Cache default/web):\n")
	files, err := filepath.Glob(filepath.Join(dir, "finding-cache-stale-tier-history-dependent-*.json"))
	require.NoError(t, err)
	require.Len(t, files, 1)
	f, err := fuzzrun.ReadFinding(files[0])
	require.NoError(t, err)
	assert.Len(t, f.Transitions, 2)
	assert.True(t, strings.HasSuffix(f.ReplaySeed, "-strategy exhaustive -scenario cache-stale-tier -depth 1 -max-faults 1 -duration 0"), f.ReplaySeed)
	report := out[strings.Index(out, "scenario cache-stale-tier"):strings.Index(out, "\nreplay: ")]

	code, replayed, stderr := cli(t, "-replay", files[0])
	assert.Equal(t, fuzzrun.ExitOK, code, "stderr:\n%s", stderr)
	assert.Contains(t, replayed, "history independence violated (history-dependent)")
	assert.NotContains(t, stderr, "nondeterministic")

	_, line, _ := strings.Cut(f.ReplaySeed, "fuzzrun ")
	code, again, stderr := cli(t, strings.Fields(line)...)
	require.Equal(t, fuzzrun.ExitOK, code, "stderr:\n%s", stderr)
	assert.Contains(t, again, report)

	code, out, stderr = cli(t, "-strategy", "exhaustive", "-scenario", "cache-stale-tier", "-depth", "2", "-inputs", "0")
	require.Equal(t, fuzzrun.ExitOK, code, "stderr:\n%s", stderr)
	assert.Contains(t, out, "cache-stale-tier: no counterexample without faults and ≤2 decisions (")
	assert.Contains(t, out, "; its state-transition inputs not explored) [none, ")
}

// TestExhaustiveCLIBoundsTheStateCache: -max-states bounds the states a
// row records, and the guarantee says the cache filled.
func TestExhaustiveCLIBoundsTheStateCache(t *testing.T) {
	code, out, stderr := cli(t, "-strategy", "exhaustive", "-scenario", "replicaset-level", "-faults", "drop", "-depth", "3", "-max-states", "20", "-duration", "0", "-workers", "1")
	require.Equal(t, fuzzrun.ExitOK, code, "stderr:\n%s", stderr)
	assert.Contains(t, out, "replicaset-level: no counterexample with ≤1 fault (drop) and ≤3 decisions (20 states, ")
	assert.Contains(t, out, "; 64-bit fingerprints, sleep sets; state cache full; one canonical completion after the bound) [drop, ")
}

// TestExhaustiveCLIUnexpectedCounterexample: a counterexample under a mix
// the scenario does not declare exits 1.
func TestExhaustiveCLIUnexpectedCounterexample(t *testing.T) {
	code, out, _ := cli(t, "-strategy", "exhaustive", "-scenario", "replicaset-edge", "-faults", "drop,duplicate", "-depth", "2")
	assert.Equal(t, fuzzrun.ExitUnexpected, code)
	assert.Contains(t, out, "replicaset-edge: counterexample at depth 1")
	assert.Contains(t, out, "\nexhaustive: rows without a counterexample within their bounds: 0; with one: 1, unexpected: 1\n")
	_, err := os.Stat("findings")
	assert.True(t, os.IsNotExist(err), "no -out, no file")
}

func TestExhaustiveCLIBadValues(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"-strategy", "exhaustive", "-depth", "0"}, "fuzzrun: -depth: exhaustive depth 0: must be in [1, 64]"},
		{[]string{"-strategy", "exhaustive", "-max-faults", "9"}, "fuzzrun: -max-faults 9: must be in [1, 4]"},
		{[]string{"-strategy", "exhaustive", "-inputs", "9"}, "fuzzrun: -inputs 9: must be in [0, 8]"},
		{[]string{"-strategy", "exhaustive", "-inputs", "-1"}, "fuzzrun: -inputs -1: must be in [0, 8]"},
		{[]string{"-strategy", "exhaustive", "-runs", "3"}, "it takes no -runs"},
	} {
		code, _, stderr := cli(t, tc.args...)
		assert.Equal(t, fuzzrun.ExitUsage, code, "%v", tc.args)
		oneLine(t, stderr, tc.want)
	}
}

// TestExhaustiveCLIJSON: with -json, each row is an "explored" event, with
// its counterexample if any, after an "explore-depth" event per depth it
// finished without one, and a last "explore-summary" event counts the
// rows and gives the exit code; stdout holds nothing else.
func TestExhaustiveCLIJSON(t *testing.T) {
	dir := t.TempDir()
	code, out, stderr := cli(t, "-strategy", "exhaustive", "-scenario", "replicaset-edge", "-faults", "drop,duplicate", "-depth", "2", "-json", "-out", dir)
	require.Equal(t, fuzzrun.ExitUnexpected, code, "stderr:\n%s", stderr)
	lines := strings.Split(strings.TrimSpace(out), "\n")
	require.Len(t, lines, 2, out)
	var row struct {
		Type           string `json:"type"`
		Scenario       string `json:"scenario"`
		Depth          int    `json:"depth"`
		Guarantee      string `json:"guarantee"`
		Counterexample *struct {
			Verdict  string `json:"verdict"`
			Expected bool   `json:"expected"`
			File     string `json:"file"`
			Replay   string `json:"replay"`
			Report   string `json:"report"`
		} `json:"counterexample"`
	}
	require.NoError(t, json.Unmarshal([]byte(lines[0]), &row))
	assert.Equal(t, "explored", row.Type)
	assert.Equal(t, "replicaset-edge", row.Scenario)
	assert.Equal(t, 1, row.Depth)
	assert.Contains(t, row.Guarantee, "replicaset-edge: counterexample at depth 1 (goal-unmet)")
	require.NotNil(t, row.Counterexample)
	assert.Equal(t, "goal-unmet", row.Counterexample.Verdict)
	assert.False(t, row.Counterexample.Expected)
	assert.FileExists(t, row.Counterexample.File)
	assert.Contains(t, row.Counterexample.Replay, "-replay "+row.Counterexample.File)
	assert.Contains(t, row.Counterexample.Report, "converges violated (goal-unmet)")
	assert.Contains(t, row.Counterexample.Report, "Exploration tried the faithful faults alone (duplicate) first: none fails within this depth.")
	assert.NotContains(t, row.Counterexample.Report, "second search", "exploration makes none")

	var sum map[string]any
	require.NoError(t, json.Unmarshal([]byte(lines[1]), &sum))
	assert.Equal(t, "explore-summary", sum["type"])
	assert.EqualValues(t, 1, sum["rows"])
	assert.EqualValues(t, 1, sum["with_counterexample"])
	assert.EqualValues(t, 1, sum["unexpected"])
	assert.EqualValues(t, fuzzrun.ExitUnexpected, sum["exit_code"])

	// A row without a counterexample: an "explore-depth" event per depth
	// finished, then the row.
	code, out, _ = cli(t, "-strategy", "exhaustive", "-scenario", "replicaset-level", "-faults", "drop", "-depth", "2", "-json")
	require.Equal(t, fuzzrun.ExitOK, code)
	lines = strings.Split(strings.TrimSpace(out), "\n")
	require.Len(t, lines, 4, out)
	for i, depth := range []int{1, 2} {
		var ev map[string]any
		require.NoError(t, json.Unmarshal([]byte(lines[i]), &ev))
		assert.Equal(t, "explore-depth", ev["type"])
		assert.Equal(t, "replicaset-level", ev["scenario"])
		assert.EqualValues(t, depth, ev["depth"])
		assert.Positive(t, ev["executions"])
	}
	var clean map[string]any
	require.NoError(t, json.Unmarshal([]byte(lines[2]), &clean))
	assert.Equal(t, "explored", clean["type"])
	assert.NotContains(t, clean, "counterexample")
	assert.Contains(t, clean["guarantee"], "replicaset-level: no counterexample with ≤1 fault (drop) and ≤2 decisions (")
}
