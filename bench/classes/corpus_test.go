package classes_test

import (
	"flag"
	"fmt"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/converge-sim/converge/bench/classes"
	"github.com/converge-sim/converge/properties"
	"github.com/stretchr/testify/require"
)

var corpusBound = flag.Bool("converge.corpus", false, "measure the coverage corpus's bound: each class's 20 seeds sharing one corpus, as a fuzzrun worker's do, bounded and not")

// TestCorpusBound measures what the corpus's bound (properties.MaxCorpusEntries)
// does where it binds: in a campaign whose seeds share one corpus per
// row, as a fuzzrun worker's do. Each class's 20 table seeds search in
// order with one shared corpus, bounded and unbounded; the table gives
// the seeds that found the class's verdict, the entries kept at the end,
// the runs evicted and the CPU time (docs/design.md, "Coverage-guided
// search"; BENCHMARKS.md).
func TestCorpusBound(t *testing.T) {
	if !*corpusBound {
		t.Skip("measures for minutes: run with -converge.corpus")
	}
	var b strings.Builder
	b.WriteString("| class | unbounded: found / entries | bounded: found / entries / evicted | unbounded CPU s | bounded CPU s |\n|---|---:|---:|---:|---:|\n")
	for _, c := range classes.All() {
		if !strings.Contains(c.Name, *only) {
			continue
		}
		p, err := properties.Prepare(c.Scenario, c.Faults)
		require.NoError(t, err)
		var found [2]int
		var cpu [2]time.Duration
		var kept [2]*properties.Corpus
		for i, limit := range []int{0, properties.MaxCorpusEntries} {
			cp, err := properties.NewBoundedCorpus(limit)
			require.NoError(t, err)
			kept[i] = cp
			before := cpuTime()
			for _, seed := range classes.Seeds(1, classes.TableSeeds) {
				opts := properties.SearchOptions{Checks: classes.Budget, Seed: seed, Test: t, Strategy: properties.Strategy{Name: properties.StrategyCoverage}, Corpus: cp}
				if c.Bubble {
					opts.Wrap = properties.InBubble(t)
				}
				sr, err := p.Search(opts)
				require.NoError(t, err)
				if cx := sr.Counterexample; cx != nil && cx.Failure.Verdict == c.Fails {
					found[i]++
				}
			}
			cpu[i] = cpuTime() - before
		}
		fmt.Fprintf(&b, "| %s | %d / %d | %d / %d / %d | %.1f | %.1f |\n", c.Name, found[0], kept[0].Len(), found[1], kept[1].Len(), kept[1].Evicted(), cpu[0].Seconds(), cpu[1].Seconds())
	}
	fmt.Print(b.String())
}

// cpuTime is the process's user and system CPU time so far.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
