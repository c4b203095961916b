package controllerruntime_test

import (
	"testing"

	crt "github.com/converge-sim/converge/controllerruntime"
	"github.com/converge-sim/converge/controllerruntime/convert"
	"github.com/converge-sim/converge/controllerruntime/examples/schemaops"
	"github.com/converge-sim/converge/model"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/predicate"
)

// The generation rule as the API server's registry strategies implement
// it: ConfigMap and Secret have none (their strategies never set it);
// Deployment sets 1 on create and bumps it when the spec changes, not on
// metadata or status; a custom resource with a status subresource
// likewise (customresource strategy PrepareForUpdate).
func TestGenerationFollowsKubernetes(t *testing.T) {
	w, err := schemaops.NewWorld()
	require.NoError(t, err)
	m, err := crt.NewManager(model.NewCluster(model.Config{}), w.Conv, crt.ManagerOptions{CRDs: w.CRDs})
	require.NoError(t, err)
	c := m.OutsideClient("user")

	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "cfg"}, Data: map[string]string{"k": "1"}}
	require.NoError(t, c.Create(ctx, cm))
	cm.Data["k"] = "2"
	require.NoError(t, c.Update(ctx, cm))
	assert.Zero(t, cm.Generation, "a ConfigMap has no generation")
	sec := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "s"}, StringData: nil, Data: map[string][]byte{"k": []byte("1")}}
	require.NoError(t, c.Create(ctx, sec))
	sec.Data["k"] = []byte("2")
	require.NoError(t, c.Update(ctx, sec))
	assert.Zero(t, sec.Generation, "a Secret has none either")

	rs := replicaSetSpec(new(int32(1)))
	d := &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "web"}, Spec: appsv1.DeploymentSpec{Replicas: rs.Replicas, Selector: rs.Selector, Template: rs.Template}}
	require.NoError(t, c.Create(ctx, d))
	assert.Equal(t, int64(1), d.Generation)
	d.Labels = map[string]string{"tier": "web"}
	require.NoError(t, c.Update(ctx, d))
	d.Status.Replicas = 1
	require.NoError(t, c.Status().Update(ctx, d))
	assert.Equal(t, int64(1), d.Generation, "metadata and status leave it")
	d.Spec.Replicas = new(int32(2))
	require.NoError(t, c.Update(ctx, d))
	assert.Equal(t, int64(2), d.Generation, "a spec change bumps it")

	b := &schemaops.Batch{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "b"}}
	require.NoError(t, c.Create(ctx, b))
	b.Status.ActiveCount = 1
	require.NoError(t, c.Status().Update(ctx, b))
	assert.Equal(t, int64(1), b.Generation)
	b.Spec.Parallelism = 3
	require.NoError(t, c.Update(ctx, b))
	assert.Equal(t, int64(2), b.Generation)

	conv := w.Conv
	for kind, want := range map[string]bool{
		"ConfigMap": false, "Secret": false, "Service": false, "ServiceAccount": false, "Namespace": false, "Event": false,
		"Pod": true, "Deployment": true, "ReplicaSet": true, "StatefulSet": true, "DaemonSet": true, "Job": true, "CronJob": true,
		"Batch": true, "App": true,
	} {
		assert.Equal(t, want, crt.HasGeneration(conv, kind), kind)
	}
}

// A GenerationChangedPredicate on owned ConfigMaps filters their data
// changes in a real cluster: the model must too.
func TestGenerationChangedPredicateFiltersConfigMapUpdates(t *testing.T) {
	conv, err := convert.New(testConv.Scheme(), convert.Options{})
	require.NoError(t, err)
	m, err := crt.NewManager(model.NewCluster(model.Config{}), conv, crt.ManagerOptions{})
	require.NoError(t, err)
	c := m.OutsideClient("user")
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "cfg"}, Data: map[string]string{"k": "1"}}
	require.NoError(t, c.Create(ctx, cm))
	old := cm.DeepCopy()
	cm.Data["k"] = "2"
	require.NoError(t, c.Update(ctx, cm))
	var got corev1.ConfigMap
	require.NoError(t, c.Get(ctx, client.ObjectKeyFromObject(cm), &got))
	assert.False(t, predicate.GenerationChangedPredicate{}.Update(event.UpdateEvent{ObjectOld: old, ObjectNew: &got}),
		"a data change of a ConfigMap does not pass the predicate")
}
