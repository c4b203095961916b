//go:build unix

package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/converge-sim/converge/fuzzrun"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// cliEnv makes the test binary run as the program (see TestMain).
const cliEnv = "CONVERGE_INPUTCAMPAIGN_TEST_CLI"

func TestMain(m *testing.M) {
	if os.Getenv(cliEnv) != "" {
		main()
	}
	os.Exit(m.Run())
}

// cli runs the program as a real subprocess (this test binary) and
// returns its exit code, stdout and stderr.
func cli(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	cmd := exec.Command(os.Args[0], args...)
	cmd.Env = append(os.Environ(), cliEnv+"=1")
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	err := cmd.Run()
	var exit *exec.ExitError
	code := 0
	switch {
	case errors.As(err, &exit):
		code = exit.ExitCode()
	case err != nil:
		t.Fatalf("running inputcampaign: %v", err)
	}
	return code, out.String(), errOut.String()
}

// events splits -json output by event type.
func events(t *testing.T, out string) map[string][]map[string]any {
	t.Helper()
	byType := map[string][]map[string]any{}
	sc := bufio.NewScanner(strings.NewReader(out))
	sc.Buffer(nil, 1<<24)
	for sc.Scan() {
		var ev map[string]any
		require.NoError(t, json.Unmarshal(sc.Bytes(), &ev), sc.Text())
		typ, _ := ev["type"].(string)
		byType[typ] = append(byType[typ], ev)
	}
	return byType
}

// A user's own fuzzrun program runs input campaigns of controller-runtime
// operators: rows show what each scenario must, a finding file holds the
// shrunk transitions, and its replay prints the same report every time.
func TestAnInputCampaignOfOperatorsFindsAndReplays(t *testing.T) {
	dir := t.TempDir()
	// The stale log level needs a transition that sets it and a later one
	// that removes it: about one run in twenty draws that (three of 60
	// from seed 1, the first at seed 31), so 40 runs a row.
	code, out, stderr := cli(t, "-json", "-scenario", "kvstore-stale-loglevel,gateway-nil-secret,kvstore-fixed", "-runs", "40", "-workers", "1", "-out", dir)
	require.Equal(t, fuzzrun.ExitOK, code, "%s\n%s", out, stderr)
	ev := events(t, out)
	rows := map[string]map[string]any{}
	for _, r := range ev["row"] {
		rows[r["scenario"].(string)+"/"+r["faults"].(string)] = r
	}
	require.Len(t, rows, 4, out)
	assert.Equal(t, "history-dependent", rows["kvstore-stale-loglevel/none"]["first_verdict"])
	assert.EqualValues(t, 2, rows["kvstore-stale-loglevel/none"]["shrunk_transitions"])
	assert.Equal(t, "panic", rows["gateway-nil-secret/none"]["first_verdict"])
	assert.EqualValues(t, 1, rows["gateway-nil-secret/none"]["shrunk_transitions"])
	assert.EqualValues(t, 0, rows["kvstore-fixed/none"]["failures"])
	assert.EqualValues(t, 0, rows["kvstore-fixed/restart"]["failures"])
	var files []string
	for _, found := range ev["finding"] {
		if found["new"] == true {
			files = append(files, found["file"].(string))
		}
	}
	require.Len(t, files, 2, "one finding file per bug")

	for _, path := range files {
		f, err := fuzzrun.ReadFinding(path)
		require.NoError(t, err)
		assert.NotEmpty(t, f.Transitions)
		code1, out1, stderr1 := cli(t, "-replay", path)
		require.Equal(t, fuzzrun.ExitOK, code1, stderr1)
		_, out2, _ := cli(t, "-replay", path)
		assert.Equal(t, out1, out2, "a replay is byte for byte the same")
		assert.Contains(t, out1, "inputs (")
	}
}
