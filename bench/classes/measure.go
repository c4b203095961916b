// Package classes is converge's public benchmark of bug classes: every
// broken controller of examples/broken and every catalog row that must
// fail (scenarios), each searched under the whole fault mix it is declared
// against, with default settings, from a number of seeds. Per class it
// reports the runs to the first failure (median, p90), how many seeds
// found it within 100 runs, and the faults in the shrunk schedule
// (docs/design.md, "A benchmark of bug classes"; the table is in
// BENCHMARKS.md).
//
// The controller-runtime examples' bugs have their own table, measured
// with the same functions, in controllerruntime/examples/classes.
//
// Regenerate the table with
//
//	go test ./bench/classes -run TestClassTable -v -converge.classes -timeout 0
package classes

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/converge-sim/converge/faults"
	"github.com/converge-sim/converge/properties"
)

// Budget is the number of runs a class is given: rapid's default number of
// checks, what a user who runs a search with default settings gets.
const Budget = 100

// Class is one bug class of the benchmark: a scenario that must fail, the
// fault mix it is declared against, and the verdict it must fail with.
type Class struct {
	// Name names the class in the table.
	Name string
	// Scenario is what runs.
	Scenario properties.Scenario
	// Faults is the whole mix the class is declared against; empty for a
	// bug found with no fault.
	Faults faults.Mix
	// Targeted is the mix that points at the bug: the fault kind the
	// broken controller's doc comment names, or the kind its example's
	// tests use. Empty when Faults is already targeted (a catalog row's
	// declared mix, a bug found with no fault): the ratio of the two is
	// then 1 (docs/design.md, "A benchmark of bug classes").
	Targeted faults.Mix
	// Fails is the verdict that counts as finding the bug.
	Fails properties.Verdict
	// Bubble runs every run in a testing/synctest bubble
	// (properties.InBubble), as controller-runtime projects that read the
	// clock need.
	Bubble bool
	// Floor is the least number of seeds out of Seeds that must find the
	// bug within Budget runs; TestClassTable fails below it.
	Floor int
	// Pinned are seeds that found the bug within Budget runs when the
	// floor was set; TestClassFloors checks that they still do.
	Pinned []uint64

	_ struct{}
}

// Result is what Measure found for one class over its seeds.
type Result struct {
	// Class and Faults are the class's name and mix; TargetedFaults is
	// its targeted mix (Class.Targeted).
	Class          string
	Faults         faults.Mix
	TargetedFaults faults.Mix
	// Seeds is the number of seeds searched.
	Seeds int
	// Runs holds, per seed in order, the runs up to and including the one
	// whose counterexample was reported (both searches of "one bug, one
	// finding" counted), or zero when no counterexample with the class's
	// verdict was found.
	Runs []int
	// Shrunk holds, per seed that found the bug, the number of faults of
	// its shrunk schedule.
	Shrunk []int
	// Other counts the seeds whose counterexample had another verdict.
	Other int
	// Adversarial counts the seeds whose counterexample needs an
	// adversarial fault.
	Adversarial int
	// Targeted is the same search under the class's targeted mix
	// (Class.Targeted), over the same seeds; nil when the class's mix is
	// already targeted or it was not measured (Measure measures only the
	// whole mix, MeasureTargeted both).
	Targeted *Result

	_ struct{}
}

// Found is the number of seeds that found the bug within Budget runs.
func (r Result) Found() int {
	n := 0
	for _, runs := range r.Runs {
		if runs > 0 && runs <= Budget {
			n++
		}
	}
	return n
}

// Percentile returns the nearest-rank p-th percentile (0 < p <= 100) of
// the runs to the first failure, a seed that never found the bug counting
// as more than any that did; ok is false when that percentile falls among
// such seeds.
func (r Result) Percentile(p int) (runs int, ok bool) {
	if len(r.Runs) == 0 || p <= 0 || p > 100 {
		return 0, false
	}
	sorted := slices.Clone(r.Runs)
	slices.SortFunc(sorted, func(a, b int) int {
		switch {
		case a == b:
			return 0
		case a == 0:
			return 1
		case b == 0:
			return -1
		}
		return a - b
	})
	rank := (p*len(sorted) + 99) / 100 // nearest rank, ceil(p/100·n)
	v := sorted[rank-1]
	return v, v > 0
}

// Measure searches the class from each seed with Budget runs (and the
// default budget for the faithful search of one bug, one finding), in the
// Go test t, whose replay line its findings carry.
func Measure(t *testing.T, c Class, seeds []uint64) (Result, error) {
	return MeasureWith(t, c, seeds, properties.Strategy{})
}

// MeasureWith is Measure with the search strategy s (the zero value is
// Measure's, random): the table's option -converge.strategy.
func MeasureWith(t *testing.T, c Class, seeds []uint64, s properties.Strategy) (Result, error) {
	if len(seeds) == 0 {
		return Result{}, errors.New("no seeds to measure")
	}
	if c.Fails == "" {
		return Result{}, fmt.Errorf("class %s declares no verdict to fail with", c.Name)
	}
	var popts properties.PrepareOptions
	if c.Bubble {
		popts.Wrap = properties.InBubble(t)
	}
	p, err := properties.PrepareWith(c.Scenario, c.Faults, popts)
	if err != nil {
		return Result{}, fmt.Errorf("class %s: %w", c.Name, err)
	}
	res := Result{Class: c.Name, Faults: c.Faults, TargetedFaults: c.Targeted, Seeds: len(seeds)}
	for _, seed := range seeds {
		opts := properties.SearchOptions{Checks: Budget, Seed: seed, Test: t, Strategy: s}
		if c.Bubble {
			opts.Wrap = properties.InBubble(t)
		}
		sr, err := p.Search(opts)
		if err != nil {
			return Result{}, fmt.Errorf("class %s, seed %d: %w", c.Name, seed, err)
		}
		runs, shrunk := foundAt(sr, c.Fails)
		if cx := sr.Counterexample; cx != nil && runs == 0 {
			res.Other++
		}
		if runs > 0 {
			res.Shrunk = append(res.Shrunk, shrunk)
			if sr.Counterexample.Class == faults.Adversarial {
				res.Adversarial++
			}
		}
		res.Runs = append(res.Runs, runs)
	}
	return res, nil
}

// MeasureTargeted is MeasureWith, and the same search over the same
// seeds under the class's targeted mix (Class.Targeted) when it declares
// one, kept in Result.Targeted: the table's ratio of the median runs to
// the first failure under the whole mix to the targeted mix's.
func MeasureTargeted(t *testing.T, c Class, seeds []uint64, s properties.Strategy) (Result, error) {
	res, err := MeasureWith(t, c, seeds, s)
	if err != nil || len(c.Targeted) == 0 {
		return res, err
	}
	targeted := c
	targeted.Faults, targeted.Targeted = c.Targeted, nil
	tr, err := MeasureWith(t, targeted, seeds, s)
	if err != nil {
		return Result{}, fmt.Errorf("targeted: %w", err)
	}
	res.Targeted = &tr
	return res, nil
}

// Ratio renders the median runs to the first failure under the whole mix
// over the targeted mix's (the target: at most 3): "1" when the
// class's mix is already targeted, "> x" when the whole mix's median is
// among the seeds that found nothing within Budget runs (x = Budget over
// the targeted median), "–" when the targeted median is, or the targeted
// mix was not measured for a class that declares one.
func (r Result) Ratio() string {
	if r.Targeted == nil {
		if len(r.TargetedFaults) == 0 {
			return "1"
		}
		return "–"
	}
	targeted, ok := r.Targeted.Percentile(50)
	if !ok {
		return "–"
	}
	whole, ok := r.Percentile(50)
	if !ok {
		return fmt.Sprintf("> %.1f", float64(Budget)/float64(targeted))
	}
	return fmt.Sprintf("%.1f", float64(whole)/float64(targeted))
}

// foundAt returns the runs up to the reported counterexample and its
// shrunk schedule's length, or zero when the search found none with the
// verdict.
func foundAt(sr *properties.SearchResult, verdict properties.Verdict) (runs, shrunk int) {
	cx := sr.Counterexample
	if cx == nil || cx.Failure.Verdict != verdict {
		return 0, 0
	}
	// An adversarial counterexample's Runs count the faithful search that
	// found nothing after it.
	return sr.Runs - cx.FaithfulRuns, len(cx.Schedule)
}

// Table renders the results as a markdown table, one row per class, with
// the targeted mix's figures when MeasureTargeted measured them and the
// ratio of the medians (Result.Ratio).
func Table(results []Result) string {
	var b strings.Builder
	b.WriteString("| class | faults | found within 100 runs | runs to first failure (median / p90) | faults in the shrunk schedule (median / max) | adversarial | other verdict | targeted mix | targeted: found / median | whole ÷ targeted median |\n")
	b.WriteString("|---|---|---|---|---|---|---|---|---|---|\n")
	for _, r := range results {
		targetedMix, targeted := "same", "–"
		if len(r.TargetedFaults) > 0 {
			targetedMix = r.TargetedFaults.String()
		}
		if t := r.Targeted; t != nil {
			targeted = fmt.Sprintf("%d/%d / %s", t.Found(), t.Seeds, t.percentile(50))
		}
		fmt.Fprintf(&b, "| %s | %s | %d/%d | %s / %s | %s | %d | %d | %s | %s | %s |\n",
			r.Class, r.Faults, r.Found(), r.Seeds, r.percentile(50), r.percentile(90), r.shrunk(), r.Adversarial, r.Other, targetedMix, targeted, r.Ratio())
	}
	return b.String()
}

// percentile renders Percentile: the runs, or "not found" when the
// percentile falls among the seeds that never found the bug.
func (r Result) percentile(p int) string {
	v, ok := r.Percentile(p)
	if !ok {
		return "not found"
	}
	return fmt.Sprint(v)
}

// shrunk renders the median and the largest number of faults in the
// shrunk schedules, "–" when no seed found the bug.
func (r Result) shrunk() string {
	if len(r.Shrunk) == 0 {
		return "–"
	}
	s := slices.Clone(r.Shrunk)
	slices.Sort(s)
	return fmt.Sprintf("%d / %d", s[(len(s)-1)/2], s[len(s)-1])
}

// Seeds returns the n seeds from first on; the table's are Seeds(1,
// TableSeeds), and a table from another first seed measures seeds its
// floors and pins were not chosen from.
func Seeds(first uint64, n int) []uint64 {
	out := make([]uint64, n)
	for i := range out {
		out[i] = first + uint64(i)
	}
	return out
}

// TableSeeds is the number of seeds of the table in BENCHMARKS.md.
const TableSeeds = 20
