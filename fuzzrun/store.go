package fuzzrun

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// store keeps a campaign's findings, one per bug, and with a directory
// writes each to its own file the moment it is confirmed. A finding seen
// again counts up, and replaces the stored one if its seed is smaller; the
// file is rewritten atomically either way.
type store struct {
	// dir is the -out directory; empty keeps findings in memory only.
	dir   string
	byKey map[string]*stored
}

type stored struct {
	f    *Finding
	path string
}

// openStore opens the findings directory, creating it, removing temporary
// files a killed campaign left behind, and taking up the findings already
// there so that their counts continue.
func openStore(dir string) (*store, []string, error) {
	s := &store{dir: dir, byKey: map[string]*stored{}}
	if dir == "" {
		return s, nil, nil
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, nil, fmt.Errorf("-out: %w", err)
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

// add records a finding. It returns the stored one (with its count and
// path) and whether it is new; with a directory its file is written
// atomically before add returns.
func (s *store) add(f *Finding) (*stored, bool, error) {
	st, seen := s.byKey[f.key()]
	switch {
	case seen && f.Seed < st.f.Seed:
		// Keep the smallest seed of a bug, so that the file does not
		// depend on which worker reported first: the same campaign
		// writes the same files.
		f.Count = st.f.Count + 1
		f.Replay = st.f.Replay
		st.f = f
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
	return st, !seen, writeAtomic(st.path, data)
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
