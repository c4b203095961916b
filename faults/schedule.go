package faults

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/converge-sim/converge/internal/echo"
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

// Inject sets a timer on c for each fault, one that strikes at its time
// even while events are in flight; the step it strikes in records its
// number, counted from 1 in the sorted schedule (model.Record.Fault). It
// returns the timers so that the caller can cancel the faults that have
// not struck when quiescence begins.
func (s Schedule) Inject(c *model.Cluster) []*model.Timer {
	var timers []*model.Timer
	for i, t := range s.Sorted() {
		f, n := t.Fault, i+1
		timers = append(timers, c.Faults().Interrupt(t.At, "fault", fmt.Sprintf("#%d %s", n, f), func() {
			c.Faults().Mark(n)
			if err := f.Apply(c); err != nil {
				c.Note("fault had no target: %v", err)
			}
		}))
	}
	return timers
}

// wireFault is the JSON form of a timed fault: one flat object, the fields
// of its kind set.
type wireFault struct {
	At          model.Time `json:"at"`
	Kind        Kind       `json:"kind"`
	Controller  string     `json:"controller,omitempty"`
	Resource    string     `json:"resource,omitempty"`
	Down        model.Time `json:"down,omitempty"`
	For         model.Time `json:"for,omitempty"`
	AfterWrites int        `json:"after_writes,omitempty"`
	Behind      uint64     `json:"behind,omitempty"`
	Landmark    int        `json:"landmark,omitempty"`
	Error       ErrorKind  `json:"error,omitempty"`
	Count       int        `json:"count,omitempty"`
	Path        string     `json:"path,omitempty"`
	Min         int64      `json:"min,omitempty"`
	Max         int64      `json:"max,omitempty"`
	Pick        int        `json:"pick,omitempty"`
	Value       int64      `json:"value,omitempty"`
	Values      []any      `json:"values,omitempty"`
	Choice      int        `json:"choice,omitempty"`
	Recreate    bool       `json:"recreate,omitempty"`
	Owned       bool       `json:"owned,omitempty"`
	Persistent  bool       `json:"persistent,omitempty"`
}

// MarshalJSON writes the schedule as a list of flat fault objects.
func (s Schedule) MarshalJSON() ([]byte, error) {
	out := make([]wireFault, 0, len(s))
	for _, t := range s {
		w := wireFault{At: t.At, Kind: t.Fault.Kind()}
		switch f := t.Fault.(type) {
		case Drop:
			w.Controller, w.Resource = f.Controller, f.Resource
		case Duplicate:
			w.Controller, w.Resource = f.Controller, f.Resource
		case Delay:
			w.Controller, w.Resource, w.For = f.Controller, f.Resource, f.For
		case Expire:
			w.Controller, w.Resource = f.Controller, f.Resource
		case Stale:
			w.Controller, w.Resource, w.Behind, w.For = f.Controller, f.Resource, f.Behind, f.For
		case Restart:
			w.Controller, w.Down, w.AfterWrites = f.Controller, f.Down, f.AfterWrites
		case Partition:
			w.Controller, w.For = f.Controller, f.For
		case APIError:
			w.Controller, w.Error, w.Count = f.Controller, f.Error, f.Count
		case TimeTravel:
			w.Controller, w.Behind, w.Landmark, w.Down = f.Controller, f.Behind, f.Landmark, f.Down
		case Edit:
			w.Resource, w.Path, w.Min, w.Max, w.Values, w.Recreate, w.Owned = f.Target.Resource, f.Target.Path, f.Target.Min, f.Target.Max, f.Target.Values, f.Target.Recreate, f.Target.Owned
			w.Pick, w.Value, w.Choice = f.Pick, f.Value, f.Choice
		case Rival:
			w.Resource, w.Path, w.Min, w.Max, w.Values = f.Target.Resource, f.Target.Path, f.Target.Min, f.Target.Max, f.Target.Values
			w.Pick, w.Value, w.Choice, w.Persistent = f.Pick, f.Value, f.Choice, f.Persistent
		default:
			return nil, fmt.Errorf("faults: cannot encode fault %T", t.Fault)
		}
		out = append(out, w)
	}
	return json.Marshal(out)
}

// kindFields are the JSON fields of each kind's faults besides "at" and
// "kind": those MarshalJSON writes for it.
var kindFields = map[Kind][]string{
	KindDrop:       {"controller", "resource"},
	KindDuplicate:  {"controller", "resource"},
	KindDelay:      {"controller", "resource", "for"},
	KindExpire:     {"controller", "resource"},
	KindStale:      {"controller", "resource", "behind", "for"},
	KindRestart:    {"controller", "down", "after_writes"},
	KindPartition:  {"controller", "for"},
	KindAPIError:   {"controller", "error", "count"},
	KindTimeTravel: {"controller", "behind", "landmark", "down"},
	KindEdit:       {"resource", "path", "min", "max", "values", "recreate", "owned", "pick", "value", "choice"},
	KindRival:      {"resource", "path", "min", "max", "values", "pick", "value", "choice", "persistent"},
}

// UnmarshalJSON reads a schedule written by MarshalJSON, rejecting unknown
// kinds, fields no fault has or its kind does not take, and missing or
// out-of-range fields, with an error naming the entry. What an error
// echoes of the input is clipped.
func (s *Schedule) UnmarshalJSON(data []byte) error {
	var in []json.RawMessage
	if err := json.Unmarshal(data, &in); err != nil {
		return err
	}
	out := make(Schedule, 0, len(in))
	for i, raw := range in {
		w, err := decodeWire(raw)
		if err != nil {
			return fmt.Errorf("fault %d: %v", i, err)
		}
		if w.At < 0 {
			return fmt.Errorf("fault %d: negative time %d", i, w.At)
		}
		f, err := w.fault()
		if err != nil {
			return fmt.Errorf("fault %d (%s): %v", i, w.Kind, err)
		}
		out = append(out, Timed{At: w.At, Fault: f})
	}
	*s = out
	return nil
}

// decodeWire decodes one fault object strictly: every field one its kind
// takes, each of its type.
func decodeWire(raw json.RawMessage) (wireFault, error) {
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(raw, &fields); err != nil {
		return wireFault{}, err
	}
	if fields == nil {
		return wireFault{}, errors.New("null: want a fault object")
	}
	var kind Kind
	if v, ok := fields["kind"]; !ok || json.Unmarshal(v, &kind) != nil || kind == "" {
		return wireFault{}, errors.New("no kind: want a kind's name, as in \"kind\": \"drop\"")
	}
	takes, ok := kindFields[kind]
	if !ok {
		return wireFault{}, fmt.Errorf("unknown kind %s", echo.Quote(string(kind)))
	}
	for _, name := range slices.Sorted(maps.Keys(fields)) {
		if name == "at" || name == "kind" || slices.Contains(takes, name) {
			continue
		}
		for _, other := range kindFields {
			if slices.Contains(other, name) {
				return wireFault{}, fmt.Errorf("(%s): field %q does not apply to a %s fault (it takes %s)", kind, name, kind, strings.Join(takes, ", "))
			}
		}
		return wireFault{}, fmt.Errorf("(%s): unknown field %s", kind, echo.Quote(name))
	}
	var w wireFault
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&w); err != nil {
		return wireFault{}, fmt.Errorf("(%s): %v", kind, err)
	}
	return w, nil
}

func (w wireFault) fault() (Fault, error) {
	informer := func() error {
		if w.Controller == "" || w.Resource == "" {
			return errors.New("needs controller and resource")
		}
		return nil
	}
	positive := func(name string, v model.Time) error {
		if v < 1 {
			return fmt.Errorf("needs a positive %s, got %d", name, v)
		}
		return nil
	}
	switch w.Kind {
	case KindDrop:
		return Drop{Controller: w.Controller, Resource: w.Resource}, informer()
	case KindDuplicate:
		return Duplicate{Controller: w.Controller, Resource: w.Resource}, informer()
	case KindDelay:
		return Delay{Controller: w.Controller, Resource: w.Resource, For: w.For}, errors.Join(informer(), positive("for", w.For))
	case KindExpire:
		return Expire{Controller: w.Controller, Resource: w.Resource}, informer()
	case KindStale:
		if w.Behind < 1 {
			return nil, errors.New("needs behind >= 1")
		}
		return Stale{Controller: w.Controller, Resource: w.Resource, Behind: w.Behind, For: w.For}, errors.Join(informer(), positive("for", w.For))
	case KindRestart:
		if w.Controller == "" || w.Down < 0 || w.AfterWrites < 0 {
			return nil, errors.New("needs a controller, non-negative down and after_writes")
		}
		return Restart{Controller: w.Controller, Down: w.Down, AfterWrites: w.AfterWrites}, nil
	case KindPartition:
		if w.Controller == "" {
			return nil, errors.New("needs a controller")
		}
		return Partition{Controller: w.Controller, For: w.For}, positive("for", w.For)
	case KindAPIError:
		if w.Controller == "" || w.Count < 1 {
			return nil, errors.New("needs a controller and count >= 1")
		}
		if _, _, err := w.Error.status(); err != nil {
			return nil, err
		}
		return APIError{Controller: w.Controller, Error: w.Error, Count: w.Count}, nil
	case KindTimeTravel:
		switch {
		case w.Landmark < 0:
			return nil, errors.New("needs landmark >= 1")
		case w.Behind < 1 && w.Landmark < 1:
			return nil, errors.New("needs behind >= 1 or landmark >= 1")
		case w.Behind > 0 && w.Landmark != 0:
			return nil, errors.New("takes behind or landmark, not both")
		}
		if w.Controller == "" {
			return nil, errors.New("needs a controller")
		}
		return TimeTravel{Controller: w.Controller, Behind: w.Behind, Landmark: w.Landmark, Down: w.Down}, positive("down", w.Down)
	case KindEdit, KindRival:
		target := EditTarget{Resource: w.Resource, Path: w.Path, Min: w.Min, Max: w.Max, Values: w.Values, Recreate: w.Recreate, Owned: w.Owned}
		if err := target.validate(); err != nil {
			return nil, err
		}
		if w.Pick < 0 {
			return nil, fmt.Errorf("negative pick %d", w.Pick)
		}
		if w.Choice < 0 || (w.Choice > 0 && w.Choice >= len(w.Values)) {
			return nil, fmt.Errorf("choice %d outside the %d values", w.Choice, len(w.Values))
		}
		if w.Kind == KindEdit {
			return Edit{Target: target, Pick: w.Pick, Value: w.Value, Choice: w.Choice}, nil
		}
		if w.Path == "" {
			return nil, errors.New("needs a field path")
		}
		return Rival{Target: target, Pick: w.Pick, Value: w.Value, Choice: w.Choice, Persistent: w.Persistent}, nil
	}
	return nil, fmt.Errorf("unknown kind %s", echo.Quote(string(w.Kind)))
}
