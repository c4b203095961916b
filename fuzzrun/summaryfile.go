package fuzzrun

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
)

// SummaryFormat names the format of a campaign's summary file.
const SummaryFormat = "converge-summary/1"

// summaryName is the file a campaign with -out leaves beside its findings
// when it finishes: what its rows showed, for -merge.
const summaryName = "summary.json"

// Summary is what a finished campaign saves in its -out directory: its
// shard, its rows as the table printed them, and its exit code. A shard's
// findings say what it found; only its summary says what it ran, so that
// -merge can tell a row that must fail and that no shard showed from one
// that no shard ran. It holds no time: the same campaign writes the same
// files, whatever its workers' timing.
type Summary struct {
	Format string `json:"format"`
	// Version is the converge version that ran the campaign.
	Version  string      `json:"converge_version"`
	Shard    string      `json:"shard"`
	Seed     uint64      `json:"seed"`
	Strategy string      `json:"strategy"`
	Runs     int         `json:"runs"`
	Rows     []RowResult `json:"rows"`
	ExitCode int         `json:"exit_code"`
}

// writeSummary writes the campaign's summary file to its -out directory.
func (c *campaign) writeSummary(results []RowResult, code int) error {
	s := Summary{Format: SummaryFormat, Version: version(), Shard: c.opts.shard.String(), Seed: c.opts.seed,
		Strategy: c.opts.strategy.String(), Runs: c.runs, Rows: results, ExitCode: code}
	data, err := json.MarshalIndent(s, "", "  ")
	if err != nil {
		return err
	}
	return writeAtomic(filepath.Join(c.opts.out, summaryName), append(data, '\n'))
}

// parseSummary reads a summary file strictly: its format, no unknown
// field, and rows that name their scenario and mix.
func parseSummary(data []byte) (*Summary, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	var s Summary
	if err := dec.Decode(&s); err != nil {
		return nil, err
	}
	if dec.More() {
		return nil, errors.New("trailing data after the summary")
	}
	if s.Format != SummaryFormat {
		return nil, fmt.Errorf("format %q, want %q", s.Format, SummaryFormat)
	}
	switch s.ExitCode {
	case ExitOK, ExitUnexpected, ExitUsage, ExitNotShown:
	default:
		return nil, fmt.Errorf("exit code %d is none of fuzzrun's", s.ExitCode)
	}
	if s.Runs < 0 {
		return nil, fmt.Errorf("negative runs %d", s.Runs)
	}
	for i, r := range s.Rows {
		if r.Scenario == "" || r.Faults == "" || r.Expect == "" {
			return nil, fmt.Errorf("row %d names no scenario, fault mix or expectation", i)
		}
		if r.Runs < 0 || r.Failures < 0 || r.Unexpected < 0 || r.Adversarial < 0 || r.Failures > r.Runs {
			return nil, fmt.Errorf("row %d (%s under %s): impossible counts", i, r.Scenario, r.Faults)
		}
	}
	return &s, nil
}
