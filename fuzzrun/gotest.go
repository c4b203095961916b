package fuzzrun

import (
	"flag"
	"fmt"
	"os"
	"regexp"
	"strings"
	"testing"
	"testing/synctest"

	"github.com/converge-sim/converge/properties"
	"pgregory.net/rapid"
)

// TestWorkerEnv is the variable, set to "1", that makes a test binary
// re-executed by a MainTest campaign serve as one of its workers.
const TestWorkerEnv = "CONVERGE_FUZZRUN_WORKER_TEST"

// MainTest makes the test binary that holds it the fuzzrun of scenarios:
// the same command line as Main, with every run inside its own
// testing/synctest bubble, so that the time user code reads (a
// controller-runtime reconciler's time.Now, its requeue timers) is
// virtual and every run, replay and timeline page replays byte for byte,
// timestamps included. A campaign's workers are the test binary
// re-executed to run this test alone (docs/design.md, "Campaigns in a
// test binary").
//
//	func TestFuzzrun(t *testing.T) { fuzzrun.MainTest(t, campaign...) }
//
// built and run with fuzzrun's flags after "--":
//
//	go test -c -o cronjob.test ./examples/cronjob
//	./cronjob.test -test.run '^TestFuzzrun$' -- -duration 10m -workers 2 -out findings -json
//
// Without arguments after "--", as under a plain go test, MainTest skips
// the test. With them, the process is fuzzrun: MainTest exits with
// fuzzrun's exit code (ExitOK, ExitUnexpected, …) and testing prints
// nothing of its own, so -json output stays JSON lines. Run the binary
// without -test.v, which would print testing's lines among them.
func MainTest(t *testing.T, scenarios ...properties.Scenario) {
	t.Helper()
	host := &testHost{t: t, pattern: runPattern(t.Name())}
	if os.Getenv(TestWorkerEnv) == "1" {
		host.setCommand(os.Args[0])
		exit(serve(flag.Args(), scenarios, TestWorkerEnv, host.searchWrap()))
		return
	}
	args := flag.Args()
	if len(args) == 0 {
		t.Skipf("fuzzrun.MainTest runs only with fuzzrun's flags after --: go test -c -o x.test && ./x.test -test.run %s -- -duration 1m -out findings (-help lists them)", shellQuote(host.pattern))
	}
	host.setCommand(os.Args[0])
	tuneRuntime()
	exit(run(args, os.Stdout, os.Stderr, scenarios, host))
}

// exit ends the process with code, before testing prints its verdict
// among fuzzrun's output. Under go test -args, which makes testing report
// os.Exit(0) as a failure (-test.paniconexit0), a code of 0 lets the test
// pass instead.
func exit(code int) {
	if f := flag.Lookup("test.paniconexit0"); code == ExitOK && f != nil && f.Value.String() == "true" {
		return
	}
	os.Exit(code)
}

// testHost is the test binary a MainTest campaign runs in.
type testHost struct {
	t *testing.T
	// pattern is the -test.run pattern that runs t alone.
	pattern string
}

// searchWrap is every search's Wrap (SearchOptions, ExploreOptions): its
// runs inside bubbles; nil outside a test binary.
func (h *testHost) searchWrap() func(func(*rapid.T)) func(*rapid.T) {
	if h == nil {
		return nil
	}
	return properties.InBubble(h.t)
}

// runWrap is the Wrap of every replay (RunOptions): inside a bubble; nil
// outside a test binary.
func (h *testHost) runWrap() func(func()) {
	if h == nil {
		return nil
	}
	return func(run func()) {
		synctest.Test(h.t, func(*testing.T) { run() })
	}
}

// workerSpec is how to start a worker of exe with args: the test binary
// itself, made to run this test alone and to serve as a worker, with
// argv0 as this process's so that its replay lines name the binary as
// the campaign's do. Outside a test binary, exe re-executed as Main's
// worker.
func (h *testHost) workerSpec(exe string, args []string) procSpec {
	if h == nil {
		return procSpec{exe: exe, args: args, env: []string{workerEnv + "=" + workerProtocol}}
	}
	return procSpec{
		exe:   exe,
		argv0: os.Args[0],
		args:  append([]string{"-test.run", h.pattern, "--"}, args...),
		env:   []string{TestWorkerEnv + "=1"},
	}
}

// setCommand sets the command replay lines name: argv0 running this test
// alone, with fuzzrun's flags after "--".
func (h *testHost) setCommand(argv0 string) {
	c := fmt.Sprintf("%s -test.run %s --", shellWord(argv0), shellQuote(h.pattern))
	testCommand.Store(&c)
}

// runPattern is the -test.run pattern that runs the test named name
// (t.Name(), whose subtests are elements of the pattern) alone.
func runPattern(name string) string {
	elems := strings.Split(name, "/")
	for i, e := range elems {
		elems[i] = "^" + regexp.QuoteMeta(e) + "$"
	}
	return strings.Join(elems, "/")
}

// shellQuote quotes s for a POSIX shell.
func shellQuote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// shellWord is s as a shell word: as it is when it needs no quotes.
func shellWord(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-./+=:,@") == "" {
		return s
	}
	return shellQuote(s)
}
