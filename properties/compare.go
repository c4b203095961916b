package properties

import (
	"cmp"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/converge-sim/converge/model"
)

// alwaysIgnored are the paths the differential oracle never compares:
// generations count writes, and a history is more writes; a condition's
// lastTransitionTime (metav1.Condition, as meta.SetStatusCondition sets it)
// is when a history passed through it, a timestamp like any other.
var alwaysIgnored = []string{"status.observedGeneration", "status.conditions[*].observedGeneration", "status.conditions[*].lastTransitionTime"}

// stateObject is one object of a compared state, normalized: its name
// with generated suffixes renumbered, and a flat view of what is compared
// (labels, which hold annotations in the model, owners, finalizers, spec;
// status for the target
// only), without UIDs, resourceVersions, generations or timestamps.
type stateObject struct {
	// key is "Kind namespace/name", the name normalized.
	key  string
	view model.Fields
}

// captureState reads the state the differential oracle compares: the
// target and every object it owns, transitively, through owner
// references. Objects with a generated name (GenerateName) are named
// GenerateName#n instead, numbered within each owner level in the order of
// their content, so that two states holding the same objects compare
// equal whatever names and creation order the API server gave them; a
// generated name found inside another name or a string value (a claim
// named after its pod) is replaced by its number there too.
//
// Numbering by content rather than by creation order is on purpose:
// creation order is itself history (a scale-down and up again creates in
// another order than a fresh start), so it would make equal states differ.
func captureState(st model.State, target model.Ref, ignore []string) ([]stateObject, bool) {
	root := st.Get(target.Kind, target.Namespace, target.Name)
	if root == nil {
		return nil, false
	}
	kinds := st.Kinds()
	slices.Sort(kinds)
	names := map[model.UID]string{root.UID: root.Name}
	var renames []string // old, new pairs, for strings.Replacer
	rename := func(s string) string { return s }
	out := []stateObject{{key: objectKey(root, root.Name), view: viewOf(root, true, names, ignore, rename)}}
	level := []*model.Object{root}
	for len(level) > 0 {
		parents := map[model.UID]bool{}
		for _, o := range level {
			parents[o.UID] = true
		}
		var next []*model.Object
		for _, kind := range kinds {
			for i := range st.Len(kind) {
				o := st.Nth(kind, i)
				if _, seen := names[o.UID]; seen || !ownedBy(o, parents) || revisionHistory(st, o) {
					continue
				}
				next = append(next, o)
			}
		}
		// Name the level: fixed names stay, generated ones are numbered
		// in the order of their content (owners already normalized).
		type named struct {
			o       *model.Object
			content string
		}
		var items []named
		for _, o := range next {
			items = append(items, named{o, objectKey(o, "") + "\n" + viewOf(o, false, names, ignore, rename).String()})
		}
		slices.SortStableFunc(items, func(a, b named) int { return cmp.Compare(a.content, b.content) })
		counts := map[string]int{}
		for _, it := range items {
			name := rename(it.o.Name)
			if g := it.o.GenerateName; g != "" && strings.HasPrefix(it.o.Name, g) {
				group := it.o.Kind + " " + it.o.Namespace + " " + g
				counts[group]++
				name = g + "#" + strconv.Itoa(counts[group])
				renames = append(renames, it.o.Name, name)
			}
			names[it.o.UID] = name
		}
		if len(renames) > 0 {
			rename = strings.NewReplacer(renames...).Replace
		}
		for _, it := range items {
			out = append(out, stateObject{key: objectKey(it.o, names[it.o.UID]), view: viewOf(it.o, false, names, ignore, rename)})
		}
		level = next
	}
	slices.SortFunc(out, func(a, b stateObject) int { return cmp.Compare(a.key, b.key) })
	return out, true
}

func ownedBy(o *model.Object, parents map[model.UID]bool) bool {
	for _, r := range o.OwnerReferences {
		if parents[r.UID] {
			return true
		}
	}
	return false
}

func objectKey(o *model.Object, name string) string {
	return o.Kind + " " + model.Key(o.Namespace, name)
}

// viewOf flattens what the oracle compares of o, owner names normalized
// through names, generated names in strings through rename, ignored paths
// left out.
func viewOf(o *model.Object, withStatus bool, names map[model.UID]string, ignore []string, rename func(string) string) model.Fields {
	v := model.Values{}
	for _, k := range slices.Sorted(maps.Keys(o.Labels)) {
		v[model.MetadataPath(k)] = o.Labels[k]
	}
	if len(o.OwnerReferences) > 0 {
		var owners []string
		for _, r := range o.OwnerReferences {
			name, ok := names[r.UID]
			if !ok {
				name = r.Name + " (outside the compared state)"
			}
			s := r.Kind + " " + name
			if r.Controller {
				s += " (controller)"
			}
			owners = append(owners, s)
		}
		v["metadata.ownerReferences"] = strings.Join(owners, ", ")
	}
	if len(o.Finalizers) > 0 {
		v["metadata.finalizers"] = strings.Join(o.Finalizers, ", ")
	}
	if o.Deleting() {
		v["metadata.deleting"] = true
	}
	for p, x := range o.Spec.All() {
		v["spec."+p] = x
	}
	if withStatus {
		for p, x := range o.Status.All() {
			v["status."+p] = x
		}
	}
	for p, x := range v {
		switch {
		case ignored(p, ignore) || ignored(p, alwaysIgnored):
			delete(v, p)
		case p != "metadata.ownerReferences":
			if s, ok := x.(string); ok {
				v[p] = rename(s)
			}
		}
	}
	return model.NewFields(v)
}

// ignored reports whether path is one of ignore's paths or below one: a
// path drops its fields ("spec.config" drops "spec.config.level") and its
// items ("status.conditions" drops "status.conditions[0].type"), and "[*]"
// stands for any index ("status.conditions[*].lastTransitionTime").
func ignored(path string, ignore []string) bool {
	for _, i := range ignore {
		if n, ok := matchPrefix(path, i); ok && (n == len(path) || path[n] == '.' || path[n] == '[') {
			return true
		}
	}
	return false
}

// matchPrefix matches pattern against the start of path, "[*]" matching
// any "[<digits>]", and returns how much of path it matched.
func matchPrefix(path, pattern string) (int, bool) {
	n := 0
	for pattern != "" {
		if rest, ok := strings.CutPrefix(pattern, "[*]"); ok {
			if n >= len(path) || path[n] != '[' {
				return 0, false
			}
			end := strings.IndexByte(path[n:], ']')
			if end < 2 || strings.Trim(path[n+1:n+end], "0123456789") != "" {
				return 0, false
			}
			n += end + 1
			pattern = rest
			continue
		}
		if n >= len(path) || path[n] != pattern[0] {
			return 0, false
		}
		n++
		pattern = pattern[1:]
	}
	return n, true
}

// revisionHistory reports whether o is a ReplicaSet its Deployment has
// scaled to zero: Kubernetes keeps those old revisions for rollbacks
// (revisionHistoryLimit), so how many there are and what templates they
// hold depend on the history by design. The oracle leaves them out on both
// sides; a Deployment scaled to zero then compares by its own spec.
func revisionHistory(st model.State, o *model.Object) bool {
	ref, ok := o.ControllerRef()
	if !ok || o.Kind != "ReplicaSet" || ref.Kind != "Deployment" || o.Spec.Int("replicas") != 0 {
		return false
	}
	owner := st.Get(ref.Kind, o.Namespace, ref.Name)
	return owner != nil && owner.UID == ref.UID
}

// diffStates lists, field by field, how the state reached through the
// transitions (got) differs from the fresh cluster's (want).
func diffStates(want, got []stateObject) []string {
	var out []string
	i, j := 0, 0
	for i < len(want) || j < len(got) {
		switch {
		case j == len(got) || (i < len(want) && want[i].key < got[j].key):
			out = append(out, fmt.Sprintf("%s: in a fresh cluster, missing after the transitions", want[i].key))
			i++
		case i == len(want) || got[j].key < want[i].key:
			out = append(out, fmt.Sprintf("%s: after the transitions, not in a fresh cluster", got[j].key))
			j++
		default:
			for _, p := range unionPaths(want[i].view, got[j].view) {
				a, b := want[i].view.Value(p), got[j].view.Value(p)
				if a != b {
					out = append(out, fmt.Sprintf("%s %s: %s after the transitions, %s in a fresh cluster", got[j].key, p, model.FormatValue(b), model.FormatValue(a)))
				}
			}
			i++
			j++
		}
	}
	return out
}

func unionPaths(a, b model.Fields) []string {
	ps := append(a.Paths(), b.Paths()...)
	slices.Sort(ps)
	return slices.Compact(ps)
}
