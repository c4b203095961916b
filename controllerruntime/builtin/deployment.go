package builtin

import (
	"context"
	"encoding/json"
	"fmt"
	"hash/fnv"
	"slices"
	"strings"

	crt "github.com/converge-sim/converge/controllerruntime"
	"github.com/converge-sim/converge/controllerruntime/internal/shared"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"
	"sigs.k8s.io/controller-runtime/pkg/manager"
)

// Deployments returns the setup of the "deployment" controller, a subset
// of the real one: a Deployment owns one ReplicaSet per pod template,
// named <deployment>-<hash of the template>; the current one is scaled to
// spec.replicas and every older one to zero at once (no surge or
// unavailability budget: the rollout is all at once). Its status counts
// the ReplicaSets' replicas, ready and available replicas, the updated
// ones, observedGeneration, and the Available condition.
func Deployments(m *crt.Manager) crt.SetupFunc {
	return func(mgr manager.Manager) error {
		r := &deploymentController{Client: mgr.GetClient(), m: m, hashes: map[hashKey]string{}}
		return ctrl.NewControllerManagedBy(mgr).For(&appsv1.Deployment{}).Owns(&appsv1.ReplicaSet{}).Named("deployment").Complete(r)
	}
}

type deploymentController struct {
	client.Client
	m *crt.Manager
	// hashes keeps the template hash of the Deployment versions read: a
	// version's template never changes, and hashing it encodes it as JSON.
	hashes map[hashKey]string
}

// hashKey names one version of a Deployment.
type hashKey struct {
	uid types.UID
	rv  string
}

// maxHashes bounds deploymentController.hashes; past it, it starts afresh.
const maxHashes = 256

// hash is templateHash of d's template, kept by d's version.
func (r *deploymentController) hash(d *appsv1.Deployment) string {
	if !shared.KeepHashes || d.ResourceVersion == "" {
		return templateHash(&d.Spec.Template)
	}
	k := hashKey{d.UID, d.ResourceVersion}
	if h, ok := r.hashes[k]; ok {
		return h
	}
	if len(r.hashes) >= maxHashes {
		clear(r.hashes)
	}
	h := templateHash(&d.Spec.Template)
	r.hashes[k] = h
	return h
}

// templateHash names a pod template, as the pod-template-hash label does.
func templateHash(t *corev1.PodTemplateSpec) string {
	b, _ := json.Marshal(t)
	h := fnv.New32a()
	h.Write(b)
	return fmt.Sprintf("%08x", h.Sum32())
}

// Reconcile reads the ReplicaSets shared (package shared): it only reads
// them, and changes and writes copies.
func (r *deploymentController) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	var d appsv1.Deployment
	if err := r.Get(ctx, req.NamespacedName, &d); err != nil {
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	if !d.DeletionTimestamp.IsZero() {
		return ctrl.Result{}, nil
	}
	sets, err := shared.List[*appsv1.ReplicaSet](ctx, r.Client, &appsv1.ReplicaSetList{}, client.InNamespace(d.Namespace))
	if err != nil {
		return ctrl.Result{}, err
	}
	hash := r.hash(&d)
	name := d.Name + "-" + hash
	replicas := int32(1)
	if d.Spec.Replicas != nil {
		replicas = *d.Spec.Replicas
	}
	var current *appsv1.ReplicaSet
	var old []*appsv1.ReplicaSet
	for _, rs := range sets {
		if !metav1.IsControlledBy(rs, &d) || !rs.DeletionTimestamp.IsZero() {
			continue
		}
		if rs.Name == name {
			current = rs
		} else {
			old = append(old, rs)
		}
	}
	if current == nil {
		current = &appsv1.ReplicaSet{
			ObjectMeta: metav1.ObjectMeta{Namespace: d.Namespace, Name: name, Labels: map[string]string{"pod-template-hash": hash}},
			Spec: appsv1.ReplicaSetSpec{
				Replicas: &replicas,
				Selector: d.Spec.Selector.DeepCopy(),
				Template: *d.Spec.Template.DeepCopy(),
			},
		}
		for k, v := range d.Spec.Template.Labels {
			current.Labels[k] = v
		}
		if err := controllerutil.SetControllerReference(&d, current, r.Scheme()); err != nil {
			return ctrl.Result{}, err
		}
		if err := r.Create(ctx, current); err != nil && !apierrors.IsAlreadyExists(err) {
			return ctrl.Result{}, err
		}
	} else if *current.Spec.Replicas != replicas {
		current = current.DeepCopy()
		current.Spec.Replicas = &replicas
		if err := r.Update(ctx, current); err != nil {
			return ctrl.Result{}, err
		}
	}
	slices.SortFunc(old, func(a, b *appsv1.ReplicaSet) int { return strings.Compare(a.Name, b.Name) })
	for i, rs := range old {
		if rs.Spec.Replicas == nil || *rs.Spec.Replicas != 0 {
			rs = rs.DeepCopy()
			rs.Spec.Replicas = new(int32)
			if err := r.Update(ctx, rs); err != nil {
				return ctrl.Result{}, err
			}
			old[i] = rs
		}
	}
	st := appsv1.DeploymentStatus{ObservedGeneration: d.Generation}
	for _, rs := range append(old, current) {
		st.Replicas += rs.Status.Replicas
		st.ReadyReplicas += rs.Status.ReadyReplicas
		st.AvailableReplicas += rs.Status.AvailableReplicas
	}
	st.UpdatedReplicas = current.Status.Replicas
	st.UnavailableReplicas = max(0, replicas-st.AvailableReplicas)
	available := corev1.ConditionFalse
	if st.AvailableReplicas >= replicas {
		available = corev1.ConditionTrue
	}
	now := r.m.Converter().Time(r.m.Cluster().Now())
	cond := appsv1.DeploymentCondition{Type: appsv1.DeploymentAvailable, Status: available, LastUpdateTime: now, LastTransitionTime: now, Reason: "MinimumReplicasAvailable"}
	if available == corev1.ConditionFalse {
		cond.Reason = "MinimumReplicasUnavailable"
	}
	for _, c := range d.Status.Conditions {
		if c.Type == appsv1.DeploymentAvailable && c.Status == available {
			cond = c
		}
	}
	st.Conditions = []appsv1.DeploymentCondition{cond}
	d.Status = st
	return ctrl.Result{}, r.Status().Update(ctx, &d)
}

// ReplicaSets returns the setup of the "replicaset" controller: it keeps
// spec.replicas live pods named <replicaset>-<n> (the lowest free n, so a
// stale cache cannot create two of one name) and deletes the surplus,
// highest names first; its status counts replicas, ready and available
// (ready; minReadySeconds is not modelled) pods.
func ReplicaSets() crt.SetupFunc {
	return func(mgr manager.Manager) error {
		r := &replicaSetController{Client: mgr.GetClient()}
		return ctrl.NewControllerManagedBy(mgr).For(&appsv1.ReplicaSet{}).Owns(&corev1.Pod{}).Named("replicaset").Complete(r)
	}
}

type replicaSetController struct{ client.Client }

// Reconcile reads the pods shared (package shared): it only reads them.
func (r *replicaSetController) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	var rs appsv1.ReplicaSet
	if err := r.Get(ctx, req.NamespacedName, &rs); err != nil {
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	if !rs.DeletionTimestamp.IsZero() {
		return ctrl.Result{}, nil
	}
	pods, err := shared.List[*corev1.Pod](ctx, r.Client, &corev1.PodList{}, client.InNamespace(rs.Namespace))
	if err != nil {
		return ctrl.Result{}, err
	}
	names := map[string]bool{}
	var live []*corev1.Pod
	for _, p := range pods {
		names[p.Name] = true
		if metav1.IsControlledBy(p, &rs) && p.DeletionTimestamp.IsZero() && p.Status.Phase != corev1.PodFailed && p.Status.Phase != corev1.PodSucceeded {
			live = append(live, p)
		}
	}
	want := int32(1)
	if rs.Spec.Replicas != nil {
		want = *rs.Spec.Replicas
	}
	for n := 0; int32(len(live)) < want; n++ {
		name := fmt.Sprintf("%s-%d", rs.Name, n)
		if names[name] {
			continue
		}
		pod := &corev1.Pod{ObjectMeta: *rs.Spec.Template.ObjectMeta.DeepCopy(), Spec: *rs.Spec.Template.Spec.DeepCopy()}
		pod.Namespace, pod.Name = rs.Namespace, name
		if err := controllerutil.SetControllerReference(&rs, pod, r.Scheme()); err != nil {
			return ctrl.Result{}, err
		}
		if err := r.Create(ctx, pod); err != nil {
			return ctrl.Result{}, err
		}
		names[name] = true
		live = append(live, pod)
	}
	slices.SortFunc(live, func(a, b *corev1.Pod) int { return strings.Compare(b.Name, a.Name) })
	for int32(len(live)) > want {
		if err := r.Delete(ctx, live[0]); client.IgnoreNotFound(err) != nil {
			return ctrl.Result{}, err
		}
		live = live[1:]
	}
	st := appsv1.ReplicaSetStatus{Replicas: int32(len(live)), ObservedGeneration: rs.Generation}
	for _, p := range live {
		if podReady(p) {
			st.ReadyReplicas++
			st.AvailableReplicas++
		}
	}
	st.FullyLabeledReplicas = st.Replicas
	rs.Status = st
	return ctrl.Result{}, r.Status().Update(ctx, &rs)
}
