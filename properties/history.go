package properties

import (
	"fmt"
	"slices"
	"strings"

	"github.com/converge-sim/converge/model"
)

// referenceMemo keeps the converged state of a fresh cluster per final
// spec, keyed by the spec: every run and shrink step of a
// prepared scenario that ends on the same spec reuses one reference run.
// It keeps the memoCapacity newest entries, so a long campaign over a large
// space of specs does not grow without bound; an evicted spec costs one
// more reference run, never a different verdict.
type referenceMemo struct {
	runs map[string]reference
	// order holds the keys of runs, oldest first.
	order  []string
	hits   int
	misses int
}

// memoCapacity is how many reference runs a memo keeps.
const memoCapacity = 4096

// reference is the outcome of a reference run: its converged state, or
// its failure.
type reference struct {
	state   []stateObject
	failure *Failure
}

func newReferenceMemo() *referenceMemo { return &referenceMemo{runs: map[string]reference{}} }

// MemoStats counts the lookups of a prepared scenario's reference-run memo
// (see Inputs): a miss costs one reference run, a hit none.
type MemoStats struct {
	Hits, Misses int
}

// ReferenceRuns returns the counts of the reference-run memo the prepared
// scenario's runs share.
func (p *Prepared) ReferenceRuns() MemoStats {
	return MemoStats{Hits: p.shape.refs.hits, Misses: p.shape.refs.misses}
}

// lookup returns the reference state for spec, running a fresh cluster of
// r's scenario the first time.
//
// Every run of a prepared scenario shares the memo, and a run given up as a
// hang may still be running when the next begins: the memo is read and
// written only inside the run's gate, which a given-up run never passes
// again. The reference run itself takes the gate at each of its steps.
func (m *referenceMemo) lookup(r *runner, spec model.Fields) (reference, error) {
	key := spec.String()
	r.gate.enter()
	ref, ok := m.runs[key]
	if ok {
		m.hits++
	} else {
		m.misses++
	}
	r.gate.leave()
	if ok {
		return ref, nil
	}
	ref, err := runReference(r, spec)
	if err != nil {
		return reference{}, err
	}
	r.gate.enter()
	m.store(key, ref)
	r.gate.leave()
	return ref, nil
}

// store keeps ref under key, evicting the oldest entry when the memo is
// full.
func (m *referenceMemo) store(key string, ref reference) {
	if len(m.order) == memoCapacity {
		delete(m.runs, m.order[0])
		m.order = m.order[1:]
	}
	m.runs[key] = ref
	m.order = append(m.order, key)
}

// runReference builds a fresh cluster of r's scenario, sets the target's
// spec to spec before it starts, and runs it with no faults, no inputs and
// its actors stopped, to its fixed point.
func runReference(r *runner, spec model.Fields) (reference, error) {
	sc := r.sc
	target := sc.Inputs.Target
	c, err := sc.Build(model.Config{DiscardTrace: true})
	if err != nil {
		return reference{}, fmt.Errorf("scenario %q: reference build: %w", sc.Name, err)
	}
	if c == nil {
		return reference{}, fmt.Errorf("scenario %q: Build returned no cluster", sc.Name)
	}
	out := c.Outside(InputsActor)
	obj, err := out.Get(target.Kind, target.Namespace, target.Name)
	if err != nil {
		return reference{}, fmt.Errorf("scenario %q: inputs target %s: %w", sc.Name, target, err)
	}
	obj.Spec = spec
	if err := out.Update(obj); err != nil {
		return reference{}, fmt.Errorf("scenario %q: reference run: setting the final spec of %s: %w", sc.Name, target, err)
	}
	c.StopActors()
	if err := c.Start(); err != nil {
		return reference{}, fmt.Errorf("scenario %q: start: %w", sc.Name, err)
	}
	ref := &runner{sc: sc, c: c, ch: firstChoice{}, b: r.b, fights: newFightDetector(), gate: r.gate, controllers: c.Controllers(), sources: c.Sources()}
	c.OnWrite(ref.fights.observe)
	c.OnWrite(ref.observeWrite)
	ref.invariants = sc.Invariants
	if sc.Monitors != nil {
		ref.invariants = append(slices.Clip(ref.invariants), sc.Monitors(c)...)
	}
	if f := ref.run(nil); f != nil {
		return reference{failure: f}, nil
	}
	state, ok := captureState(c.State(), target, newComparer(sc.Inputs))
	if !ok {
		return reference{}, fmt.Errorf("scenario %q: the reference run deleted the inputs target %s", sc.Name, target)
	}
	return reference{state: state}, nil
}

// historyDependent is the differential oracle, run once the cluster
// converged with goals met: the state reached through the transitions
// must be the state a fresh cluster reaches from the final spec alone.
func (r *runner) historyDependent(in *inputActor, memo *referenceMemo) (*Failure, error) {
	target := r.sc.Inputs.Target
	st := r.c.State()
	tgt := st.Get(target.Kind, target.Namespace, target.Name)
	if tgt == nil {
		return nil, nil // the run deleted the target: there is no final spec
	}
	cm := newComparer(r.sc.Inputs)
	got, _ := captureState(st, target, cm)
	ref, err := memo.lookup(r, tgt.Spec)
	if err != nil {
		return nil, err
	}
	if ref.failure != nil {
		f := *ref.failure
		f.Summary = "a fresh cluster whose " + target.String() + " has the final spec from the start fails: " + f.Summary
		f.Step, f.At = r.c.Steps(), r.c.Now()
		f.Diagnosis = append(slices.Clip(f.Diagnosis), transitionLines(in, tgt.Spec)...)
		return &f, nil
	}
	diff := cm.diffStates(ref.state, got)
	if len(diff) == 0 {
		return nil, nil
	}
	f := r.failure("history independence", HistoryDependent, fmt.Sprintf("after %s of %s the cluster converged to a state a fresh cluster given the final spec directly does not reach (%s)", plural(len(in.done), "transition"), target, plural(len(diff), "difference")))
	f.Details = diff
	f.Diagnosis = transitionLines(in, tgt.Spec)
	return f, nil
}

// transitionLines renders the final spec and the transitions applied,
// each with the fields it changed, and marks the one the history starts
// at: the first whose spec is not the final one, since the transitions
// before it all asked for the final spec; when every one did, the first
// transition, which left the initial spec the cluster converged on before.
func transitionLines(in *inputActor, final model.Fields) []string {
	lines := []string{"final spec: " + final.String(), fmt.Sprintf("transitions applied (%d):", len(in.done))}
	start := -1
	for i, tr := range in.done {
		if tr.Err == "" && !tr.Spec.Equal(final) {
			start = i
			break
		}
	}
	for i, tr := range in.done {
		line := fmt.Sprintf("  #%d step %d, t=%d: %s", i+1, tr.Step, tr.At, tr.Spec.String())
		if changes := changes(tr.Before, tr.Spec); changes != "" && tr.Err == "" {
			line += " (" + changes + ")"
		}
		if tr.Err != "" {
			line += " (refused: " + tr.Err + ")"
		}
		switch {
		case i == start:
			line += fmt.Sprintf("  <- the history starts here: the first transition away from the final spec (on %s)", strings.Join(changedPaths(tr.Spec, final), ", "))
		case start < 0 && i == 0:
			line += "  <- the history starts here: every transition set the final spec, and this one left the initial spec " + tr.Before.String() + ", which the cluster had converged on"
		}
		lines = append(lines, line)
	}
	return lines
}

// changes renders what a transition changed: "replicas: 2→1, tier:
// "gold"→<none>".
func changes(before, after model.Fields) string {
	var out []string
	for _, p := range changedPaths(before, after) {
		out = append(out, p+": "+model.FormatValue(before.Value(p))+"→"+model.FormatValue(after.Value(p)))
	}
	return strings.Join(out, ", ")
}

// changedPaths lists the paths where a and b differ.
func changedPaths(a, b model.Fields) []string {
	var out []string
	for _, p := range unionPaths(a, b) {
		if a.Value(p) != b.Value(p) {
			out = append(out, p)
		}
	}
	return out
}
