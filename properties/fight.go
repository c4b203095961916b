package properties

import (
	"fmt"
	"slices"
	"strings"

	"github.com/converge-sim/converge/model"
)

// fightFlips is how many changes of hands make a fight: a field written by
// A, then B, then A, then B, then A has changed hands four times.
const fightFlips = 4

// fieldKey names one field of one object.
type fieldKey struct {
	ref  model.Ref
	path string
}

// fieldWrite is one write of a field: who wrote which value.
type fieldWrite struct {
	writer string
	value  any
}

// fightDetector watches the writes of quiescence for a field that keeps
// changing hands between writers with different goals.
type fightDetector struct {
	active  bool
	history map[fieldKey][]fieldWrite
	flips   map[fieldKey]int
	found   *fight
	// changes counts every change of hands, of any field: a loop that
	// repeats with changes of hands is on its way to a fight (loopStop).
	changes int
}

// fight is a field that flips between writers.
type fight struct {
	key    fieldKey
	writes []fieldWrite
}

func newFightDetector() *fightDetector {
	return &fightDetector{history: map[fieldKey][]fieldWrite{}, flips: map[fieldKey]int{}}
}

// observe records the fields a write changed; a field that has changed
// hands fightFlips times is a fight.
func (d *fightDetector) observe(w model.Write) {
	if !d.active || d.found != nil || w.Old == nil || w.New == nil {
		return
	}
	for _, ch := range model.Diff(w.Old, w.New) {
		key := fieldKey{ref: w.Ref(), path: ch.Path}
		h := d.history[key]
		writer := writerOf(w)
		if n := len(h); n > 0 && h[n-1].writer != writer {
			d.flips[key]++
			d.changes++
		}
		d.history[key] = append(h, fieldWrite{writer: writer, value: ch.New})
		if d.flips[key] >= fightFlips {
			d.found = &fight{key: key, writes: d.history[key]}
			return
		}
	}
}

// writers returns the fight's writers in order of first write.
func (f *fight) writers() []string {
	var out []string
	for _, w := range f.writes {
		if !slices.Contains(out, w.writer) {
			out = append(out, w.writer)
		}
	}
	return out
}

// sequence renders the values with their writers: "3 (replicaset) → 7 (rival) → …".
func (f *fight) sequence() string {
	parts := make([]string, len(f.writes))
	for i, w := range f.writes {
		parts[i] = fmt.Sprintf("%s (%s)", model.FormatValue(w.value), w.writer)
	}
	return strings.Join(parts, " → ")
}

func (r *runner) fought(f *fight) *Failure {
	writers := f.writers()
	fl := r.failure("no fight", Fight, fmt.Sprintf("%s of %s flips between %s", f.key.path, f.key.ref, strings.Join(writers, " and ")))
	fl.Writers = writers
	fl.Details = []string{
		"object: " + f.key.ref.String(),
		"field: " + f.key.path,
		"writers: " + strings.Join(writers, ", "),
		"values: " + f.sequence(),
	}
	fl.Diagnosis = []string{fmt.Sprintf("after quiescence began, %s changed hands %d times: each writer owns the field with a different goal, so neither can reach a fixed point", f.key.path, fightFlips)}
	return fl
}

// writerOf names a write's writer: the caller, and the field manager it
// declared when that differs ("gitops (field manager argocd)").
func writerOf(w model.Write) string {
	if w.FieldManager == "" || w.FieldManager == w.Caller {
		return w.Caller
	}
	return w.Caller + " (field manager " + w.FieldManager + ")"
}
