// Package fuzzrun is the campaign runner behind cmd/fuzzrun, as a library:
// a program that calls Main with its own scenarios gets the same command
// line for its own controllers.
//
//	func main() { fuzzrun.Main(myScenarios()...) }
//
// A campaign runs every scenario under each fault mix it declares, seed
// after seed, on worker processes (the program re-executes itself; Main
// and Run serve as the worker when re-executed), for a wall-clock budget
// or a number of seeds, optionally as one shard of a CI matrix or a
// Kubernetes Indexed Job. Each finding is written to its own file the
// moment it is confirmed, and replays exactly with -replay, or under go
// test with RequireFixed. docs/ci.md shows nightly campaigns in CI.
//
// A project whose controllers read the wall clock (controller-runtime
// reconcilers) makes its test binary its fuzzrun instead, with MainTest,
// so that every run is inside a testing/synctest bubble:
//
//	func TestFuzzrun(t *testing.T) { fuzzrun.MainTest(t, myScenarios()...) }
package fuzzrun

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"

	"github.com/converge-sim/converge/faults"
	"github.com/converge-sim/converge/properties"
	"pgregory.net/rapid"
)

// Exit codes.
const (
	ExitOK         = 0 // every row showed what it must
	ExitUnexpected = 1 // a wrong verdict: some row showed what it must not, or a replay did not show its finding
	ExitUsage      = 2 // bad flags or input, such as a corrupt finding file
	// ExitNotShown: no wrong verdict, but some row that must fail did not
	// fail within its budget (its own cap past -duration, or the seeds of
	// -runs); a longer budget may show it.
	ExitNotShown = 3
)

// Main runs the command line over scenarios and exits with its code. In a
// worker process of a campaign it serves as the worker instead. Either way
// it first tunes the Go runtime for campaign work: one thread
// (GOMAXPROCS=1) and less frequent collection (GOGC=400), unless the
// environment sets GOMAXPROCS or GOGC.
func Main(scenarios ...properties.Scenario) {
	ServeIfWorker(scenarios...)
	tuneRuntime()
	os.Exit(Run(os.Args[1:], os.Stdout, os.Stderr, scenarios))
}

// ServeIfWorker returns at once unless this process is a worker of a
// campaign (see -workers): then it runs the campaign's jobs against
// scenarios and exits. Main calls it first. A test binary that runs
// campaigns through Run with more than one worker calls it first in
// TestMain, since its workers are the test binary re-executed:
//
//	func TestMain(m *testing.M) {
//		fuzzrun.ServeIfWorker(myScenarios()...)
//		os.Exit(m.Run())
//	}
func ServeIfWorker(scenarios ...properties.Scenario) {
	v, ok := os.LookupEnv(workerEnv)
	if !ok {
		return
	}
	if v != workerProtocol {
		fmt.Fprintf(os.Stderr, "fuzzrun: worker protocol %q, want %q: the parent is another version of this program\n", v, workerProtocol)
		os.Exit(ExitUsage)
	}
	// rapid's flags (-rapid.shrinktime, …) and -worker-memory come as
	// arguments.
	os.Exit(serve(os.Args[1:], scenarios, workerEnv, nil))
}

// serve is a worker process's side of a campaign, with args (rapid's
// flags and -worker-memory), the descriptors workerFDsEnv names, and
// every search inside wrap when it is not nil; env is the variable that
// made this process a worker. It returns the exit code.
func serve(args []string, scenarios []properties.Scenario, env string, wrap func(func(*rapid.T)) func(*rapid.T)) int {
	opts, err := parse(args, os.Stderr, scenarios, func(string) string { return "" })
	if err != nil {
		fmt.Fprintf(os.Stderr, "fuzzrun worker: %v\n", err)
		return ExitUsage
	}
	jobs, results, err := workerFiles(os.Getenv(workerFDsEnv))
	if err != nil {
		fmt.Fprintf(os.Stderr, "fuzzrun worker: %v\n", err)
		return ExitUsage
	}
	// User code that starts this program again starts no worker.
	_, _ = os.Unsetenv(env), os.Unsetenv(workerFDsEnv)
	tuneRuntime()
	limitMemory(opts.workerMemory, os.Stderr)
	// Jobs and results have descriptors of their own; the campaign gave
	// this process its stderr as stdout, so what user code prints goes
	// there.
	return serveWorker(jobs, results, scenarios, wrap)
}

// Run runs the command line args over scenarios, writing to stdout and
// stderr, and returns the exit code. When stdout is os.Stdout, Run points
// the process's stdout descriptor at stderr while it runs, and writes its
// own output through a copy of it: what the controllers print (with
// fmt.Println, or a logger that holds os.Stdout) goes to stderr, never
// among the -json events or a -trace-json trace.
func Run(args []string, stdout, stderr io.Writer, scenarios []properties.Scenario) int {
	return run(args, stdout, stderr, scenarios, nil)
}

// run is Run in a program that host, when not nil, says is a test
// binary (MainTest).
func run(args []string, stdout, stderr io.Writer, scenarios []properties.Scenario, host *testHost) int {
	stderr = &lockedWriter{w: stderr}
	if _, ok := os.LookupEnv(workerEnv); ok {
		fmt.Fprintln(stderr, "fuzzrun: this process is a campaign's worker, but it did not call fuzzrun.ServeIfWorker before Run (in TestMain for a test binary)")
		return ExitUsage
	}
	stdout, restore := privateStdout(stdout)
	defer restore()
	opts, err := parse(args, stderr, scenarios, os.Getenv)
	if errors.Is(err, flag.ErrHelp) {
		return ExitOK
	}
	if err != nil {
		fmt.Fprintf(stderr, "fuzzrun: %v\n", err)
		return ExitUsage
	}
	opts.host = host
	switch opts.mode {
	case modeList:
		list(stdout, opts.scenarios)
		return ExitOK
	case modeReplayFile:
		return replayFile(stdout, stderr, opts, scenarios)
	case modeReplaySeed:
		return replaySeed(stdout, stderr, opts)
	case modeExplore:
		return explore(stdout, stderr, opts)
	case modeMerge:
		return merge(stdout, stderr, opts)
	}
	if len(rows(opts)) == 0 {
		fmt.Fprintln(stderr, "fuzzrun: no rows: the selected scenarios declare no fault mixes; pick one with -faults")
		return ExitUsage
	}
	c, warnings, err := newCampaign(opts, stdout, stderr)
	if err != nil {
		fmt.Fprintf(stderr, "fuzzrun: %v\n", err)
		return ExitUsage
	}
	for _, w := range warnings {
		fmt.Fprintf(stderr, "fuzzrun: %s\n", w)
	}
	return c.run()
}

func list(w io.Writer, scenarios []properties.Scenario) {
	fmt.Fprintln(w, "scenarios:")
	for _, sc := range scenarios {
		fmt.Fprintf(w, "  %s\n      %s\n", sc.Name, sc.Doc)
		for _, e := range sc.Expect {
			fmt.Fprintf(w, "      under %s: %s\n", e.Faults, e)
		}
	}
	fmt.Fprintln(w, "fault kinds (class: faithful = real API servers and client-go do it; adversarial = stands for a handler bug):")
	for _, k := range faults.Kinds() {
		class, _ := faults.ClassOf(k)
		fmt.Fprintf(w, "  %-10s %-11s %s\n  %-10s %-11s why: %s\n", k, class, faults.Describe(k), "", "", faults.Why(k))
	}
	fmt.Fprintln(w, "strategies:")
	for _, s := range properties.Strategies() {
		fmt.Fprintf(w, "  %-8s %s\n", s.Name, s.Help)
	}
}
