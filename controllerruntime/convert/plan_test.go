package convert

import (
	"reflect"
	"sort"
	"testing"

	"github.com/converge-sim/converge/model"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"pgregory.net/rapid"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/randfill"
)

// samePath checks that the encoding plan gives what the general path
// gives: the same model object, or no plan answer at all.
func samePath(t require.TestingT, c *Converter, obj client.Object) bool {
	kind, err := c.Kind(obj)
	require.NoError(t, err)
	want, wantErr := c.toModel(kind, obj)
	got, ok := c.planned(kind, obj)
	if !ok {
		return false
	}
	require.NoError(t, wantErr, "the plan encoded what the general path refuses")
	assert.Equal(t, want, got)
	return true
}

// sameDecode checks that the decoding plan fills an object from mo's
// content as the general path does, or declines.
func sameDecode(t require.TestingT, c *Converter, mo *model.Object, typ reflect.Type) bool {
	u, err := c.body(mo)
	require.NoError(t, err)
	want := reflect.New(typ)
	wantErr := runtime.DefaultUnstructuredConverter.FromUnstructured(u, want.Interface())
	p := c.decodePlanOf(typ)
	if p == nil {
		return false
	}
	got := reflect.New(typ)
	if p.dec(u, got.Elem()) != nil {
		return false
	}
	require.NoError(t, wantErr, "the plan decoded what the general path refuses")
	assert.Equal(t, want.Interface(), got.Interface())
	return true
}

func TestPlansEncodeAsTheGeneralPath(t *testing.T) {
	c := newConverter(t)
	rapid.Check(t, func(t *rapid.T) {
		require.True(t, samePath(t, c, typedObject(t, c)), "the drawn kinds all have a plan")
	})
}

func TestPlansDecodeAsTheGeneralPath(t *testing.T) {
	c := newConverter(t)
	rapid.Check(t, func(t *rapid.T) {
		obj := typedObject(t, c)
		mo, err := c.ToModel(obj)
		require.NoError(t, err)
		require.True(t, sameDecode(t, c, mo, reflect.TypeOf(obj).Elem()), "the drawn kinds all decode by plan")
	})
}

// TestPlansConvertEveryKindAsTheGeneralPath fills every kind of the
// client-go scheme with random values (seeded) and compares.
func TestPlansConvertEveryKindAsTheGeneralPath(t *testing.T) {
	c := newConverter(t)
	var types []reflect.Type
	for _, gvk := range c.GVKs() {
		if obj, err := c.New(gvk.Kind); err == nil {
			types = append(types, reflect.TypeOf(obj).Elem())
		}
	}
	sort.Slice(types, func(i, j int) bool { return types[i].String() < types[j].String() })
	planned, decoded := map[reflect.Type]bool{}, map[reflect.Type]bool{}
	for seed := range int64(20) {
		f := randfill.NewWithSeed(seed).NilChance(0.3).NumElements(0, 2).MaxDepth(8).Funcs(
			func(r *runtime.RawExtension, _ randfill.Continue) {}, // random bytes are not JSON
		)
		for _, typ := range types {
			obj := reflect.New(typ).Interface().(client.Object)
			f.Fill(obj)
			obj.SetResourceVersion("")
			obj.SetLabels(nil)
			obj.SetAnnotations(nil)
			if samePath(t, c, obj) {
				planned[typ] = true
			}
			if mo, err := c.ToModel(obj); err == nil && sameDecode(t, c, mo, typ) {
				decoded[typ] = true
			}
		}
	}
	for _, obj := range []client.Object{&corev1.Pod{}, &appsv1.ReplicaSet{}, &appsv1.Deployment{}, &corev1.ConfigMap{}, &corev1.Secret{}, &corev1.Service{}, &batchv1.Job{}} {
		assert.True(t, planned[reflect.TypeOf(obj).Elem()], "%T has a plan", obj)
		assert.True(t, decoded[reflect.TypeOf(obj).Elem()], "%T has a decoding plan", obj)
	}
	t.Logf("%d of %d kinds encoded by plan, %d decoded", len(planned), len(types), len(decoded))
}
