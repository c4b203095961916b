package controllerruntime_test

//lint:file-ignore SA1019 the conformance tests cover client.Apply, the deprecated server-side apply that user code still calls

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	crt "github.com/converge-sim/converge/controllerruntime"
	"github.com/converge-sim/converge/controllerruntime/convert"
	"github.com/converge-sim/converge/controllerruntime/crd"
	"github.com/converge-sim/converge/controllerruntime/examples/schemaops"
	modelpkg "github.com/converge-sim/converge/model"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"pgregory.net/rapid"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
)

// conformanceConv and conformanceCRDs serve ConfigMaps, ReplicaSets and
// Batches, a custom resource whose CRD the model's API server enforces.
var conformanceConv, conformanceCRDs = func() (*convert.Converter, *crd.Set) {
	crds, err := crd.Load(schemaops.Bases())
	if err != nil {
		panic(err)
	}
	conv, err := convert.New(schemaops.NewScheme(), convert.Options{})
	if err != nil {
		panic(err)
	}
	return conv, crds
}()

// system is one client under comparison, with the versions of each object
// the test has seen through it, oldest first.
type system struct {
	c    client.Client
	seen map[string][]client.Object
}

// outcome classifies an error as the conformance test compares it.
func outcome(err error) string {
	switch {
	case err == nil:
		return "ok"
	case apierrors.IsConflict(err):
		return "conflict"
	case apierrors.IsNotFound(err):
		return "not-found"
	case apierrors.IsAlreadyExists(err):
		return "already-exists"
	}
	return "error: " + err.Error()
}

// op is one call of a conformance sequence, run against each system.
type op struct {
	verb  string // create, get, update, update-status, patch, delete, list
	kind  string // ConfigMap, ReplicaSet or Batch (a custom resource with a CRD)
	name  string
	value int32
	// version is the seen version a write starts from: 0 the latest, 1
	// the oldest, 2 none (a fresh object without resourceVersion). A
	// patch from the oldest carries its resourceVersion (optimistic lock).
	version   int
	finalizer bool
	// manager and force are an apply's field manager and ForceOwnership.
	manager string
	force   bool
	// unstructured makes a create, get, list or apply use
	// unstructured.Unstructured.
	unstructured bool
}

func (o op) String() string {
	return fmt.Sprintf("%s %s/%s value=%d version=%d finalizer=%v manager=%s force=%v unstructured=%v",
		o.verb, o.kind, o.name, o.value, o.version, o.finalizer, o.manager, o.force, o.unstructured)
}

func drawOp(t *rapid.T) op {
	return op{
		verb:         rapid.SampledFrom([]string{"create", "get", "update", "update-status", "patch", "apply", "delete", "list"}).Draw(t, "verb"),
		kind:         rapid.SampledFrom([]string{"ConfigMap", "ReplicaSet", "Batch"}).Draw(t, "kind"),
		name:         rapid.SampledFrom([]string{"a", "b"}).Draw(t, "name"),
		value:        rapid.Int32Range(0, 4).Draw(t, "value"),
		version:      rapid.IntRange(0, 2).Draw(t, "version"),
		finalizer:    rapid.Bool().Draw(t, "finalizer"),
		manager:      rapid.SampledFrom([]string{"m1", "m2"}).Draw(t, "manager"),
		force:        rapid.Bool().Draw(t, "force"),
		unstructured: rapid.Bool().Draw(t, "unstructured"),
	}
}

func (o op) gvk() schema.GroupVersionKind {
	switch o.kind {
	case "ConfigMap":
		return corev1.SchemeGroupVersion.WithKind("ConfigMap")
	case "Batch":
		return schemaops.GroupVersion.WithKind("Batch")
	}
	return appsv1.SchemeGroupVersion.WithKind("ReplicaSet")
}

// parallelism is a Batch's spec.parallelism for the op's value: never 0,
// which a typed client omits and the model's API server would default to
// 1 (the fake defaults nothing); the largest value breaks the CRD's
// maximum of 50, which only the model's API server rejects.
func (o op) parallelism() int32 {
	if o.value == 4 {
		return 60
	}
	return o.value + 1
}

// asUnstructured returns obj as an unstructured object of the op's kind.
func (o op) asUnstructured(obj client.Object) *unstructured.Unstructured {
	content, err := runtime.DefaultUnstructuredConverter.ToUnstructured(obj)
	if err != nil {
		panic(err)
	}
	u := &unstructured.Unstructured{Object: content}
	u.SetGroupVersionKind(o.gvk())
	return u
}

// typed returns an unstructured object of the op's kind as a typed one.
func (o op) typed(u *unstructured.Unstructured) client.Object {
	obj := o.fresh()
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(u.Object, obj); err != nil {
		panic(err)
	}
	return obj
}

// applied is the op's applied configuration: the value alone.
func (o op) applied() *unstructured.Unstructured {
	u := &unstructured.Unstructured{Object: map[string]any{}}
	u.SetGroupVersionKind(o.gvk())
	u.SetNamespace("default")
	u.SetName(o.name)
	switch o.kind {
	case "ConfigMap":
		u.Object["data"] = map[string]any{"v": fmt.Sprint(o.value)}
	case "Batch":
		u.Object["spec"] = map[string]any{"parallelism": int64(o.parallelism())}
	default: // a spec the API server accepts, as replicaSetSpec
		labels := map[string]any{"app": "web"}
		u.Object["spec"] = map[string]any{
			"replicas": int64(o.value),
			"selector": map[string]any{"matchLabels": labels},
			"template": map[string]any{
				"metadata": map[string]any{"labels": labels},
				"spec":     map[string]any{"containers": []any{map[string]any{"name": "app", "image": "app:v1"}}},
			},
		}
	}
	return u
}

// fresh returns a new object of the op's kind and name, carrying value.
func (o op) fresh() client.Object {
	meta := metav1.ObjectMeta{Namespace: "default", Name: o.name}
	if o.finalizer {
		meta.Finalizers = []string{"example.com/hold"}
	}
	switch o.kind {
	case "ConfigMap":
		return &corev1.ConfigMap{ObjectMeta: meta, Data: map[string]string{"v": fmt.Sprint(o.value)}}
	case "Batch":
		return &schemaops.Batch{ObjectMeta: meta, Spec: schemaops.BatchSpec{Parallelism: o.parallelism()}}
	}
	return &appsv1.ReplicaSet{ObjectMeta: meta, Spec: replicaSetSpec(new(o.value))}
}

// set writes the op's value, and its finalizer choice, into obj.
func (o op) set(obj client.Object, status bool) {
	switch obj := obj.(type) {
	case *corev1.ConfigMap:
		obj.Data = map[string]string{"v": fmt.Sprint(o.value)}
	case *appsv1.ReplicaSet:
		if status {
			obj.Status.Replicas = o.value
		} else {
			obj.Spec.Replicas = new(o.value)
		}
	case *schemaops.Batch:
		if status {
			obj.Status.ActiveCount = o.value
		} else {
			obj.Spec.Parallelism = o.parallelism()
		}
	}
	if !status && !o.finalizer {
		obj.SetFinalizers(nil)
	}
}

// describe renders what the test compares of an object: its value, status
// and whether it is being deleted, not its resourceVersion or UID.
func describe(obj client.Object) string {
	var v string
	switch obj := obj.(type) {
	case *corev1.ConfigMap:
		v = obj.Data["v"]
	case *appsv1.ReplicaSet:
		v = fmt.Sprintf("%d/%d", *obj.Spec.Replicas, obj.Status.Replicas)
	case *schemaops.Batch:
		v = fmt.Sprintf("%d/%d", obj.Spec.Parallelism, obj.Status.ActiveCount)
	}
	return fmt.Sprintf("%s=%s deleting=%v finalizers=%v", obj.GetName(), v, !obj.GetDeletionTimestamp().IsZero(), obj.GetFinalizers())
}

func (s *system) remember(o op, obj client.Object) {
	key := o.kind + "/" + o.name
	s.seen[key] = append(s.seen[key], obj.DeepCopyObject().(client.Object))
}

// base returns the object a write starts from.
func (s *system) base(o op) client.Object {
	seen := s.seen[o.kind+"/"+o.name]
	switch {
	case o.version == 2 || len(seen) == 0:
		return o.fresh()
	case o.version == 1:
		return seen[0].DeepCopyObject().(client.Object)
	}
	return seen[len(seen)-1].DeepCopyObject().(client.Object)
}

func (s *system) run(o op) string {
	switch o.verb {
	case "create":
		obj := o.fresh()
		var err error
		if o.unstructured {
			u := o.asUnstructured(obj)
			if err = s.c.Create(ctx, u); err == nil {
				obj = o.typed(u)
			}
		} else {
			err = s.c.Create(ctx, obj)
		}
		if err == nil {
			s.remember(o, obj)
		}
		return outcome(err)
	case "get":
		obj := o.fresh()
		key := client.ObjectKeyFromObject(obj)
		if o.unstructured {
			u := &unstructured.Unstructured{}
			u.SetGroupVersionKind(o.gvk())
			if err := s.c.Get(ctx, key, u); err != nil {
				return outcome(err)
			}
			obj = o.typed(u)
		} else if err := s.c.Get(ctx, key, obj); err != nil {
			return outcome(err)
		}
		s.remember(o, obj)
		return "ok " + describe(obj)
	case "apply":
		stored := o.fresh()
		_ = s.c.Get(ctx, client.ObjectKeyFromObject(stored), stored)
		u := o.applied()
		opts := []client.PatchOption{client.FieldOwner(o.manager)}
		if o.force {
			opts = append(opts, client.ForceOwnership)
		}
		if err := s.c.Patch(ctx, u, client.Apply, opts...); err != nil {
			return outcome(err)
		}
		obj := o.typed(u)
		s.remember(o, obj)
		return fmt.Sprintf("ok %s wrote=%v", describe(obj), obj.GetResourceVersion() != stored.GetResourceVersion())
	case "update", "update-status":
		obj := s.base(o)
		stored := o.fresh()
		_ = s.c.Get(ctx, client.ObjectKeyFromObject(obj), stored)
		status := o.verb == "update-status"
		o.set(obj, status)
		var err error
		if status {
			err = s.c.Status().Update(ctx, obj)
		} else {
			err = s.c.Update(ctx, obj)
		}
		if err == nil {
			s.remember(o, obj)
			return fmt.Sprintf("ok %s wrote=%v", describe(obj), obj.GetResourceVersion() != stored.GetResourceVersion())
		}
		return outcome(err)
	case "patch":
		obj := s.base(o)
		patch := client.MergeFrom(obj.DeepCopyObject().(client.Object))
		if o.version == 1 && obj.GetResourceVersion() != "" {
			patch = client.MergeFromWithOptions(obj.DeepCopyObject().(client.Object), client.MergeFromWithOptimisticLock{})
		}
		stored := o.fresh()
		_ = s.c.Get(ctx, client.ObjectKeyFromObject(obj), stored)
		o.set(obj, false)
		if err := s.c.Patch(ctx, obj, patch); err != nil {
			return outcome(err)
		}
		s.remember(o, obj)
		return fmt.Sprintf("ok %s wrote=%v", describe(obj), obj.GetResourceVersion() != stored.GetResourceVersion())
	case "delete":
		obj := s.base(o)
		var opts []client.DeleteOption
		if rv := obj.GetResourceVersion(); rv != "" {
			opts = append(opts, client.Preconditions{ResourceVersion: &rv})
		}
		stored := o.fresh()
		_ = s.c.Get(ctx, client.ObjectKeyFromObject(obj), stored)
		if err := s.c.Delete(ctx, obj, opts...); err != nil {
			return outcome(err)
		}
		after := o.fresh()
		if s.c.Get(ctx, client.ObjectKeyFromObject(obj), after) != nil {
			return "ok gone"
		}
		return fmt.Sprintf("ok held wrote=%v", after.GetResourceVersion() != stored.GetResourceVersion())
	}
	var list client.ObjectList = &corev1.ConfigMapList{}
	switch o.kind {
	case "ReplicaSet":
		list = &appsv1.ReplicaSetList{}
	case "Batch":
		list = &schemaops.BatchList{}
	}
	if o.unstructured {
		ul := &unstructured.UnstructuredList{}
		ul.SetGroupVersionKind(o.gvk().GroupVersion().WithKind(o.kind + "List"))
		list = ul
	}
	if err := s.c.List(ctx, list, client.InNamespace("default")); err != nil {
		return outcome(err)
	}
	var items []string
	switch l := list.(type) {
	case *unstructured.UnstructuredList:
		for i := range l.Items {
			items = append(items, describe(o.typed(&l.Items[i])))
		}
	case *corev1.ConfigMapList:
		for i := range l.Items {
			items = append(items, describe(&l.Items[i]))
		}
	case *appsv1.ReplicaSetList:
		for i := range l.Items {
			items = append(items, describe(&l.Items[i]))
		}
	case *schemaops.BatchList:
		for i := range l.Items {
			items = append(items, describe(&l.Items[i]))
		}
	}
	slices.Sort(items)
	return "ok [" + strings.Join(items, "; ") + "]"
}

// TestConformanceWithTheFakeClient runs random sequences of calls against
// the model's API server (through this package's client) and against
// controller-runtime's fake client, and requires the same outcome of every
// call: success or which error, and what reads return. README.md lists
// the deliberate differences, which the sequences avoid: dry run, server-
// side apply's bookkeeping of creates, and the fake's own quirks tested
// below.
func TestConformanceWithTheFakeClient(t *testing.T) {
	ops := 0
	differences := map[string]int{}
	rapid.Check(t, func(t *rapid.T) {
		m, err := crt.NewManager(modelpkg.NewCluster(modelpkg.Config{}), conformanceConv, crt.ManagerOptions{CRDs: conformanceCRDs})
		if err != nil {
			t.Fatal(err)
		}
		model := &system{c: m.OutsideClient("conformance"), seen: map[string][]client.Object{}}
		fakeClient := fake.NewClientBuilder().WithScheme(conformanceConv.Scheme()).
			WithStatusSubresource(&appsv1.ReplicaSet{}, &schemaops.Batch{}).WithGlobalResourceVersionCounter().Build()
		reference := &system{c: fakeClient, seen: map[string][]client.Object{}}
		var log []string
		for range rapid.IntRange(1, 40).Draw(t, "calls") {
			o := drawOp(t)
			got, want := model.run(o), reference.run(o)
			log = append(log, fmt.Sprintf("%v → %s", o, want))
			ops++
			if d := knownDifference(o.verb, got, want); d != "" {
				differences[d]++
				if d == "custom-resource-update-needs-resourceVersion" {
					continue // both refused the write: the stores still agree
				}
				return // the two stores now differ on purpose
			}
			if got != want {
				t.Fatalf("%v: model %q, fake client %q\nsequence:\n%s", o, got, want, strings.Join(log, "\n"))
			}
		}
	})
	t.Logf("%d calls compared; known differences: %v", ops, differences)
}

// knownDifference names a deliberate difference between the outcomes, or
// returns "". Each is in README.md.
func knownDifference(verb, model, fake string) string {
	// A write the custom resource's schema forbids (spec.parallelism past
	// the CRD's maximum): the fake client validates no schema and stores
	// it (or, for a create of an existing name, answers AlreadyExists,
	// where the API server validates first); the model, as the API
	// server, answers 422 Invalid.
	if strings.Contains(model, "Invalid value: 60") && model != fake {
		return "fake-validates-no-schema"
	}
	// An update of a custom resource without resourceVersion: the fake
	// client answers Conflict; the model, as the API server, 422 Invalid
	// ("must be specified for an update"). Neither writes.
	if strings.Contains(model, "must be specified for an update") && fake == "conflict" {
		return "custom-resource-update-needs-resourceVersion"
	}
	// An apply that changes a field some earlier write without a field
	// manager set: the fake client tracks no owner for it and lets the
	// apply through; the model, as the API server, has an owner for every
	// field (before-first-apply, for fields written before the object's
	// first apply) and answers Conflict unless the apply forces.
	if verb == "apply" && model == "conflict" && strings.HasPrefix(fake, "ok ") {
		return "apply-conflicts-with-earlier-writers"
	}
	// An update that omits the deletion timestamp of an object being
	// deleted: the fake client refuses it; the model, as the API server's
	// rest.BeforeUpdate, keeps the stored timestamp.
	if strings.Contains(fake, "deletionTimestamp field is immutable") && strings.HasPrefix(model, "ok ") && strings.Contains(model, "deleting=true") {
		return "update-keeps-deletion-timestamp"
	}
	// An apply whose configuration leaves out finalizers another manager
	// set: the fake client drops them; the model, as the API server's
	// field manager, keeps fields the applier never owned.
	if strings.HasPrefix(model, "ok ") && strings.HasPrefix(fake, "ok ") && strings.Contains(fake, "finalizers=[]") && !strings.Contains(model, "finalizers=[]") {
		return "apply-keeps-unowned-finalizers"
	}
	// An update or patch that changes nothing, or a second delete of an
	// object finalizers hold: the fake client writes a new resourceVersion;
	// the model, as Kubernetes, writes nothing.
	if strings.HasSuffix(model, "wrote=false") && strings.HasSuffix(fake, "wrote=true") &&
		strings.TrimSuffix(model, "false") == strings.TrimSuffix(fake, "true") {
		return "no-op-writes-nothing"
	}
	return ""
}
