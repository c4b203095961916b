package properties

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/converge-sim/converge/faults"
	"github.com/converge-sim/converge/model"
)

// runMemo remembers, once a property has failed, the runs made since,
// keyed by everything they drew: the inputs, the fault schedule, the
// strategy's up-front draws and every choice. rapid's shrinker proposes
// thousands of bit strings, and most of them decode to a run already made,
// since it lowers bits that decide no choice's value (docs/design.md,
// "Shrinking without re-running"). A run is a function of its draws, so a
// proposal that decodes to a run already made is answered without running
// it: a passing run passes again, and a failing run fails again with its
// outcome, report and failure site. The first failure is not recorded
// (the memo starts with it), so rapid's check that it reproduces stays a
// real run (trap 6 in docs/design.md).
type runMemo struct {
	roots map[string]*drawNode
	nodes int
	// failures counts the failing runs kept; past maxFailedRuns, failing
	// runs are made again rather than kept.
	failures int
}

// maxFailedRuns bounds the failing runs one property's memo keeps: each
// holds its cluster, for the report of the minimal one.
const maxFailedRuns = 1 << 8

// maxDrawNodes bounds the memory of one property's memo: past it, runs
// are no longer recorded (those recorded still answer).
const maxDrawNodes = 1 << 20

// drawNode is a point of a recorded run: the choice it drew next, among n
// values, and the runs that went on from each value; passed ends a run
// that passed, failed one that failed.
type drawNode struct {
	n      int
	label  string
	next   []drawEdge
	passed bool
	failed *failedRun
}

// failedRun is what a recorded failing run answers with: its outcome, the
// schedule it drew and its choices, as the property reports and observes
// them.
type failedRun struct {
	out     *Outcome
	sched   faults.Schedule
	choices []int
}

// end says whether a run ends at d.
func (d *drawNode) end() bool { return d.passed || d.failed != nil }

type drawEdge struct {
	value int
	node  *drawNode
}

func (d *drawNode) child(value int) *drawNode {
	for _, e := range d.next {
		if e.value == value {
			return e.node
		}
	}
	return nil
}

// prefixKey is what a run draws before its first choice.
func prefixKey(inputs Transitions, sched faults.Schedule, ch model.Chooser) (string, error) {
	var b strings.Builder
	for _, v := range []json.Marshaler{inputs, sched} {
		data, err := json.Marshal(v)
		if err != nil {
			return "", err
		}
		b.Write(data)
		b.WriteByte(0)
	}
	if k, ok := ch.(interface{ memoKey() string }); ok {
		b.WriteString(k.memoKey())
	}
	return b.String(), nil
}

// walk draws, through ch, the choices of the recorded runs under key for
// as long as they follow one, and returns the end of the one they follow
// to its end, a run already made; nil if none. The choices drawn are left
// in ch for the run to take.
func (m *runMemo) walk(key string, ch *rapidChooser) *drawNode {
	node := m.roots[key]
	for node != nil && !node.end() {
		if node.n == 0 {
			return nil // no run went on from here: its next draw is not known
		}
		node = node.child(ch.drawAhead(node.n, node.label))
	}
	return node
}

// record adds the run under key that drew ch's choices and passed (failed
// nil), or failed as failed says.
func (m *runMemo) record(key string, ch *rapidChooser, failed *failedRun) {
	if failed != nil && m.failures >= maxFailedRuns {
		return
	}
	node := m.path(key, ch.draws)
	switch {
	case node == nil:
	case failed != nil:
		node.failed = failed
		m.failures++
	default:
		node.passed = true
	}
}

// recordOverrun adds the draws of a run under key that rapid ended at its
// next draw, among n (label), when the proposal's input ran out: a later
// proposal that follows them draws that choice in the walk, before any
// cluster is built, and ends there if its input is as short
// (docs/design.md, "Shrinking without re-running": proposals that run
// short). A run is a function of its draws, so the later one would have
// asked for the same choice at the same point.
func (m *runMemo) recordOverrun(key string, ch *rapidChooser, next draw) {
	if !memoOverruns {
		return
	}
	node := m.path(key, ch.draws)
	if node != nil && !node.end() && node.next == nil {
		node.n, node.label = next.n, next.label
	}
}

// memoOverruns turns recordOverrun on; a test turns it off to count what
// it saves.
var memoOverruns = true

// path returns the node the draws lead to under key, made as needed; nil
// when the memo is full or the draws leave a recorded run's choice among
// another number of values (a nondeterministic run, which the property
// reports).
func (m *runMemo) path(key string, draws []draw) *drawNode {
	if m.roots == nil {
		m.roots = map[string]*drawNode{}
	}
	if m.nodes >= maxDrawNodes {
		return nil
	}
	node := m.roots[key]
	if node == nil {
		node = &drawNode{}
		m.roots[key] = node
		m.nodes++
	}
	for _, d := range draws {
		switch {
		case node.next == nil:
			node.n, node.label = d.n, d.label
		case node.n != d.n:
			return nil
		}
		next := node.child(d.value)
		if next == nil {
			next = &drawNode{}
			node.next = append(node.next, drawEdge{d.value, next})
			m.nodes++
		}
		node = next
	}
	return node
}

// draw is one choice a run drew from rapid: its value among n.
type draw struct {
	n, value int
	label    string
}

// nondeterministic says that a run asked for a different choice than an
// earlier run with the same draws so far did.
func nondeterministic(i int, was, now draw) string {
	return fmt.Sprintf("the scenario is nondeterministic: runs with the same draws asked for their choice %d among %d values (%s), then among %d (%s) (trap 6 in docs/design.md)", i, was.n, was.label, now.n, now.label)
}
