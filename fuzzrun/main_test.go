package fuzzrun_test

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/converge-sim/converge/faults"
	"github.com/converge-sim/converge/fuzzrun"
	"github.com/converge-sim/converge/properties"
	"github.com/converge-sim/converge/scenarios"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func run(args ...string) (code int, stdout, stderr string) {
	var out, errOut bytes.Buffer
	code = fuzzrun.Run(args, &out, &errOut, scenarios.All())
	return code, out.String(), errOut.String()
}

func TestUsageErrorsExitTwoWithAMessage(t *testing.T) {
	for _, tc := range []struct {
		args []string
		msg  string
	}{
		{[]string{"-nope"}, "flag provided but not defined: -nope"},
		{[]string{"-scenario", "missing"}, `unknown scenario "missing"`},
		{[]string{"-faults", "drop,flood"}, `unknown fault kind "flood"`},
		{[]string{"-duration", "-1s"}, "-duration must be positive"},
		{[]string{"-seed", "0"}, "-seed must be at least 1"},
		{[]string{"extra"}, `unexpected argument "extra"`},
	} {
		code, _, stderr := run(tc.args...)
		assert.Equal(t, fuzzrun.ExitUsage, code, "%v", tc.args)
		assert.Contains(t, stderr, tc.msg, "%v", tc.args)
	}
}

func TestListShowsScenariosAndFaultKinds(t *testing.T) {
	code, out, _ := run("-list")
	require.Equal(t, fuzzrun.ExitOK, code)
	for _, want := range []string{"replicaset-level", "replicaset-noresync", "replicaset-edge", "under drop: fails: goal-unmet", "restart"} {
		assert.Contains(t, out, want)
	}
}

func TestCampaignRowsShowWhatEachScenarioMust(t *testing.T) {
	code, out, stderr := run("-json", "-duration", "6s")
	require.Equal(t, fuzzrun.ExitOK, code, "stdout:\n%s\nstderr:\n%s", out, stderr)
	lines := strings.Split(strings.TrimSpace(out), "\n")
	rows := 0
	for _, sc := range scenarios.All() {
		rows += len(sc.Expect)
	}
	require.Len(t, lines, rows)
	for _, line := range lines {
		var row map[string]any
		require.NoError(t, json.Unmarshal([]byte(line), &row))
		for _, key := range []string{"scenario", "faults", "runs", "failures", "expect", "ok"} {
			assert.Contains(t, row, key)
		}
		assert.Equal(t, true, row["ok"], line)
		assert.Positive(t, row["runs"], line)
	}
}

func TestUnexpectedRowExitsOne(t *testing.T) {
	// A scenario that claims the edge-triggered controller converges under
	// drop is wrong, and the campaign says so.
	wrong := scenarios.ReplicaSetEdge()
	wrong.Expect = []properties.Expectation{{Faults: faults.Mix{faults.KindDrop}}}
	var out, errOut bytes.Buffer
	code := fuzzrun.Run([]string{"-duration", "2s"}, &out, &errOut, []properties.Scenario{wrong})
	assert.Equal(t, fuzzrun.ExitUnexpected, code)
	assert.Contains(t, out.String(), "UNEXPECTED")
	assert.Contains(t, out.String(), `expected to show "converges", but failed`)
}

func TestReplayOfASeedIsByteIdentical(t *testing.T) {
	args := []string{"-scenario", "replicaset-edge", "-faults", "restart", "-seed", "1"}
	code1, out1, _ := run(args...)
	code2, out2, _ := run(args...)
	assert.Equal(t, fuzzrun.ExitOK, code1, "the failure is what the scenario must show")
	assert.Equal(t, code1, code2)
	assert.Equal(t, out1, out2)
	assert.Contains(t, out1, "trace (")
	assert.Contains(t, out1, "replay: go run ./cmd/fuzzrun -scenario replicaset-edge -faults restart -seed 1")
}
