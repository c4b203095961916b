//go:build unix

package fuzzrun_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// cliEnv makes the test binary run as fuzzrun (see TestMain).
const cliEnv = "CONVERGE_FUZZRUN_TEST_CLI"

// cliGuard only keeps a broken test from hanging the suite; no test
// depends on it.
const cliGuard = 2 * time.Minute

// cli runs fuzzrun as a real subprocess (this test binary, see TestMain)
// and returns its exit code, stdout and stderr.
func cli(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	cmd := cliCommand(t, args...)
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	err := cmd.Run()
	var exit *exec.ExitError
	switch {
	case errors.As(err, &exit):
		code = exit.ExitCode()
	case err != nil:
		t.Fatalf("running fuzzrun: %v", err)
	}
	return code, out.String(), errOut.String()
}

// cliCommand is the command cli runs, for tests that drive it themselves.
func cliCommand(t *testing.T, args ...string) *exec.Cmd {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), cliGuard)
	t.Cleanup(cancel)
	cmd := exec.CommandContext(ctx, os.Args[0], args...)
	cmd.Env = append(os.Environ(), cliEnv+"=1")
	return cmd
}

// oneLine asserts that stderr is a single line containing want.
func oneLine(t *testing.T, stderr, want string) {
	t.Helper()
	require.Contains(t, stderr, want)
	require.Equal(t, 1, strings.Count(strings.TrimRight(stderr, "\n"), "\n")+1, "one line:\n%s", stderr)
}

// editedFinding writes a copy of the edge finding with fields changed
// (a nil value removes the field, a json.RawMessage is written as is) and
// returns its path.
func editedFinding(t *testing.T, changes map[string]any) string {
	t.Helper()
	data, err := os.ReadFile(edgeFinding)
	require.NoError(t, err)
	var f map[string]any
	require.NoError(t, json.Unmarshal(data, &f))
	for k, v := range changes {
		if v == nil {
			delete(f, k)
			continue
		}
		f[k] = v
	}
	out, err := json.MarshalIndent(f, "", "  ")
	require.NoError(t, err)
	path := filepath.Join(t.TempDir(), "finding-edited.json")
	require.NoError(t, os.WriteFile(path, out, 0o644))
	return path
}
