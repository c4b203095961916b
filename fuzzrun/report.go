package fuzzrun

import (
	"fmt"
	"io"
	"text/tabwriter"
	"time"
)

// end prints the results: the table and the unexpected rows' reports, or
// JSON row and summary events.
func (p *progress) end(results []RowResult, code int) {
	c := p.c
	elapsed := time.Since(c.start)
	if p.enc != nil {
		for _, r := range results {
			p.emit(rowEvent{Type: "row", RowResult: r})
		}
		p.emit(summaryEvent{Type: "summary", Runs: c.runs, RunsPerS: rate(c.runs, elapsed), Findings: p.findings, Failures: p.failures,
			Elapsed: elapsed.Seconds(), Interrupted: c.interrupted, Abandoned: c.abandoned, WriteErrors: c.writeErrors, ExitCode: code})
		return
	}
	if p.terminal {
		fmt.Fprint(c.stdout, "\r\x1b[K")
	}
	printTable(c.stdout, results)
	for _, r := range results {
		switch {
		case r.Error != "":
			fmt.Fprintf(c.stdout, "\n%s under %s could not run: %s\n", r.Scenario, r.Faults, r.Error)
		case r.firstUnexpected != nil:
			fmt.Fprintf(c.stdout, "\n%s under %s was expected to show %q, but failed:\n%s", r.Scenario, r.Faults, r.Expect, r.firstUnexpected.Report)
		case r.NotShown:
			passed := fmt.Sprintf("all %d runs passed", r.Runs)
			if r.Runs == 1 {
				passed = "its one run passed"
			}
			fmt.Fprintf(c.stdout, "\n%s under %s was expected to show %q: not shown within its budget, %s\n", r.Scenario, r.Faults, r.Expect, passed)
		}
	}
	if n := notShown(results); n > 0 {
		lead := "besides the wrong verdicts above,"
		if code == ExitNotShown {
			lead = "no wrong verdict, but"
		}
		rows := "1 row was not shown within its budget"
		if n > 1 {
			rows = fmt.Sprintf("%d rows were not shown within their budget", n)
		}
		fmt.Fprintf(c.stdout, "\n%s %s (NOT SHOWN): a longer -duration or more -runs may show what they must\n", lead, rows)
	}
	switch {
	case c.opts.out != "" && c.writeErrors > 0:
		fmt.Fprintf(c.stdout, "\nfindings: %d distinct, from %d failing runs; %d writes to %s failed (see the errors above)\n", p.findings, p.failures, c.writeErrors, c.opts.out)
	case c.opts.out != "" && p.findings > 0:
		fmt.Fprintf(c.stdout, "\nfindings: %d distinct, from %d failing runs, in %s\n", p.findings, p.failures, c.opts.out)
	}
	if c.interrupted {
		fmt.Fprintf(c.stdout, "\ninterrupted after %s: %d runs, %d abandoned in flight\n", elapsed.Round(time.Millisecond), c.runs, c.abandoned)
	}
	if c.noRespawn != "" {
		fmt.Fprintf(c.stdout, "\nstopped early: %s\n", c.noRespawn)
	}
}

// printTable prints one line per row.
func printTable(w io.Writer, results []RowResult) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "SCENARIO\tFAULTS\tRUNS\tFAILURES\tFIRST SEED\tSHRUNK\tCONVERGE p50/p99/max\tEXPECT\tOK")
	for _, r := range results {
		seed, shrunk := "-", "-"
		if r.FirstFailingSeed != 0 {
			seed = fmt.Sprint(r.FirstFailingSeed)
			shrunk = fmt.Sprintf("%d faults", r.ShrunkFaults)
			switch r.ShrunkTransitions {
			case 0:
			case 1:
				shrunk += ", 1 transition"
			default:
				shrunk += fmt.Sprintf(", %d transitions", r.ShrunkTransitions)
			}
			if r.FirstLost {
				shrunk = r.FirstVerdict
			}
		}
		failures := fmt.Sprint(r.Failures)
		if r.Adversarial > 0 {
			failures += fmt.Sprintf(" (%d adversarial)", r.Adversarial)
		}
		ok := "ok"
		switch {
		case r.NotShown:
			ok = "NOT SHOWN"
		case !r.OK:
			ok = "UNEXPECTED"
		}
		fmt.Fprintf(tw, "%s\t%s\t%d\t%s\t%s\t%s\t%s\t%s\t%s\n", r.Scenario, r.Faults, r.Runs, failures, seed, shrunk, r.Converge, r.Expect, ok)
	}
	_ = tw.Flush()
}

// notShown counts the rows not shown within their budget.
func notShown(results []RowResult) int {
	n := 0
	for _, r := range results {
		if r.NotShown {
			n++
		}
	}
	return n
}
