package controllerruntime_test

import (
	"context"
	"encoding/json"
	"io"
	"testing"

	crt "github.com/converge-sim/converge/controllerruntime"
	"github.com/converge-sim/converge/controllerruntime/convert"
	"github.com/converge-sim/converge/controllerruntime/crd"
	"github.com/converge-sim/converge/model"
	"github.com/converge-sim/converge/properties"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	appsv1 "k8s.io/api/apps/v1"
	autoscalingv1 "k8s.io/api/autoscaling/v1"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/intstr"
	applycorev1 "k8s.io/client-go/applyconfigurations/core/v1"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/manager"
)

// poolsCRD defines Pool, a custom resource with status and scale
// subresources and a validated spec.
const poolsCRD = `
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: pools.pools.example.com
spec:
  group: pools.example.com
  names: {kind: Pool, listKind: PoolList, plural: pools, singular: pool}
  scope: Namespaced
  versions:
  - name: v1
    served: true
    storage: true
    subresources:
      status: {}
      scale: {specReplicasPath: .spec.replicas, statusReplicasPath: .status.replicas, labelSelectorPath: .status.selector}
    schema:
      openAPIV3Schema:
        type: object
        properties:
          apiVersion: {type: string}
          kind: {type: string}
          metadata: {type: object}
          spec:
            type: object
            properties:
              replicas: {type: integer, minimum: 0}
              text: {type: string, maxLength: 5}
          status:
            type: object
            properties:
              replicas: {type: integer}
              selector: {type: string}
`

var poolGVR = schema.GroupVersionResource{Group: "pools.example.com", Version: "v1", Resource: "pools"}

// restWorld is the converter and CRDs of the HTTP tests: client-go's
// scheme and Pool.
func restWorld(t *testing.T) (*convert.Converter, *crd.Set) {
	t.Helper()
	crds := crd.NewSet()
	require.NoError(t, crds.Add("pools.yaml", []byte(poolsCRD)))
	conv, err := convert.New(clientgoscheme.Scheme, convert.Options{Unstructured: crds.GVKs()})
	require.NoError(t, err)
	return conv, crds
}

// probe is a reconciler of ConfigMaps that, at its first reconcile, hands
// the manager's config to a test's function.
type probe struct {
	cfg *rest.Config
	fn  func(ctx context.Context, cfg *rest.Config)
	ran *bool
}

func (p *probe) Reconcile(ctx context.Context, _ ctrl.Request) (ctrl.Result, error) {
	if !*p.ran {
		*p.ran = true
		p.fn(ctx, p.cfg)
	}
	return ctrl.Result{}, nil
}

// withConfig runs fn once, inside a reconcile of a project's controller,
// with the config its manager's GetConfig returns, in a world holding objs.
func withConfig(t *testing.T, opts crt.ManagerOptions, objs []client.Object, fn func(ctx context.Context, cfg *rest.Config)) *properties.Outcome {
	t.Helper()
	conv, crds := restWorld(t)
	opts.CRDs = crds
	ran := false
	sc := properties.Scenario{Name: "rest", Build: func(cfg model.Config) (*model.Cluster, error) {
		c := model.NewCluster(cfg)
		m, err := crt.NewManager(c, conv, opts)
		if err != nil {
			return nil, err
		}
		err = m.Setup(func(mgr manager.Manager) error {
			return ctrl.NewControllerManagedBy(mgr).For(&corev1.ConfigMap{}).Complete(&probe{cfg: mgr.GetConfig(), fn: fn, ran: &ran})
		}, crt.SetupOptions{})
		if err != nil {
			return nil, err
		}
		objs = append(objs, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "trigger"}})
		return c, m.Apply(objs...)
	}}
	out, err := properties.Execute(sc, nil, &properties.ReplayChooser{}, properties.RunOptions{})
	require.NoError(t, err)
	require.True(t, ran, "the probe must reconcile")
	return out
}

// TestClientsetOverTheModel: a typed clientset from mgr.GetConfig()
// creates, reads, lists, updates, patches and deletes ConfigMaps and PVCs,
// with the API server's errors.
func TestClientsetOverTheModel(t *testing.T) {
	withConfig(t, crt.ManagerOptions{}, nil, func(ctx context.Context, cfg *rest.Config) {
		cs, err := kubernetes.NewForConfig(cfg)
		require.NoError(t, err)
		cms := cs.CoreV1().ConfigMaps("default")

		created, err := cms.Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "a", Labels: map[string]string{"app": "x"}}, Data: map[string]string{"k": "1"}}, metav1.CreateOptions{})
		require.NoError(t, err)
		assert.NotEmpty(t, created.UID)
		assert.NotEmpty(t, created.ResourceVersion)
		_, err = cms.Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "b"}}, metav1.CreateOptions{})
		require.NoError(t, err)
		_, err = cms.Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "a"}}, metav1.CreateOptions{})
		assert.True(t, apierrors.IsAlreadyExists(err), "%v", err)

		got, err := cms.Get(ctx, "a", metav1.GetOptions{})
		require.NoError(t, err)
		assert.Equal(t, "1", got.Data["k"])
		_, err = cms.Get(ctx, "missing", metav1.GetOptions{})
		assert.True(t, apierrors.IsNotFound(err), "%v", err)

		list, err := cms.List(ctx, metav1.ListOptions{LabelSelector: "app=x"})
		require.NoError(t, err)
		require.Len(t, list.Items, 1)
		assert.Equal(t, "a", list.Items[0].Name)
		all, err := cs.CoreV1().ConfigMaps("").List(ctx, metav1.ListOptions{})
		require.NoError(t, err)
		assert.Len(t, all.Items, 3, "a, b and the trigger")
		limited, err := cms.List(ctx, metav1.ListOptions{Limit: 1})
		require.NoError(t, err)
		assert.Len(t, limited.Items, 1)

		got.Data["k"] = "2"
		updated, err := cms.Update(ctx, got, metav1.UpdateOptions{})
		require.NoError(t, err)
		assert.Equal(t, "2", updated.Data["k"])
		_, err = cms.Update(ctx, got, metav1.UpdateOptions{}) // got's resourceVersion is stale
		assert.True(t, apierrors.IsConflict(err), "%v", err)

		patched, err := cms.Patch(ctx, "a", types.MergePatchType, []byte(`{"data":{"m":"merge"}}`), metav1.PatchOptions{})
		require.NoError(t, err)
		assert.Equal(t, map[string]string{"k": "2", "m": "merge"}, patched.Data)
		patched, err = cms.Patch(ctx, "a", types.StrategicMergePatchType, []byte(`{"data":{"s":"strategic"}}`), metav1.PatchOptions{})
		require.NoError(t, err)
		assert.Equal(t, "strategic", patched.Data["s"])
		patched, err = cms.Patch(ctx, "a", types.JSONPatchType, []byte(`[{"op":"remove","path":"/data/m"}]`), metav1.PatchOptions{})
		require.NoError(t, err)
		assert.NotContains(t, patched.Data, "m")
		applied, err := cms.Apply(ctx, applycorev1.ConfigMap("c", "default").WithData(map[string]string{"x": "y"}), metav1.ApplyOptions{FieldManager: "probe"})
		require.NoError(t, err)
		assert.Equal(t, "y", applied.Data["x"])

		require.NoError(t, cms.Delete(ctx, "b", metav1.DeleteOptions{}))
		_, err = cms.Get(ctx, "b", metav1.GetOptions{})
		assert.True(t, apierrors.IsNotFound(err), "%v", err)
		err = cms.Delete(ctx, "a", metav1.DeleteOptions{Preconditions: &metav1.Preconditions{UID: ptr.To(types.UID("other"))}})
		assert.True(t, apierrors.IsConflict(err), "a UID precondition that fails: %v", err)
		assert.True(t, apierrors.IsNotFound(cms.Delete(ctx, "b", metav1.DeleteOptions{})))
		require.NoError(t, cms.DeleteCollection(ctx, metav1.DeleteOptions{}, metav1.ListOptions{LabelSelector: "app=x"}))
		_, err = cms.Get(ctx, "a", metav1.GetOptions{})
		assert.True(t, apierrors.IsNotFound(err), "%v", err)

		// A PVC resized by a patch, as operators grow their volumes.
		pvcs := cs.CoreV1().PersistentVolumeClaims("default")
		_, err = pvcs.Create(ctx, &corev1.PersistentVolumeClaim{ObjectMeta: metav1.ObjectMeta{Name: "data"},
			Spec: corev1.PersistentVolumeClaimSpec{AccessModes: []corev1.PersistentVolumeAccessMode{corev1.ReadWriteOnce},
				Resources: corev1.VolumeResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceStorage: resource.MustParse("1Gi")}}}}, metav1.CreateOptions{})
		require.NoError(t, err)
		// Only a bound claim may grow, as on a real API server.
		_, err = pvcs.Patch(ctx, "data", types.StrategicMergePatchType, []byte(`{"spec":{"resources":{"requests":{"storage":"2Gi"}}}}`), metav1.PatchOptions{})
		assert.True(t, apierrors.IsInvalid(err), "an unbound claim's spec is fixed: %v", err)
		bound, err := pvcs.Get(ctx, "data", metav1.GetOptions{})
		require.NoError(t, err)
		bound.Status.Phase = corev1.ClaimBound
		_, err = pvcs.UpdateStatus(ctx, bound, metav1.UpdateOptions{})
		require.NoError(t, err)
		resized, err := pvcs.Patch(ctx, "data", types.StrategicMergePatchType, []byte(`{"spec":{"resources":{"requests":{"storage":"2Gi"}}}}`), metav1.PatchOptions{})
		require.NoError(t, err)
		storage := resized.Spec.Resources.Requests[corev1.ResourceStorage]
		assert.Equal(t, "2Gi", storage.String())
		again, err := pvcs.Get(ctx, "data", metav1.GetOptions{})
		require.NoError(t, err)
		storage = again.Spec.Resources.Requests[corev1.ResourceStorage]
		assert.Equal(t, "2Gi", storage.String())

		_, err = cms.Watch(ctx, metav1.ListOptions{})
		require.Error(t, err)
		assert.Contains(t, err.Error(), "watch of configmaps through mgr.GetConfig() is not served")
	})
}

// TestSubresourcesOverTheModel: status and scale of a Deployment, and
// eviction, which the model's PodDisruptionBudgets guard.
func TestSubresourcesOverTheModel(t *testing.T) {
	labels := map[string]string{"app": "web"}
	deploy := &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "web"},
		Spec: appsv1.DeploymentSpec{Replicas: ptr.To[int32](2), Selector: &metav1.LabelSelector{MatchLabels: labels},
			Template: corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: labels},
				Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "nginx"}}}}}}
	pod := func(name string, l map[string]string) *corev1.Pod {
		return &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: name, Labels: l},
			Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "nginx"}}}}
	}
	pdb := &policyv1.PodDisruptionBudget{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "guard"},
		Spec:   policyv1.PodDisruptionBudgetSpec{MinAvailable: ptr.To(intstr.FromInt32(1)), Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"guarded": "yes"}}},
		Status: policyv1.PodDisruptionBudgetStatus{DisruptionsAllowed: 0}}
	objs := []client.Object{deploy, pod("free", nil), pod("guarded", map[string]string{"guarded": "yes"}), pdb}
	withConfig(t, crt.ManagerOptions{}, objs, func(ctx context.Context, cfg *rest.Config) {
		cs, err := kubernetes.NewForConfig(cfg)
		require.NoError(t, err)
		deps := cs.AppsV1().Deployments("default")

		d, err := deps.Get(ctx, "web", metav1.GetOptions{})
		require.NoError(t, err)
		d.Status.ObservedGeneration = d.Generation
		d.Status.Replicas = 2
		d.Spec.Replicas = ptr.To[int32](9) // a status write keeps the spec
		d, err = deps.UpdateStatus(ctx, d, metav1.UpdateOptions{})
		require.NoError(t, err)
		assert.Equal(t, int32(2), d.Status.Replicas)
		assert.Equal(t, int32(2), *d.Spec.Replicas)

		sc, err := deps.GetScale(ctx, "web", metav1.GetOptions{})
		require.NoError(t, err)
		assert.Equal(t, int32(2), sc.Spec.Replicas)
		assert.Equal(t, int32(2), sc.Status.Replicas)
		assert.Equal(t, "app=web", sc.Status.Selector)
		sc.Spec.Replicas = 5
		sc, err = deps.UpdateScale(ctx, "web", sc, metav1.UpdateOptions{})
		require.NoError(t, err)
		assert.Equal(t, int32(5), sc.Spec.Replicas)
		_, err = deps.UpdateScale(ctx, "web", &autoscalingv1.Scale{ObjectMeta: metav1.ObjectMeta{Name: "web", ResourceVersion: d.ResourceVersion}, Spec: autoscalingv1.ScaleSpec{Replicas: 1}}, metav1.UpdateOptions{})
		assert.True(t, apierrors.IsConflict(err), "a stale scale: %v", err)
		_, err = cs.AppsV1().StatefulSets("default").GetScale(ctx, "web", metav1.GetOptions{})
		assert.True(t, apierrors.IsNotFound(err), "%v", err)
		d, err = deps.Get(ctx, "web", metav1.GetOptions{})
		require.NoError(t, err)
		assert.Equal(t, int32(5), *d.Spec.Replicas)

		pods := cs.CoreV1().Pods("default")
		require.NoError(t, pods.EvictV1(ctx, &policyv1.Eviction{ObjectMeta: metav1.ObjectMeta{Name: "free"}}))
		_, err = pods.Get(ctx, "free", metav1.GetOptions{})
		assert.True(t, apierrors.IsNotFound(err), "an evicted pod is deleted: %v", err)
		err = pods.EvictV1(ctx, &policyv1.Eviction{ObjectMeta: metav1.ObjectMeta{Name: "guarded"}})
		assert.True(t, apierrors.IsTooManyRequests(err), "a budget forbids it: %v", err)
		assert.Contains(t, err.Error(), "disruption budget")
		err = pods.EvictV1(ctx, &policyv1.Eviction{ObjectMeta: metav1.ObjectMeta{Name: "gone"}})
		assert.True(t, apierrors.IsNotFound(err), "%v", err)
	})
}

// TestDynamicDiscoveryAndClientOverTheModel: the dynamic client on a custom
// resource (its validation's Invalid, its status and scale), discovery,
// and a controller-runtime client built from the config.
func TestDynamicDiscoveryAndClientOverTheModel(t *testing.T) {
	withConfig(t, crt.ManagerOptions{}, nil, func(ctx context.Context, cfg *rest.Config) {
		dyn, err := dynamic.NewForConfig(cfg)
		require.NoError(t, err)
		pools := dyn.Resource(poolGVR).Namespace("default")
		p := &unstructured.Unstructured{Object: map[string]any{"spec": map[string]any{"replicas": int64(1), "text": "hi"}}}
		p.SetAPIVersion("pools.example.com/v1")
		p.SetKind("Pool")
		p.SetName("p")
		p, err = pools.Create(ctx, p, metav1.CreateOptions{})
		require.NoError(t, err)
		assert.Equal(t, int64(1), p.GetGeneration())

		bad := p.DeepCopy()
		require.NoError(t, unstructured.SetNestedField(bad.Object, "much too long", "spec", "text"))
		_, err = pools.Update(ctx, bad, metav1.UpdateOptions{})
		assert.True(t, apierrors.IsInvalid(err), "the CRD's maxLength: %v", err)

		require.NoError(t, unstructured.SetNestedMap(p.Object, map[string]any{"replicas": int64(1), "selector": "pool=p"}, "status"))
		withStatus, err := pools.UpdateStatus(ctx, p, metav1.UpdateOptions{})
		require.NoError(t, err)
		selector0, _, _ := unstructured.NestedString(withStatus.Object, "status", "selector")
		assert.Equal(t, "pool=p", selector0)
		scale, err := pools.Get(ctx, "p", metav1.GetOptions{}, "scale")
		require.NoError(t, err)
		replicas, _, _ := unstructured.NestedInt64(scale.Object, "spec", "replicas")
		selector, _, _ := unstructured.NestedString(scale.Object, "status", "selector")
		assert.Equal(t, int64(1), replicas)
		assert.Equal(t, "pool=p", selector)
		_, err = pools.Patch(ctx, "p", types.MergePatchType, []byte(`{"spec":{"replicas":3}}`), metav1.PatchOptions{}, "scale")
		require.NoError(t, err)
		p, err = pools.Get(ctx, "p", metav1.GetOptions{})
		require.NoError(t, err)
		replicas, _, _ = unstructured.NestedInt64(p.Object, "spec", "replicas")
		assert.Equal(t, int64(3), replicas)
		list, err := pools.List(ctx, metav1.ListOptions{})
		require.NoError(t, err)
		assert.Len(t, list.Items, 1)

		disc, err := discovery.NewDiscoveryClientForConfig(cfg)
		require.NoError(t, err)
		groups, err := disc.ServerGroups()
		require.NoError(t, err)
		var names []string
		for _, g := range groups.Groups {
			names = append(names, g.Name)
		}
		assert.Contains(t, names, "apps")
		assert.Contains(t, names, "pools.example.com")
		core, err := disc.ServerResourcesForGroupVersion("v1")
		require.NoError(t, err)
		var resources []string
		for _, r := range core.APIResources {
			resources = append(resources, r.Name)
		}
		assert.Contains(t, resources, "pods/eviction")
		assert.Contains(t, resources, "configmaps")
		poolRes, err := disc.ServerResourcesForGroupVersion("pools.example.com/v1")
		require.NoError(t, err)
		require.NotEmpty(t, poolRes.APIResources)

		cl, err := client.New(cfg, client.Options{})
		require.NoError(t, err)
		var cm corev1.ConfigMap
		require.NoError(t, cl.Get(ctx, client.ObjectKey{Namespace: "default", Name: "trigger"}, &cm))
		cm.Data = map[string]string{"via": "client.New"}
		require.NoError(t, cl.Update(ctx, &cm))
		var cms corev1.ConfigMapList
		require.NoError(t, cl.List(ctx, &cms, client.InNamespace("default")))
		require.Len(t, cms.Items, 1)
		assert.Equal(t, "client.New", cms.Items[0].Data["via"])
		err = cl.Get(ctx, client.ObjectKey{Namespace: "default", Name: "missing"}, &cm)
		assert.True(t, apierrors.IsNotFound(err), "%v", err)
		pool := &unstructured.Unstructured{}
		pool.SetGroupVersionKind(poolGVR.GroupVersion().WithKind("Pool"))
		require.NoError(t, cl.Get(ctx, client.ObjectKey{Namespace: "default", Name: "p"}, pool))
	})
}

// TestLogsHook: pods/log is answered by the scenario's hook, and without
// it by an error that names the pod (exec_test.go holds pods/exec).
func TestLogsHook(t *testing.T) {
	logs := func(ctx context.Context, cfg *rest.Config) (string, error) {
		cs, err := kubernetes.NewForConfig(cfg)
		require.NoError(t, err)
		stream, err := cs.CoreV1().Pods("default").GetLogs("db-0", &corev1.PodLogOptions{Container: "db"}).Stream(ctx)
		if err != nil {
			return "", err
		}
		defer func() { _ = stream.Close() }()
		b, err := io.ReadAll(stream)
		return string(b), err
	}
	withConfig(t, crt.ManagerOptions{}, []client.Object{dbPod()}, func(ctx context.Context, cfg *rest.Config) {
		_, err := logs(ctx, cfg)
		require.Error(t, err)
		assert.Contains(t, err.Error(), "default/db-0")
		assert.Contains(t, err.Error(), "ManagerOptions.Logs")
	})
	opts := crt.ManagerOptions{
		Logs: func(_ context.Context, pod client.ObjectKey, container string) (string, error) {
			return "log of " + pod.String() + "/" + container, nil
		},
	}
	withConfig(t, opts, []client.Object{dbPod()}, func(ctx context.Context, cfg *rest.Config) {
		out, err := logs(ctx, cfg)
		require.NoError(t, err)
		assert.Equal(t, "log of default/db-0/db", out)
	})
}

// TestHTTPStatusBodies: an error is a metav1.Status JSON body with its
// code, and GetHTTPClient reaches the same server.
func TestHTTPStatusBodies(t *testing.T) {
	withConfig(t, crt.ManagerOptions{}, nil, func(ctx context.Context, cfg *rest.Config) {
		hc, err := rest.HTTPClientFor(cfg)
		require.NoError(t, err)
		resp, err := hc.Get(cfg.Host + "/api/v1/namespaces/default/configmaps/missing")
		require.NoError(t, err)
		defer func() { _ = resp.Body.Close() }()
		assert.Equal(t, 404, resp.StatusCode)
		var st metav1.Status
		require.NoError(t, json.NewDecoder(resp.Body).Decode(&st))
		assert.Equal(t, "Status", st.Kind)
		assert.Equal(t, metav1.StatusReasonNotFound, st.Reason)
		assert.Equal(t, int32(404), st.Code)
	})
}
