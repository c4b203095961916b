package statefulset

import (
	"fmt"
	"strings"

	"github.com/converge-sim/converge/controllers/replicaset"
	"github.com/converge-sim/converge/model"
)

// expectedStatus computes a StatefulSet's status from its pods and its
// update revision (Revision(set)), as
// Kubernetes does: replicas counts the pods not being deleted, ready (and
// available: the model has no minReadySeconds, so a ready pod is available
// at once) and the two revisions count among them; the current revision is
// the one the status last named (the update revision at first), and
// becomes the update revision once every pod is of it and ready.
// (Kubernetes moves it only under RollingUpdate; here OnDelete completes
// the same way.)
func expectedStatus(set *model.Object, update string, pods []*model.Object) model.Fields {
	current := set.Status.Str("currentRevision")
	if current == "" {
		current = update
	}
	var replicas, ready, currents, updated int64
	for _, p := range pods {
		if p.Deleting() {
			continue
		}
		replicas++
		if RunningAndReady(p) {
			ready++
		}
		if p.Labels.Value(RevisionLabel) == current {
			currents++
		}
		if p.Labels.Value(RevisionLabel) == update {
			updated++
		}
	}
	if updated == replicas && ready == replicas {
		current, currents = update, updated
	}
	return model.NewFields(model.Values{
		"replicas": replicas, "readyReplicas": ready, "availableReplicas": ready, "currentReplicas": currents, "updatedReplicas": updated,
		"currentRevision": current, "updateRevision": update, "observedGeneration": set.Generation,
	})
}

// Pods returns, from the server's state, the pods set controls that are
// named by an ordinal, in name order.
func Pods(s model.State, set *model.Object) []*model.Object {
	var out []*model.Object
	for _, p := range s.List(replicaset.PodKind, model.ListOptions{Namespace: set.Namespace, Owner: set.UID}) {
		if _, ok := ordinal(set.Name, p.Name); ok && p.IsControlledBy(set) {
			out = append(out, p)
		}
	}
	return out
}

// Complete is the StatefulSet controller's goal: every StatefulSet runs a
// running and ready pod for each ordinal below replicas and none above;
// under RollingUpdate the pods from the partition up are of the update
// revision; each of those ordinals has its claims, owned as the retention
// policy says; and the status matches the pods.
func Complete(s model.State) []model.Unmet {
	var out []model.Unmet
	for _, set := range s.List(Kind, model.ListOptions{}) {
		if set.Deleting() {
			continue
		}
		unmet := func(format string, args ...any) {
			out = append(out, model.Unmet{Object: set.Ref(), Message: fmt.Sprintf(format, args...)})
		}
		sp, err := parse(set)
		if err != nil {
			unmet("%v", err)
			continue
		}
		if msg := podsUnmet(s, set, sp); msg != "" {
			unmet("%s", msg)
			continue
		}
		if msg := claimsUnmet(s, set, sp); msg != "" {
			unmet("%s", msg)
			continue
		}
		if want := expectedStatus(set, Revision(set), Pods(s, set)); !set.Status.Equal(want) {
			unmet("reports %s, its pods say %s", set.Status, want)
		}
	}
	return out
}

// podsUnmet says what is wrong with a set's pods, or "".
func podsUnmet(s model.State, set *model.Object, sp setSpec) string {
	have := map[int]*model.Object{}
	var extra []string
	for _, p := range Pods(s, set) {
		if p.Deleting() {
			continue
		}
		i, _ := ordinal(set.Name, p.Name)
		if i >= sp.replicas {
			extra = append(extra, p.Name)
		}
		have[i] = p
	}
	var missing, unready, stale []string
	update := Revision(set)
	for i := range sp.replicas {
		p := have[i]
		switch {
		case p == nil:
			missing = append(missing, PodName(set.Name, i))
		case !RunningAndReady(p):
			unready = append(unready, p.Name)
		case !sp.onDelete && i >= sp.partition && p.Labels.Value(RevisionLabel) != update:
			stale = append(stale, p.Name)
		}
	}
	var msgs []string
	if len(missing) > 0 {
		msgs = append(msgs, fmt.Sprintf("misses pods %s", strings.Join(missing, ", ")))
	}
	if len(unready) > 0 {
		msgs = append(msgs, fmt.Sprintf("has pods not running and ready: %s", strings.Join(unready, ", ")))
	}
	if len(extra) > 0 {
		msgs = append(msgs, fmt.Sprintf("still has pods above replicas=%d: %s", sp.replicas, strings.Join(extra, ", ")))
	}
	if len(stale) > 0 {
		msgs = append(msgs, fmt.Sprintf("has pods from the partition %d up not of revision %s: %s", sp.partition, update, strings.Join(stale, ", ")))
	}
	return strings.Join(msgs, "; ")
}

// claimsUnmet says what is wrong with the claims of a set's ordinals below
// replicas, or "": each exists, and is owned by the set exactly when
// whenDeleted is Delete, and by no pod.
func claimsUnmet(s model.State, set *model.Object, sp setSpec) string {
	var msgs []string
	for i := range sp.replicas {
		for _, t := range sp.claims {
			name := ClaimName(t.name, set.Name, i)
			c := s.Get(PVCKind, set.Namespace, name)
			if c == nil || c.Deleting() {
				msgs = append(msgs, "misses claim "+name)
				continue
			}
			bySet := false
			for _, r := range c.OwnerReferences {
				switch {
				case r.UID == set.UID:
					bySet = true
				case r.Kind == replicaset.PodKind:
					msgs = append(msgs, fmt.Sprintf("claim %s is owned by pod %s, but its ordinal is in range", name, r.Name))
				}
			}
			if bySet != sp.deleteOnDelete {
				msgs = append(msgs, fmt.Sprintf("claim %s owned by the set: %v, but whenDeleted=%s", name, bySet, map[bool]string{true: Delete, false: Retain}[sp.deleteOnDelete]))
			}
		}
	}
	return strings.Join(msgs, "; ")
}
