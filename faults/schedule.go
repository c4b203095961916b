package faults

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/converge-sim/converge/model"
)

// Timed is a fault and the virtual time it strikes at.
type Timed struct {
	At    model.Time
	Fault Fault
}

func (t Timed) String() string { return fmt.Sprintf("t=%d %s", t.At, t.Fault) }

// Schedule is a list of timed faults. After the last one the run is in
// quiescence: faults and outside actors stop and everything healable heals.
type Schedule []Timed

// Sorted returns the schedule ordered by time; faults at the same time keep
// their order.
func (s Schedule) Sorted() Schedule {
	out := slices.Clone(s)
	slices.SortStableFunc(out, func(a, b Timed) int { return int(a.At - b.At) })
	return out
}

// Count returns how many faults of kind k the schedule holds.
func (s Schedule) Count(k Kind) int {
	n := 0
	for _, t := range s {
		if t.Fault.Kind() == k {
			n++
		}
	}
	return n
}

// Lines renders the sorted schedule, one fault a line.
func (s Schedule) Lines() []string {
	var out []string
	for _, t := range s.Sorted() {
		out = append(out, t.String())
	}
	return out
}

// String renders the sorted schedule on one line.
func (s Schedule) String() string {
	if len(s) == 0 {
		return "no faults"
	}
	return strings.Join(s.Lines(), "; ")
}

// Signature identifies the schedule's shape regardless of exact times:
// kinds and targets in time order. Findings with the same property and
// signature are the same bug.
func (s Schedule) Signature() string {
	parts := make([]string, 0, len(s))
	for _, t := range s.Sorted() {
		parts = append(parts, t.Fault.String())
	}
	return strings.Join(parts, " | ")
}

// Inject sets a timer on c for each fault. It returns the timers so that
// the caller can cancel the faults that have not struck when quiescence
// begins.
func (s Schedule) Inject(c *model.Cluster) []*model.Timer {
	var timers []*model.Timer
	for i, t := range s.Sorted() {
		f := t.Fault
		timers = append(timers, c.At(t.At, "fault", fmt.Sprintf("#%d %s", i+1, f), func() {
			if err := f.Apply(c); err != nil {
				c.Note("fault had no target: %v", err)
			}
		}))
	}
	return timers
}

// wireFault is the JSON form of a timed fault.
type wireFault struct {
	At         model.Time `json:"at"`
	Kind       Kind       `json:"kind"`
	Controller string     `json:"controller,omitempty"`
	Resource   string     `json:"resource,omitempty"`
	Down       model.Time `json:"down,omitempty"`
	Field      string     `json:"field,omitempty"`
	Min        int64      `json:"min,omitempty"`
	Max        int64      `json:"max,omitempty"`
	Pick       int        `json:"pick,omitempty"`
	Value      int64      `json:"value,omitempty"`
}

// MarshalJSON writes the schedule as a list of flat fault objects.
func (s Schedule) MarshalJSON() ([]byte, error) {
	out := make([]wireFault, 0, len(s))
	for _, t := range s {
		w := wireFault{At: t.At, Kind: t.Fault.Kind()}
		switch f := t.Fault.(type) {
		case Drop:
			w.Controller, w.Resource = f.Controller, f.Resource
		case Restart:
			w.Controller, w.Down = f.Controller, f.Down
		case Edit:
			w.Resource, w.Field, w.Min, w.Max, w.Pick, w.Value = f.Target.Resource, f.Target.Field, f.Target.Min, f.Target.Max, f.Pick, f.Value
		default:
			return nil, fmt.Errorf("faults: cannot encode fault %T", t.Fault)
		}
		out = append(out, w)
	}
	return json.Marshal(out)
}

// UnmarshalJSON reads a schedule written by MarshalJSON, rejecting unknown
// kinds and missing fields with an error that names the entry.
func (s *Schedule) UnmarshalJSON(data []byte) error {
	var in []wireFault
	if err := json.Unmarshal(data, &in); err != nil {
		return err
	}
	out := make(Schedule, 0, len(in))
	for i, w := range in {
		if w.At < 0 {
			return fmt.Errorf("fault %d: negative time %d", i, w.At)
		}
		var f Fault
		switch w.Kind {
		case KindDrop:
			if w.Controller == "" || w.Resource == "" {
				return fmt.Errorf("fault %d (drop): needs controller and resource", i)
			}
			f = Drop{Controller: w.Controller, Resource: w.Resource}
		case KindRestart:
			if w.Controller == "" || w.Down < 0 {
				return fmt.Errorf("fault %d (restart): needs a controller and a non-negative down time", i)
			}
			f = Restart{Controller: w.Controller, Down: w.Down}
		case KindEdit:
			target := EditTarget{Resource: w.Resource, Field: w.Field, Min: w.Min, Max: w.Max}
			if err := target.validate(); err != nil {
				return fmt.Errorf("fault %d (edit): %v", i, err)
			}
			if w.Pick < 0 {
				return fmt.Errorf("fault %d (edit): negative pick %d", i, w.Pick)
			}
			f = Edit{Target: target, Pick: w.Pick, Value: w.Value}
		default:
			return fmt.Errorf("fault %d: unknown kind %q", i, w.Kind)
		}
		out = append(out, Timed{At: w.At, Fault: f})
	}
	*s = out
	return nil
}
