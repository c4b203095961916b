package controllerruntime

import (
	"reflect"
	"testing"

	cronv1 "github.com/converge-sim/converge/controllerruntime/examples/cronjob/api/v1"
	memcachedv1 "github.com/converge-sim/converge/controllerruntime/examples/memcached/api/v1alpha1"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// copyKindSpec and copyKindStatus are the parts of the test kinds below.
type copyKindSpec struct {
	Replicas *int32
	Image    string
	Labels   map[string]string
}

type copyKindStatus struct {
	Ready int32
	Note  string
}

// copyKindBase is a custom resource's fields; each test kind below embeds
// it and has its own DeepCopyInto.
type copyKindBase struct {
	metav1.TypeMeta
	metav1.ObjectMeta
	Spec   copyKindSpec
	Status copyKindStatus
}

func (in *copyKindSpec) deepCopyInto(out *copyKindSpec) {
	*out = *in
	if in.Replicas != nil {
		out.Replicas = new(int32)
		*out.Replicas = *in.Replicas
	}
	if in.Labels != nil {
		out.Labels = make(map[string]string, len(in.Labels))
		for k, v := range in.Labels {
			out.Labels[k] = v
		}
	}
}

// generatedKind's DeepCopyInto is what controller-gen writes: *out = *in
// first.
type generatedKind struct{ copyKindBase }

func (in *generatedKind) DeepCopyInto(out *generatedKind) {
	*out = *in
	out.TypeMeta = in.TypeMeta
	in.ObjectMeta.DeepCopyInto(&out.ObjectMeta)
	in.Spec.deepCopyInto(&out.Spec)
	out.Status = in.Status
}

func (in *generatedKind) DeepCopyObject() runtime.Object {
	out := new(generatedKind)
	in.DeepCopyInto(out)
	return out
}

// specOnlyKind's hand-written DeepCopyInto never writes the status.
type specOnlyKind struct{ copyKindBase }

func (in *specOnlyKind) DeepCopyInto(out *specOnlyKind) {
	out.TypeMeta = in.TypeMeta
	in.ObjectMeta.DeepCopyInto(&out.ObjectMeta)
	in.Spec.deepCopyInto(&out.Spec)
}

func (in *specOnlyKind) DeepCopyObject() runtime.Object {
	out := new(specOnlyKind)
	in.DeepCopyInto(out)
	return out
}

// noteIfSetKind's DeepCopyInto writes the status's note only when the
// source has one: a zero source leaves the destination's.
type noteIfSetKind struct{ copyKindBase }

func (in *noteIfSetKind) DeepCopyInto(out *noteIfSetKind) {
	out.TypeMeta = in.TypeMeta
	in.ObjectMeta.DeepCopyInto(&out.ObjectMeta)
	in.Spec.deepCopyInto(&out.Spec)
	out.Status.Ready = in.Status.Ready
	if in.Status.Note != "" {
		out.Status.Note = in.Status.Note
	}
}

func (in *noteIfSetKind) DeepCopyObject() runtime.Object {
	out := new(noteIfSetKind)
	in.DeepCopyInto(out)
	return out
}

// statusIfUnscaledKind's DeepCopyInto copies everything when the source
// has no replicas, and skips the status when it has: only a source with
// every field set shows it.
type statusIfUnscaledKind struct{ copyKindBase }

func (in *statusIfUnscaledKind) DeepCopyInto(out *statusIfUnscaledKind) {
	if in.Spec.Replicas == nil {
		*out = *in
		in.ObjectMeta.DeepCopyInto(&out.ObjectMeta)
		in.Spec.deepCopyInto(&out.Spec)
		return
	}
	out.TypeMeta = in.TypeMeta
	in.ObjectMeta.DeepCopyInto(&out.ObjectMeta)
	in.Spec.deepCopyInto(&out.Spec)
}

func (in *statusIfUnscaledKind) DeepCopyObject() runtime.Object {
	out := new(statusIfUnscaledKind)
	in.DeepCopyInto(out)
	return out
}

// panickyKind's DeepCopyInto dereferences the replicas without looking.
type panickyKind struct{ copyKindBase }

func (in *panickyKind) DeepCopyInto(out *panickyKind) {
	*out = *in
	in.ObjectMeta.DeepCopyInto(&out.ObjectMeta)
	r := *in.Spec.Replicas
	out.Spec.Replicas = &r
}

func (in *panickyKind) DeepCopyObject() runtime.Object {
	out := new(panickyKind)
	in.DeepCopyInto(out)
	return out
}

// hookKind holds a func, which the check cannot fill.
type hookKind struct {
	copyKindBase
	hook func()
}

func (in *hookKind) DeepCopyInto(out *hookKind) {
	*out = *in
	in.ObjectMeta.DeepCopyInto(&out.ObjectMeta)
	in.Spec.deepCopyInto(&out.Spec)
}

func (in *hookKind) DeepCopyObject() runtime.Object {
	out := new(hookKind)
	in.DeepCopyInto(out)
	return out
}

// A DeepCopyInto that overwrites every field copies without zeroing its
// destination first; one that leaves a field as it was (always, when the
// source's is unset, or when another of the source's fields is set), one
// that panics on a value of the check's, and one of a type the check
// cannot fill are zeroed first. Either way a copy into an object holding
// another's content gives the source.
func TestADeepCopyIntoThatLeavesAFieldIsZeroedFirst(t *testing.T) {
	replicas := int32(2)
	base := copyKindBase{
		TypeMeta:   metav1.TypeMeta{APIVersion: "example.com/v1", Kind: "Thing"},
		ObjectMeta: metav1.ObjectMeta{Name: "a", Labels: map[string]string{"app": "web"}},
		Spec:       copyKindSpec{Image: "app:v1"},
	}
	scaled := base
	scaled.Spec.Replicas = &replicas
	stale := copyKindBase{
		ObjectMeta: metav1.ObjectMeta{Name: "old", Annotations: map[string]string{"x": "y"}},
		Spec:       copyKindSpec{Replicas: &replicas, Labels: map[string]string{"k": "v"}},
		Status:     copyKindStatus{Ready: 3, Note: "stale"},
	}
	for _, c := range []struct {
		name      string
		src, into client.Object
		zero      bool
	}{
		{"generated", &generatedKind{base}, &generatedKind{stale}, false},
		{"spec only", &specOnlyKind{base}, &specOnlyKind{stale}, true},
		{"note if set", &noteIfSetKind{base}, &noteIfSetKind{stale}, true},
		{"status if unscaled", &statusIfUnscaledKind{scaled}, &statusIfUnscaledKind{stale}, true},
		{"panics on a zero source", &panickyKind{scaled}, &panickyKind{stale}, true},
		{"a func field", &hookKind{copyKindBase: base}, &hookKind{copyKindBase: stale, hook: func() {}}, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			typ := reflect.TypeOf(c.src)
			assert.Equal(t, c.zero, newCopyMethod(typ).zero)
			reflectCopyInto(c.src, c.into)
			if h, ok := c.into.(*hookKind); ok {
				assert.Nil(t, h.hook)
				h.hook = nil
			}
			assert.Equal(t, c.src, c.into)
			m, ok := deepCopyIntos.Load(typ)
			require.True(t, ok)
			assert.Equal(t, c.zero, m.(copyMethod).zero, "the answer is kept")
		})
	}
}

// The examples' custom resources, whose DeepCopyInto controller-gen
// wrote, pass the check, though a PeriodicJob holds a whole pod template
// (quantities, times, int-or-strings); a copy into a stale one gives the
// source.
func TestGeneratedCustomResourcesAreNotZeroedFirst(t *testing.T) {
	for _, obj := range []client.Object{&cronv1.PeriodicJob{}, &memcachedv1.Memcached{}} {
		assert.False(t, newCopyMethod(reflect.TypeOf(obj)).zero, "%T", obj)
	}
	limit := int32(2)
	src := &cronv1.PeriodicJob{
		ObjectMeta: metav1.ObjectMeta{Name: "nightly", Labels: map[string]string{"app": "report"}},
		Spec: cronv1.PeriodicJobSpec{IntervalSeconds: 60, JobTemplate: batchv1.JobTemplateSpec{Spec: batchv1.JobSpec{
			Template: corev1.PodTemplateSpec{Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "run", Image: "busybox",
				Resources: corev1.ResourceRequirements{Limits: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("500m")}}}}}},
		}}},
	}
	into := &cronv1.PeriodicJob{
		ObjectMeta: metav1.ObjectMeta{Name: "old", Annotations: map[string]string{"x": "y"}},
		Spec:       cronv1.PeriodicJobSpec{SuccessfulJobsHistoryLimit: &limit},
		Status:     cronv1.PeriodicJobStatus{Active: []corev1.ObjectReference{{Name: "old-1"}}},
	}
	reflectCopyInto(src, into)
	assert.Equal(t, src, into)
}

// fillValue leaves no zero part it can reach, fills unexported fields and
// a recursive type's recurrence without looping, and refuses a func.
func TestFillValue(t *testing.T) {
	type node struct {
		Name     string
		Children []node
		Next     *node
		hidden   int
	}
	v := reflect.New(reflect.TypeFor[node]()).Elem()
	require.True(t, fillValue(v, reflect.TypeFor[*generatedKind](), fillSource, nil))
	n := v.Interface().(node)
	assert.Equal(t, "filled-3", n.Name)
	assert.Equal(t, 3, n.hidden)
	require.Len(t, n.Children, 1)
	assert.Equal(t, node{}, n.Children[0], "the recurrence stays zero")
	require.NotNil(t, n.Next)

	var ts metav1.Time
	require.True(t, fillValue(reflect.ValueOf(&ts).Elem(), reflect.TypeFor[*generatedKind](), fillDestination, nil))
	assert.False(t, ts.IsZero())

	var obj runtime.Object
	require.True(t, fillValue(reflect.ValueOf(&obj).Elem(), reflect.TypeFor[*generatedKind](), fillSource, nil))
	assert.IsType(t, &generatedKind{}, obj, "an interface the root implements holds a root")
	var f func()
	assert.False(t, fillValue(reflect.ValueOf(&f).Elem(), reflect.TypeFor[*generatedKind](), fillSource, nil))
}

// BenchmarkReflectCopyInto copies a PeriodicJob of the CronJob example
// into one a reader held, as a read out of the memo does: zeroing the
// destination first, as before copyOverwrites, and not.
//
//	go test -run XXX -bench ReflectCopyInto ./
func BenchmarkReflectCopyInto(b *testing.B) {
	src := &cronv1.PeriodicJob{
		ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "report", Labels: map[string]string{"app": "report"}, ResourceVersion: "12"},
		Spec: cronv1.PeriodicJobSpec{IntervalSeconds: 10, JobTemplate: batchv1.JobTemplateSpec{Spec: batchv1.JobSpec{
			Template: corev1.PodTemplateSpec{Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "run", Image: "busybox"}}}},
		}}},
		Status: cronv1.PeriodicJobStatus{Active: []corev1.ObjectReference{{Kind: "Job", Name: "report-1", UID: "u"}}},
	}
	for _, unzeroed := range []bool{false, true} {
		b.Run(map[bool]string{false: "zeroed", true: "unzeroed"}[unzeroed], func(b *testing.B) {
			was := unzeroedCopies
			unzeroedCopies = unzeroed
			defer func() { unzeroedCopies = was }()
			into := &cronv1.PeriodicJob{}
			b.ReportAllocs()
			for b.Loop() {
				reflectCopyInto(src, into)
			}
		})
	}
}
