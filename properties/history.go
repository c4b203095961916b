package properties

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/converge-sim/converge/model"
)

// referenceMemo keeps the outcomes of reference runs, keyed by the final
// spec (and the last accepted spec it starts from, when the operator
// refused the final one) and the time the history's fault phase ended,
// where the reference run's begins its quiescence too (referenceFor):
// every run and shrink step of a prepared scenario
// that ends on the same spec reuses one reference run, as long as that run
// would draw the same world from the new run's draws. A reference run
// replays the history's draws (see draws), so a key holds one entry per
// set of answers the reference runs got; an entry serves a new run only if
// replaying the new run's draws gives it the same answers (replays), and
// never otherwise, so a stale entry cannot decide a verdict. The memo
// keeps the memoCapacity newest entries, so a long campaign over a large
// space of specs does not grow without bound; an evicted entry costs one
// more reference run, never a different verdict.
type referenceMemo struct {
	// mu guards the memo against executions side by side (an
	// exploration's workers).
	mu   sync.Mutex
	runs map[string][]reference
	// order holds the key of every entry of runs, oldest first.
	order  []string
	hits   int
	misses int
}

// memoCapacity is how many reference runs a memo keeps.
const memoCapacity = 4096

// reference is the outcome of a reference run: its converged state, or
// its failure; the answers its choices got; and the controller writes the
// API server rejected as invalid.
type reference struct {
	state   []stateObject
	failure *Failure
	asked   []ask
	invalid []model.Rejection
}

func newReferenceMemo() *referenceMemo { return &referenceMemo{runs: map[string][]reference{}} }

// MemoStats counts the lookups of a prepared scenario's reference-run memo
// (see Inputs): a miss costs one reference run, a hit none.
type MemoStats struct {
	Hits, Misses int
}

// ReferenceRuns returns the counts of the reference-run memo the prepared
// scenario's runs share.
func (p *Prepared) ReferenceRuns() MemoStats {
	p.shape.refs.mu.Lock()
	defer p.shape.refs.mu.Unlock()
	return MemoStats{Hits: p.shape.refs.hits, Misses: p.shape.refs.misses}
}

// referenceFor says which reference run a history calls for: a fresh
// cluster given spec, after converging on from when from is set (the
// final spec was refused, from is the last accepted one), drawing as the
// history drew, whose world holds still until quiet and then goes quiet,
// as the history's did when its fault phase ended (docs/design.md, "The
// reference run sees the same world": the clock).
type referenceFor struct {
	spec  model.Fields
	from  *model.Fields
	draws draws
	quiet model.Time
}

// key is what a reference run depends on besides its draws: the specs and
// the time it goes quiet. A time-driven controller's state depends on
// that time (a CronJob's Jobs are those of the runs due by then), so
// entries of histories that went quiet at other times never serve each
// other.
func (q referenceFor) key() string {
	at := "quiet at t=" + strconv.FormatInt(int64(q.quiet), 10) + ": "
	if q.from == nil {
		return at + q.spec.String()
	}
	return at + q.from.String() + " then " + q.spec.String()
}

// find returns a reference for q that replays q's draws, if the memo
// holds one, and counts the lookup.
//
// Every run of a prepared scenario shares the memo, and a run given up as a
// hang may still be running when the next begins: the memo is read and
// written only by executeWith, in the caller's goroutine, before and
// after the reference run's own goroutine, never by a run's goroutine.
func (m *referenceMemo) find(q referenceFor) (reference, bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, e := range m.runs[q.key()] {
		if replays(e.asked, q.draws) {
			m.hits++
			return e, true
		}
	}
	m.misses++
	return reference{}, false
}

// store keeps ref under key, evicting the oldest entry when the memo is
// full.
func (m *referenceMemo) store(key string, ref reference) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if len(m.order) == memoCapacity {
		old := m.order[0]
		m.order = m.order[1:]
		if m.runs[old] = m.runs[old][1:]; len(m.runs[old]) == 0 {
			delete(m.runs, old)
		}
	}
	m.runs[key] = append(m.runs[key], ref)
	m.order = append(m.order, key)
}

// runReference builds a fresh cluster of r's scenario, sets the target's
// spec to q's before it starts (or to the last accepted spec q.from, and
// to q's once the cluster converged on that), and runs it with no faults,
// no inputs and its actors stopped, to its fixed point. Its steps are the
// first option; the world's choices replay the history's draws. Its fault
// phase, with nothing to inject, ends at q.quiet, the time the history's
// ended (or the time the history was judged, for the reference driven as
// long as the history ran: executeWith), and the model dates its
// quiescence there (StopActorsUntilQuiet):
// a clock that stops where the faults end (the adapter's
// StopClockWhenFaultsEnd) stops at the same time in both runs, so a
// time-driven controller has made the same runs by then in both
// (docs/design.md, "The reference run sees the same world").
func runReference(sc Scenario, b bounds, q referenceFor, g *gate) (reference, *model.Cluster, error) {
	target := sc.Inputs.Target
	c, err := sc.Build(model.Config{DiscardTrace: true})
	if err != nil {
		return reference{}, nil, fmt.Errorf("scenario %q: reference build: %w", sc.Name, err)
	}
	if c == nil {
		return reference{}, nil, fmt.Errorf("scenario %q: Build returned no cluster", sc.Name)
	}
	out := c.Outside(InputsActor)
	setSpec := func(spec model.Fields, what string) error {
		obj, err := out.Get(target.Kind, target.Namespace, target.Name)
		if err != nil {
			return fmt.Errorf("scenario %q: inputs target %s: %w", sc.Name, target, err)
		}
		obj.Spec = spec
		if err := out.Update(obj); err != nil {
			return fmt.Errorf("scenario %q: reference run: setting the %s of %s: %w", sc.Name, what, target, err)
		}
		return nil
	}
	first, what := q.spec, "final spec"
	if q.from != nil {
		first, what = *q.from, "last accepted spec"
	}
	if err := setSpec(first, what); err != nil {
		return reference{}, nil, err
	}
	c.StopActorsUntilQuiet(q.quiet)
	if err := c.Start(); err != nil {
		return reference{}, nil, fmt.Errorf("scenario %q: start: %w", sc.Name, err)
	}
	replay := newReplayChooser(q.draws)
	b.budget.Horizon = q.quiet
	ref := &runner{sc: sc, c: c, ch: replay, b: b, fights: newFightDetector(), gate: g, controllers: c.Controllers(), sources: c.Sources(), reference: true}
	ref.watch()
	ref.invariants = sc.Invariants
	if sc.Monitors != nil {
		ref.invariants = append(slices.Clip(ref.invariants), sc.Monitors(c)...)
	}
	f := ref.run(nil)
	if f == nil && q.from != nil {
		if err := setSpec(q.spec, "final spec"); err != nil {
			return reference{}, nil, err
		}
		f = ref.quiesce()
	}
	res := reference{asked: *replay.asked, invalid: invalidWrites(c, ref.controllers, 0)}
	if f != nil {
		res.failure = f
		return res, c, nil
	}
	state, ok := captureState(c.State(), target, newComparer(sc.Inputs))
	if !ok {
		return reference{}, nil, fmt.Errorf("scenario %q: the reference run deleted the inputs target %s", sc.Name, target)
	}
	res.state = state
	return res, c, nil
}

// invalidWrites returns the writes of controllers the API server rejected
// as invalid (422) at or after time since: children a real API server
// would not store.
func invalidWrites(c *model.Cluster, controllers []string, since model.Time) []model.Rejection {
	var out []model.Rejection
	for _, rej := range c.Server().Rejections(0) {
		if rej.Last >= since && slices.Contains(controllers, rej.Caller) && model.ReasonOf(rej.Err) == model.ReasonInvalid {
			out = append(out, rej)
		}
	}
	return out
}

// historyDependent is the differential oracle, run once the cluster
// converged with goals met: the state reached through the transitions
// must be the state a fresh cluster reaches from the final spec alone.
// Only transitions that landed count; with none, the final spec is the
// first and there is nothing to judge. When the operator refused the
// final spec (Inputs.Refused), the fresh cluster first converges on the
// last spec it accepted. A difference is not reported when a controller's
// write was rejected as invalid in the reference run, or in the history
// after its last transition: a real API server would not hold those
// children, so the witness would not be believable (docs/design.md,
// "Differential oracle").
//
// It returns the judgment to make once the reference run is known, or
// nil when there is nothing to judge. Everything it needs of the history
// is read here, at the end of the history run: the reference run is made
// afterwards, in a Wrap of its own (executeWith), and the two are
// compared outside both.
func (r *runner) historyDependent(in *inputActor) *judgment {
	target := r.sc.Inputs.Target
	landed := in.landed()
	if len(landed) == 0 {
		return nil
	}
	st := r.c.State()
	tgt := st.Get(target.Kind, target.Namespace, target.Name)
	if tgt == nil {
		return nil // the run deleted the target: there is no final spec
	}
	quiet, _ := r.c.QuietSince()
	j := &judgment{r: r, in: in, target: tgt, q: referenceFor{spec: tgt.Spec, draws: r.draws, quiet: quiet}, cm: newComparer(r.sc.Inputs)}
	if refused := r.sc.Inputs.Refused; refused != nil {
		if reason, ok := refused(tgt); ok {
			accepted := in.accepted
			j.q.from = &accepted
			j.refusal = []string{
				fmt.Sprintf("the operator refused the final spec (%s): it was compared with a fresh cluster converged on the last spec it accepted, %s, then given the final spec", reason, accepted.String()),
			}
		}
	}
	j.got, _ = captureState(st, target, j.cm)
	j.invalid = len(invalidWrites(r.c, r.controllers, landed[len(landed)-1].At)) > 0
	j.judgedAt = r.c.Now()
	return j
}

// judgment is what the differential oracle read of a history run, to
// compare with its reference run (historyDependent).
type judgment struct {
	r      *runner
	in     *inputActor
	target *model.Object
	q      referenceFor
	cm     *comparer
	// got is the history's state; invalid says a controller's write was
	// rejected as invalid after the last landed transition.
	got     []stateObject
	invalid bool
	// judgedAt is the time the history reached its fixed point and was
	// judged; a reference that differs at the history's quiet time is
	// driven until then before the difference is reported (executeWith).
	judgedAt model.Time
	refusal  []string
}

// judge compares the history with its reference run ref, the one q
// called for: j.q, or the reference driven as long as the history ran
// (executeWith), whose failure says so.
func (j *judgment) judge(ref reference, q referenceFor) *Failure {
	r, in, target, tgt := j.r, j.in, j.r.sc.Inputs.Target, j.target
	if len(ref.invalid) > 0 || j.invalid {
		return nil
	}
	fresh := "a fresh cluster given the final spec directly"
	if j.q.from != nil {
		fresh = "a fresh cluster given the last accepted spec, then the final spec"
	}
	if ref.failure != nil {
		f := *ref.failure
		fresh, sep := "a fresh cluster whose "+target.String()+" has the final spec from the start", " "
		if j.q.from != nil {
			fresh, sep = "a fresh cluster whose "+target.String()+" has the last accepted spec, then the final spec", ", "
		}
		if q.quiet != j.q.quiet {
			fresh, sep = fresh+fmt.Sprintf(", driven to t=%d (the time the history was judged)", q.quiet), ", "
		}
		f.Summary = fresh + sep + "fails: " + ref.failure.Summary
		f.Step, f.At = r.c.Steps(), r.c.Now()
		f.Diagnosis = append(slices.Clip(f.Diagnosis), j.refusal...)
		f.Diagnosis = append(f.Diagnosis, transitionLines(in, tgt.Spec)...)
		return &f
	}
	diff := j.cm.diffStates(ref.state, j.got)
	if len(diff) == 0 {
		return nil
	}
	f := r.failure("history independence", HistoryDependent, fmt.Sprintf("after %s of %s the cluster converged to a state %s does not reach (%s)", plural(len(in.landed()), "transition"), target, fresh, plural(len(diff), "difference")))
	f.Details = diff
	f.Diagnosis = append(slices.Clip(j.refusal), transitionLines(in, tgt.Spec)...)
	return f
}

// transitionLines renders the final spec and the transitions applied,
// each with the fields it changed, and marks the one the history starts
// at: the first whose spec is not the final one, since the transitions
// before it all asked for the final spec; when every one did, the first
// transition, which left the initial spec the cluster converged on before.
func transitionLines(in *inputActor, final model.Fields) []string {
	header := fmt.Sprintf("transitions applied (%d):", len(in.done))
	if n := len(in.landed()); n < len(in.done) {
		header = fmt.Sprintf("transitions applied (%d, of which %d landed and %d were refused by the API server):", len(in.done), n, len(in.done)-n)
	}
	lines := []string{"final spec: " + final.String(), header}
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
			line += " (refused by the API server: " + tr.Err + ")"
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
