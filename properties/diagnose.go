package properties

import (
	"fmt"
	"maps"
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
// owning controller last reconciled the object and what its last attempt
// ran into, how far the chain of dependents below got, the last event the
// controller saw of them, which notifications a fault took from it, what
// the faults did to it, and what the outside world changed.
func diagnoseUnmet(c *model.Cluster, sched faults.Schedule, unmet []model.GoalUnmet) []string {
	var out []string
	seen := map[string]bool{}
	add := func(s string) {
		if s != "" && !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	for _, u := range unmet {
		add(lastActed(c, u.Controller, u.Object))
		add(lastFailure(c, u.Controller, u.Object))
		add(lastReturned(c, u.Controller, u.Object))
		for _, line := range chain(c.State(), u.Object, c.MappedTo(u.Controller, u.Object.Key())) {
			add(line)
		}
		for _, line := range eventsAbout(c.State(), u.Object) {
			add(line)
		}
		add(lastSeen(c, u.Controller, u.Object))
		// A drop to another controller (the Deployment controller under
		// an operator's Deployment) is named with that controller.
		for _, d := range c.Faults().Dropped() {
			if concerns(d.Event.Object, d.Event.Object.Ref(), u.Object) {
				add(fmt.Sprintf("%s never saw %s at t=%d (step %d): a fault dropped the notification; its cache has the change, its handlers were not told",
					d.Controller, d.Event, d.At, d.Step))
			}
		}
		add(lastFiltered(c, u.Controller, u.Object))
		for _, line := range travelLines(c, u.Controller) {
			add(line)
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

// lastFailure reports the first failed call of the controller's last
// reconcile of the object: the eviction a budget refused, the conflict it
// kept hitting. A reconcile that returned no error after the call failed
// went on without it, as a reconciler does with client.IgnoreNotFound:
// the call is reported as ignored, not as the reconcile's failure.
func lastFailure(c *model.Cluster, controller string, target model.Ref) string {
	recs := c.Trace().Records
	for i := len(recs) - 1; i >= 0; i-- {
		r := &recs[i]
		if r.Actor != controller || r.Kind != model.ActReconcile || r.Target.Key() != target.Key() {
			continue
		}
		for _, n := range r.Notes {
			if n.Kind == model.NoteFailed || n.Kind == model.NoteInjected {
				if !reconcileFailed(r) {
					return fmt.Sprintf("a call of its last reconcile (t=%d, step %d) failed, and the reconciler went on (ignored it): %s", r.Time, r.Step, n)
				}
				return fmt.Sprintf("its last reconcile (t=%d, step %d) failed: %s", r.Time, r.Step, n)
			}
		}
		return ""
	}
	return ""
}

// reconcileFailed reports whether a reconcile returned an error or
// panicked.
func reconcileFailed(r *model.Record) bool {
	return slices.ContainsFunc(r.Notes, func(n model.Note) bool { return n.Kind == model.NoteError || n.Kind == model.NotePanic })
}

// lastReturned says what the controller's last reconcile of the object
// returned: nil (and so nothing requeued it), an error, Requeue or
// RequeueAfter.
func lastReturned(c *model.Cluster, controller string, target model.Ref) string {
	recs := c.Trace().Records
	for i := len(recs) - 1; i >= 0; i-- {
		r := &recs[i]
		if r.Actor == controller && r.Kind == model.ActReconcile && r.Target.Key() == target.Key() {
			return fmt.Sprintf("its last reconcile (t=%d, step %d) %s", r.Time, r.Step, reconcileResult(r))
		}
	}
	return ""
}

// lastFiltered reports the last notification about the object or objects
// named after it that the controller's filter (its Notify, a predicate, a
// watch that maps to no key) turned into no key, if it came after the
// controller last reconciled the object.
func lastFiltered(c *model.Cluster, controller string, target model.Ref) string {
	fs := c.Filtered()
	for i := len(fs) - 1; i >= 0; i-- {
		f := fs[i]
		if f.Controller != controller || !mentions(f.Object, target) {
			continue
		}
		if t, ok := c.LastReconcile(controller, target.Key()); ok && t > f.At {
			return ""
		}
		return fmt.Sprintf("the filter of %s dropped %s at t=%d (step %d): it enqueued no key", controller, f, f.At, f.Step)
	}
	return ""
}

// lastSeen reports the last watch event the controller was told of that
// concerns the object or its dependents.
func lastSeen(c *model.Cluster, controller string, target model.Ref) string {
	recs := c.Trace().Records
	for i := len(recs) - 1; i >= 0; i-- {
		r := &recs[i]
		if r.Actor == controller && r.Kind == model.ActDeliver && !r.Replay && len(r.Notes) == 0 && mentions(r.Target, target) {
			return fmt.Sprintf("the last event %s saw of it: %s at t=%d (step %d)", controller, r.Subject(), r.Time, r.Step)
		}
	}
	return ""
}

// mentions reports whether an event's object is the target or named after
// it (its pods, its ReplicaSets).
func mentions(obj, target model.Ref) bool {
	return obj == target || obj.Namespace == target.Namespace && strings.HasPrefix(obj.Name, target.Name+"-")
}

// chain describes how far the dependents of the object got, level by level
// (Deployment → ReplicaSet → Pods, say): each dependent with its spec and
// status when there are few, counts of the fields set when there are many.
// At each level it adds the objects that the spec's label selector selects
// (model.SpecSelector) and that the chain has not shown as dependents:
// pods a ReplicaSet selects but does not own, a budget's pods. Last come
// the objects not yet shown whose notifications the controller's Watches
// maps (or Notify) turned into the object's key: mapped, as recorded when
// the run made them (model.Cluster.MappedTo). The diagnosis does not call
// the map functions again after the run: they are user code, which may
// read through the controller's client and so change the trace.
func chain(s model.State, target model.Ref, mapped []model.Mapped) []string {
	root := s.Get(target.Kind, target.Namespace, target.Name)
	if root == nil {
		return []string{target.String() + " no longer exists"}
	}
	var out []string
	shown := map[model.Ref]bool{root.Ref(): true}
	// list shows deps, "related" to the object above: counted when there
	// are many, each with a note when there are few.
	list := func(indent, related, note string, deps []*model.Object) {
		if len(deps) > 2 {
			out = append(out, fmt.Sprintf("%s→ %d %ss %s: %s", indent, len(deps), deps[0].Kind, related, tally(deps)))
			return
		}
		for _, d := range deps {
			out = append(out, fmt.Sprintf("%s→ %s %s %s%s%s", indent, d.Ref(), d.Spec, d.Status, propagationNote(d), note))
		}
	}
	var walk func(owner *model.Object, depth int)
	walk = func(owner *model.Object, depth int) {
		if depth > 3 {
			return
		}
		indent := strings.Repeat("  ", depth)
		byKind := map[string][]*model.Object{}
		for _, kind := range s.Kinds() {
			for _, d := range s.List(kind, model.ListOptions{Namespace: owner.Namespace, Owner: owner.UID}) {
				byKind[kind] = append(byKind[kind], d)
				shown[d.Ref()] = true
			}
		}
		for _, kind := range slices.Sorted(maps.Keys(byKind)) {
			deps := byKind[kind]
			if len(deps) > 2 {
				list(indent, "of "+owner.Name, "", deps)
			}
			for _, d := range deps {
				if len(deps) <= 2 {
					list(indent, "of "+owner.Name, "", []*model.Object{d})
				}
				walk(d, depth+1)
			}
		}
		sel, ok := model.SpecSelector(owner)
		if !ok {
			return
		}
		for _, kind := range s.Kinds() {
			var selected []*model.Object
			for _, o := range s.List(kind, model.ListOptions{Namespace: owner.Namespace, Selector: sel}) {
				if !shown[o.Ref()] {
					shown[o.Ref()] = true
					selected = append(selected, o)
				}
			}
			if len(selected) > 0 {
				by := fmt.Sprintf("selected by %s (%s)", owner.Name, sel)
				list(indent, by, " ("+by+")", selected)
			}
		}
	}
	out = append(out, fmt.Sprintf("%s %s %s%s", root.Ref(), root.Spec, root.Status, propagationNote(root)))
	walk(root, 1)
	for _, m := range mapped {
		if shown[m.Object] {
			continue
		}
		shown[m.Object] = true
		note := fmt.Sprintf(" (%s's watch mapped it to %s at t=%d, step %d)", m.Controller, m.Key, m.At, m.Step)
		if o := s.Get(m.Object.Kind, m.Object.Namespace, m.Object.Name); o != nil {
			out = append(out, fmt.Sprintf("  → %s %s %s%s", o.Ref(), o.Spec, o.Status, note))
		} else {
			out = append(out, fmt.Sprintf("  → %s, now gone%s", m.Object, note))
		}
	}
	return out
}

// propagationNote says that o waits on an Orphan or Foreground delete
// (see docs/design.md, "Deletion propagation"), or is "".
func propagationNote(o *model.Object) string {
	switch model.PropagationOf(o) {
	case model.PropagationOrphan:
		return " (being deleted with propagation Orphan: its dependents are being orphaned)"
	case model.PropagationForeground:
		return " (being deleted with propagation Foreground: waits for its blocking dependents)"
	}
	return ""
}

// tally counts, over objects, how many have each string field set and each
// boolean field true: "3 with spec.nodeName, 2 with status.ready".
func tally(objs []*model.Object) string {
	counts := map[string]int{}
	for _, o := range objs {
		for prefix, f := range map[string]model.Fields{"spec.": o.Spec, "status.": o.Status} {
			for path, v := range f.All() {
				switch v := v.(type) {
				case bool:
					if v {
						counts[prefix+path]++
					}
				case string:
					if v != "" {
						counts[prefix+path]++
					}
				}
			}
		}
		if o.Deleting() {
			counts["metadata.deletionTimestamp"]++
		}
	}
	var parts []string
	for _, path := range slices.Sorted(maps.Keys(counts)) {
		parts = append(parts, fmt.Sprintf("%d with %s", counts[path], path))
	}
	if len(parts) == 0 {
		return "none with a field set"
	}
	return strings.Join(parts, ", ")
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
		line := fmt.Sprintf("fault scheduled at t=%d never struck (quiescence began first): %s", t.At, t.Fault)
		for j := range recs {
			if recs[j].Fault == i+1 {
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
			if w.Caller == model.Setup || w.Caller == model.GarbageCollector || slices.Contains(controllers, w.Caller) {
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

// rewrites lists the fields written again and again since quiescence
// began, with their writers and values: the signature of a hot loop.
func rewrites(c *model.Cluster, quietFrom int) []string {
	type key struct {
		writer, path string
		ref          model.Ref
	}
	values := map[key][]string{}
	var order []key
	for _, r := range c.Trace().Records {
		if r.Step <= quietFrom {
			continue
		}
		for _, w := range r.Writes {
			if w.Old == nil || w.New == nil {
				continue
			}
			for _, ch := range model.Diff(w.Old, w.New) {
				k := key{writer: w.Caller, path: ch.Path, ref: w.Ref()}
				if _, ok := values[k]; !ok {
					order = append(order, k)
				}
				values[k] = append(values[k], model.FormatValue(ch.New))
			}
		}
	}
	var out []string
	for _, k := range order {
		if v := values[k]; len(v) > 1 {
			out = append(out, fmt.Sprintf("%s rewrote %s of %s %d times: %s", k.writer, k.path, k.ref, len(v), strings.Join(v, ", ")))
		}
	}
	return out
}

// diagnoseStep shows the step that broke an invariant or panicked, and
// what its actor saw if it relisted from a server behind.
func diagnoseStep(c *model.Cluster) []string {
	recs := c.Trace().Records
	if len(recs) == 0 {
		return nil
	}
	last := &recs[len(recs)-1]
	out := append([]string{"the step: " + last.String()}, travelLines(c, last.Actor)...)
	if len(out) > 1 {
		if line := cachedBehind(c, last.Actor, last.Target); line != "" {
			out = append(out, line)
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
