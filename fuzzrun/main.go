// Package fuzzrun is the campaign runner behind cmd/fuzzrun, as a library:
// a program that calls Main with its own scenarios gets the same command
// line for its own controllers.
//
//	func main() { fuzzrun.Main(myScenarios()...) }
package fuzzrun

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/converge-sim/converge/faults"
	"github.com/converge-sim/converge/properties"
)

// Exit codes.
const (
	ExitOK         = 0 // every row showed what it must
	ExitUnexpected = 1 // some row did not
	ExitUsage      = 2 // bad flags or input
)

// DefaultDuration is the budget of a campaign run with no -duration.
const DefaultDuration = 10 * time.Second

// Main runs the command line over scenarios and exits with its code.
func Main(scenarios ...properties.Scenario) {
	os.Exit(Run(os.Args[1:], os.Stdout, os.Stderr, scenarios))
}

type options struct {
	duration    time.Duration
	durationSet bool
	scenarios   []properties.Scenario
	mix         faults.Mix
	seed        uint64
	seedSet     bool
	json        bool
	list        bool
}

// Run runs the command line args over scenarios, writing to stdout and
// stderr, and returns the exit code.
func Run(args []string, stdout, stderr io.Writer, scenarios []properties.Scenario) int {
	opts, err := parse(args, stderr, scenarios)
	if errors.Is(err, flag.ErrHelp) {
		return ExitOK
	}
	if err != nil {
		fmt.Fprintf(stderr, "fuzzrun: %v\n", err)
		return ExitUsage
	}
	switch {
	case opts.list:
		list(stdout, opts.scenarios)
		return ExitOK
	case opts.seedSet && !opts.durationSet && len(opts.scenarios) == 1:
		return replaySeed(stdout, stderr, opts)
	default:
		return campaign(stdout, stderr, opts)
	}
}

func parse(args []string, stderr io.Writer, all []properties.Scenario) (*options, error) {
	fs := flag.NewFlagSet("fuzzrun", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var (
		opts      options
		scenario  string
		faultList string
	)
	fs.DurationVar(&opts.duration, "duration", DefaultDuration, "wall-clock budget of the campaign")
	fs.StringVar(&scenario, "scenario", "", "comma-separated scenarios to run (default: all)")
	fs.StringVar(&faultList, "faults", "", "comma-separated fault kinds: run this one mix instead of each scenario's declared mixes")
	fs.Uint64Var(&opts.seed, "seed", 1, "first seed; with a single -scenario and no -duration, replay this seed and print its trace")
	fs.BoolVar(&opts.json, "json", false, "print one JSON object per row")
	fs.BoolVar(&opts.list, "list", false, "list scenarios, fault kinds and what each scenario must show")
	// rapid's own flags (-rapid.shrinktime, …) pass through to rapid.
	flag.CommandLine.VisitAll(func(f *flag.Flag) {
		if strings.HasPrefix(f.Name, "rapid.") {
			fs.Var(f.Value, f.Name, f.Usage)
		}
	})
	fs.Usage = func() {
		fmt.Fprintf(stderr, "usage: fuzzrun [flags]\n\nRuns every scenario under each fault mix it declares and checks that it shows what it must.\n\n")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return nil, err
	}
	if fs.NArg() > 0 {
		return nil, fmt.Errorf("unexpected argument %q", fs.Arg(0))
	}
	fs.Visit(func(f *flag.Flag) {
		switch f.Name {
		case "duration":
			opts.durationSet = true
		case "seed":
			opts.seedSet = true
		}
	})
	if opts.duration <= 0 {
		return nil, fmt.Errorf("-duration must be positive, got %v", opts.duration)
	}
	if opts.seed == 0 {
		return nil, errors.New("-seed must be at least 1 (rapid reads seed 0 as \"pick one at random\")")
	}
	if len(all) == 0 {
		return nil, errors.New("no scenarios to run")
	}
	for _, sc := range all {
		if err := sc.Validate(); err != nil {
			return nil, err
		}
	}
	opts.scenarios = all
	if scenario != "" {
		opts.scenarios = nil
		for _, name := range strings.Split(scenario, ",") {
			sc, ok := find(all, strings.TrimSpace(name))
			if !ok {
				return nil, fmt.Errorf("unknown scenario %q (fuzzrun -list shows them)", name)
			}
			opts.scenarios = append(opts.scenarios, sc)
		}
	}
	if faultList != "" {
		mix, err := faults.ParseMix(faultList)
		if err != nil {
			return nil, err
		}
		opts.mix = mix
	}
	return &opts, nil
}

func find(all []properties.Scenario, name string) (properties.Scenario, bool) {
	for _, sc := range all {
		if sc.Name == name {
			return sc, true
		}
	}
	return properties.Scenario{}, false
}

// rows lists the campaign's rows: each scenario under each mix it declares,
// or under the one mix given with -faults.
func rows(opts *options) []Row {
	var out []Row
	for _, sc := range opts.scenarios {
		if opts.mix != nil {
			e, ok := sc.ExpectationFor(opts.mix)
			out = append(out, Row{Scenario: sc, Mix: opts.mix, Expect: e, Known: ok})
			continue
		}
		for _, e := range sc.Expect {
			out = append(out, Row{Scenario: sc, Mix: e.Faults, Expect: e, Known: true})
		}
	}
	return out
}

func campaign(stdout, stderr io.Writer, opts *options) int {
	rs := rows(opts)
	if len(rs) == 0 {
		fmt.Fprintln(stderr, "fuzzrun: no rows: the selected scenarios declare no fault mixes; pick one with -faults")
		return ExitUsage
	}
	share := opts.duration / time.Duration(len(rs))
	results := make([]RowResult, 0, len(rs))
	for _, row := range rs {
		results = append(results, runRow(row, opts.seed, time.Now().Add(share)))
	}
	code := ExitOK
	for _, r := range results {
		if !r.OK {
			code = ExitUnexpected
		}
	}
	if opts.json {
		enc := json.NewEncoder(stdout)
		for _, r := range results {
			if err := enc.Encode(r); err != nil {
				fmt.Fprintf(stderr, "fuzzrun: %v\n", err)
				return ExitUsage
			}
		}
		return code
	}
	printTable(stdout, results)
	for _, r := range results {
		if r.Error != "" {
			fmt.Fprintf(stdout, "\n%s under %s could not run: %s\n", r.Scenario, r.Faults, r.Error)
		} else if !r.OK && r.first != nil {
			fmt.Fprintf(stdout, "\n%s under %s was expected to show %q, but failed:\n%s", r.Scenario, r.Faults, r.Expect, r.first.Report())
		}
	}
	return code
}

func printTable(w io.Writer, results []RowResult) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "SCENARIO\tFAULTS\tRUNS\tFAILURES\tFIRST SEED\tSHRUNK\tEXPECT\tOK")
	for _, r := range results {
		seed, shrunk := "-", "-"
		if r.FirstFailingSeed != 0 {
			seed = fmt.Sprint(r.FirstFailingSeed)
			shrunk = fmt.Sprintf("%d faults", r.ShrunkFaults)
		}
		ok := "ok"
		if !r.OK {
			ok = "UNEXPECTED"
		}
		fmt.Fprintf(tw, "%s\t%s\t%d\t%d\t%s\t%s\t%s\t%s\n", r.Scenario, r.Faults, r.Runs, r.Failures, seed, shrunk, r.Expect, ok)
	}
	_ = tw.Flush()
}

func list(w io.Writer, scenarios []properties.Scenario) {
	fmt.Fprintln(w, "scenarios:")
	for _, sc := range scenarios {
		fmt.Fprintf(w, "  %s\n      %s\n", sc.Name, sc.Doc)
		for _, e := range sc.Expect {
			fmt.Fprintf(w, "      under %s: %s\n", e.Faults, e)
		}
	}
	fmt.Fprintln(w, "fault kinds:")
	for _, k := range faults.Kinds() {
		fmt.Fprintf(w, "  %-8s %s\n", k, faults.Describe(k))
	}
}

// replaySeed re-runs one seed of one scenario, shrinks a failure as the
// campaign did, and prints the report and the full trace.
func replaySeed(stdout, stderr io.Writer, opts *options) int {
	sc := opts.scenarios[0]
	mix := opts.mix
	if mix == nil {
		if len(sc.Expect) == 0 {
			fmt.Fprintf(stderr, "fuzzrun: scenario %s declares no fault mix; give one with -faults\n", sc.Name)
			return ExitUsage
		}
		mix = sc.Expect[0].Faults
	}
	sr, err := properties.Search(sc, mix, properties.SearchOptions{Checks: 1, Seed: opts.seed})
	if err != nil {
		fmt.Fprintf(stderr, "fuzzrun: %v\n", err)
		return ExitUsage
	}
	cx := sr.Counterexample
	if cx == nil {
		fmt.Fprintf(stdout, "scenario %s, faults %s, seed %d: converged\n", sc.Name, mix, opts.seed)
		return ExitOK
	}
	fmt.Fprint(stdout, cx.Report())
	fmt.Fprintf(stdout, "trace (%d steps):\n", cx.Steps)
	if err := cx.Trace.WriteText(stdout); err != nil {
		fmt.Fprintf(stderr, "fuzzrun: %v\n", err)
		return ExitUsage
	}
	e, known := sc.ExpectationFor(mix)
	if known && e.Fails == cx.Failure.Verdict {
		return ExitOK
	}
	return ExitUnexpected
}
