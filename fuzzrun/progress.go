package fuzzrun

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"time"
)

// jsonProgressEvery paces -json progress events: often enough to watch a
// long campaign, rarely enough not to flood a CI log.
const jsonProgressEvery = 10 * time.Second

// progress reports a running campaign: JSON events with -json; else a
// single, rewritten progress line when stdout is a terminal, and nothing
// while it is a pipe or a file, so logs hold only the final table.
type progress struct {
	c        *campaign
	enc      *json.Encoder // with -json
	terminal bool
	lastJSON time.Time
	// findings counts distinct findings, failures every failing run.
	findings, failures int
}

func newProgress(c *campaign) *progress {
	p := &progress{c: c}
	if c.opts.json {
		p.enc = json.NewEncoder(c.stdout)
	} else {
		p.terminal = isTerminal(c.stdout)
	}
	return p
}

// isTerminal reports whether w is a character device, such as a terminal.
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}

// The JSON events, one object a line, each with its "type".
type (
	startEvent struct {
		Type     string  `json:"type"` // "start"
		Version  string  `json:"converge_version"`
		Rows     int     `json:"rows"`
		Workers  int     `json:"workers"`
		Shard    string  `json:"shard"`
		Seed     uint64  `json:"seed"`
		Runs     int     `json:"runs,omitempty"`
		Duration float64 `json:"duration_s,omitempty"`
		Strategy string  `json:"strategy"`
		Out      string  `json:"out,omitempty"`
	}
	progressEvent struct {
		Type      string   `json:"type"` // "progress"
		Runs      int      `json:"runs"`
		RunsPerS  float64  `json:"runs_per_s"`
		Findings  int      `json:"findings"`
		Failures  int      `json:"failures"`
		Elapsed   float64  `json:"elapsed_s"`
		Remaining *float64 `json:"remaining_s,omitempty"`
	}
	findingEvent struct {
		Type     string `json:"type"` // "finding"
		File     string `json:"file,omitempty"`
		New      bool   `json:"new"`
		Count    int    `json:"count"`
		Scenario string `json:"scenario"`
		Faults   string `json:"faults"`
		Seed     uint64 `json:"seed"`
		Property string `json:"property"`
		Verdict  string `json:"verdict"`
		Expected bool   `json:"expected"`
		Summary  string `json:"summary"`
	}
	rowEvent struct {
		Type string `json:"type"` // "row"
		RowResult
	}
	summaryEvent struct {
		Type        string  `json:"type"` // "summary"
		Runs        int     `json:"runs"`
		RunsPerS    float64 `json:"runs_per_s"`
		Findings    int     `json:"findings"`
		Failures    int     `json:"failures"`
		Elapsed     float64 `json:"elapsed_s"`
		Interrupted bool    `json:"interrupted"`
		Abandoned   int     `json:"abandoned"`
		// WriteErrors counts findings that could not be written to -out.
		WriteErrors int `json:"write_errors,omitempty"`
		ExitCode    int `json:"exit_code"`
	}
)

func (p *progress) emit(v any) {
	if err := p.enc.Encode(v); err != nil {
		fmt.Fprintf(p.c.stderr, "fuzzrun: writing JSON: %v\n", err)
	}
}

// begin announces the campaign. With -json its "start" event comes after
// the signal handlers are installed.
func (p *progress) begin() {
	if p.enc == nil {
		return
	}
	o := p.c.opts
	p.emit(startEvent{Type: "start", Version: version(), Rows: len(p.c.rows), Workers: len(p.c.slots), Shard: o.shard.String(),
		Seed: o.seed, Runs: o.runs, Duration: o.duration.Seconds(), Strategy: o.strategy.String(), Out: o.out})
	p.lastJSON = time.Now()
}

// tick updates the progress line, or emits a JSON progress event when one
// is due.
func (p *progress) tick() {
	switch {
	case p.terminal:
		fmt.Fprintf(p.c.stdout, "\r%s\x1b[K", p.line())
	case p.enc != nil && time.Since(p.lastJSON) >= jsonProgressEvery:
		p.lastJSON = time.Now()
		elapsed := time.Since(p.c.start)
		ev := progressEvent{Type: "progress", Runs: p.c.runs, RunsPerS: rate(p.c.runs, elapsed), Findings: p.findings, Failures: p.failures, Elapsed: elapsed.Seconds()}
		if !p.c.deadline.IsZero() {
			rem := max(0, time.Until(p.c.deadline)).Seconds()
			ev.Remaining = &rem
		}
		p.emit(ev)
	}
}

// line is the terminal progress line.
func (p *progress) line() string {
	elapsed := time.Since(p.c.start)
	s := fmt.Sprintf("runs %d  %.0f runs/s  findings %d  elapsed %s", p.c.runs, rate(p.c.runs, elapsed), p.findings, elapsed.Round(time.Second))
	if !p.c.deadline.IsZero() {
		s += fmt.Sprintf("  remaining %s", max(0, time.Until(p.c.deadline)).Round(time.Second))
	}
	switch n := p.c.rowsInOvertime(); {
	case n > 0:
		s += fmt.Sprintf("  past the budget: %d rows that must fail run on until they do, up to their own cap", n)
	case p.c.stopping:
		s += fmt.Sprintf("  stopping: %d runs in flight", p.c.busy())
	}
	return s
}

func rate(n int, d time.Duration) float64 {
	if d <= 0 {
		return 0
	}
	return float64(n) / d.Seconds()
}

// found reports a finding as it is written.
func (p *progress) found(st *stored, isNew bool, f *Finding) {
	p.failures++
	if isNew {
		p.findings++
	}
	if p.enc == nil {
		return
	}
	p.emit(findingEvent{Type: "finding", File: st.path, New: isNew, Count: st.f.Count, Scenario: f.Scenario, Faults: f.Faults,
		Seed: f.Seed, Property: f.Property, Verdict: f.Verdict, Expected: f.Expected, Summary: f.Summary})
}
