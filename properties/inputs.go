package properties

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"hash"
	"maps"
	"slices"
	"strings"

	"github.com/converge-sim/converge/internal/echo"
	"github.com/converge-sim/converge/model"
	"pgregory.net/rapid"
)

// DefaultMaxTransitions is Inputs.Max when it is zero.
const DefaultMaxTransitions = 3

// InputsActor is the name of the state-transition actor: the writer of the
// transitions in traces.
const InputsActor = "inputs"

// Inputs declares state transitions of one object, a custom resource as a
// rule: every run draws up to Max whole spec values from Spec before it
// starts (as it draws its fault schedule), and a state-transition actor
// applies them one per move, interleaved with the faults and the other
// actors. rapid shrinks the sequence to the fewest, simplest transitions
// that still fail.
//
// A scenario with inputs is judged by the goal-free differential oracle
// (HistoryDependent) besides its goals: once the run converges on the
// target's final spec S, the state (the target's status, and the objects
// it owns, transitively, with their labels and specs) must equal the
// state a fresh cluster converges to when S is its spec from the start.
// Only the transitions the API server accepted count; the reference run
// draws the world's choices as the run did (see docs/design.md,
// "State-transition inputs").
type Inputs struct {
	// Target is the object whose spec the transitions set; the scenario's
	// Build creates it.
	Target model.Ref
	// Spec draws one whole spec value.
	Spec *rapid.Generator[model.Fields]
	// Max bounds the transitions of a run; zero means
	// DefaultMaxTransitions.
	Max int
	// Fields, when set, keeps of each spec Spec draws only these field
	// paths and the paths below them ("template" keeps
	// "template.labels.app"; "[*]" stands for any index), spelled as the
	// spec's model.Fields spell them; the others are left unset. Pin's
	// paths are kept too. The core knows no schema, so it cannot tell
	// required fields or narrow ranges: those belong to the generator
	// (the draw package's ranges and choices; crt.Inputs declares a
	// whole input space against the CRD's schema).
	Fields []string
	// Pin sets these fields, each an int64, a string or a bool, on every
	// spec Spec draws, after Fields: every transition carries them, in
	// runs and in explorations (ExploreSpecs) alike.
	Pin model.Values
	// Ignore lists what the differential oracle leaves out: fields of
	// every object or of some kinds and names, and objects whose presence
	// on one side only is by design (see Ignore). Some paths are always
	// left out (alwaysIgnored in compare.go): status.observedGeneration
	// and conditions' observedGeneration and lastTransitionTime, which
	// count writes and record when a history passed.
	Ignore []Ignore
	// Semantics tells the oracle how Kubernetes compares each kind's
	// fields: lists by their keys, quantities by value. The zero value
	// compares lists by position and values as written.
	Semantics Semantics
	// Refused, when set, says whether the operator refused the target's
	// spec on purpose, and why, from the target as stored (a status
	// condition such as Resizing=False reason ShrinkNotSupported): an
	// operator may refuse an input (shrinking storage, scaling down) and
	// keep acting on the last spec it accepted. When the final spec is
	// refused, the reference is a fresh cluster converged on the last
	// accepted spec, then given the final spec: see docs/design.md,
	// "Inputs the operator refuses".
	Refused func(target *model.Object) (reason string, refused bool)
}

// MaxTransitions returns Max with its default filled in.
func (in *Inputs) MaxTransitions() int {
	if in.Max == 0 {
		return DefaultMaxTransitions
	}
	return in.Max
}

func (in *Inputs) validate() error {
	var errs []error
	if in.Target.Kind == "" || in.Target.Name == "" {
		errs = append(errs, fmt.Errorf("inputs target %q needs a kind and a name", in.Target))
	}
	if in.Spec == nil {
		errs = append(errs, errors.New("inputs have no Spec generator"))
	}
	if in.Max < 0 {
		errs = append(errs, fmt.Errorf("inputs: negative Max %d", in.Max))
	}
	for _, ig := range in.Ignore {
		if err := ig.validate(); err != nil {
			errs = append(errs, fmt.Errorf("inputs: %w", err))
		}
	}
	for _, p := range in.Fields {
		if _, err := parsePattern(p); err != nil || p == "" {
			errs = append(errs, fmt.Errorf("inputs: bad field path %q", p))
		}
	}
	for _, p := range slices.Sorted(maps.Keys(in.Pin)) {
		switch v := in.Pin[p]; v.(type) {
		case int64, string, bool:
			if p == "" || strings.HasPrefix(p, ".") || strings.HasSuffix(p, ".") || strings.Contains(p, "[*]") {
				errs = append(errs, fmt.Errorf("inputs: bad pin path %q (one field, no [*])", p))
			}
		default:
			errs = append(errs, fmt.Errorf("inputs: pin %q: unsupported value %v of type %T (use int64, string or bool)", p, v, v))
		}
	}
	return errors.Join(errs...)
}

// spec returns the generator of one transition's spec: Spec's draws,
// restricted to Fields and carrying Pin.
func (in *Inputs) spec() *rapid.Generator[model.Fields] {
	if len(in.Fields) == 0 && len(in.Pin) == 0 {
		return in.Spec
	}
	return rapid.Map(in.Spec, func(f model.Fields) model.Fields {
		if len(in.Fields) > 0 {
			for _, p := range f.Paths() {
				if !declared(p, in.Fields) {
					f.Delete(p)
				}
			}
		}
		for p, v := range in.Pin {
			f.Set(p, v)
		}
		return f
	})
}

// declared reports whether path is one of fields or below one.
func declared(path string, fields []string) bool {
	segs := splitPath(path)
	for _, d := range fields {
		if pattern, err := parsePattern(d); err == nil && matchPrefix(segs, pattern) {
			return true
		}
	}
	return false
}

// generator draws a run's transitions: up to Max specs, shrinking toward
// none.
func (in *Inputs) generator() *rapid.Generator[Transitions] {
	return rapid.Custom(func(t *rapid.T) Transitions {
		return rapid.SliceOfN(in.spec(), 0, in.MaxTransitions()).Draw(t, "transitions")
	})
}

// Transitions are the spec values a run's state-transition actor applies
// to Inputs.Target, in order. They are saved in findings (as JSON: a list
// of objects from field path to value) and replay with RunOptions.Inputs.
type Transitions []model.Fields

// MarshalJSON writes each spec as an object from path to value.
func (ts Transitions) MarshalJSON() ([]byte, error) {
	out := make([]map[string]any, 0, len(ts))
	for _, f := range ts {
		m := map[string]any{}
		for p, v := range f.All() {
			m[p] = v
		}
		out = append(out, m)
	}
	return json.Marshal(out)
}

// UnmarshalJSON reads transitions written by MarshalJSON: every value an
// integer, a string or a boolean.
func (ts *Transitions) UnmarshalJSON(data []byte) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var in []map[string]any
	if err := dec.Decode(&in); err != nil {
		return err
	}
	out := make(Transitions, 0, len(in))
	for i, m := range in {
		if m == nil {
			return fmt.Errorf("transition %d: null spec", i)
		}
		vals := model.Values{}
		for p, v := range m {
			if p == "" {
				return fmt.Errorf("transition %d: empty field path", i)
			}
			switch v := v.(type) {
			case json.Number:
				n, err := v.Int64()
				if err != nil {
					return fmt.Errorf("transition %d: %s: %s is not an integer", i, echo.Quote(p), echo.Clip(v.String(), echo.Max))
				}
				vals[p] = n
			case string, bool:
				vals[p] = v
			default:
				return fmt.Errorf("transition %d: %s: unsupported value %s (integers, strings and booleans only)", i, echo.Quote(p), echo.Clip(fmt.Sprint(v), echo.Max))
			}
		}
		out = append(out, model.NewFields(vals))
	}
	*ts = out
	return nil
}

// Transition is one transition a run's actor made: the spec it found and
// the spec it set, and when; Err is the API server's refusal, if any.
type Transition struct {
	Before model.Fields
	Spec   model.Fields
	Step   int
	At     model.Time
	Err    string
}

// inputActor is the state-transition actor: each move writes the next
// spec to the target, read fresh. With a sample, each move first chooses
// its spec among the sample (a choice labelled inputLabel), and specs
// grow with the choices.
type inputActor struct {
	c      *model.Cluster
	target model.Ref
	specs  Transitions
	sample Transitions
	done   []Transition
	// accepted is the last spec of the target the operator accepted, as
	// watchAcceptance observes it.
	accepted model.Fields
}

// landed returns the transitions the API server accepted: a refused one
// changed nothing, so it is no transition.
func (a *inputActor) landed() []Transition {
	var out []Transition
	for _, tr := range a.done {
		if tr.Err == "" {
			out = append(out, tr)
		}
	}
	return out
}

// watchAcceptance follows which spec of the target the operator last
// accepted: the spec the cluster was built with, then the spec of the
// target after each write of one of controllers that leaves it not
// refused, once the operator has observed that spec's generation
// (status.observedGeneration, when the operator reports one). With no
// refused, every spec is taken as accepted and nothing is watched.
func (a *inputActor) watchAcceptance(c *model.Cluster, refused func(*model.Object) (string, bool), controllers []string) {
	t := a.target
	if o := c.State().Get(t.Kind, t.Namespace, t.Name); o != nil {
		a.accepted = o.Spec
	}
	if refused == nil {
		return
	}
	c.OnWrite(func(w model.Write) {
		o := w.New
		if o == nil || o.Kind != t.Kind || o.Namespace != t.Namespace || o.Name != t.Name || !slices.Contains(controllers, w.Caller) {
			return
		}
		if o.Status.Has("observedGeneration") && o.Status.Int("observedGeneration") != o.Generation {
			return
		}
		if _, no := refused(o); !no {
			a.accepted = o.Spec
		}
	})
}

// inputLabel labels the choice of which spec of the sample a transition
// sets.
const inputLabel = "explore: input spec"

func (a *inputActor) Name() string { return InputsActor }

// Fingerprint writes how many transitions the actor has applied: the
// specs they set are in the server's state, and the rest of its memory is
// the same in every state of a run (in an exploration, which chooses each
// spec as the actor moves, no spec is pending between moves).
func (a *inputActor) Fingerprint(h hash.Hash64) { fmt.Fprintf(h, "done=%d", len(a.done)) }

func (a *inputActor) Act(o *model.Outside) error {
	if a.sample != nil {
		a.specs = append(a.specs, a.sample[o.Choose(len(a.sample), inputLabel)])
	}
	spec := a.specs[len(a.done)]
	tr := Transition{Spec: spec, Step: a.c.Steps(), At: o.Now()}
	err := func() error {
		obj, err := o.Get(a.target.Kind, a.target.Namespace, a.target.Name)
		if err != nil {
			return err
		}
		tr.Before = obj.Spec
		obj.Spec = spec
		return o.Update(obj)
	}()
	if err != nil {
		tr.Err = err.Error()
	}
	a.done = append(a.done, tr)
	return err
}

// addInputs adds the state-transition actor of sc's inputs to c, with one
// move per transition: of specs, or, with a sample, moves of them chosen
// from it as the actor moves.
func addInputs(c *model.Cluster, sc Scenario, specs, sample Transitions, moves int) (*inputActor, error) {
	if sample == nil {
		moves = len(specs)
	}
	if sc.Inputs == nil {
		if moves > 0 {
			return nil, fmt.Errorf("scenario %q declares no inputs, yet the run was given %d transitions", sc.Name, moves)
		}
		return nil, nil
	}
	if moves > sc.Inputs.MaxTransitions() {
		return nil, fmt.Errorf("scenario %q: %d transitions, more than its inputs' Max %d", sc.Name, moves, sc.Inputs.MaxTransitions())
	}
	a := &inputActor{c: c, target: sc.Inputs.Target, specs: specs, sample: sample}
	if err := c.AddActor(a, moves); err != nil {
		return nil, fmt.Errorf("scenario %q: %w", sc.Name, err)
	}
	return a, nil
}

// plural renders "1 transition" or "2 transitions".
func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

// inputLines renders the transitions a run was given, for a failure's
// report.
func inputLines(target model.Ref, ts Transitions) []string {
	if len(ts) == 0 {
		return []string{fmt.Sprintf("inputs: no transitions of %s", target)}
	}
	lines := []string{fmt.Sprintf("inputs (%s of %s):", plural(len(ts), "transition"), target)}
	for i, f := range ts {
		lines = append(lines, fmt.Sprintf("  #%d %s", i+1, f))
	}
	return lines
}

// ExploreSpecs returns the first n distinct specs in.Spec draws with the
// seeds 0, 1, …, restricted to in.Fields and carrying in.Pin: the specs
// an exploration's transitions are made of (ExploreOptions.Inputs). It
// gives up, with fewer, after 20n draws, and fails if the generator does.
func ExploreSpecs(in *Inputs, n int) (specs Transitions, err error) {
	defer func() {
		if v := recover(); v != nil {
			err = fmt.Errorf("inputs: the Spec generator failed: %v", v)
		}
	}()
	seen := map[string]bool{}
	gen := in.spec()
	for seed := 0; len(specs) < n && seed < 20*n; seed++ {
		spec := gen.Example(seed)
		if key := spec.String(); !seen[key] {
			seen[key] = true
			specs = append(specs, spec)
		}
	}
	return specs, nil
}
