//go:build unix

package fuzzrun_test

import (
	"bufio"
	"encoding/json"
	"fmt"
	"log"
	"os"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/converge-sim/converge/controllers/replicaset"
	"github.com/converge-sim/converge/faults"
	"github.com/converge-sim/converge/fuzzrun"
	"github.com/converge-sim/converge/model"
	"github.com/converge-sim/converge/properties"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// stdoutLogger captures os.Stdout when this package initializes, as a
// reconciler package's logger might: in a worker process that is before
// fuzzrun could redirect anything (issue 37, item 3).
var stdoutLogger = log.New(os.Stdout, "printing: ", 0)

// printAll prints from a reconcile, to the captured os.Stdout and through
// fmt, lines that look nothing like the worker protocol's.
func printAll(req model.Request) {
	stdoutLogger.Printf("reconciling %v", req)
	fmt.Println("printing: fmt.Println from a reconcile")
}

// printing is the level-triggered ReplicaSet controller, which converges
// under drop, printing on every reconcile.
func printing() properties.Scenario {
	ctrl := replicaset.Level(replicaset.LevelOptions{Name: "printing", Resync: 20})
	inner := ctrl.NewReconciler
	ctrl.NewReconciler = func(c model.Client) model.Reconciler {
		r := inner(c)
		return model.ReconcilerFunc(func(req model.Request) (model.Result, error) {
			printAll(req)
			return r.Reconcile(req)
		})
	}
	sc := broken("printing", func() {})
	sc.Build = worldOf(ctrl)
	return sc
}

// printingIdle prints on every reconcile and does nothing else, so it
// must fail with goal-unmet under drop.
func printingIdle() properties.Scenario {
	sc := broken("printing-idle", func() { printAll(model.Request{}) })
	sc.Expect = []properties.Expectation{{Faults: faults.Mix{faults.KindDrop}, Fails: properties.GoalUnmet}}
	return sc
}

// resultsFD is where a worker writes its results, found as hostile code
// could: from the environment its parent set, read at init. Without it
// the worker's results went to its stdout.
var resultsFD = func() int {
	_, results, ok := strings.Cut(os.Getenv("CONVERGE_FUZZRUN_WORKER_FDS"), ",")
	if !ok {
		return syscall.Stdout
	}
	fd, err := strconv.Atoi(results)
	if err != nil {
		return syscall.Stdout
	}
	return fd
}()

// garbage is what garbling writes on the results descriptor: a line that
// is not a result, far longer than an error may echo.
var garbage = "this is not a result " + strings.Repeat("x", 1<<20) + "\n"

// garbling writes garbage on its worker's results descriptor, as only
// code out to break the protocol does.
func garbling() properties.Scenario {
	return broken("garbling", func() { _, _ = syscall.Write(resultsFD, []byte(garbage)) })
}

// closing closes its worker's results descriptor and waits for good (its
// run has an hour): a worker whose results end mid-job, alive.
func closing() properties.Scenario {
	sc := broken("closing", func() {
		_ = syscall.Close(resultsFD)
		time.Sleep(time.Hour)
	})
	sc.RunTimeout = time.Hour
	return sc
}

// TestUserOutputCannotBreakTheWorkerProtocol: a controller that prints to
// os.Stdout, through a logger that captured it at init and through fmt,
// runs in worker processes as any other: the campaign ends with the
// right verdicts, every line of its stdout is a JSON event, and what the
// controller printed is on stderr (issue 37, item 3). -run-timeout keeps
// a campaign that breaks from blocking the test for long.
func TestUserOutputCannotBreakTheWorkerProtocol(t *testing.T) {
	code, out, stderr := cli(t, "-json", "-scenario", "printing,printing-idle", "-runs", "6", "-workers", "2", "-run-timeout", "20s", "-rapid.shrinktime", "1s")
	require.Equal(t, fuzzrun.ExitOK, code, "stdout:\n%s\nstderr:\n%s", out, stderr)
	assertPrintedRows(t, out, stderr)
}

// TestInProcessRunsKeepUserOutputOffStdout: with -workers 1, and in an
// exhaustive exploration, the runs are in fuzzrun's own process, and what
// a controller prints still goes to stderr, never among the -json events
// (issue 37, item 4).
func TestInProcessRunsKeepUserOutputOffStdout(t *testing.T) {
	code, out, stderr := cli(t, "-json", "-scenario", "printing,printing-idle", "-runs", "6", "-workers", "1", "-rapid.shrinktime", "1s")
	require.Equal(t, fuzzrun.ExitOK, code, "stdout:\n%s\nstderr:\n%s", out, stderr)
	assertPrintedRows(t, out, stderr)

	// An exhaustive exploration runs in this process too.
	code, out, stderr = cli(t, "-json", "-strategy", "exhaustive", "-scenario", "printing", "-depth", "3", "-workers", "1")
	require.Equal(t, fuzzrun.ExitOK, code, "stdout:\n%s\nstderr:\n%s", out, stderr)
	evs := events(t, out)
	assert.Len(t, evs["explored"], 1, out)
	assert.Len(t, evs["explore-summary"], 1, out)
	assert.Contains(t, stderr, "printing: fmt.Println from a reconcile")
}

// assertPrintedRows checks the campaign over printing and printing-idle:
// every line of stdout is a JSON event, each row shows what it must, and
// the printed lines are on stderr.
func assertPrintedRows(t *testing.T, out, stderr string) {
	t.Helper()
	evs := events(t, out)
	require.Len(t, evs["row"], 2, out)
	for _, row := range evs["row"] {
		assert.Equal(t, true, row["ok"], row)
		assert.InDelta(t, 6, row["runs"], 0, row)
		if row["scenario"] == "printing" {
			assert.InDelta(t, 0, row["failures"], 0, row)
		} else {
			assert.Equal(t, "goal-unmet", row["first_verdict"], row)
		}
	}
	require.Len(t, evs["summary"], 1)
	assert.Contains(t, stderr, "printing: reconciling ")
	assert.Contains(t, stderr, "printing: fmt.Println from a reconcile")
}

// TestASeedReplayKeepsUserOutputOffItsJSONTrace: -trace-json prints the
// trace as JSON lines on stdout; what the controller printed while the
// seed ran goes to stderr (issue 37, item 4).
func TestASeedReplayKeepsUserOutputOffItsJSONTrace(t *testing.T) {
	code, out, stderr := cli(t, "-scenario", "printing-idle", "-faults", "drop", "-seed", "1", "-trace-json", "-rapid.shrinktime", "1s")
	require.Equal(t, fuzzrun.ExitOK, code, "stdout:\n%s\nstderr:\n%s", out, stderr)
	sc := bufio.NewScanner(strings.NewReader(out))
	sc.Buffer(nil, 1<<24)
	lines := 0
	for sc.Scan() {
		var rec map[string]any
		require.NoError(t, json.Unmarshal(sc.Bytes(), &rec), sc.Text())
		assert.Contains(t, rec, "step")
		lines++
	}
	assert.Positive(t, lines)
	assert.Contains(t, stderr, "printing: fmt.Println from a reconcile")
	assert.Contains(t, stderr, "goal-unmet", "the report")
}

// TestAWorkerThatBreaksTheProtocolIsANamedError: a worker that writes a
// line that is not a result on its results descriptor stops the campaign
// at once, exit 2, with an error that names the worker and quotes the
// start of what it read, not all of it (issue 37, item 3). -duration 10m
// would keep a campaign that does not notice running past cliGuard.
func TestAWorkerThatBreaksTheProtocolIsANamedError(t *testing.T) {
	code, out, stderr := cli(t, "-scenario", "garbling", "-duration", "10m", "-workers", "2")
	assert.Equal(t, fuzzrun.ExitUsage, code, "stdout:\n%s", out)
	var line string
	for _, l := range strings.Split(stderr, "\n") {
		if strings.Contains(l, "broke the protocol") {
			line = l
		}
	}
	require.NotEmpty(t, line, "stderr:\n%.2000s", stderr)
	assert.Regexp(t, `^fuzzrun: worker \d+ \(pid \d+\) broke the protocol: it wrote a line of 1048597 bytes that is not a result: "this is not a result xxx+…" \(1048597 bytes\): `, line)
	assert.Less(t, len(line), 400, "what was read is truncated")
	assert.Contains(t, out, "stopped early: worker ")
}

// TestAWorkerWhoseResultsEndMidJobIsACrashAtOnce: a worker whose results
// end while it runs a job is done for: the campaign kills it at once and
// records the run as a crash, instead of waiting for a process that may
// never exit (issue 37, item 3). Its run would take an hour, and
// -run-timeout two minutes, past cliGuard.
func TestAWorkerWhoseResultsEndMidJobIsACrashAtOnce(t *testing.T) {
	dir := t.TempDir()
	code, out, stderr := cli(t, "-scenario", "closing", "-runs", "1", "-workers", "2", "-out", dir)
	assert.Equal(t, fuzzrun.ExitUnexpected, code, "stdout:\n%s\nstderr:\n%s", out, stderr)
	f, _ := onlyFinding(t, dir)
	assert.Equal(t, fuzzrun.VerdictCrash, f.Verdict)
	assert.Equal(t, "the worker died during the run: worker exited: signal: killed", f.Summary)
	assert.Equal(t, uint64(1), f.Seed)
}
