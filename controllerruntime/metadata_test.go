package controllerruntime_test

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	crt "github.com/converge-sim/converge/controllerruntime"
	"github.com/converge-sim/converge/model"
	"github.com/converge-sim/converge/properties"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/metadata"
	"k8s.io/client-go/rest"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/manager"
)

// managerProbe is a reconciler of ConfigMaps that, at its first
// reconcile, hands its manager to a test's function.
type managerProbe struct {
	mgr manager.Manager
	fn  func(ctx context.Context, mgr manager.Manager)
	ran *bool
}

func (p *managerProbe) Reconcile(ctx context.Context, _ ctrl.Request) (ctrl.Result, error) {
	if !*p.ran {
		*p.ran = true
		p.fn(ctx, p.mgr)
	}
	return ctrl.Result{}, nil
}

// withManager runs fn once, inside a reconcile of a project's controller
// of ConfigMaps, with its manager, in a world holding objs and restWorld's
// Pool CRD.
func withManager(t *testing.T, objs []client.Object, fn func(ctx context.Context, mgr manager.Manager)) {
	t.Helper()
	withManagerSetup(t, objs, nil, fn)
}

// withManagerSetup is withManager with setup run first in the project's
// setup function, when given.
func withManagerSetup(t *testing.T, objs []client.Object, setup func(mgr manager.Manager) error, fn func(ctx context.Context, mgr manager.Manager)) {
	t.Helper()
	conv, crds := restWorld(t)
	ran := false
	sc := properties.Scenario{Name: "metadata", Build: func(cfg model.Config) (*model.Cluster, error) {
		c := model.NewCluster(cfg)
		m, err := crt.NewManager(c, conv, crt.ManagerOptions{CRDs: crds})
		if err != nil {
			return nil, err
		}
		err = m.Setup(func(mgr manager.Manager) error {
			if setup != nil {
				if err := setup(mgr); err != nil {
					return err
				}
			}
			return ctrl.NewControllerManagedBy(mgr).For(&corev1.ConfigMap{}).Complete(&managerProbe{mgr: mgr, fn: fn, ran: &ran})
		}, crt.SetupOptions{})
		if err != nil {
			return nil, err
		}
		return c, m.Apply(objs...)
	}}
	_, err := properties.Execute(sc, nil, &properties.ReplayChooser{}, properties.RunOptions{})
	require.NoError(t, err)
	require.True(t, ran, "the probe must reconcile")
}

// metadataWorld holds two labelled ConfigMaps (one owned, one annotated),
// a Secret nobody watches and a Pool, a custom resource without a Go type.
func metadataWorld() []client.Object {
	pool := &unstructured.Unstructured{Object: map[string]any{"spec": map[string]any{"replicas": int64(1)}}}
	pool.SetGroupVersionKind(poolGVR.GroupVersion().WithKind("Pool"))
	pool.SetNamespace("default")
	pool.SetName("p")
	pool.SetLabels(map[string]string{"tier": "pool"})
	return []client.Object{
		&corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "a", Labels: map[string]string{"app": "x"},
			Annotations: map[string]string{"note": "kept"}, Finalizers: []string{"example.com/hold"}}, Data: map[string]string{"big": "payload"}},
		&corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "b", Labels: map[string]string{"app": "x"}}},
		&corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "trigger"}},
		&corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "s", Labels: map[string]string{"app": "x"}}},
		pool,
	}
}

// partial returns an empty PartialObjectMetadata naming gvk.
func partial(gvk schema.GroupVersionKind) *metav1.PartialObjectMetadata {
	p := &metav1.PartialObjectMetadata{}
	p.SetGroupVersionKind(gvk)
	return p
}

// partialList returns an empty PartialObjectMetadataList of gvk's kind.
func partialList(gvk schema.GroupVersionKind) *metav1.PartialObjectMetadataList {
	l := &metav1.PartialObjectMetadataList{}
	l.SetGroupVersionKind(gvk.GroupVersion().WithKind(gvk.Kind + "List"))
	return l
}

var (
	configMapGVK = corev1.SchemeGroupVersion.WithKind("ConfigMap")
	secretGVK    = corev1.SchemeGroupVersion.WithKind("Secret")
	poolGVK      = poolGVR.GroupVersion().WithKind("Pool")
)

// itemNames returns the names of a metadata list's items.
func itemNames(l *metav1.PartialObjectMetadataList) []string {
	var out []string
	for _, it := range l.Items {
		out = append(out, it.Name)
	}
	return out
}

// checkMetadataReads reads the world's metadata through r: a Get and a
// List of a ConfigMap, a Secret and a Pool, each of which r must serve.
func checkMetadataReads(t *testing.T, ctx context.Context, r client.Reader, via string) {
	t.Helper()
	a := partial(configMapGVK)
	require.NoError(t, r.Get(ctx, client.ObjectKey{Namespace: "default", Name: "a"}, a), via)
	assert.Equal(t, configMapGVK, a.GroupVersionKind(), "%s: the kind the caller named stays", via)
	assert.Equal(t, "a", a.Name, via)
	assert.NotEmpty(t, a.UID, via)
	assert.NotEmpty(t, a.ResourceVersion, via)
	assert.Equal(t, map[string]string{"app": "x"}, a.Labels, via)
	assert.Equal(t, map[string]string{"note": "kept"}, a.Annotations, via)
	assert.Equal(t, []string{"example.com/hold"}, a.Finalizers, via)

	missing := partial(configMapGVK)
	err := r.Get(ctx, client.ObjectKey{Namespace: "default", Name: "missing"}, missing)
	assert.True(t, apierrors.IsNotFound(err), "%s: %v", via, err)

	cms := partialList(configMapGVK)
	require.NoError(t, r.List(ctx, cms, client.InNamespace("default"), client.MatchingLabels{"app": "x"}), via)
	assert.Equal(t, []string{"a", "b"}, itemNames(cms), via)
	for _, it := range cms.Items {
		assert.NotEmpty(t, it.UID, via)
	}

	p := partial(poolGVK)
	require.NoError(t, r.Get(ctx, client.ObjectKey{Namespace: "default", Name: "p"}, p), via)
	assert.Equal(t, map[string]string{"tier": "pool"}, p.Labels, via)
	assert.Equal(t, int64(1), p.Generation, via)
	pools := partialList(poolGVK)
	require.NoError(t, r.List(ctx, pools), via)
	assert.Equal(t, []string{"p"}, itemNames(pools), via)
}

// TestMetadataOnlyReads: Get and List of PartialObjectMetadata and
// PartialObjectMetadataList through mgr.GetClient() (the informer cache),
// mgr.GetAPIReader() and a controller-runtime client built from
// mgr.GetConfig() read the objects' metadata, for built-in kinds and a
// custom resource without a Go type.
func TestMetadataOnlyReads(t *testing.T) {
	objs := metadataWorld()
	withManager(t, objs, func(ctx context.Context, mgr manager.Manager) {
		cl := mgr.GetClient()
		a := partial(configMapGVK)
		require.NoError(t, cl.Get(ctx, client.ObjectKey{Namespace: "default", Name: "a"}, a))
		assert.Equal(t, map[string]string{"app": "x"}, a.Labels)
		assert.Equal(t, []string{"example.com/hold"}, a.Finalizers)
		cms := partialList(configMapGVK)
		require.NoError(t, cl.List(ctx, cms, client.MatchingLabels{"app": "x"}))
		assert.Equal(t, []string{"a", "b"}, itemNames(cms))
		// The cache serves the kinds the controller watches only.
		require.Error(t, cl.Get(ctx, client.ObjectKey{Namespace: "default", Name: "s"}, partial(secretGVK)))

		checkMetadataReads(t, ctx, mgr.GetAPIReader(), "GetAPIReader")
		s := partial(secretGVK)
		require.NoError(t, mgr.GetAPIReader().Get(ctx, client.ObjectKey{Namespace: "default", Name: "s"}, s))
		assert.Equal(t, "s", s.Name)

		fromConfig, err := client.New(mgr.GetConfig(), client.Options{Scheme: mgr.GetScheme()})
		require.NoError(t, err)
		checkMetadataReads(t, ctx, fromConfig, "client.New(mgr.GetConfig())")
	})
}

// TestMetadataFieldIndexes: a field index registered with a
// PartialObjectMetadata serves metadata-only lists, and the typed form's
// index does not, as controller-runtime keeps a metadata informer with
// its own indexes.
func TestMetadataFieldIndexes(t *testing.T) {
	byNote := func(obj client.Object) []string { return []string{obj.GetAnnotations()["note"]} }
	setup := func(mgr manager.Manager) error {
		ix := mgr.GetFieldIndexer()
		if err := ix.IndexField(context.Background(), partial(configMapGVK), "note", byNote); err != nil {
			return err
		}
		return ix.IndexField(context.Background(), &corev1.ConfigMap{}, "typedNote", byNote)
	}
	withManagerSetup(t, metadataWorld(), setup, func(ctx context.Context, mgr manager.Manager) {
		cl := mgr.GetClient()
		cms := partialList(configMapGVK)
		require.NoError(t, cl.List(ctx, cms, client.MatchingFields{"note": "kept"}))
		assert.Equal(t, []string{"a"}, itemNames(cms))
		require.ErrorContains(t, cl.List(ctx, partialList(configMapGVK), client.MatchingFields{"typedNote": "kept"}), "index with name field:typedNote does not exist")
		require.ErrorContains(t, cl.List(ctx, &corev1.ConfigMapList{}, client.MatchingFields{"note": "kept"}), "index with name field:note does not exist")
	})
}

// TestMetadataOnlyWrites: the writes controller-runtime's client takes
// in metadata form. A patch of a PartialObjectMetadata (a finalizer
// removed) writes the object and leaves its body alone; a delete names
// it; a create or an update of metadata alone is refused, as
// controller-runtime refuses them.
func TestMetadataOnlyWrites(t *testing.T) {
	withManager(t, metadataWorld(), func(ctx context.Context, mgr manager.Manager) {
		cl := mgr.GetClient()
		a := partial(configMapGVK)
		require.NoError(t, mgr.GetAPIReader().Get(ctx, client.ObjectKey{Namespace: "default", Name: "a"}, a))
		base := a.DeepCopy()
		a.Finalizers = nil
		require.NoError(t, cl.Patch(ctx, a, client.MergeFrom(base)))
		assert.Empty(t, a.Finalizers)
		assert.Equal(t, configMapGVK, a.GroupVersionKind())
		var full corev1.ConfigMap
		require.NoError(t, mgr.GetAPIReader().Get(ctx, client.ObjectKey{Namespace: "default", Name: "a"}, &full))
		assert.Empty(t, full.Finalizers)
		assert.Equal(t, "payload", full.Data["big"], "a metadata patch keeps the body")

		require.ErrorContains(t, cl.Create(ctx, partial(configMapGVK)), "metadata")
		require.ErrorContains(t, cl.Update(ctx, a), "metadata")

		b := partial(configMapGVK)
		b.Namespace, b.Name = "default", "b"
		require.NoError(t, cl.Delete(ctx, b))
		err := mgr.GetAPIReader().Get(ctx, client.ObjectKey{Namespace: "default", Name: "b"}, partial(configMapGVK))
		assert.True(t, apierrors.IsNotFound(err), "%v", err)
	})
}

// TestMetadataOverHTTP: client-go's metadata client, over mgr.GetConfig(),
// reads and patches metadata; the answers are the API server's metadata
// forms (kind PartialObjectMetadata and PartialObjectMetadataList of
// meta.k8s.io/v1, without the body), as a real API server answers an
// Accept of `as=PartialObjectMetadata`. An Accept of a form the model does
// not serve (a Table) alone, or of one object for a list, is 406 Not
// Acceptable.
func TestMetadataOverHTTP(t *testing.T) {
	withManager(t, metadataWorld(), func(ctx context.Context, mgr manager.Manager) {
		cfg := mgr.GetConfig()
		mc, err := metadata.NewForConfig(cfg)
		require.NoError(t, err)
		cms := mc.Resource(corev1.SchemeGroupVersion.WithResource("configmaps")).Namespace("default")
		a, err := cms.Get(ctx, "a", metav1.GetOptions{})
		require.NoError(t, err)
		assert.Equal(t, map[string]string{"note": "kept"}, a.Annotations)
		list, err := cms.List(ctx, metav1.ListOptions{LabelSelector: "app=x"})
		require.NoError(t, err)
		assert.Equal(t, []string{"a", "b"}, itemNames(list))
		patched, err := cms.Patch(ctx, "a", types.MergePatchType, []byte(`{"metadata":{"labels":{"patched":"yes"}}}`), metav1.PatchOptions{})
		require.NoError(t, err)
		assert.Equal(t, "yes", patched.Labels["patched"])

		hc, err := rest.HTTPClientFor(cfg)
		require.NoError(t, err)
		get := func(path, accept string) (int, map[string]any) {
			req, err := http.NewRequestWithContext(ctx, http.MethodGet, cfg.Host+path, nil)
			require.NoError(t, err)
			req.Header.Set("Accept", accept)
			resp, err := hc.Do(req)
			require.NoError(t, err)
			defer func() { _ = resp.Body.Close() }()
			var body map[string]any
			require.NoError(t, json.NewDecoder(resp.Body).Decode(&body))
			return resp.StatusCode, body
		}
		const metadataAccept = "application/vnd.kubernetes.protobuf;as=PartialObjectMetadata;g=meta.k8s.io;v=v1,application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1,application/json"
		code, body := get("/api/v1/namespaces/default/configmaps/a", metadataAccept)
		require.Equal(t, http.StatusOK, code, "%v", body)
		assert.Equal(t, "PartialObjectMetadata", body["kind"])
		assert.Equal(t, "meta.k8s.io/v1", body["apiVersion"])
		assert.NotContains(t, body, "data", "metadata alone")
		code, body = get("/api/v1/namespaces/default/configmaps", strings.ReplaceAll(metadataAccept, "PartialObjectMetadata", "PartialObjectMetadataList"))
		require.Equal(t, http.StatusOK, code, "%v", body)
		assert.Equal(t, "PartialObjectMetadataList", body["kind"])
		items, _ := body["items"].([]any)
		require.Len(t, items, 3)
		for _, it := range items {
			assert.Equal(t, "PartialObjectMetadata", it.(map[string]any)["kind"])
			assert.NotContains(t, it, "data")
		}
		code, body = get("/api/v1/namespaces/default/configmaps/a", "application/json")
		require.Equal(t, http.StatusOK, code, "%v", body)
		assert.Equal(t, "ConfigMap", body["kind"], "plain JSON is the object as stored")

		code, body = get("/api/v1/namespaces/default/configmaps/a", "application/json;as=Table;g=meta.k8s.io;v=v1")
		assert.Equal(t, http.StatusNotAcceptable, code, "%v", body)
		code, body = get("/api/v1/namespaces/default/configmaps", "application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1")
		assert.Equal(t, http.StatusNotAcceptable, code, "%v", body)
		assert.Contains(t, body["message"], "is a list")
	})
}
