//go:build unix

package fuzzrun_test

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/converge-sim/converge/fuzzrun"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestAnOutOfMemoryRunIsAnOOMFindingWithItsSeed: a reconcile that
// allocates without end hits the worker's memory limit and is an oom
// finding with its seed and the allocating stack, not "exit status 2"
// (issue 13, defect 5).
func TestAnOutOfMemoryRunIsAnOOMFindingWithItsSeed(t *testing.T) {
	dir := t.TempDir()
	code, out, stderr := cli(t, "-scenario", "allocating", "-runs", "1", "-workers", "2", "-worker-memory", "128", "-out", dir)
	assert.Equal(t, fuzzrun.ExitUnexpected, code, "stdout:\n%s", out)
	assert.Contains(t, stderr, "fatal error: out of memory")
	f, _ := onlyFinding(t, dir)
	assert.Equal(t, fuzzrun.VerdictOOM, f.Verdict)
	assert.Equal(t, "bounded memory", f.Property)
	assert.Equal(t, uint64(1), f.Seed)
	assert.Contains(t, f.Summary, "past this worker's limit of 128 MiB (-worker-memory)")
	assert.Contains(t, f.Report, "fuzzrun_test.allocateForever()", "the stack of the allocating reconcile")
	assert.Contains(t, f.ReplaySeed, "-scenario allocating -faults drop -seed 1")
}

// TestACrashKeepsItsFatalLineAndStack: a worker that dies of a panic no
// recover can catch leaves a crash finding with the panic line and the
// panicking goroutine's stack, trimmed (issue 13, defect 5).
func TestACrashKeepsItsFatalLineAndStack(t *testing.T) {
	dir := t.TempDir()
	code, out, _ := cli(t, "-scenario", "panicking-goroutine", "-runs", "1", "-workers", "2", "-out", dir)
	assert.Equal(t, fuzzrun.ExitUnexpected, code, "stdout:\n%s", out)
	f, _ := onlyFinding(t, dir)
	assert.Equal(t, fuzzrun.VerdictCrash, f.Verdict)
	assert.Contains(t, f.Summary, "exit status 2): panic: boom outside the model")
	assert.Contains(t, f.Report, "fuzzrun_test.panicOutsideTheModel()")
	assert.LessOrEqual(t, strings.Count(f.Report, "\n"), 45, "trimmed:\n%s", f.Report)
}

// TestASpinningRunIsAHangFindingWithItsStack: a reconcile that loops for
// good is caught by the run's time limit inside the worker: a hang
// finding with its seed, its choices and the spinning stack, which
// replays (from the file or the seed) as a hang instead of hanging
// silently (issue 13, defect 4).
func TestASpinningRunIsAHangFindingWithItsStack(t *testing.T) {
	dir := t.TempDir()
	code, out, stderr := cli(t, "-scenario", "spinning", "-runs", "2", "-workers", "2", "-out", dir, "-rapid.shrinktime", "1s")
	assert.Equal(t, fuzzrun.ExitUnexpected, code, "stdout:\n%s\nstderr:\n%s", out, stderr)
	f, path := onlyFinding(t, dir)
	assert.Equal(t, fuzzrun.VerdictHang, f.Verdict)
	assert.False(t, f.Lost(), "caught inside the run, with its schedule and choices")
	assert.Equal(t, uint64(1), f.Seed, "the smallest seed of the two")
	assert.Contains(t, f.Report, "fuzzrun_test.spinForever()")

	code, out, _ = cli(t, "-replay", path)
	assert.Equal(t, fuzzrun.ExitUnexpected, code)
	assert.Contains(t, out, "terminates violated (hang)")
	code, out, _ = cli(t, "-scenario", "spinning", "-faults", "drop", "-seed", "1", "-rapid.shrinktime", "1s")
	assert.Equal(t, fuzzrun.ExitUnexpected, code)
	assert.Contains(t, out, "terminates violated (hang)")
	assert.Contains(t, out, "fuzzrun_test.spinForever()")
}

// TestASeedReplayTakesARunTimeout: the seed replay accepts -run-timeout,
// which bounds its whole search (issue 13, defect 4).
func TestASeedReplayTakesARunTimeout(t *testing.T) {
	code, _, stderr := cli(t, "-scenario", "hanging", "-faults", "drop", "-seed", "1", "-run-timeout", "500ms")
	assert.Equal(t, fuzzrun.ExitUnexpected, code)
	oneLine(t, stderr, "fuzzrun: hang: scenario hanging, faults drop, seed 1: the search did not finish within -run-timeout 500ms")
}

// TestAReplayThatLeavesItsPathExitsNonZero: a replay that does not follow
// its recorded choices says so and exits 2; two replays that differ are
// "nondeterministic", exit 1, with the first differing step (issue 13,
// defect 7).
func TestAReplayThatLeavesItsPathExitsNonZero(t *testing.T) {
	for _, tc := range []struct {
		name    string
		choices []int
		want    string
	}{
		{"a choice out of range", []int{4, 99, 0, 2}, "the replay left the recorded path: recorded choice 1 is 99, but the run offered"},
		{"no choices", []int{}, "the replay left the recorded path: the run asked for a step choice after all 0 recorded ones"},
		{"choices left over", []int{4, 2, 0, 2, 1, 1}, "the replay left the recorded path: the run ended after 4 of the 6 recorded choices"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, _, stderr := cli(t, "-replay", editedFinding(t, map[string]any{"choices": tc.choices}))
			assert.Equal(t, fuzzrun.ExitUsage, code, stderr)
			oneLine(t, stderr, tc.want)
			assert.Contains(t, stderr, "search its seed again with: go run ./cmd/fuzzrun -scenario replicaset-edge -faults restart -seed 1")
		})
	}
	t.Run("a nondeterministic controller", func(t *testing.T) {
		path := editedFinding(t, map[string]any{
			"scenario": "warming-up",
			"schedule": json.RawMessage(`[{"at": 0, "kind": "restart", "controller": "warming-up", "down": 1}]`),
		})
		code, _, stderr := cli(t, "-replay", path)
		assert.Equal(t, fuzzrun.ExitUnexpected, code, stderr)
		assert.Contains(t, stderr, "fuzzrun: nondeterministic: the controller reads something outside the model: two replays of the same schedule and choices differ at step")
		assert.Contains(t, stderr, "requeue after 7", "the first differing step, as each replay saw it")
	})
}

// TestFindingFilesDoNotDependOnWorkerTiming: two identical campaigns on
// several workers write the same files, byte for byte (issue 13, defect 6).
func TestFindingFilesDoNotDependOnWorkerTiming(t *testing.T) {
	var dirs [2]string
	for i := range dirs {
		dirs[i] = t.TempDir()
		code, _, stderr := cli(t, "-scenario", "replicaset-edge", "-faults", "restart", "-runs", "12", "-workers", "2", "-out", dirs[i])
		require.Equal(t, fuzzrun.ExitOK, code, stderr)
	}
	read := func(dir string) map[string]string {
		entries, err := os.ReadDir(dir)
		require.NoError(t, err)
		files := map[string]string{}
		for _, e := range entries {
			data, err := os.ReadFile(filepath.Join(dir, e.Name()))
			require.NoError(t, err)
			// The replay command names the directory; all else must match.
			files[e.Name()] = strings.ReplaceAll(string(data), dir, "DIR")
		}
		return files
	}
	a, b := read(dirs[0]), read(dirs[1])
	require.NotEmpty(t, a)
	assert.Equal(t, a, b)
}

// TestSmallerDefects: the items of issue 13's point 8, each through the
// real command line.
func TestSmallerDefects(t *testing.T) {
	t.Run("-runs 0 runs until -duration", func(t *testing.T) {
		cmd := cliCommand(t, "-json", "-runs", "0", "-scenario", "replicaset-level", "-faults", "drop", "-workers", "1")
		stdout, err := cmd.StdoutPipe()
		require.NoError(t, err)
		require.NoError(t, cmd.Start())
		defer func() { _ = cmd.Process.Kill(); _ = cmd.Wait() }()
		sc := bufio.NewScanner(stdout)
		require.True(t, sc.Scan())
		var start map[string]any
		require.NoError(t, json.Unmarshal(sc.Bytes(), &start))
		assert.Equal(t, "start", start["type"])
		assert.InDelta(t, fuzzrun.DefaultDuration.Seconds(), start["duration_s"], 0, "the default budget, not forever")
	})
	t.Run("the seed space ends instead of wrapping to 0", func(t *testing.T) {
		code, out, stderr := cli(t, "-json", "-seed", "18446744073709551614", "-duration", "1m", "-scenario", "replicaset-level", "-faults", "drop", "-workers", "1")
		require.Equal(t, fuzzrun.ExitOK, code, stderr)
		assert.InDelta(t, 2, events(t, out)["summary"][0]["runs"], 0, "seeds 2^64-2 and 2^64-1, then none")
	})
	t.Run("a campaign starts no more workers than it has seeds", func(t *testing.T) {
		code, out, stderr := cli(t, "-json", "-runs", "1", "-scenario", "replicaset-level", "-faults", "drop", "-workers", "4")
		require.Equal(t, fuzzrun.ExitOK, code, stderr)
		assert.InDelta(t, 1, events(t, out)["start"][0]["workers"], 0)
	})
	t.Run("an interrupted campaign with no runs exits 1", func(t *testing.T) {
		cmd := cliCommand(t, "-json", "-scenario", "hanging", "-duration", "10m", "-workers", "2")
		stdout, err := cmd.StdoutPipe()
		require.NoError(t, err)
		require.NoError(t, cmd.Start())
		sc := bufio.NewScanner(stdout)
		require.True(t, sc.Scan(), "the start event")
		require.NoError(t, cmd.Process.Signal(syscall.SIGINT))
		require.NoError(t, cmd.Process.Signal(syscall.SIGINT)) // a second one abandons the runs in flight
		var summary map[string]any
		for sc.Scan() {
			require.NoError(t, json.Unmarshal(sc.Bytes(), &summary))
		}
		err = cmd.Wait()
		require.Error(t, err)
		assert.Equal(t, fuzzrun.ExitUnexpected, cmd.ProcessState.ExitCode())
		assert.Equal(t, "summary", summary["type"])
		assert.InDelta(t, 0, summary["runs"], 0)
	})
	t.Run("an unwritable -out is not reported as written", func(t *testing.T) {
		// The same campaign into a writable directory names the file.
		first := t.TempDir()
		code, _, _ := cli(t, "-scenario", "replicaset-edge", "-faults", "restart", "-seed", edgeSeed, "-runs", "1", "-workers", "1", "-out", first)
		require.Equal(t, fuzzrun.ExitOK, code)
		names, err := filepath.Glob(filepath.Join(first, "finding-*.json"))
		require.NoError(t, err)
		require.Len(t, names, 1)
		dir := t.TempDir()
		// A directory where the finding's file must go: the rename fails,
		// even for root.
		blocker := filepath.Join(dir, filepath.Base(names[0]))
		require.NoError(t, os.MkdirAll(filepath.Join(blocker, "x"), 0o755))
		code, out, stderr := cli(t, "-scenario", "replicaset-edge", "-faults", "restart", "-seed", edgeSeed, "-runs", "1", "-workers", "1", "-out", dir)
		assert.Equal(t, fuzzrun.ExitUsage, code)
		assert.Contains(t, stderr, "cannot write finding")
		assert.Contains(t, out, "1 writes to "+dir+" failed")
		assert.NotContains(t, out, "in "+dir+"\n")
	})
}

// TestAHangInProcessSaysItsGoroutineStays: with -workers 1 the hang is
// found all the same, and the campaign says why its goroutine cannot be
// ended.
func TestAHangInProcessSaysItsGoroutineStays(t *testing.T) {
	code, out, stderr := cli(t, "-scenario", "spinning", "-runs", "1", "-workers", "1", "-rapid.shrinktime", "1s")
	assert.Equal(t, fuzzrun.ExitUnexpected, code, out)
	assert.Contains(t, out, "hang")
	assert.Contains(t, stderr, "a hung run's goroutine stays in this process for good")
}
