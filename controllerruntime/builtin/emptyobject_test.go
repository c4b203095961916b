package builtin_test

import (
	"context"
	"testing"

	crt "github.com/converge-sim/converge/controllerruntime"
	"github.com/converge-sim/converge/controllerruntime/builtin"
	"github.com/converge-sim/converge/controllers/statefulset"
	"github.com/converge-sim/converge/model"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// TestAnEmptyUpdateStrategyIsNoChange: a StatefulSet created without an
// updateStrategy, then updated by an operator that copies
// `updateStrategy: {}` from its custom resource's override, is accepted,
// as a real API server accepts it; a change of serviceName in the same
// way is still Invalid.
func TestAnEmptyUpdateStrategyIsNoChange(t *testing.T) {
	ctx := context.Background()
	mgr, err := crt.NewManager(model.NewCluster(model.Config{}), converter(t), crt.ManagerOptions{})
	require.NoError(t, err)
	require.NoError(t, builtin.StatefulSets(mgr, statefulset.Options{}))
	user := mgr.OutsideClient("user")
	body, err := runtime.DefaultUnstructuredConverter.ToUnstructured(typedStatefulSet("web", 2))
	require.NoError(t, err)
	u := &unstructured.Unstructured{Object: body}
	u.SetAPIVersion("apps/v1")
	u.SetKind("StatefulSet")
	unstructured.RemoveNestedField(u.Object, "spec", "updateStrategy")
	unstructured.RemoveNestedField(u.Object, "status")
	require.NoError(t, user.Create(ctx, u))

	require.NoError(t, user.Get(ctx, client.ObjectKeyFromObject(u), u))
	require.NoError(t, unstructured.SetNestedField(u.Object, map[string]any{}, "spec", "updateStrategy"))
	require.NoError(t, unstructured.SetNestedField(u.Object, int64(3), "spec", "replicas"))
	require.NoError(t, user.Update(ctx, u), "updateStrategy: {} is no change")

	require.NoError(t, user.Get(ctx, client.ObjectKeyFromObject(u), u))
	require.NoError(t, unstructured.SetNestedField(u.Object, "other", "spec", "serviceName"))
	err = user.Update(ctx, u)
	assert.True(t, apierrors.IsInvalid(err), "%v", err)
}
