package controllerruntime_test

import (
	"testing"

	crt "github.com/converge-sim/converge/controllerruntime"
	"github.com/converge-sim/converge/controllerruntime/examples/schemaops"
	"github.com/converge-sim/converge/model"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// TestACustomResourceHasItsCRDsPlural: the REST mapper and the API
// server's errors name a custom resource by the plural its CRD declares
// (Batch → batches), not by a guess (batchs).
func TestACustomResourceHasItsCRDsPlural(t *testing.T) {
	conv, crds := unstructuredWorld(t)
	m, err := crt.NewManager(model.NewCluster(model.Config{}), conv, crt.ManagerOptions{CRDs: crds})
	require.NoError(t, err)

	mapping, err := m.GetRESTMapper().RESTMapping(schema.GroupKind{Group: "ops.example.com", Kind: "Batch"})
	require.NoError(t, err)
	assert.Equal(t, "batches", mapping.Resource.Resource)
	kind, err := m.GetRESTMapper().KindFor(schema.GroupVersionResource{Group: "ops.example.com", Resource: "batches"})
	require.NoError(t, err)
	assert.Equal(t, "Batch", kind.Kind)

	err = m.OutsideClient("user").Get(ctx, client.ObjectKey{Namespace: "default", Name: "nobody"}, &schemaops.Batch{})
	require.True(t, apierrors.IsNotFound(err), "got %v", err)
	assert.Equal(t, `batches.ops.example.com "nobody" not found`, err.Error())
}
