// Package replicaset holds the reference ReplicaSet controllers: a
// level-triggered one (with or without resync, with or without
// expectations) and its edge-triggered twin, with the goals they must reach.
//
// A ReplicaSet's spec has "replicas", a label selector
// ("selector.matchLabels.<key>", read by model.SpecSelector) and a pod
// template ("template.spec.containers[0].image"); its pods carry the
// selector's labels and a controller reference. Every field is at its
// path in the real API (docs/design.md, "Built-in kinds"), so that a
// typed client reads and writes them whole.
package replicaset

import (
	"fmt"
	"strconv"

	"github.com/converge-sim/converge/model"
)

// Kinds used by the controllers.
const (
	Kind    = "ReplicaSet"
	PodKind = "Pod"
)

// New returns a ReplicaSet with the given replicas, selecting pods labelled
// app=name.
func New(namespace, name string, replicas int64) *model.Object {
	return &model.Object{
		Kind:      Kind,
		Namespace: namespace,
		Name:      name,
		Spec:      model.NewFields(model.Values{"replicas": replicas, "selector.matchLabels.app": name}),
	}
}

// Selector returns the ReplicaSet's label selector (model.SpecSelector);
// empty, not nil, when it has none.
func Selector(rs *model.Object) model.Selector {
	if sel, ok := model.SpecSelector(rs); ok {
		return sel
	}
	return model.Selector{}
}

// DefaultImage is the image of pods whose ReplicaSet's template names
// none.
const DefaultImage = "app:v1"

// Paths of a pod's one container, as in a real PodSpec, and of its image
// in a workload's pod template.
const (
	// ContainerName is the name of the one container of the model's pods.
	ContainerName     = "app"
	ContainerNamePath = "containers[0].name"
	ImagePath         = "containers[0].image"
	TemplateImagePath = "template.spec." + ImagePath
	// TemplateLabels is the prefix of a pod template's labels.
	TemplateLabels = "template.metadata.labels"
)

// PodSpec returns the spec of a pod of one container, ContainerName,
// running image.
func PodSpec(image string) model.Fields {
	return model.NewFields(model.Values{ContainerNamePath: ContainerName, ImagePath: image})
}

// NewPod returns a pod for rs: named by the server from the ReplicaSet's
// name, labelled with its selector, running its template's image and
// controlled by it.
func NewPod(rs *model.Object) *model.Object {
	spec := defaultPodSpec // Fields are values, shared until written
	if image := rs.Spec.Str(TemplateImagePath); image != "" {
		spec = PodSpec(image)
	}
	labels, _ := model.SpecSelectorLabels(rs) // none without a selector, as NewLabels(Selector(rs))
	// The pod and its one owner reference are one allocation: a pod is
	// made at every scale-up, and the server copies it on create anyway.
	p := &ownedPod{owner: [1]model.OwnerReference{model.NewOwnerReference(rs)}}
	p.pod = model.Object{
		Kind:            PodKind,
		Namespace:       rs.Namespace,
		GenerateName:    rs.Name + "-",
		Labels:          labels,
		OwnerReferences: p.owner[:],
		Spec:            spec,
	}
	return &p.pod
}

// ownedPod is a new pod with the room of its owner reference beside it.
type ownedPod struct {
	pod   model.Object
	owner [1]model.OwnerReference
}

// defaultPodSpec is the spec of a pod of a ReplicaSet whose template names
// no image.
var defaultPodSpec = PodSpec(DefaultImage)

// RunningReady returns the status a kubelet writes for a pod whose
// containers run and are ready: phase Running and the Ready condition
// True.
func RunningReady() model.Fields {
	return model.NewFields(model.Values{"phase": "Running", "conditions[0].type": "Ready", "conditions[0].status": "True"})
}

// Ready reports whether a pod is live and its kubelet reports it ready:
// its Ready condition is True.
func Ready(p *model.Object) bool {
	if p.Deleting() {
		return false
	}
	for i := 0; ; i++ {
		typ, status := conditionPaths(i)
		t, ok := p.Status.Get(typ)
		if !ok && i > 0 {
			return false
		}
		if t == "Ready" { // at index 0 where this package's kubelets write it
			return p.Status.Str(status) == "True"
		}
	}
}

// conditionPathsKept holds the paths of the first conditions' type and
// status: Ready runs for every listed pod of every reconcile, and building
// a path there was a sixth of a simulated step (BENCHMARKS.md, "Fifth
// round: the step loop").
var conditionPathsKept = func() [][2]string {
	paths := make([][2]string, 8)
	for i := range paths {
		paths[i] = conditionPathsOf(i)
	}
	return paths
}()

// conditionPaths returns the paths of condition i's type and status.
func conditionPaths(i int) (typ, status string) {
	if i < len(conditionPathsKept) {
		return conditionPathsKept[i][0], conditionPathsKept[i][1]
	}
	p := conditionPathsOf(i)
	return p[0], p[1]
}

func conditionPathsOf(i int) [2]string {
	n := strconv.Itoa(i)
	return [2]string{"conditions[" + n + "].type", "conditions[" + n + "].status"}
}

// activePods returns the pods controlled by rs that are not being deleted,
// in name order. It filters pods, the caller's own list, in place.
func activePods(pods []*model.Object, rs *model.Object) []*model.Object {
	out := pods[:0]
	for _, p := range pods {
		if p.IsControlledBy(rs) && !p.Deleting() {
			out = append(out, p)
		}
	}
	return out
}

// countActive counts, in the server's state, the live pods rs controls.
func countActive(s model.State, rs *model.Object) int64 {
	var n int64
	for _, p := range s.List(PodKind, model.ListOptions{Namespace: rs.Namespace, Owner: rs.UID}) {
		if p.IsControlledBy(rs) && !p.Deleting() {
			n++
		}
	}
	return n
}

// PodsMatchReplicas is the goal every ReplicaSet controller shares: each
// ReplicaSet controls exactly spec.replicas live pods.
func PodsMatchReplicas(s model.State) []model.Unmet {
	var out []model.Unmet
	for _, rs := range s.List(Kind, model.ListOptions{}) {
		if rs.Deleting() {
			continue
		}
		want, have := rs.Spec.Int("replicas"), countActive(s, rs)
		if want != have {
			out = append(out, model.Unmet{Object: rs.Ref(), Message: fmt.Sprintf("wants %d pods, has %d", want, have)})
		}
	}
	return out
}

// StatusReflectsPods is the level-triggered controller's further goal:
// status.replicas counts the live pods, status.readyReplicas the ready ones,
// and status.observedGeneration has caught up with the spec.
func StatusReflectsPods(s model.State) []model.Unmet {
	var out []model.Unmet
	for _, rs := range s.List(Kind, model.ListOptions{}) {
		if rs.Deleting() {
			continue
		}
		have := countActive(s, rs)
		var ready int64
		for _, p := range s.List(PodKind, model.ListOptions{Namespace: rs.Namespace, Owner: rs.UID}) {
			if p.IsControlledBy(rs) && Ready(p) {
				ready++
			}
		}
		if got := rs.Status.Int("replicas"); got != have {
			out = append(out, model.Unmet{Object: rs.Ref(), Message: fmt.Sprintf("reports status.replicas=%d, has %d pods", got, have)})
		} else if got := rs.Status.Int("readyReplicas"); got != ready {
			out = append(out, model.Unmet{Object: rs.Ref(), Message: fmt.Sprintf("reports status.readyReplicas=%d, has %d ready pods", got, ready)})
		} else if og := rs.Status.Int("observedGeneration"); og != rs.Generation {
			out = append(out, model.Unmet{Object: rs.Ref(), Message: fmt.Sprintf("reports observedGeneration=%d, generation is %d", og, rs.Generation)})
		}
	}
	return out
}
