package properties

import (
	"fmt"
	"slices"
	"strings"

	"github.com/converge-sim/converge/faults"
	"github.com/converge-sim/converge/model"
)

// maxOutsideLines bounds how many outside changes a diagnosis lists.
const maxOutsideLines = 3

// concerns reports whether object o (named by ref) is target or one of its
// dependents.
func concerns(o *model.Object, ref, target model.Ref) bool {
	if ref == target {
		return true
	}
	if o == nil || o.Namespace != target.Namespace {
		return false
	}
	for _, r := range o.OwnerReferences {
		if r.Kind == target.Kind && r.Name == target.Name {
			return true
		}
	}
	return false
}

func writeConcerns(w model.Write, target model.Ref) bool {
	o := w.New
	if o == nil {
		o = w.Old
	}
	return concerns(o, w.Ref(), target)
}

// diagnoseUnmet explains each unmet goal as an operator would: when the
// owning controller last acted on the object, which notifications about it
// the controller never got, what faults did to the controller, and what the
// outside world changed.
func diagnoseUnmet(c *model.Cluster, sched faults.Schedule, unmet []model.GoalUnmet) []string {
	var out []string
	seen := map[string]bool{}
	add := func(s string) {
		if !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	for _, u := range unmet {
		add(lastActed(c, u.Controller, u.Object))
		for _, d := range c.Dropped() {
			if d.Controller == u.Controller && concerns(d.Event.Object, d.Event.Object.Ref(), u.Object) {
				add(fmt.Sprintf("%s never saw %s at t=%d (step %d): a fault dropped the notification; its cache has the change, its handlers were not told",
					u.Controller, d.Event, d.At, d.Step))
			}
		}
		for _, line := range faultHistory(c, sched, u.Controller) {
			add(line)
		}
		for _, line := range outsideChanges(c, u.Object) {
			add(line)
		}
	}
	return out
}

// lastActed says when controller last reconciled the object or, for an
// edge-triggered controller, last wrote it or one of its dependents.
func lastActed(c *model.Cluster, controller string, target model.Ref) string {
	spec, _ := c.Spec(controller)
	if !spec.Edge() {
		if t, ok := c.LastReconcile(controller, target.Key()); ok {
			return fmt.Sprintf("%s last reconciled %s at t=%d", controller, target.Key(), t)
		}
		return fmt.Sprintf("%s never reconciled %s", controller, target.Key())
	}
	recs := c.Trace().Records
	for i := len(recs) - 1; i >= 0; i-- {
		r := &recs[i]
		for _, w := range r.Writes {
			if w.Caller == controller && writeConcerns(w, target) {
				return fmt.Sprintf("%s last acted on %s at t=%d (step %d: %s)", controller, target.Key(), r.Time, r.Step, model.FormatWrite(w))
			}
		}
	}
	return fmt.Sprintf("%s never wrote %s or its dependents", controller, target.Key())
}

// faultHistory lists the faults of the schedule aimed at controller, with
// the time each struck.
func faultHistory(c *model.Cluster, sched faults.Schedule, controller string) []string {
	var out []string
	recs := c.Trace().Records
	for i, t := range sched.Sorted() {
		aimed, ok := t.Fault.(faults.Aimed)
		if !ok || aimed.Target() != controller {
			continue
		}
		prefix := fmt.Sprintf("#%d ", i+1)
		line := fmt.Sprintf("fault scheduled at t=%d never struck (quiescence began first): %s", t.At, t.Fault)
		for j := range recs {
			if recs[j].Actor == "fault" && strings.HasPrefix(recs[j].Action, prefix) {
				line = fmt.Sprintf("fault at t=%d (step %d): %s", recs[j].Time, recs[j].Step, t.Fault)
				break
			}
		}
		out = append(out, line)
	}
	return out
}

// outsideChanges lists the last few writes to the object or its dependents
// by anyone other than a controller, the setup and the garbage collector.
func outsideChanges(c *model.Cluster, target model.Ref) []string {
	controllers := c.Controllers()
	var out []string
	for _, r := range c.Trace().Records {
		for _, w := range r.Writes {
			if w.Caller == "setup" || w.Caller == model.GarbageCollector || slices.Contains(controllers, w.Caller) {
				continue
			}
			if writeConcerns(w, target) {
				out = append(out, fmt.Sprintf("outside change at t=%d (step %d) by %s: %s", r.Time, r.Step, w.Caller, model.FormatWrite(w)))
			}
		}
	}
	if len(out) > maxOutsideLines {
		out = append([]string{fmt.Sprintf("(%d earlier outside changes)", len(out)-maxOutsideLines)}, out[len(out)-maxOutsideLines:]...)
	}
	return out
}

// diagnoseBusy explains a run that found no fixed point: who kept writing
// after quiescence began, and the last writes.
func diagnoseBusy(c *model.Cluster, quietFrom int) []string {
	counts := map[string]int{}
	var last []string
	for _, r := range c.Trace().Records {
		if r.Step <= quietFrom {
			continue
		}
		for _, w := range r.Writes {
			counts[w.Caller]++
			last = append(last, fmt.Sprintf("t=%d step %d %s: %s", r.Time, r.Step, w.Caller, model.FormatWrite(w)))
		}
	}
	var out []string
	writers := make([]string, 0, len(counts))
	for w := range counts {
		writers = append(writers, w)
	}
	slices.Sort(writers)
	for _, w := range writers {
		out = append(out, fmt.Sprintf("%s wrote %d times after quiescence began", w, counts[w]))
	}
	if len(last) > 3 {
		last = last[len(last)-3:]
	}
	for _, l := range last {
		out = append(out, "last writes: "+l)
	}
	return out
}

// diagnoseStep shows the step that broke an invariant or panicked.
func diagnoseStep(c *model.Cluster) []string {
	recs := c.Trace().Records
	if len(recs) == 0 {
		return nil
	}
	return []string{"the step: " + recs[len(recs)-1].String()}
}
