package fuzzrun

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// A merge folds the -out directories of a campaign's shards into one
// directory and one summary (docs/ci.md, "One report from many shards"):
// each shard kept its own counts, so the same bug found by several shards
// is one finding there, counted once per run that found it, with the
// smallest seed kept and its timeline page beside it; each row is judged
// over every shard's runs.

// shardDir is what one shard left: its findings, in file-name order, and
// its summary if it finished.
type shardDir struct {
	dir      string
	findings []shardFinding
	summary  *Summary
}

type shardFinding struct {
	f    *Finding
	path string
}

// mergedFinding is one bug across the shards: the finding kept, where it
// came from, and how many shards found it.
type mergedFinding struct {
	f      *Finding
	from   string
	shards int
}

// merge runs -merge: it reads every shard directory in opts.mergeDirs,
// writes the merged findings and summary to opts.out, prints the merged
// table and returns the exit code a campaign of every shard's runs would
// have: 1 when a shard showed a wrong verdict or an unexpected finding, 3
// when a row that must fail was shown by none, 2 when a shard could not
// write its findings or the input is bad.
func merge(stdout, stderr io.Writer, opts *options) int {
	shards, err := readShards(opts.mergeDirs, opts.out)
	if err != nil {
		fmt.Fprintf(stderr, "fuzzrun: -merge: %v\n", err)
		return ExitUsage
	}
	findings := mergeFindings(shards)
	rows := mergeRows(shards)
	for _, s := range shards {
		switch {
		case s.summary == nil:
			fmt.Fprintf(stderr, "fuzzrun: -merge: %s has no %s: its campaign did not finish (killed at a time limit?); its findings are merged, its rows are not\n", s.dir, summaryName)
		case s.summary.ExitCode == ExitUsage:
			fmt.Fprintf(stderr, "fuzzrun: -merge: the campaign of %s exited %d: it could not run or write all it found (its log says why)\n", s.dir, ExitUsage)
		}
	}
	if err := writeMerged(opts.out, findings); err != nil {
		fmt.Fprintf(stderr, "fuzzrun: -merge: %v\n", err)
		return ExitUsage
	}
	code := mergedCode(shards, findings, rows)
	runs := 0
	for _, r := range rows {
		runs += r.Runs
	}
	sum := Summary{Format: SummaryFormat, Version: version(), Shard: fmt.Sprintf("merged from %d", len(shards)), Runs: runs, Rows: rows, ExitCode: code}
	if data, err := json.MarshalIndent(sum, "", "  "); err != nil {
		fmt.Fprintf(stderr, "fuzzrun: -merge: %v\n", err)
		return ExitUsage
	} else if err := writeAtomic(filepath.Join(opts.out, summaryName), append(data, '\n')); err != nil {
		fmt.Fprintf(stderr, "fuzzrun: -merge: writing the summary: %v\n", err)
		return ExitUsage
	}
	if opts.json {
		enc := json.NewEncoder(stdout)
		for _, r := range rows {
			_ = enc.Encode(rowEvent{Type: "row", RowResult: r})
		}
		for _, m := range findings {
			_ = enc.Encode(mergeFindingEvent{Type: "merged-finding", Finding: m.f, Shards: m.shards, From: m.from})
		}
		_ = enc.Encode(mergeSummaryEvent{Type: "merge-summary", Shards: len(shards), Runs: runs, Findings: len(findings), Out: opts.out, ExitCode: code})
		return code
	}
	printTable(stdout, rows)
	for _, m := range findings {
		expected := "expected"
		if !m.f.Expected {
			expected = "UNEXPECTED"
		}
		fmt.Fprintf(stdout, "\n%s: %s under %s, %s; seed %d kept, found by %d of %d shards, %d runs (%s)\n  %s\n",
			m.f.Verdict, m.f.Scenario, m.f.Faults, m.f.Summary, m.f.Seed, m.shards, len(shards), m.f.Count, expected, m.f.Replay)
	}
	fmt.Fprintf(stdout, "\nmerged %d shards: %d runs, %d distinct findings, in %s\n", len(shards), runs, len(findings), opts.out)
	return code
}

// mergeFindingEvent is a merged finding in -merge -json.
type mergeFindingEvent struct {
	Type    string   `json:"type"`
	Finding *Finding `json:"finding"`
	Shards  int      `json:"shards"`
	From    string   `json:"from"`
}

// mergeSummaryEvent ends -merge -json.
type mergeSummaryEvent struct {
	Type     string `json:"type"`
	Shards   int    `json:"shards"`
	Runs     int    `json:"runs"`
	Findings int    `json:"findings"`
	Out      string `json:"out"`
	ExitCode int    `json:"exit_code"`
}

// readShards reads every shard directory, strictly: a finding file or
// summary that does not parse is an error naming it, since a merge that
// skipped it would report less than the shards found. out must be none of
// the shards and hold no findings or summary yet.
func readShards(dirs []string, out string) ([]shardDir, error) {
	outAbs, err := filepath.Abs(out)
	if err != nil {
		return nil, err
	}
	seen := map[string]bool{}
	for _, dir := range dirs {
		abs, err := filepath.Abs(dir)
		if err != nil {
			return nil, err
		}
		switch {
		case abs == outAbs:
			return nil, fmt.Errorf("-out %s is one of the shard directories: merge into a directory of its own", out)
		case seen[abs]:
			return nil, fmt.Errorf("shard directory %s is given twice: its runs would count twice", dir)
		}
		seen[abs] = true
	}
	entries, err := os.ReadDir(out)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("-out: %w", err)
	}
	for _, e := range entries {
		if isFindingFile(e.Name()) || e.Name() == summaryName {
			return nil, fmt.Errorf("-out %s already holds %s: merge into an empty directory", out, e.Name())
		}
	}
	var shards []shardDir
	for _, dir := range dirs {
		s, err := readShard(dir)
		if err != nil {
			return nil, err
		}
		shards = append(shards, s)
	}
	return shards, nil
}

func readShard(dir string) (shardDir, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return shardDir{}, fmt.Errorf("shard directory: %w", err)
	}
	s := shardDir{dir: dir}
	for _, e := range entries { // ReadDir sorts by name
		path := filepath.Join(dir, e.Name())
		switch {
		case e.IsDir():
		case isFindingFile(e.Name()):
			f, err := ReadFinding(path)
			if err != nil {
				return shardDir{}, err
			}
			s.findings = append(s.findings, shardFinding{f: f, path: path})
		case e.Name() == summaryName:
			data, err := readRegular(path, MaxFindingSize)
			if err != nil {
				return shardDir{}, fmt.Errorf("cannot read summary: %w", err)
			}
			if s.summary, err = parseSummary(data); err != nil {
				return shardDir{}, fmt.Errorf("summary file %s is corrupt: %w", path, err)
			}
		}
	}
	if len(s.findings) == 0 && s.summary == nil {
		return shardDir{}, fmt.Errorf("%s holds neither findings nor a %s: not a campaign's -out directory", dir, summaryName)
	}
	return s, nil
}

func isFindingFile(name string) bool {
	return strings.HasPrefix(name, "finding-") && strings.HasSuffix(name, ".json")
}

// mergeFindings keeps one finding per bug: the smallest seed, and of one
// seed the shard given first, so that the merge does not depend on which
// shard finished first; its count is the sum of the shards' counts. The
// result is in file-name order.
func mergeFindings(shards []shardDir) []*mergedFinding {
	byKey := map[string]*mergedFinding{}
	for _, s := range shards {
		for _, sf := range s.findings {
			key := sf.f.key()
			m, ok := byKey[key]
			if !ok {
				byKey[key] = &mergedFinding{f: sf.f, from: sf.path, shards: 1}
				continue
			}
			m.shards++
			count := m.f.Count + sf.f.Count
			if sf.f.Seed < m.f.Seed {
				m.f, m.from = sf.f, sf.path
			}
			m.f.Count = count
		}
	}
	out := make([]*mergedFinding, 0, len(byKey))
	for _, m := range byKey {
		out = append(out, m)
	}
	slices.SortFunc(out, func(a, b *mergedFinding) int { return strings.Compare(a.f.fileName(), b.f.fileName()) })
	return out
}

// writeMerged writes each merged finding to out, its replay line naming
// its new file, and copies the page of the finding kept beside it.
func writeMerged(out string, findings []*mergedFinding) error {
	if err := os.MkdirAll(out, 0o755); err != nil {
		return fmt.Errorf("-out: %w", err)
	}
	for _, m := range findings {
		path := filepath.Join(out, m.f.fileName())
		m.f.Replay = fmt.Sprintf("%s -replay %s", command(), path)
		data, err := m.f.Marshal()
		if err != nil {
			return err
		}
		if err := writeAtomic(path, data); err != nil {
			return err
		}
		page, err := os.ReadFile(timelinePath(m.from))
		switch {
		case errors.Is(err, fs.ErrNotExist):
			continue // a lost run has no page, nor a finding whose page failed
		case err != nil:
			return fmt.Errorf("the timeline page of %s: %w", m.from, err)
		}
		if err := writeAtomic(timelinePath(path), page); err != nil {
			return err
		}
	}
	return nil
}

// mergeRows judges each row over every shard that ran it, in the order
// the rows first appear: runs, failures and their kinds add up; the first
// failing seed is the smallest any shard saw; a row that must fail is
// shown when any shard showed it, and a wrong verdict in any shard is one
// in the merge. Times to converge are kept per shard only (their sketches
// are not saved), so the merged row has none.
func mergeRows(shards []shardDir) []RowResult {
	var order []string
	byKey := map[string]*RowResult{}
	wrong := map[string]bool{}
	shown := map[string]bool{}
	for _, s := range shards {
		if s.summary == nil {
			continue
		}
		for _, r := range s.summary.Rows {
			key := rowKey(r.Scenario, r.Faults)
			m, ok := byKey[key]
			if !ok {
				m = &RowResult{Scenario: r.Scenario, Faults: r.Faults, Expect: r.Expect, ShrunkFaults: -1}
				byKey[key] = m
				order = append(order, key)
			}
			m.Runs += r.Runs
			m.Failures += r.Failures
			m.Unexpected += r.Unexpected
			m.Adversarial += r.Adversarial
			if r.Error != "" && m.Error == "" {
				m.Error = r.Error
			}
			if r.FirstFailingSeed != 0 && (m.FirstFailingSeed == 0 || r.FirstFailingSeed < m.FirstFailingSeed) {
				m.FirstFailingSeed, m.ShrunkFaults, m.ShrunkTransitions, m.FirstVerdict, m.FirstLost = r.FirstFailingSeed, r.ShrunkFaults, r.ShrunkTransitions, r.FirstVerdict, r.FirstLost
			}
			wrong[key] = wrong[key] || (!r.OK && !r.NotShown)
			shown[key] = shown[key] || !r.NotShown
		}
	}
	out := make([]RowResult, 0, len(order))
	for _, key := range order {
		m := byKey[key]
		m.NotShown = !shown[key]
		m.OK = !wrong[key] && !m.NotShown
		out = append(out, *m)
	}
	return out
}

// mergedCode is the merge's exit code: ExitUsage when a shard could not
// write what it found, ExitUnexpected for a wrong verdict or an unexpected
// finding in any shard, ExitNotShown for a row that must fail and that no
// shard showed.
func mergedCode(shards []shardDir, findings []*mergedFinding, rows []RowResult) int {
	for _, s := range shards {
		if s.summary != nil && s.summary.ExitCode == ExitUsage {
			return ExitUsage
		}
	}
	notShown := false
	for _, r := range rows {
		if !r.OK && !r.NotShown {
			return ExitUnexpected
		}
		notShown = notShown || r.NotShown
	}
	for _, m := range findings {
		if !m.f.Expected {
			return ExitUnexpected
		}
	}
	if notShown {
		return ExitNotShown
	}
	return ExitOK
}
