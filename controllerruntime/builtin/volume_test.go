package builtin_test

import (
	"context"
	"testing"

	crt "github.com/converge-sim/converge/controllerruntime"
	"github.com/converge-sim/converge/controllerruntime/builtin"
	"github.com/converge-sim/converge/controllers/volume"
	"github.com/converge-sim/converge/model"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// settle does the cluster's owed work, and its timers, until it is quiet.
func settle(c *model.Cluster) {
	for range 1000 {
		acts := c.Enabled(nil)
		if len(acts) == 0 {
			return
		}
		c.Do(acts[0])
	}
}

// TestTypedClaimsAreBoundAndResized: through the adapter, a typed claim of
// an expandable class is bound with its capacity, grows when its request
// grows, and may not shrink; a claim of a class without expansion may not
// grow.
func TestTypedClaimsAreBoundAndResized(t *testing.T) {
	ctx := context.Background()
	c := model.NewCluster(model.Config{})
	mgr, err := crt.NewManager(c, converter(t), crt.ManagerOptions{})
	require.NoError(t, err)
	require.NoError(t, builtin.Volumes(mgr, volume.Options{}))
	user := mgr.OutsideClient("user")
	for name, expand := range map[string]bool{"fast": true, "fixed": false} {
		require.NoError(t, user.Create(ctx, &storagev1.StorageClass{ObjectMeta: metav1.ObjectMeta{Name: name}, Provisioner: "example.com/disk", AllowVolumeExpansion: &expand}))
	}
	claim := func(name, class string) *corev1.PersistentVolumeClaim {
		return &corev1.PersistentVolumeClaim{
			ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: name},
			Spec: corev1.PersistentVolumeClaimSpec{
				StorageClassName: &class,
				AccessModes:      []corev1.PersistentVolumeAccessMode{corev1.ReadWriteOnce},
				Resources:        corev1.VolumeResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceStorage: resource.MustParse("1Gi")}},
			},
		}
	}
	require.NoError(t, user.Create(ctx, claim("data", "fast")))
	require.NoError(t, user.Create(ctx, claim("logs", "fixed")))
	require.NoError(t, c.Start())
	settle(c)

	get := func(name string) *corev1.PersistentVolumeClaim {
		var pvc corev1.PersistentVolumeClaim
		require.NoError(t, user.Get(ctx, client.ObjectKey{Namespace: "default", Name: name}, &pvc))
		return &pvc
	}
	resize := func(name, size string) error {
		pvc := get(name)
		pvc.Spec.Resources.Requests[corev1.ResourceStorage] = resource.MustParse(size)
		return user.Update(ctx, pvc)
	}
	data := get("data")
	assert.Equal(t, corev1.ClaimBound, data.Status.Phase)
	assert.Equal(t, "1Gi", data.Status.Capacity.Storage().String())

	require.NoError(t, resize("data", "2Gi"))
	settle(c)
	assert.Equal(t, "2Gi", get("data").Status.Capacity.Storage().String(), "the capacity followed the request")

	err = resize("data", "1Gi")
	assert.True(t, apierrors.IsInvalid(err), "a claim may not shrink: %v", err)
	err = resize("logs", "2Gi")
	assert.True(t, apierrors.IsInvalid(err), "its class does not allow expansion: %v", err)
}
