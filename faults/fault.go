// Package faults describes the faults converge injects into a model
// cluster. Faults are data: a Schedule is a list of (time, fault) that
// prints, shrinks under rapid, is saved in a finding and replays.
//
// The smallest use draws a schedule inside a rapid property and injects it:
//
//	topo := faults.TopologyOf(cluster, nil)
//	sched := faults.Schedules(faults.Mix{faults.KindDrop}, topo, faults.Budget{MaxFaults: 2, Horizon: 60}).Draw(t, "faults")
//	timers, err := sched.Inject(cluster)
package faults

import (
	"fmt"
	"slices"
	"strings"

	"github.com/converge-sim/converge/model"
)

// Kind names a kind of fault, as used in `fuzzrun -faults`.
type Kind string

// The fault kinds.
const (
	// KindDrop loses one notification: the informer's cache applies the
	// event, the controller is never told of it.
	KindDrop Kind = "drop"
	// KindRestart crashes a controller: its memory, cache and queue are
	// lost; it is down for some ticks, then relists everything.
	KindRestart Kind = "restart"
	// KindEdit is a one-shot outside write or delete by a non-controller.
	KindEdit Kind = "edit"
)

// Kinds returns every fault kind, in the order `fuzzrun -list` shows them.
func Kinds() []Kind { return []Kind{KindDrop, KindRestart, KindEdit} }

// Describe says what a fault kind does, in a sentence.
func Describe(k Kind) string {
	switch k {
	case KindDrop:
		return "an event's notification never reaches one informer's handlers; the cache still applies it"
	case KindRestart:
		return "a controller crashes: memory, cache and queue lost; down D ticks, then relists and resyncs"
	case KindEdit:
		return "a one-shot outside write or delete by a non-controller"
	}
	return "unknown fault kind"
}

// Mix is a set of fault kinds a schedule draws from.
type Mix []Kind

// ParseMix parses a comma-separated list of kinds ("drop,restart").
func ParseMix(s string) (Mix, error) {
	var m Mix
	for part := range strings.SplitSeq(s, ",") {
		k := Kind(strings.TrimSpace(part))
		if k == "" {
			continue
		}
		if !slices.Contains(Kinds(), k) {
			return nil, fmt.Errorf("unknown fault kind %q (known: %s)", k, Mix(Kinds()))
		}
		if !slices.Contains(m, k) {
			m = append(m, k)
		}
	}
	if len(m) == 0 {
		return nil, fmt.Errorf("empty fault list %q", s)
	}
	return m, nil
}

// String renders the mix as "drop,restart".
func (m Mix) String() string {
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

// Drop loses the notification of the next watch event delivered to
// Controller's informer for Resource: the cache applies the event, the
// controller is never told.
type Drop struct {
	Controller string
	Resource   string
}

// Kind returns KindDrop.
func (Drop) Kind() Kind { return KindDrop }

// Apply arms the drop on the informer.
func (f Drop) Apply(c *model.Cluster) error { return c.ArmDrop(f.Controller, f.Resource) }

// Target returns the controller whose notification is lost.
func (f Drop) Target() string { return f.Controller }

func (f Drop) String() string {
	return fmt.Sprintf("drop the next %s notification to %s", f.Resource, f.Controller)
}

// Restart crashes Controller and keeps it down for Down ticks.
type Restart struct {
	Controller string
	Down       model.Time
}

// Kind returns KindRestart.
func (Restart) Kind() Kind { return KindRestart }

// Apply crashes the controller.
func (f Restart) Apply(c *model.Cluster) error { return c.Crash(f.Controller, f.Down) }

// Target returns the controller that crashes.
func (f Restart) Target() string { return f.Controller }

func (f Restart) String() string {
	return fmt.Sprintf("restart %s (down %d ticks)", f.Controller, f.Down)
}

// EditTarget says what an edit fault may do: delete an object of Resource
// (Field empty), or set its integer spec field Field to a value in
// [Min, Max].
type EditTarget struct {
	Resource string
	Field    string
	Min, Max int64
}

func (e EditTarget) validate() error {
	if e.Resource == "" {
		return fmt.Errorf("edit target without a resource kind")
	}
	if e.Field != "" && e.Max < e.Min {
		return fmt.Errorf("edit target %s.%s: Max %d < Min %d", e.Resource, e.Field, e.Max, e.Min)
	}
	return nil
}

// Editor is the writer name edits are made under.
const Editor = "outside-edit"

// Edit is a one-shot outside change to the Pick-th object (in key order,
// modulo the count) of Target.Resource: a delete, or spec.Field = Value.
type Edit struct {
	Target EditTarget
	Pick   int
	Value  int64
}

// Kind returns KindEdit.
func (Edit) Kind() Kind { return KindEdit }

// Apply makes the edit through the API server, as writer Editor.
func (f Edit) Apply(c *model.Cluster) error {
	out := c.Outside(Editor)
	var live []*model.Object
	for _, o := range out.List(f.Target.Resource, model.ListOptions{}) {
		if !o.Deleting() {
			live = append(live, o)
		}
	}
	if len(live) == 0 {
		return nil
	}
	obj := live[f.Pick%len(live)]
	if f.Target.Field == "" {
		return out.Delete(obj.Ref(), model.DeleteOptions{UID: obj.UID})
	}
	if obj.Spec == nil {
		obj.Spec = model.Fields{}
	}
	obj.Spec[f.Target.Field] = f.Value
	return out.Update(obj)
}

func (f Edit) String() string {
	if f.Target.Field == "" {
		return fmt.Sprintf("edit: delete %s #%d", f.Target.Resource, f.Pick)
	}
	return fmt.Sprintf("edit: set spec.%s=%d on %s #%d", f.Target.Field, f.Value, f.Target.Resource, f.Pick)
}
