package controllerruntime_test

//lint:file-ignore SA1019 these tests cover client.Apply, the deprecated server-side apply that user code still calls

import (
	"testing"

	"github.com/converge-sim/converge/model"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	appsv1ac "k8s.io/client-go/applyconfigurations/apps/v1"
	corev1ac "k8s.io/client-go/applyconfigurations/core/v1"
	metav1ac "k8s.io/client-go/applyconfigurations/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// applied is the configuration a manager applies: a Deployment web with
// replicas (nil leaves the field out) and one container image.
func applied(replicas *int32, image string) *appsv1.Deployment {
	return &appsv1.Deployment{
		TypeMeta:   metav1.TypeMeta{APIVersion: "apps/v1", Kind: "Deployment"},
		ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "web"},
		Spec: appsv1.DeploymentSpec{
			Replicas: replicas,
			Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "web"}},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": "web"}},
				Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "app", Image: image}}},
			},
		},
	}
}

func managers(d *appsv1.Deployment) []string {
	var out []string
	for _, m := range d.ManagedFields {
		out = append(out, m.Manager+"/"+string(m.Operation))
	}
	return out
}

func TestServerSideApplyOwnsFieldsAndConflicts(t *testing.T) {
	c := newManager(t).OutsideClient("user")
	d := applied(new(int32(3)), "app:v1")
	require.NoError(t, c.Patch(ctx, d, client.Apply, client.FieldOwner("gitops")))
	assert.NotEmpty(t, d.UID, "apply creates")
	assert.Equal(t, int32(3), *d.Spec.Replicas)
	assert.Equal(t, []string{"gitops/Apply"}, managers(d))

	rv := d.ResourceVersion
	d = applied(new(int32(3)), "app:v1")
	require.NoError(t, c.Patch(ctx, d, client.Apply, client.FieldOwner("gitops")))
	assert.Equal(t, rv, d.ResourceVersion, "re-applying the same configuration writes nothing")

	err := c.Patch(ctx, applied(new(int32(5)), "app:v1"), client.Apply, client.FieldOwner("hpa"))
	require.True(t, apierrors.IsConflict(err), "got %v", err)
	assert.Contains(t, err.Error(), `conflict with "gitops"`)
	assert.Contains(t, err.Error(), ".spec.replicas")

	d = applied(new(int32(5)), "app:v1")
	require.NoError(t, c.Patch(ctx, d, client.Apply, client.FieldOwner("hpa"), client.ForceOwnership))
	assert.Equal(t, int32(5), *d.Spec.Replicas)
	assert.Equal(t, []string{"gitops/Apply", "hpa/Apply"}, managers(d))
	err = c.Patch(ctx, applied(new(int32(3)), "app:v1"), client.Apply, client.FieldOwner("gitops"))
	require.True(t, apierrors.IsConflict(err), "forced ownership moved replicas to hpa: %v", err)
	assert.Contains(t, err.Error(), `conflict with "hpa"`)

	var got appsv1.Deployment
	require.NoError(t, c.Get(ctx, client.ObjectKeyFromObject(d), &got))
	assert.Equal(t, []string{"gitops/Apply", "hpa/Apply"}, managers(&got), "reads carry managedFields")

	err = c.Patch(ctx, applied(nil, "app:v1"), client.Apply)
	assert.True(t, apierrors.IsInvalid(err), "an apply needs a field manager: %v", err)
}

func TestApplyConflictsWithAnUpdater(t *testing.T) {
	c := newManager(t).OutsideClient("user")
	require.NoError(t, c.Patch(ctx, applied(new(int32(3)), "app:v1"), client.Apply, client.FieldOwner("gitops")))
	var d appsv1.Deployment
	require.NoError(t, c.Get(ctx, client.ObjectKey{Namespace: "default", Name: "web"}, &d))
	d.Spec.Replicas = new(int32(7))
	require.NoError(t, c.Update(ctx, &d, client.FieldOwner("kubectl-scale")))
	assert.Equal(t, []string{"gitops/Apply", "kubectl-scale/Update"}, managers(&d))
	err := c.Patch(ctx, applied(new(int32(3)), "app:v1"), client.Apply, client.FieldOwner("gitops"))
	require.True(t, apierrors.IsConflict(err), "got %v", err)
	assert.Contains(t, err.Error(), `conflict with "kubectl-scale" using apps/v1`)
}

func TestOwnershipHandedOverCleanly(t *testing.T) {
	c := newManager(t).OutsideClient("user")
	require.NoError(t, c.Patch(ctx, applied(new(int32(3)), "app:v1"), client.Apply, client.FieldOwner("gitops")))
	// The new owner applies the same value: both own it, no conflict.
	require.NoError(t, c.Apply(ctx, replicasOnly(3), client.FieldOwner("hpa")))
	// The old owner drops the field from its configuration; it stays, owned by hpa alone.
	d := applied(nil, "app:v2")
	require.NoError(t, c.Patch(ctx, d, client.Apply, client.FieldOwner("gitops")))
	assert.Equal(t, int32(3), *d.Spec.Replicas)
	assert.Equal(t, "app:v2", d.Spec.Template.Spec.Containers[0].Image)
	ac := replicasOnly(6)
	require.NoError(t, c.Apply(ctx, ac, client.FieldOwner("hpa")), "hpa owns replicas now")
	assert.Equal(t, int32(6), *ac.Spec.Replicas)
}

func TestTypedApplyConfiguration(t *testing.T) {
	c := newManager(t).OutsideClient("user")
	ac := appsv1ac.Deployment("web", "default").WithSpec(appsv1ac.DeploymentSpec().
		WithReplicas(2).
		WithSelector(metav1ac.LabelSelector().WithMatchLabels(map[string]string{"app": "web"})).
		WithTemplate(corev1ac.PodTemplateSpec().WithLabels(map[string]string{"app": "web"}).
			WithSpec(corev1ac.PodSpec().WithContainers(corev1ac.Container().WithName("app").WithImage("app:v1")))))
	require.NoError(t, c.Apply(ctx, ac, client.FieldOwner("gitops")))
	require.NotNil(t, ac.UID, "the configuration holds the stored object")
	assert.Equal(t, int32(2), *ac.Spec.Replicas)
	err := c.Apply(ctx, appsv1ac.Deployment("web", "default").WithSpec(appsv1ac.DeploymentSpec().WithReplicas(4)), client.FieldOwner("hpa"))
	assert.True(t, apierrors.IsConflict(err), "got %v", err)
	require.NoError(t, c.Apply(ctx, appsv1ac.Deployment("web", "default").WithSpec(appsv1ac.DeploymentSpec().WithReplicas(4)), client.FieldOwner("hpa"), client.ForceOwnership))
}

// replicasOnly is an autoscaler's configuration: spec.replicas alone.
func replicasOnly(n int32) *appsv1ac.DeploymentApplyConfiguration {
	return appsv1ac.Deployment("web", "default").WithSpec(appsv1ac.DeploymentSpec().WithReplicas(n))
}

// A no-op apply at a later time keeps the manager's timestamp, as the API
// server's field manager does; an apply that changes something moves it.
func TestManagedFieldTimesAreVirtual(t *testing.T) {
	m := newManager(t)
	c := m.OutsideClient("user")
	d := applied(new(int32(3)), "app:v1")
	require.NoError(t, c.Patch(ctx, d, client.Apply, client.FieldOwner("gitops")))
	created := d.ManagedFields[0].Time
	require.NotNil(t, created)
	assert.Equal(t, m.Converter().Time(0).Time, created.Time, "virtual time, not the wall clock")
	m.Cluster().At(5, "test", "later", func() {})
	m.Cluster().Do(model.Action{Kind: model.ActTimer})
	d = applied(new(int32(3)), "app:v1")
	require.NoError(t, c.Patch(ctx, d, client.Apply, client.FieldOwner("gitops")))
	assert.Equal(t, created.Time, d.ManagedFields[0].Time.Time, "a no-op apply keeps the time")
	d = applied(new(int32(4)), "app:v1")
	require.NoError(t, c.Patch(ctx, d, client.Apply, client.FieldOwner("gitops")))
	assert.Equal(t, m.Converter().Time(5).Time, d.ManagedFields[0].Time.Time)
}
