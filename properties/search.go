package properties

import (
	"flag"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/converge-sim/converge/faults"
	"github.com/converge-sim/converge/model"
	"go.uber.org/zap"
	"pgregory.net/rapid"
)

// SearchOptions configures Search.
type SearchOptions struct {
	// Checks is the number of runs; zero uses rapid's setting
	// (-rapid.checks, RAPID_CHECKS, default 100).
	Checks int
	// Seed is the seed of the first run; zero lets rapid pick one at
	// random (reported with any finding).
	Seed uint64
	// Logger receives the steps of every run at debug level.
	Logger *zap.Logger
	// Strategy chooses the interleavings; the zero value is random.
	Strategy Strategy
	// ReplayCommand renders the command that replays a seed; the default
	// is the fuzzrun command line for the scenario.
	ReplayCommand func(seed uint64) string
	// Wrap, if set, wraps the property every run executes: an integration
	// runs each run inside a testing/synctest bubble this way, so that the
	// time user code reads is virtual.
	Wrap func(prop func(*rapid.T)) func(*rapid.T)
}

// Counterexample is a failure found by Search, shrunk by rapid to a minimal
// fault schedule and interleaving.
type Counterexample struct {
	Scenario string
	Faults   faults.Mix
	Strategy Strategy
	// Seed is the rapid seed of the run that first failed; with the same
	// code, rapid reproduces and shrinks it again from this seed.
	Seed     uint64
	Failure  *Failure
	Schedule faults.Schedule
	// Choices are the interleaving choices of the minimal run; with the
	// schedule they replay it exactly (see Replay).
	Choices []int
	Steps   int
	Trace   *model.Trace
	// Replay is the command that replays the finding.
	Replay string
}

// Report renders the finding: scenario, violated property, schedule,
// diagnosis, and the replay command last.
func (cx *Counterexample) Report() string {
	var b strings.Builder
	fmt.Fprintf(&b, "scenario %s, faults %s, seed %d: ", cx.Scenario, cx.Faults, cx.Seed)
	b.WriteString(cx.Failure.Report(cx.Schedule))
	fmt.Fprintf(&b, "replay: %s\n", cx.Replay)
	return b.String()
}

// SearchResult is what Search found.
type SearchResult struct {
	// Runs is the number of runs made up to and including the first
	// failure (or all of them when nothing failed).
	Runs int
	// Counterexample is nil when every run passed.
	Counterexample *Counterexample
}

var (
	searchMu   sync.Mutex
	searchInit sync.Once
)

// Search looks for a counterexample to Converges with rapid's engine and
// returns it shrunk, as a value. It sets rapid's flags for the duration
// (checks, seed, and no fail files: Known trap 7), so searches are
// serialized, and it must not run concurrently with other rapid tests in
// the same process. Outside `go test` it initializes the testing flags
// rapid reads.
func Search(sc Scenario, mix faults.Mix, opts SearchOptions) (*SearchResult, error) {
	searchMu.Lock()
	defer searchMu.Unlock()
	searchInit.Do(func() {
		testing.Init()
		if !flag.Parsed() {
			_ = flag.CommandLine.Parse(nil)
		}
	})
	if _, err := PlanFor(sc, mix); err != nil {
		return nil, err
	}
	if err := opts.Strategy.Validate(); err != nil {
		return nil, err
	}
	restore, err := setRapidFlags(opts)
	if err != nil {
		return nil, err
	}
	defer restore()

	var (
		runs      int
		failedYet bool
		minimal   *Outcome
		choices   []int
	)
	prop := property(sc, mix, propConfig{logger: opts.Logger, strategy: opts.Strategy, observe: func(out *Outcome, ch []int) {
		if !failedYet {
			runs++
		}
		if out.Failure != nil {
			failedYet = true
			minimal, choices = out, ch
		}
	}})
	if opts.Wrap != nil {
		prop = opts.Wrap(prop)
	}
	tb := &captureTB{name: "converge/" + sc.Name + "/" + mix.String()}
	rapid.Check(tb, prop)

	res := &SearchResult{Runs: runs}
	if !tb.failed {
		return res, nil
	}
	msg := strings.Join(tb.errors, "\n")
	switch {
	case strings.Contains(msg, "flaky test"):
		return nil, fmt.Errorf("scenario %s is nondeterministic: a re-run of the same seed failed differently (Known trap 6)\n%s", sc.Name, msg)
	case minimal == nil:
		return nil, fmt.Errorf("search of scenario %s failed outside the property: %s", sc.Name, msg)
	}
	seed := parseSeed(msg)
	replay := opts.ReplayCommand
	if replay == nil {
		replay = func(seed uint64) string {
			return fmt.Sprintf("go run ./cmd/fuzzrun -scenario %s -faults %s%s -seed %d", sc.Name, mix, opts.Strategy.flags(), seed)
		}
	}
	res.Counterexample = &Counterexample{
		Scenario: sc.Name,
		Faults:   mix,
		Strategy: opts.Strategy,
		Seed:     seed,
		Failure:  minimal.Failure,
		Schedule: minimal.Schedule,
		Choices:  choices,
		Steps:    minimal.Cluster.Steps(),
		Trace:    minimal.Cluster.Trace(),
		Replay:   replay(seed),
	}
	return res, nil
}

// setRapidFlags sets rapid's flags for one search and returns a function
// that restores them.
func setRapidFlags(opts SearchOptions) (func(), error) {
	want := map[string]string{"rapid.nofailfile": "true", "rapid.seed": strconv.FormatUint(opts.Seed, 10)}
	if opts.Checks > 0 {
		want["rapid.checks"] = strconv.Itoa(opts.Checks)
	}
	saved := map[string]string{}
	for name, v := range want {
		f := flag.Lookup(name)
		if f == nil {
			return nil, fmt.Errorf("rapid flag -%s is not registered", name)
		}
		saved[name] = f.Value.String()
		if err := flag.Set(name, v); err != nil {
			return nil, err
		}
	}
	return func() {
		for name, v := range saved {
			_ = flag.Set(name, v)
		}
	}, nil
}

var seedPattern = regexp.MustCompile(`-rapid\.seed=(\d+)`)

// parseSeed reads the failing seed from rapid's report.
func parseSeed(msg string) uint64 {
	m := seedPattern.FindStringSubmatch(msg)
	if m == nil {
		return 0
	}
	seed, _ := strconv.ParseUint(m[1], 10, 64)
	return seed
}

// captureTB is the rapid.TB a search hands to rapid.Check: it keeps the
// failure messages instead of failing a test.
type captureTB struct {
	name   string
	failed bool
	errors []string
}

var _ rapid.TB = (*captureTB)(nil)

func (c *captureTB) Helper()             {}
func (c *captureTB) Name() string        { return c.name }
func (c *captureTB) Logf(string, ...any) {}
func (c *captureTB) Log(...any)          {}
func (c *captureTB) Skipf(format string, args ...any) {
	c.Errorf("skipped: "+format, args...)
}
func (c *captureTB) Skip(args ...any) { c.Error(append([]any{"skipped: "}, args...)...) }
func (c *captureTB) SkipNow()         { c.Error("skipped") }
func (c *captureTB) Errorf(format string, args ...any) {
	c.failed = true
	c.errors = append(c.errors, fmt.Sprintf(format, args...))
}
func (c *captureTB) Error(args ...any) {
	c.failed = true
	c.errors = append(c.errors, fmt.Sprint(args...))
}
func (c *captureTB) Fatalf(format string, args ...any) { c.Errorf(format, args...) }
func (c *captureTB) Fatal(args ...any)                 { c.Error(args...) }
func (c *captureTB) FailNow()                          { c.failed = true }
func (c *captureTB) Fail()                             { c.failed = true }
func (c *captureTB) Failed() bool                      { return c.failed }
