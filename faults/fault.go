// Package faults describes the faults converge injects into a model
// cluster. Faults are data: a Schedule is a list of (time, fault) that
// prints, shrinks under rapid, is saved in a finding and replays.
//
// The smallest use draws a schedule inside a rapid property and injects it
// into a started cluster (the package Example runs it with Example(seed) in
// place of Draw):
//
//	topo := faults.TopologyOf(cluster, nil, nil)
//	sched := faults.Schedules(faults.Mix{faults.KindDrop}, topo, faults.Budget{MaxFaults: 2, Horizon: 60, MaxDown: 10}).Draw(t, "faults")
//	timers := sched.Inject(cluster)
package faults

import (
	"fmt"
	"slices"
	"strings"

	"github.com/converge-sim/converge/internal/echo"
	"github.com/converge-sim/converge/model"
)

// Kind names a kind of fault, as used in `fuzzrun -faults`.
type Kind string

// The fault kinds.
const (
	KindDrop      Kind = "drop"
	KindDuplicate Kind = "duplicate"
	KindDelay     Kind = "delay"
	KindExpire    Kind = "expire"
	KindRestart   Kind = "restart"
	KindStale     Kind = "stale"
	KindEdit      Kind = "edit"
	KindRival     Kind = "rival"
	KindAPIError  Kind = "apierror"
	KindPartition Kind = "partition"
	// KindTimeTravel is a relist from a server behind (TimeTravel).
	KindTimeTravel Kind = "timetravel"
)

// Kinds returns every fault kind, in the order `fuzzrun -list` shows them.
func Kinds() []Kind {
	return []Kind{KindDrop, KindDuplicate, KindDelay, KindExpire, KindRestart, KindStale, KindEdit, KindRival, KindAPIError, KindPartition, KindTimeTravel}
}

// Describe says what a fault kind does, in a sentence.
func Describe(k Kind) string {
	if info, ok := catalog[k]; ok {
		return info.what
	}
	return "unknown fault kind"
}

// Mix is a set of fault kinds a schedule draws from.
type Mix []Kind

// ParseMix parses a comma-separated list of kinds ("drop,restart"), or
// "none" for no faults at all.
func ParseMix(s string) (Mix, error) {
	if strings.TrimSpace(s) == "none" {
		return Mix{}, nil
	}
	var m Mix
	for part := range strings.SplitSeq(s, ",") {
		k := Kind(strings.TrimSpace(part))
		if k == "" {
			continue
		}
		if !slices.Contains(Kinds(), k) {
			return nil, fmt.Errorf("unknown fault kind %s (known: %s)", echo.Quote(string(k)), Mix(Kinds()))
		}
		if !slices.Contains(m, k) {
			m = append(m, k)
		}
	}
	if len(m) == 0 {
		return nil, fmt.Errorf("empty fault list %s", echo.Quote(s))
	}
	return m, nil
}

// String renders the mix as "drop,restart", or "none" when empty.
func (m Mix) String() string {
	if len(m) == 0 {
		return "none"
	}
	parts := make([]string, len(m))
	for i, k := range m {
		parts[i] = string(k)
	}
	return strings.Join(parts, ",")
}

// Has reports whether the mix contains k.
func (m Mix) Has(k Kind) bool { return slices.Contains(m, k) }

// Fault is one fault, applied to a running cluster at its time.
type Fault interface {
	Kind() Kind
	// Apply injects the fault into c, as the current step.
	Apply(c *model.Cluster) error
	// String says what the fault does, in words.
	String() string
}

// Aimed is a fault that strikes one controller.
type Aimed interface {
	Fault
	// Target names the controller.
	Target() string
}

// Lasts returns how long a fault holds once it strikes: a delay, a lag, a
// restart's downtime or a partition; zero for a fault that is over when it
// strikes (an armed fault is over at its next event or write, soon after).
func Lasts(f Fault) model.Time {
	switch f := f.(type) {
	case Delay:
		return f.For
	case Stale:
		return f.For
	case Restart:
		return f.Down
	case Partition:
		return f.For
	case TimeTravel:
		return f.Down
	}
	return 0
}

// Lasting returns fault f holding for d once it strikes instead (Lasts),
// and whether f is a kind that holds.
func Lasting(f Fault, d model.Time) (Fault, bool) {
	switch f := f.(type) {
	case Delay:
		f.For = d
		return f, true
	case Stale:
		f.For = d
		return f, true
	case Restart:
		f.Down = d
		return f, true
	case Partition:
		f.For = d
		return f, true
	case TimeTravel:
		f.Down = d
		return f, true
	}
	return f, false
}
