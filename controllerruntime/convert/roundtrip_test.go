package convert

import (
	"encoding/json"
	"math/rand"
	"reflect"
	"sort"
	"strings"
	"testing"
	"time"

	cronv1 "github.com/converge-sim/converge/controllerruntime/examples/cronjob/api/v1"
	cachev1alpha1 "github.com/converge-sim/converge/controllerruntime/examples/memcached/api/v1alpha1"
	"github.com/converge-sim/converge/model"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/intstr"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"pgregory.net/rapid"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/randfill"
	"sigs.k8s.io/structured-merge-diff/v6/value"
)

// edgeName is a string that encodes and decodes itself.
type edgeName string

func (n edgeName) MarshalJSON() ([]byte, error) { return json.Marshal("name:" + string(n)) }

func (n *edgeName) UnmarshalJSON(b []byte) error {
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		return err
	}
	*n = edgeName(strings.TrimPrefix(s, "name:"))
	return nil
}

type edgeLeaf struct {
	A string `json:"a,omitempty"`
	B int32  `json:"b"`
}

type EdgeInline struct {
	Inlined string            `json:"inlined,omitempty"`
	Labels  map[string]string `json:"labels,omitempty"`
}

// edgeSpec holds what the round trip must get right: nil against empty,
// omitempty and omitzero, nulls inside lists and maps, bytes, unsigned
// numbers, inlining, skipped fields, times and the types that convert
// themselves.
type edgeSpec struct {
	U          uint64                       `json:"u,omitempty"`
	U8         uint8                        `json:"u8"`
	Bytes      []byte                       `json:"bytes,omitempty"`
	RawBytes   []byte                       `json:"rawBytes"`
	Ptrs       map[string]*edgeLeaf         `json:"ptrs,omitempty"`
	Lists      map[string][]string          `json:"lists"`
	Nested     [][]string                   `json:"nested"`
	PtrList    *[]string                    `json:"ptrList,omitempty"`
	Times      map[string]metav1.Time       `json:"times,omitempty"`
	TimeList   []metav1.Time                `json:"timeList"`
	TimePtrs   []*metav1.Time               `json:"timePtrs,omitempty"`
	Micro      *metav1.MicroTime            `json:"micro,omitempty"`
	Q          *resource.Quantity           `json:"q,omitempty"`
	IOS        intstr.IntOrString           `json:"ios"`
	Named      edgeName                     `json:"named,omitempty"`
	Skipped    string                       `json:"-"`
	Zero       edgeLeaf                     `json:"zero,omitzero"`
	Leafs      []edgeLeaf                   `json:"leafs"`
	LeafPtrs   []*edgeLeaf                  `json:"leafPtrs"`
	Empty      struct{}                     `json:"empty"`
	Maps       map[string]map[string]string `json:"maps,omitempty"`
	Dur        metav1.Duration              `json:"dur"`
	Odd        string                       `json:"a.b/c,omitempty"`
	EdgeInline `json:",inline"`
}

type edgeStatus struct {
	Conditions []metav1.Condition `json:"conditions,omitempty"`
	Seen       *metav1.Time       `json:"seen,omitempty"`
	Phase      string             `json:"phase,omitempty"`
	// Ratio is a float: the round trip leaves this type to the decode.
	Ratio float64 `json:"ratio,omitempty"`
}

type edgeObject struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Spec              edgeSpec   `json:"spec,omitempty"`
	Status            edgeStatus `json:"status,omitempty"`
}

// DeepCopyObject copies through JSON; the converter does not call it.
func (e *edgeObject) DeepCopyObject() runtime.Object {
	b, err := json.Marshal(e)
	if err != nil {
		panic(err)
	}
	out := &edgeObject{}
	if err := json.Unmarshal(b, out); err != nil {
		panic(err)
	}
	return out
}

var edgeGVK = schema.GroupVersionKind{Group: "edge.example.com", Version: "v1", Kind: "Edge"}

// roundTripScheme is client-go's kinds with the examples' custom
// resources and the edge type.
func roundTripScheme(t *testing.T) *runtime.Scheme {
	s := runtime.NewScheme()
	require.NoError(t, clientgoscheme.AddToScheme(s))
	require.NoError(t, cronv1.AddToScheme(s))
	require.NoError(t, cachev1alpha1.AddToScheme(s))
	s.AddKnownTypeWithName(edgeGVK, &edgeObject{})
	return s
}

// drawInstant is a timestamp of every kind a writer may hold: whole and
// sub-second, in UTC, the local zone or another, at the edges of the
// years RFC 3339 can write, and zero (in a zone or not).
func drawInstant(r *rand.Rand) time.Time {
	zones := []*time.Location{time.UTC, time.Local, time.FixedZone("x", 5*3600+1800), time.FixedZone("y", -7*3600)}
	zone := zones[r.Intn(len(zones))]
	var s int64
	switch r.Intn(6) {
	case 0:
		return time.Time{}.In(zone)
	case 1:
		edges := []int64{firstRFC3339Second - 1, firstRFC3339Second, pastRFC3339Second - 1, pastRFC3339Second, -1, 0}
		s = edges[r.Intn(len(edges))]
	default:
		s = 1735689600 + r.Int63n(1<<20) - 1<<19
	}
	ns := int64(0)
	if r.Intn(3) == 0 {
		ns = r.Int63n(1e9)
	}
	return time.Unix(s, ns).In(zone)
}

func fillers() []any {
	return []any{
		func(r *runtime.RawExtension, _ randfill.Continue) {}, // random bytes are not JSON
		func(tm *metav1.Time, c randfill.Continue) { tm.Time = drawInstant(c.Rand) },
		func(tm *metav1.MicroTime, c randfill.Continue) { tm.Time = drawInstant(c.Rand) },
		func(q *resource.Quantity, c randfill.Continue) {
			*q = resource.MustParse([]string{"0", "100m", "1", "1500m", "2Gi", "0.5", "1e3"}[c.Rand.Intn(7)])
		},
	}
}

// TestTheTimesRoundTripAsTheyDecode: the round trip of a metav1.Time (and
// a pointer to one), worked out without JSON, is what the type's own
// conversion gives through its JSON, on instants of every kind; both
// decline (with an error) the years RFC 3339 cannot write.
func TestTheTimesRoundTripAsTheyDecode(t *testing.T) {
	b := rtBuilder{types: map[reflect.Type]*rtPlan{}, dec: &decodeBuilder{types: map[reflect.Type]*decodePlan{}}}
	viaJSON, err := b.custom(timeType, value.TypeReflectEntryOf(timeType))
	require.NoError(t, err)
	viaJSONPtr, err := b.custom(ptrTimeType, value.TypeReflectEntryOf(ptrTimeType))
	require.NoError(t, err)
	r := rand.New(rand.NewSource(1))
	declined := 0
	for range 20000 {
		src := metav1.Time{Time: drawInstant(r)}
		for _, c := range []struct {
			fast, slow roundTrip
			v          reflect.Value
		}{
			{roundTripTime, viaJSON, reflect.ValueOf(&src).Elem()},
			{roundTripTimePointer, viaJSONPtr, reflect.ValueOf(&src)},
		} {
			want := reflect.New(c.v.Type()).Elem()
			wantOK, wantErr := c.slow(c.v, want)
			got := reflect.New(c.v.Type()).Elem()
			gotOK, gotErr := c.fast(c.v, got)
			require.Equal(t, wantErr != nil, gotErr != nil, "%v", src)
			if wantErr != nil {
				declined++
				continue
			}
			require.Equal(t, wantOK, gotOK, "%v", src)
			require.Equal(t, want.Interface(), got.Interface(), "%v", src)
		}
	}
	assert.Positive(t, declined, "years RFC 3339 cannot write were drawn")
}

// TestRoundTripIsTheDecodeOfEveryKind: for random objects of every kind
// of client-go's scheme, the examples' custom resources and a type made
// of the edge cases (randfill: nil and empty lists and maps, null
// elements, timestamps of every kind), FromModelWritten with the object
// as sent gives what a fresh decode of the stored fields gives, field
// for field (reflect.DeepEqual: nil and empty apart, time zones
// compared), and leaves the sent object as it was.
func TestRoundTripIsTheDecodeOfEveryKind(t *testing.T) {
	scheme := roundTripScheme(t)
	c, err := New(scheme, Options{})
	require.NoError(t, err)
	ref, err := New(scheme, Options{})
	require.NoError(t, err)
	var types []reflect.Type
	for _, gvk := range c.GVKs() {
		if obj, err := c.New(gvk.Kind); err == nil {
			if _, u := obj.(runtime.Unstructured); !u {
				types = append(types, reflect.TypeOf(obj).Elem())
			}
		}
	}
	sort.Slice(types, func(i, j int) bool { return types[i].String() < types[j].String() })
	tripped := map[reflect.Type]int{}
	checks := 0
	for seed := range int64(12) {
		f := randfill.NewWithSeed(seed).NilChance(0.3).NumElements(0, 2).MaxDepth(8).Funcs(fillers()...)
		for _, typ := range types {
			obj, mo, ok := filledObject(c, f, typ)
			if !ok {
				continue
			}
			sent := reflect.New(typ).Interface().(client.Object)
			reflect.ValueOf(sent).Elem().Set(reflect.ValueOf(obj).Elem())
			before := roundTrips.Load()
			got := reflect.New(typ).Interface().(client.Object)
			gotErr := c.FromModelWritten(mo, got, Sent{Object: sent, Spec: mo.Spec, Status: mo.Status, SpecSent: true, StatusSent: true})
			want := reflect.New(typ).Interface().(client.Object)
			wantErr := ref.FromModel(mo, want)
			require.Equal(t, wantErr, gotErr, "%s seed %d", typ, seed)
			require.Equal(t, want, got, "%s seed %d", typ, seed)
			require.Equal(t, obj, sent, "%s seed %d: the sent object is only read", typ, seed)
			scribble(reflect.ValueOf(sent).Elem(), 0)
			require.Equal(t, want, got, "%s seed %d: the answer shares nothing with the sent object", typ, seed)
			tripped[typ] += int(roundTrips.Load() - before)
			checks++
		}
	}
	for _, obj := range []client.Object{&corev1.Pod{}, &batchv1.Job{}, &appsv1.Deployment{}, &appsv1.ReplicaSet{},
		&cronv1.PeriodicJob{}, &cachev1alpha1.Memcached{}, &edgeObject{}} {
		assert.Positive(t, tripped[reflect.TypeOf(obj).Elem()], "%T's parts were round-tripped", obj)
	}
	kinds := 0
	for _, n := range tripped {
		if n > 0 {
			kinds++
		}
	}
	t.Logf("%d checks; parts of %d of %d kinds round-tripped", checks, kinds, len(types))
}

// scribble overwrites in place every list element, map and pointed-to
// value that v reaches, as a writer reusing what it sent might.
func scribble(v reflect.Value, depth int) {
	if depth > 20 {
		return
	}
	switch v.Kind() {
	case reflect.Pointer:
		if !v.IsNil() {
			scribble(v.Elem(), depth+1)
			if v.Elem().CanSet() {
				v.Elem().SetZero()
			}
		}
	case reflect.Slice:
		for i := range v.Len() {
			scribble(v.Index(i), depth+1)
			v.Index(i).SetZero()
		}
	case reflect.Map:
		v.Clear()
	case reflect.Struct:
		for i := range v.NumField() {
			if f := v.Field(i); f.CanSet() {
				scribble(f, depth+1)
			}
		}
	}
}

// TestRoundTripIsTheDecodeOnAnyValue is the comparison above as a rapid
// property over randfill's seeds, on the kinds the examples write and the
// edge type.
func TestRoundTripIsTheDecodeOnAnyValue(t *testing.T) {
	scheme := roundTripScheme(t)
	c, err := New(scheme, Options{})
	require.NoError(t, err)
	ref, err := New(scheme, Options{})
	require.NoError(t, err)
	kinds := []client.Object{&corev1.Pod{}, &batchv1.Job{}, &appsv1.Deployment{}, &appsv1.ReplicaSet{},
		&cronv1.PeriodicJob{}, &cachev1alpha1.Memcached{}, &edgeObject{}}
	rapid.Check(t, func(rt *rapid.T) {
		typ := reflect.TypeOf(rapid.SampledFrom(kinds).Draw(rt, "kind")).Elem()
		f := randfill.NewWithSeed(rapid.Int64().Draw(rt, "seed")).
			NilChance(rapid.Float64Range(0, 1).Draw(rt, "nil")).
			NumElements(0, rapid.IntRange(0, 3).Draw(rt, "elements")).MaxDepth(rapid.IntRange(1, 9).Draw(rt, "depth")).Funcs(fillers()...)
		obj, mo, ok := filledObject(c, f, typ)
		if !ok {
			return
		}
		got := reflect.New(typ).Interface().(client.Object)
		gotErr := c.FromModelWritten(mo, got, Sent{Object: obj, Spec: mo.Spec, Status: mo.Status, SpecSent: true, StatusSent: true})
		want := reflect.New(typ).Interface().(client.Object)
		wantErr := ref.FromModel(mo, want)
		require.Equal(rt, wantErr, gotErr)
		require.Equal(rt, want, got)
	})
}

// TestFromModelWrittenTakesTheSentPart: FromModelWritten makes a part
// stored as sent from the sent object, not from the fields, and only
// then. A sent object changed after its encoding (which a caller must
// not do) shows where the answer came from: its status comes back when
// the stored status is the one sent and the converter keeps no decode of
// it; the stored spec, which a status write does not send, and a status
// the server changed, are decoded from the fields.
func TestFromModelWrittenTakesTheSentPart(t *testing.T) {
	c := newConverter(t)
	pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "web", UID: "uid-1", ResourceVersion: "3"},
		Spec:   corev1.PodSpec{Containers: []corev1.Container{{Name: "app", Image: "app:v1"}}},
		Status: corev1.PodStatus{Phase: corev1.PodRunning, StartTime: &metav1.Time{Time: time.Unix(1735689600, 0).UTC()}}}
	mo, err := c.ToModel(pod)
	require.NoError(t, err)
	lie := pod.DeepCopy()
	lie.Status.Phase = "Sent"
	lie.Spec.Containers[0].Image = "sent:v2"

	got := &corev1.Pod{}
	require.NoError(t, c.FromModelWritten(mo, got, Sent{Object: lie, Status: mo.Status, StatusSent: true}))
	assert.Equal(t, corev1.PodPhase("Sent"), got.Status.Phase, "the status stored as sent is the sent one's round trip")
	assert.Equal(t, time.Unix(1735689600, 0), got.Status.StartTime.Time, "at second precision, in the local zone")
	assert.Equal(t, "app:v1", got.Spec.Containers[0].Image, "a status write sends no spec")

	changed := mo.DeepCopy()
	changed.Status.Set("podIP", "10.0.0.1")
	got = &corev1.Pod{}
	require.NoError(t, c.FromModelWritten(changed, got, Sent{Object: lie, Status: mo.Status, StatusSent: true}))
	assert.Equal(t, corev1.PodRunning, got.Status.Phase, "a status the server changed is decoded")
	assert.Equal(t, "10.0.0.1", got.Status.PodIP)
}

// filledObject fills a new object of typ with f, as a writer would send
// it (no resourceVersion, labels, annotations or managed fields), and
// converts it; false when the converter refuses what was filled.
func filledObject(c *Converter, f *randfill.Filler, typ reflect.Type) (client.Object, *model.Object, bool) {
	obj := reflect.New(typ).Interface().(client.Object)
	f.Fill(obj)
	obj.SetResourceVersion("")
	obj.SetLabels(nil)
	obj.SetAnnotations(nil)
	obj.SetManagedFields(nil)
	mo, err := c.ToModel(obj)
	return obj, mo, err == nil
}
