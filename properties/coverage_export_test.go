package properties

import "fmt"

// FingerprintCorpus returns an empty corpus whose coverage is the state
// fingerprints the fault phase reached, not the trace's edges.
func FingerprintCorpus() *Corpus {
	c := NewCorpus()
	c.fingerprints = true
	return c
}

// FreshCorpus returns a corpus that keeps nothing: every run is drawn
// afresh, the coverage-guided search without its feedback.
func FreshCorpus() *Corpus {
	c := NewCorpus()
	c.fresh = true
	return c
}

// ReplayCorpus replays every entry the corpus keeps under p's mix from
// its schedule, inputs and choices alone, and checks that each follows its
// record, passes and reaches the coverage it was kept for. It returns the
// number of entries and of those that were mutants.
func ReplayCorpus(p *Prepared, c *Corpus) (entries, mutants int, err error) {
	m := c.of(p.mix)
	for i, e := range m.entries {
		out, diverged, err := p.replay(e.sched, e.choices, RunOptions{Inputs: e.inputs})
		switch {
		case err != nil:
			return 0, 0, err
		case diverged:
			return 0, 0, fmt.Errorf("entry %d: the replay left the record", i)
		case out.Failure != nil:
			return 0, 0, fmt.Errorf("entry %d: the replay failed: %s", i, out.Failure.Summary)
		}
		for _, f := range edges(out.Cluster.Trace()) {
			if !c.fingerprints && !m.seen[f] {
				return 0, 0, fmt.Errorf("entry %d: the replay reached coverage the corpus never saw", i)
			}
		}
		if e.mutant {
			mutants++
		}
	}
	return len(m.entries), mutants, nil
}
