// Package statefulset holds a level-triggered StatefulSet controller, after
// Kubernetes' own: a StatefulSet runs ordinal pods named <set>-<i>, each
// with PersistentVolumeClaims <template>-<set>-<i> made from its
// volumeClaimTemplates, created in order and deleted in reverse order, and
// updated by ordinal from the highest down to a partition.
//
// A StatefulSet's spec holds, as flat model.Fields paths:
//
//   - "replicas" (1 when unset, as the API server defaults it) and a
//     label selector ("selector.matchLabels.<key>"), read by
//     model.SpecSelector;
//   - the pod template, "template.metadata.labels.<key>",
//     ".annotations.<key>" and "template.spec.<path>" (its containers,
//     volumes…), copied into each pod;
//   - "serviceName", each pod's spec.subdomain when set;
//   - "podManagementPolicy": "OrderedReady" (the default) or "Parallel";
//   - "updateStrategy.type": "RollingUpdate" (the default) or "OnDelete",
//     and "updateStrategy.rollingUpdate.partition";
//   - "volumeClaimTemplates[<n>].metadata.name" and
//     "volumeClaimTemplates[<n>].spec.<path>", copied into each claim's spec;
//   - "persistentVolumeClaimRetentionPolicy.whenScaled" and
//     ".whenDeleted": "Retain" (the default) or "Delete".
//
// Each is at its path in the real API (docs/design.md, "Built-in kinds"),
// as the controllerruntime adapter flattens a typed StatefulSet.
//
// Its status holds "replicas", "readyReplicas", "availableReplicas",
// "currentReplicas", "updatedReplicas", "currentRevision",
// "updateRevision" and "observedGeneration". A revision is named <set>-<hash of the template>;
// each pod carries the revision it was made from in its
// controller-revision-hash label.
//
// Left out, deliberately (docs/design.md, "StatefulSets"): ControllerRevision
// objects and revisionHistoryLimit (a pod of the current revision below the
// partition is made again from a live pod of that revision, else from the
// template); minReadySeconds (a ready pod is available); the rolling
// update's maxUnavailable (one pod at a time); ordinals.start (ordinals
// count from 0); recreating Failed pods; status.conditions and
// collisionCount.
package statefulset

import (
	"fmt"
	"hash/fnv"
	"slices"
	"strconv"
	"strings"

	"github.com/converge-sim/converge/controllers/replicaset"
	"github.com/converge-sim/converge/model"
)

// Kinds the controller reads and writes.
const (
	Kind    = "StatefulSet"
	PVCKind = "PersistentVolumeClaim"
)

// Labels the controller puts on its pods.
const (
	// RevisionLabel names the revision a pod was made from.
	RevisionLabel = "controller-revision-hash"
	// PodNameLabel carries a pod's own name, its stable identity.
	PodNameLabel = "statefulset.kubernetes.io/pod-name"
)

// Values of the policies in a StatefulSet's spec.
const (
	OrderedReady  = "OrderedReady"
	Parallel      = "Parallel"
	RollingUpdate = "RollingUpdate"
	OnDelete      = "OnDelete"
	Retain        = "Retain"
	Delete        = "Delete"
)

// New returns a StatefulSet of replicas pods of image, selecting app=name,
// with one volume claim template per name in claims. Callers set the
// policies in its spec.
func New(namespace, name string, replicas int64, image string, claims ...string) *model.Object {
	spec := model.NewFields(model.Values{
		"replicas": replicas, "selector.matchLabels.app": name, replicaset.TemplateLabels + ".app": name,
		"template.spec." + replicaset.ContainerNamePath: replicaset.ContainerName, replicaset.TemplateImagePath: image,
	})
	for i, c := range claims {
		spec.Set(fmt.Sprintf("volumeClaimTemplates[%d].metadata.name", i), c)
		spec.Set(fmt.Sprintf("volumeClaimTemplates[%d].spec.resources.requests.storage", i), "1Gi")
	}
	return &model.Object{Kind: Kind, Namespace: namespace, Name: name, Spec: spec}
}

// claimTemplate is one of volumeClaimTemplates: its name and its spec.
type claimTemplate struct {
	name string
	spec model.Fields
}

// setSpec is a StatefulSet's spec, read and checked.
type setSpec struct {
	replicas       int
	selector       model.Selector
	parallel       bool
	onDelete       bool
	partition      int
	claims         []claimTemplate
	deleteOnScale  bool
	deleteOnDelete bool
}

// parse reads a StatefulSet's spec, with a clear error for what Kubernetes'
// validation would refuse.
func parse(set *model.Object) (setSpec, error) {
	var sp setSpec
	var ok bool
	if sp.selector, ok = model.SpecSelector(set); !ok {
		return sp, fmt.Errorf("has no selector")
	}
	sp.replicas = 1 // unset, as the API server defaults it
	if set.Spec.Has("replicas") {
		if r := set.Spec.Int("replicas"); r >= 0 {
			sp.replicas = int(r)
		} else {
			return sp, fmt.Errorf("has negative replicas %d", r)
		}
	}
	switch p := set.Spec.Str("podManagementPolicy"); p {
	case "", OrderedReady:
	case Parallel:
		sp.parallel = true
	default:
		return sp, fmt.Errorf("has an unknown podManagementPolicy %q", p)
	}
	switch t := set.Spec.Str("updateStrategy.type"); t {
	case "", RollingUpdate:
	case OnDelete:
		sp.onDelete = true
	default:
		return sp, fmt.Errorf("has an unknown updateStrategy.type %q", t)
	}
	if p := set.Spec.Int("updateStrategy.rollingUpdate.partition"); p >= 0 {
		sp.partition = int(p)
	} else {
		return sp, fmt.Errorf("has a negative partition %d", p)
	}
	var err error
	if sp.deleteOnScale, err = retention(set, "whenScaled"); err != nil {
		return sp, err
	}
	if sp.deleteOnDelete, err = retention(set, "whenDeleted"); err != nil {
		return sp, err
	}
	sp.claims, err = claimTemplates(set)
	return sp, err
}

// retention reads one field of the retention policy: true for Delete.
func retention(set *model.Object, when string) (bool, error) {
	switch v := set.Spec.Str("persistentVolumeClaimRetentionPolicy." + when); v {
	case "", Retain:
		return false, nil
	case Delete:
		return true, nil
	default:
		return false, fmt.Errorf("has an unknown persistentVolumeClaimRetentionPolicy.%s %q", when, v)
	}
}

// claimTemplates reads volumeClaimTemplates[<n>] in index order.
func claimTemplates(set *model.Object) ([]claimTemplate, error) {
	const prefix = "volumeClaimTemplates["
	byIndex := map[int]*claimTemplate{}
	for path, v := range set.Spec.All() {
		rest, ok := strings.CutPrefix(path, prefix)
		if !ok {
			continue
		}
		idx, field, ok := strings.Cut(rest, "].")
		n, err := strconv.Atoi(idx)
		if !ok || err != nil || n < 0 {
			return nil, fmt.Errorf("has a malformed volume claim template path %q", path)
		}
		t := byIndex[n]
		if t == nil {
			t = &claimTemplate{spec: model.Fields{}}
			byIndex[n] = t
		}
		switch {
		case field == "metadata.name":
			if t.name, ok = v.(string); !ok || t.name == "" {
				return nil, fmt.Errorf("has volume claim template %d with a bad name %v", n, model.FormatValue(v))
			}
		case strings.HasPrefix(field, "spec."):
			t.spec.Set(strings.TrimPrefix(field, "spec."), v)
		}
	}
	idxs := make([]int, 0, len(byIndex))
	for n := range byIndex {
		idxs = append(idxs, n)
	}
	slices.Sort(idxs)
	out := make([]claimTemplate, 0, len(idxs))
	seen := map[string]bool{}
	for _, n := range idxs {
		t := byIndex[n]
		if t.name == "" {
			return nil, fmt.Errorf("has volume claim template %d without metadata.name", n)
		}
		if seen[t.name] {
			return nil, fmt.Errorf("has two volume claim templates named %q", t.name)
		}
		seen[t.name] = true
		out = append(out, *t)
	}
	return out, nil
}

// Revision names a StatefulSet's pod template: <set>-<hash>, the hash
// covering every "template." field in path order, so the same template
// always gets the same name.
func Revision(set *model.Object) string {
	h := fnv.New32a()
	var line []byte // one buffer for every "<path>=<value>\n" hashed
	for p, v := range set.Spec.All() {
		if strings.HasPrefix(p, "template.") {
			line = append(append(line[:0], p...), '=')
			if str, ok := v.(string); ok {
				line = strconv.AppendQuote(line, str) // as model.FormatValue renders it, without a string of its own
			} else {
				line = append(line, model.FormatValue(v)...)
			}
			_, _ = h.Write(append(line, '\n'))
		}
	}
	return set.Name + "-" + strconv.FormatUint(uint64(h.Sum32()), 36)
}

// PodName is the name of a StatefulSet's pod of ordinal i.
func PodName(set string, i int) string { return set + "-" + strconv.Itoa(i) }

// ClaimName is the name of the claim from template for the pod of ordinal
// i: <template>-<set>-<i>, as Kubernetes names it.
func ClaimName(template, set string, i int) string { return template + "-" + PodName(set, i) }

// ordinal returns the ordinal of a pod of set, from its name.
func ordinal(set, pod string) (int, bool) {
	rest, ok := strings.CutPrefix(pod, set+"-")
	if !ok || rest == "" || (len(rest) > 1 && rest[0] == '0') {
		return 0, false
	}
	i, err := strconv.Atoi(rest)
	return i, err == nil && i >= 0
}

// RunningAndReady reports whether a pod is live, running and ready, as its
// kubelet reports it (the model's, controllers/node, or the
// controllerruntime adapter's builtin.Kubelet): phase Running and the
// Ready condition True.
func RunningAndReady(p *model.Object) bool {
	return p.Status.Str("phase") == "Running" && replicaset.Ready(p)
}

// newPod returns the pod of ordinal i for set, made from the update
// revision, or copied from like, a pod of another revision (and ordinal),
// its claims renamed to ordinal i's.
//
// The template's "template.metadata.labels.<key>" and
// ".annotations.<key>" become the pod's, and "template.spec.<path>" is
// copied whole into the pod's spec, containers and all (one container,
// replicaset.ContainerName of replicaset.DefaultImage, when the template
// has none). The claims' volumes follow the template's own volumes.
func newPod(set *model.Object, sp setSpec, i int, revision string, like *model.Object) *model.Object {
	name := PodName(set.Name, i)
	labels := map[string]string{}
	var spec model.Fields
	if like != nil {
		for k, v := range like.Labels.All() {
			labels[k] = v
		}
		from, _ := ordinal(set.Name, like.Name)
		renamed := map[string]string{}
		for _, t := range sp.claims {
			renamed[ClaimName(t.name, set.Name, from)] = ClaimName(t.name, set.Name, i)
		}
		spec = like.Spec // shared until written: only the claims' names change
		for p, v := range like.Spec.All() {
			if c, isStr := v.(string); isStr && strings.HasSuffix(p, ".persistentVolumeClaim.claimName") && renamed[c] != "" {
				spec.Set(p, renamed[c])
			}
		}
	} else {
		vals := model.Values{} // built whole, then made Fields once
		for p, v := range set.Spec.All() {
			if t, ok := strings.CutPrefix(p, "template.spec."); ok {
				vals[t] = v
			}
			k, ok := mapKey(p, replicaset.TemplateLabels)
			if a, isAnnotation := mapKey(p, "template.metadata.annotations"); isAnnotation {
				k, ok = model.AnnotationLabelPrefix+a, true
			}
			if v, isStr := v.(string); ok && isStr {
				labels[k] = v
			}
		}
		if _, container := vals[replicaset.ContainerNamePath]; !container {
			vals[replicaset.ContainerNamePath], vals[replicaset.ImagePath] = replicaset.ContainerName, replicaset.DefaultImage
		}
		volumes := 0
		for p := range vals {
			if n, ok := listIndex(p, "volumes"); ok && n >= volumes {
				volumes = n + 1
			}
		}
		for j, t := range sp.claims {
			vals[fmt.Sprintf("volumes[%d].name", volumes+j)] = t.name
			vals[fmt.Sprintf("volumes[%d].persistentVolumeClaim.claimName", volumes+j)] = ClaimName(t.name, set.Name, i)
		}
		spec = model.NewFields(vals)
	}
	for k, v := range sp.selector {
		labels[k] = v
	}
	labels[RevisionLabel] = revision
	labels[PodNameLabel] = name
	spec.Set("hostname", name)
	if svc := set.Spec.Str("serviceName"); svc != "" {
		spec.Set("subdomain", svc)
	}
	return &model.Object{
		Kind: replicaset.PodKind, Namespace: set.Namespace, Name: name, Labels: model.NewLabels(labels),
		OwnerReferences: []model.OwnerReference{model.NewOwnerReference(set)},
		Spec:            spec,
	}
}

// mapKey returns the key of a path "<prefix>.<key>" or `<prefix>["<key>"]`
// (model.KeyUnder), refusing a plain key that goes on into a deeper path.
func mapKey(path, prefix string) (string, bool) {
	k, ok := model.KeyUnder(path, prefix)
	if ok && strings.HasPrefix(path, prefix+".") && strings.ContainsAny(k, ".[") {
		return "", false
	}
	return k, ok
}

// listIndex returns n of a path "<list>[n]..." under the list at prefix.
func listIndex(path, prefix string) (int, bool) {
	rest, ok := strings.CutPrefix(path, prefix+"[")
	if !ok {
		return 0, false
	}
	idx, _, ok := strings.Cut(rest, "]")
	n, err := strconv.Atoi(idx)
	return n, ok && err == nil
}

// newClaim returns the claim from template t for the pod of ordinal i,
// labelled with the set's selector.
func newClaim(set *model.Object, sp setSpec, t claimTemplate, i int) *model.Object {
	return &model.Object{
		Kind: PVCKind, Namespace: set.Namespace, Name: ClaimName(t.name, set.Name, i),
		Labels: model.NewLabels(sp.selector), Spec: t.spec, // Fields are values: the claim shares the template's until written
	}
}

// ref is a plain (not controlling) owner reference to o, as the
// StatefulSet controller puts on the claims it hands to the garbage
// collector.
func ref(o *model.Object) model.OwnerReference {
	return model.OwnerReference{Kind: o.Kind, Name: o.Name, UID: o.UID}
}

// wantedOwners returns the owner references a claim of pod (of ordinal i)
// must have under the retention policy, as Kubernetes sets them: the set
// when whenDeleted is Delete, unless the pod is scaled away and whenScaled
// is Delete, when the pod owns it instead.
func wantedOwners(set, pod *model.Object, sp setSpec, i int) (bySet, byPod bool) {
	scaledDown := i >= sp.replicas
	if sp.deleteOnScale && scaledDown {
		return false, pod != nil
	}
	return sp.deleteOnDelete, false
}

// withOwners returns claim's owner references with the set's and the
// pod's references present or absent as wanted, and whether they changed.
// References to anything else are kept.
func withOwners(claim, set, pod *model.Object, bySet, byPod bool) ([]model.OwnerReference, bool) {
	var out []model.OwnerReference
	hasSet, hasPod := false, false
	for _, r := range claim.OwnerReferences {
		switch {
		case r.UID == set.UID:
			hasSet = true
			if bySet {
				out = append(out, r)
			}
		case pod != nil && r.Kind == replicaset.PodKind && r.Name == pod.Name:
			if byPod && r.UID == pod.UID {
				hasPod = true
				out = append(out, r)
			}
		default:
			out = append(out, r)
		}
	}
	if bySet && !hasSet {
		out = append(out, ref(set))
	}
	if byPod && !hasPod {
		out = append(out, ref(pod))
	}
	return out, !slices.Equal(out, claim.OwnerReferences)
}
