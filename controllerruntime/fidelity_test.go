package controllerruntime_test

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/converge-sim/converge/controllers/deployment"
	"github.com/converge-sim/converge/controllers/disruption"
	"github.com/converge-sim/converge/controllers/node"
	"github.com/converge-sim/converge/controllers/replicaset"
	"github.com/converge-sim/converge/controllers/statefulset"
	"github.com/converge-sim/converge/controllers/volume"
	"github.com/converge-sim/converge/model"
	"github.com/converge-sim/converge/properties"
	"github.com/converge-sim/converge/scenarios"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// coreObjects returns the model objects of built-in kinds that the core
// module's constructors and controllers write: those its scenarios of
// Deployments, StatefulSets, databases and drains hold after a run of
// their controllers, and those its constructors return.
func coreObjects(t *testing.T) []*model.Object {
	t.Helper()
	var out []*model.Object
	for _, sc := range []properties.Scenario{scenarios.Deployment(), scenarios.StatefulSet(), scenarios.Database(), scenarios.PDBDrain()} {
		c, err := sc.Build(model.Config{})
		require.NoError(t, err, sc.Name)
		require.NoError(t, c.Start(), sc.Name)
		var acts []model.Action
		for range 2000 {
			if acts = c.Enabled(acts[:0]); len(acts) == 0 {
				break
			}
			c.Do(acts[0])
		}
		for _, gvk := range testConv.GVKs() {
			if clientgoscheme.Scheme.Recognizes(gvk) {
				out = append(out, c.State().List(gvk.Kind, model.ListOptions{})...)
			}
		}
	}
	rs := replicaset.New("default", "web", 2)
	rs.Spec.Set(replicaset.TemplateImagePath, "app:v2")
	pod := replicaset.NewPod(rs)
	pod.Name, pod.Status = "web-0", replicaset.RunningReady()
	return append(out, rs, pod,
		deployment.New("default", "web", 3, "app:v1", 1, 1),
		statefulset.New("default", "db", 2, "db:v1", "data"),
		volume.NewClaim("default", "data", "fast", "1Gi"), volume.NewClass("fast", true, true),
		node.New("node-1"), disruption.New("default", "web-pdb", "web", 1))
}

// typedObjects are objects of the built-in kinds the core does not model,
// as an operator writes them, for the round trip from the model form the
// adapter makes of them.
func typedObjects() []client.Object {
	labels := map[string]string{"app": "web"}
	rs := replicaSetSpec(new(int32(2)))
	rs.Template.Spec.Containers[0].Ports = []corev1.ContainerPort{{Name: "http", ContainerPort: 8080, Protocol: corev1.ProtocolTCP}}
	rs.Template.Spec.Containers[0].Resources = corev1.ResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("100m")}}
	meta := metav1.ObjectMeta{Namespace: "default", Name: "web", Labels: labels, Annotations: map[string]string{"example.com/owner": "ops"}}
	job := batchv1.JobSpec{BackoffLimit: new(int32(3)), Template: rs.Template}
	job.Template.Spec.RestartPolicy = corev1.RestartPolicyNever
	return []client.Object{
		&batchv1.Job{ObjectMeta: meta, Spec: job},
		&batchv1.CronJob{ObjectMeta: meta, Spec: batchv1.CronJobSpec{Schedule: "*/5 * * * *", JobTemplate: batchv1.JobTemplateSpec{Spec: job}}},
		&appsv1.DaemonSet{ObjectMeta: meta, Spec: appsv1.DaemonSetSpec{Selector: rs.Selector, Template: rs.Template}},
		&corev1.Service{ObjectMeta: meta, Spec: corev1.ServiceSpec{Selector: labels, ClusterIP: corev1.ClusterIPNone,
			Ports: []corev1.ServicePort{{Name: "http", Port: 80, TargetPort: intstr.FromString("http")}}}},
		&corev1.ConfigMap{ObjectMeta: meta, Data: map[string]string{"config.yaml": "a: 1\n"}, Immutable: new(true)},
		&corev1.Secret{ObjectMeta: meta, Type: corev1.SecretTypeOpaque, Data: map[string][]byte{"password": []byte("s3cret")}},
		&corev1.ServiceAccount{ObjectMeta: meta},
		&corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "apps"}},
	}
}

// TestModelObjectsOfBuiltinKindsRoundTrip: every model object of a
// built-in kind, those the core's controllers write and those the adapter
// makes of an operator's typed objects, goes to its Go type (k8s.io/api)
// and back with nothing lost and nothing extra: its spec, status and
// labels are the same field maps, but for a Go zero value (fieldDiff). A
// field at a path the real API lacks (a pod's spec.image, as the core
// wrote it) is dropped by the Go type and fails this.
func TestModelObjectsOfBuiltinKindsRoundTrip(t *testing.T) {
	objs := coreObjects(t)
	for _, typed := range typedObjects() {
		mo, err := testConv.ToModel(typed)
		require.NoError(t, err)
		objs = append(objs, mo)
	}
	kinds := map[string]bool{}
	for _, mo := range objs {
		kinds[mo.Kind] = true
		typed, err := testConv.New(mo.Kind)
		require.NoError(t, err, mo.Kind)
		require.NoError(t, testConv.FromModel(mo, typed), mo.Ref().String())
		back, err := testConv.ToModel(typed)
		require.NoError(t, err, mo.Ref().String())
		spec := maps.Collect(mo.Spec.All())
		if mo.Kind == node.Kind {
			delete(spec, "drain") // the one field the core keeps that a real Node lacks: see docs/design.md, "Built-in kinds"
		}
		assert.Empty(t, fieldDiff(spec, maps.Collect(back.Spec.All())), "spec of %s", mo.Ref())
		assert.Empty(t, fieldDiff(maps.Collect(mo.Status.All()), maps.Collect(back.Status.All())), "status of %s", mo.Ref())
		assert.Equal(t, mo.Labels.Len(), back.Labels.Len(), "labels of %s", mo.Ref())
		for k, v := range mo.Labels.All() {
			assert.Equal(t, v, back.Labels.Value(k), "label %s of %s", k, mo.Ref())
		}
	}
	assert.Equal(t, []string{"ConfigMap", "CronJob", "DaemonSet", "Deployment", "Job", "Namespace", "Node",
		"PersistentVolumeClaim", "Pod", "PodDisruptionBudget", "ReplicaSet", "Secret", "Service", "ServiceAccount",
		"StatefulSet", "StorageClass"}, slices.Sorted(maps.Keys(kinds)), "the kinds the table covers")
}

// fieldDiff lists the fields of a model object's spec or status (before)
// that its round trip through a Go type (after) lost or changed, and the
// fields it added, but for a Go zero value ("", 0, false, an empty object
// or list) on either side where the other has nothing: a typed client
// cannot tell those from absent (an omitempty 0 is dropped, a required
// empty struct is written), and an update that adds or drops one changes
// nothing an operator reads.
func fieldDiff(before, after map[string]any) []string {
	var out []string
	for _, p := range slices.Sorted(maps.Keys(before)) {
		v := before[p]
		w, ok := after[p]
		switch {
		case ok && w != v:
			out = append(out, fmt.Sprintf("%s: %v became %v", p, v, w))
		case !ok && !zero(p, v):
			out = append(out, fmt.Sprintf("%s: %v lost", p, v))
		}
	}
	for _, p := range slices.Sorted(maps.Keys(after)) {
		if _, ok := before[p]; !ok && !zero(p, after[p]) {
			out = append(out, fmt.Sprintf("%s: %v added", p, after[p]))
		}
	}
	return out
}

// zero reports whether a field is a Go zero value or an empty object or
// list (the converter's markers "{}" and "[]").
func zero(path string, v any) bool {
	return v == "" || v == int64(0) || v == false || strings.HasSuffix(path, "{}") || strings.HasSuffix(path, "[]")
}
