package fuzzrun

import (
	"errors"
	"fmt"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"strings"
)

// store keeps a campaign's findings, one per bug, and with a directory
// writes each to its own file the moment it is confirmed, its timeline
// page beside it. A finding seen again counts up, and replaces the stored
// one if its seed is smaller, or its seed the same and its row listed
// earlier; the file is rewritten atomically either way.
type store struct {
	// dir is the -out directory; empty keeps findings in memory only.
	dir   string
	byKey map[string]*stored
	// rank is each row's place in the campaign's row order, by rowKey.
	rank map[string]int
	// rows are the campaign's rows, whose scenarios replay findings for
	// their pages.
	rows []Row
	// write writes a file atomically: writeAtomic, but for tests that
	// fail a write.
	write func(path string, data []byte) error
	// wrap runs each replay for a page (RunOptions.Wrap): a bubble in a
	// test binary's campaign (MainTest), else nil.
	wrap func(run func())
}

type stored struct {
	f    *Finding
	path string
}

// rowKey identifies a finding's row: its scenario and fault mix.
func rowKey(scenario, faults string) string { return scenario + "\n" + faults }

// openStore opens the findings directory of a campaign over rows,
// creating it and checking that a file can be written there, removing
// temporary files a killed campaign left behind, and taking up the
// findings already there so that their counts continue.
func openStore(dir string, rows []Row) (*store, []string, error) {
	s := &store{dir: dir, byKey: map[string]*stored{}, rank: map[string]int{}, rows: rows, write: writeAtomic}
	for i, r := range rows {
		if _, dup := s.rank[rowKey(r.Scenario.Name, r.Mix.String())]; !dup {
			s.rank[rowKey(r.Scenario.Name, r.Mix.String())] = i
		}
	}
	if dir == "" {
		return s, nil, nil
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, nil, fmt.Errorf("-out: %w", err)
	}
	// A directory that cannot take a file is found now, not at the first
	// finding (docs/ci.md).
	if err := s.write(filepath.Join(dir, tempPrefix+"probe"), nil); err != nil {
		return nil, nil, fmt.Errorf("-out %s: cannot write a file there: %w", dir, err)
	}
	if err := os.Remove(filepath.Join(dir, tempPrefix+"probe")); err != nil {
		return nil, nil, fmt.Errorf("-out %s: cannot remove a file there: %w", dir, err)
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, nil, fmt.Errorf("-out: %w", err)
	}
	var warnings []string
	for _, e := range entries {
		name := e.Name()
		path := filepath.Join(dir, name)
		switch {
		case e.IsDir():
		case strings.HasPrefix(name, tempPrefix):
			_ = os.Remove(path)
		case strings.HasPrefix(name, "finding-") && strings.HasSuffix(name, ".json"):
			f, err := ReadFinding(path)
			if err != nil {
				warnings = append(warnings, fmt.Sprintf("ignoring %v", err))
				continue
			}
			if _, dup := s.byKey[f.key()]; !dup {
				s.byKey[f.key()] = &stored{f: f, path: path}
			}
		}
	}
	return s, warnings, nil
}

// before reports whether f is to be kept rather than g, of two findings
// of one bug: the smaller seed, and of one seed the row listed first, so
// that the file does not depend on which worker reported first: the same
// campaign writes the same files. A row not in the campaign (a finding an
// earlier campaign left) comes last.
func (s *store) before(f, g *Finding) bool {
	if f.Seed != g.Seed {
		return f.Seed < g.Seed
	}
	return s.rankOf(f) < s.rankOf(g)
}

func (s *store) rankOf(f *Finding) int {
	if i, ok := s.rank[rowKey(f.Scenario, f.Faults)]; ok {
		return i
	}
	return math.MaxInt
}

// add records a finding. It returns the stored one (with its count and
// path) and whether it is new; with a directory its file, and its
// timeline page when it is new or replaces the stored one, are written
// before add returns. A finding's page always agrees with its file: the
// old page is removed before a new file is written, and the new page
// written after it, so a failure or a kill in between leaves a file
// without a page, never beside another finding's page.
//
// A finding whose file or page cannot be written is kept in memory all
// the same; the error says what failed.
func (s *store) add(f *Finding) (*stored, bool, error) {
	st, seen := s.byKey[f.key()]
	replaced := !seen
	switch {
	case seen && s.before(f, st.f):
		f.Count = st.f.Count + 1
		f.Replay = st.f.Replay
		st.f = f
		replaced = true
	case seen:
		st.f.Count++
	default:
		st = &stored{f: f}
		if s.dir != "" {
			st.path = filepath.Join(s.dir, f.fileName())
			f.Replay = fmt.Sprintf("%s -replay %s", command(), st.path)
		}
		s.byKey[f.key()] = st
	}
	if s.dir == "" {
		return st, !seen, nil
	}
	data, err := st.f.Marshal()
	if err != nil {
		return st, !seen, err
	}
	if !replaced {
		return st, !seen, s.write(st.path, data)
	}
	page := timelinePath(st.path)
	if err := os.Remove(page); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return st, !seen, fmt.Errorf("removing the old timeline page: %w", err)
	}
	if err := s.write(st.path, data); err != nil {
		return st, !seen, err
	}
	return st, !seen, s.writePage(page, st.f)
}

// writePage writes the timeline page of f to path, replaying it in its
// row's scenario; a lost run has no page.
func (s *store) writePage(path string, f *Finding) error {
	if f.Lost() {
		return nil
	}
	for _, r := range s.rows {
		if r.Scenario.Name == f.Scenario {
			data, err := findingTimeline(f, r.Scenario, s.wrap)
			if err != nil {
				return fmt.Errorf("the timeline page %s: %w", path, err)
			}
			return s.write(path, data)
		}
	}
	return nil
}

// tempPrefix starts the names of files being written.
const tempPrefix = ".tmp-finding-"

// writeAtomic writes data to path so that path holds either its old
// content or all of data, whenever the process dies: it writes a temporary
// file in the same directory, syncs it, renames it over path and syncs the
// directory.
func writeAtomic(path string, data []byte) error {
	dir := filepath.Dir(path)
	tmp, err := os.CreateTemp(dir, tempPrefix+"*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name()) // fails harmlessly once renamed
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Chmod(0o644); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return err
	}
	// Make the rename itself durable. Not every platform can sync a
	// directory; the file is complete either way.
	if d, err := os.Open(dir); err == nil {
		_ = d.Sync()
		_ = d.Close()
	}
	return nil
}
