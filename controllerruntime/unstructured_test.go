package controllerruntime_test

//lint:file-ignore SA1019 these tests cover client.Apply, the deprecated server-side apply that user code still calls

import (
	"context"
	"testing"

	crt "github.com/converge-sim/converge/controllerruntime"
	"github.com/converge-sim/converge/controllerruntime/convert"
	"github.com/converge-sim/converge/controllerruntime/crd"
	"github.com/converge-sim/converge/controllerruntime/examples/schemaops"
	"github.com/converge-sim/converge/model"
	"github.com/converge-sim/converge/properties"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
)

var noteGVK = schema.GroupVersionKind{Group: "notes.example.com", Version: "v1", Kind: "Note"}

// unstructuredWorld serves the schemaops CRDs and Note, a CRD without a
// Go type.
func unstructuredWorld(t *testing.T) (*convert.Converter, *crd.Set) {
	t.Helper()
	crds, err := crd.Load(schemaops.Bases(), "crd/testdata/notes.yaml")
	require.NoError(t, err)
	conv, err := convert.New(schemaops.NewScheme(), convert.Options{Unstructured: crds.GVKs()})
	require.NoError(t, err)
	return conv, crds
}

// runCRDWorld runs, with the first choice at every step, a cluster whose
// manager serves unstructuredWorld's CRDs: setup declares the controllers
// and returns the objects to apply. The run must pass.
func runCRDWorld(t *testing.T, name string, setup func(m *crt.Manager) ([]client.Object, error)) *properties.Outcome {
	t.Helper()
	conv, crds := unstructuredWorld(t)
	sc := properties.Scenario{Name: name, Build: func(cfg model.Config) (*model.Cluster, error) {
		c := model.NewCluster(cfg)
		m, err := crt.NewManager(c, conv, crt.ManagerOptions{CRDs: crds})
		if err != nil {
			return nil, err
		}
		objs, err := setup(m)
		if err != nil {
			return nil, err
		}
		return c, m.Apply(objs...)
	}}
	out, err := properties.Execute(sc, nil, &properties.ReplayChooser{}, properties.RunOptions{})
	require.NoError(t, err)
	require.Nil(t, out.Failure)
	return out
}

func object(gvk schema.GroupVersionKind, name string, content map[string]any) *unstructured.Unstructured {
	u := &unstructured.Unstructured{Object: content}
	u.SetGroupVersionKind(gvk)
	u.SetNamespace("default")
	u.SetName(name)
	return u
}

func TestUnstructuredBuiltInKinds(t *testing.T) {
	c := newManager(t).OutsideClient("user")
	cmGVK := corev1.SchemeGroupVersion.WithKind("ConfigMap")
	cm := object(cmGVK, "cfg", map[string]any{"data": map[string]any{"k": "1"}})
	require.NoError(t, c.Create(ctx, cm))
	assert.NotEmpty(t, cm.GetUID())

	var typed corev1.ConfigMap
	require.NoError(t, c.Get(ctx, client.ObjectKey{Namespace: "default", Name: "cfg"}, &typed))
	assert.Equal(t, "1", typed.Data["k"], "written unstructured, read typed")

	got := object(cmGVK, "", nil)
	require.NoError(t, c.Get(ctx, client.ObjectKey{Namespace: "default", Name: "cfg"}, got))
	assert.Equal(t, map[string]any{"k": "1"}, got.Object["data"])
	require.NoError(t, unstructured.SetNestedField(got.Object, "2", "data", "k"))
	require.NoError(t, c.Update(ctx, got))
	require.NoError(t, c.Patch(ctx, got, client.RawPatch(types.MergePatchType, []byte(`{"data":{"j":"3"}}`))))
	assert.Equal(t, map[string]any{"k": "2", "j": "3"}, got.Object["data"])

	list := &unstructured.UnstructuredList{}
	list.SetGroupVersionKind(corev1.SchemeGroupVersion.WithKind("ConfigMapList"))
	require.NoError(t, c.List(ctx, list, client.InNamespace("default")))
	require.Len(t, list.Items, 1)
	assert.Equal(t, "cfg", list.Items[0].GetName())
	require.NoError(t, c.Delete(ctx, got))
	assert.True(t, apierrors.IsNotFound(c.Get(ctx, client.ObjectKey{Namespace: "default", Name: "cfg"}, got)))
}

func TestUnstructuredCustomResources(t *testing.T) {
	conv, crds := unstructuredWorld(t)
	m, err := crt.NewManager(model.NewCluster(model.Config{}), conv, crt.ManagerOptions{CRDs: crds})
	require.NoError(t, err)
	c := m.OutsideClient("user")

	b := object(schemaops.GroupVersion.WithKind("Batch"), "b", map[string]any{"spec": map[string]any{}})
	require.NoError(t, c.Create(ctx, b))
	assert.Equal(t, "worker:v1", b.Object["spec"].(map[string]any)["image"], "a typed kind written unstructured is defaulted")

	n := object(noteGVK, "n", map[string]any{"spec": map[string]any{"text": "hello"}})
	require.NoError(t, c.Create(ctx, n))
	prio, _, _ := unstructured.NestedInt64(n.Object, "spec", "priority")
	assert.Equal(t, int64(1), prio, "a kind without a Go type is defaulted")
	assert.Equal(t, int64(1), n.GetGeneration())

	require.NoError(t, unstructured.SetNestedField(n.Object, "far too long for the schema", "spec", "text"))
	err = c.Update(ctx, n)
	require.True(t, apierrors.IsInvalid(err), "got %v", err)
	assert.Contains(t, err.Error(), "spec.text: Too long")

	err = c.Patch(ctx, n, client.RawPatch(types.StrategicMergePatchType, []byte(`{"spec":{"text":"x"}}`)))
	assert.True(t, apierrors.IsUnsupportedMediaType(err), "no strategic merge for custom resources: %v", err)
	require.NoError(t, c.Patch(ctx, n, client.RawPatch(types.MergePatchType, []byte(`{"spec":{"text":"bye"}}`))))
	assert.Equal(t, int64(2), n.GetGeneration())

	require.NoError(t, unstructured.SetNestedField(n.Object, "yes", "status", "seen"))
	require.NoError(t, c.Status().Update(ctx, n))
	assert.Equal(t, int64(2), n.GetGeneration(), "status leaves generation")

	ap := object(noteGVK, "n", map[string]any{"spec": map[string]any{"priority": int64(5)}})
	err = c.Patch(ctx, ap, client.Apply, client.FieldOwner("prio"))
	require.True(t, apierrors.IsConflict(err), "the field predates the first apply: %v", err)
	assert.Contains(t, err.Error(), `conflict with "before-first-apply"`)
	require.NoError(t, c.Patch(ctx, ap, client.Apply, client.FieldOwner("prio"), client.ForceOwnership))
	prio, _, _ = unstructured.NestedInt64(ap.Object, "spec", "priority")
	assert.Equal(t, int64(5), prio, "apply to a custom resource without a Go type")

	list := &unstructured.UnstructuredList{}
	list.SetGroupVersionKind(noteGVK.GroupVersion().WithKind("NoteList"))
	require.NoError(t, c.List(ctx, list))
	require.Len(t, list.Items, 1)
	text, _, _ := unstructured.NestedString(list.Items[0].Object, "spec", "text")
	assert.Equal(t, "bye", text)
}

// noteEcho copies each Note's spec.text into status.seen, reading and
// writing unstructured objects only, as a dynamic controller does.
type noteEcho struct{ client.Client }

func (r *noteEcho) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	n := &unstructured.Unstructured{}
	n.SetGroupVersionKind(noteGVK)
	if err := r.Get(ctx, req.NamespacedName, n); err != nil {
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	text, _, _ := unstructured.NestedString(n.Object, "spec", "text")
	seen, _, _ := unstructured.NestedString(n.Object, "status", "seen")
	if text == seen {
		return ctrl.Result{}, nil
	}
	if err := unstructured.SetNestedField(n.Object, text, "status", "seen"); err != nil {
		return ctrl.Result{}, reconcile.TerminalError(err)
	}
	return ctrl.Result{}, r.Status().Update(ctx, n)
}

func TestUnstructuredControllerWatches(t *testing.T) {
	out := runCRDWorld(t, "note-echo", func(m *crt.Manager) ([]client.Object, error) {
		watched := &unstructured.Unstructured{}
		watched.SetGroupVersionKind(noteGVK)
		err := crt.NewControllerManagedBy(m).For(watched).Named("echo").
			WithGoal(func(ctx context.Context, r client.Reader) []model.Unmet {
				list := &unstructured.UnstructuredList{}
				list.SetGroupVersionKind(noteGVK.GroupVersion().WithKind("NoteList"))
				if err := r.List(ctx, list); err != nil {
					return []model.Unmet{{Message: err.Error()}}
				}
				var out []model.Unmet
				for i := range list.Items {
					text, _, _ := unstructured.NestedString(list.Items[i].Object, "spec", "text")
					seen, _, _ := unstructured.NestedString(list.Items[i].Object, "status", "seen")
					if text != seen {
						out = append(out, crt.Unmet(&list.Items[i], "has not seen %q", text))
					}
				}
				return out
			}).
			Complete(func(cl client.Client) reconcile.Reconciler { return &noteEcho{Client: cl} })
		return []client.Object{object(noteGVK, "a", map[string]any{"spec": map[string]any{"text": "one"}}),
			object(noteGVK, "b", map[string]any{"spec": map[string]any{"text": "two"}})}, err
	})
	assert.Equal(t, "one", out.Cluster.State().Get("Note", "default", "a").Status.Str("seen"))
}
