package controllerruntime

import (
	"reflect"
	"runtime"
	"strings"
	"testing"

	cronv1 "github.com/converge-sim/converge/controllerruntime/examples/cronjob/api/v1"
	memcachedv1 "github.com/converge-sim/converge/controllerruntime/examples/memcached/api/v1alpha1"
	"github.com/converge-sim/converge/model"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	apiruntime "k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// examplePeriodicJob is a PeriodicJob of the CronJob example with every
// part a reader might modify set.
func examplePeriodicJob() *cronv1.PeriodicJob {
	return &cronv1.PeriodicJob{
		ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "report", Labels: map[string]string{"app": "report"}, ResourceVersion: "12"},
		Spec: cronv1.PeriodicJobSpec{IntervalSeconds: 10, JobTemplate: batchv1.JobTemplateSpec{Spec: batchv1.JobSpec{
			Template: corev1.PodTemplateSpec{Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "run", Image: "busybox"}}}},
		}}},
		Status: cronv1.PeriodicJobStatus{Active: []corev1.ObjectReference{{Kind: "Job", Name: "report-1", UID: "u"}}},
	}
}

// The examples' custom resources pass the self-check, and a custom
// resource's DeepCopyInto is called directly, without reflect.Value.Call
// on the stack, unless SetDirectCopies turns it off. (Neither path
// allocates beyond the copy: reflect.Value.Call keeps its arguments on
// the stack; the cost it adds is CPU, BenchmarkReflectCopyInto.)
func TestCustomResourcesAreCopiedWithoutReflection(t *testing.T) {
	for _, obj := range []client.Object{&cronv1.PeriodicJob{}, &memcachedv1.Memcached{}} {
		assert.NotNil(t, newCopyMethod(reflect.TypeOf(obj)).direct, "%T", obj)
	}
	src, into := examplePeriodicJob(), &cronv1.PeriodicJob{}
	reflectCopyInto(src, into)
	assert.Equal(t, src, into)

	probe := &probeKind{copyKindBase: copyKindBase{ObjectMeta: metav1.ObjectMeta{Name: "a"}}}
	for _, on := range []bool{true, false} {
		restore := SetDirectCopies(on)
		probeViaReflect = !on
		got := &probeKind{}
		reflectCopyInto(probe, got)
		restore()
		assert.Equal(t, probe, got)
		assert.Equal(t, !on, probeViaReflect, "direct copies %v: reflect.Value.Call on the stack", on)
	}
}

// probeKind's DeepCopyInto records whether reflect.Value.Call called it.
type probeKind struct{ copyKindBase }

var probeViaReflect bool

func (in *probeKind) DeepCopyInto(out *probeKind) {
	*out = *in
	pcs := make([]uintptr, 16)
	frames := runtime.CallersFrames(pcs[:runtime.Callers(1, pcs)])
	probeViaReflect = false
	for f, more := frames.Next(); more; f, more = frames.Next() {
		if strings.HasPrefix(f.Function, "reflect.Value.") {
			probeViaReflect = true
		}
	}
}

func (in *probeKind) DeepCopyObject() apiruntime.Object {
	out := new(probeKind)
	in.DeepCopyInto(out)
	return out
}

// A custom resource read out of the memo through the direct call is still
// a deep copy: a reader that modifies it changes neither the memo's entry
// nor a later read, with the direct call on and off.
func TestMemoCopiesOfCustomResourcesAreDeep(t *testing.T) {
	for _, on := range []bool{true, false} {
		restore := SetDirectCopies(on)
		m := memo{}
		kept := examplePeriodicJob()
		m.keep(model.UID("u1"), 12, kept)
		read := &cronv1.PeriodicJob{}
		require.True(t, m.get(model.UID("u1"), 12, read))
		assert.Equal(t, examplePeriodicJob(), read)
		read.Labels["app"] = "changed"
		read.Spec.JobTemplate.Spec.Template.Spec.Containers[0].Image = "changed"
		read.Status.Active[0].Name = "changed"
		read.Status.Active = append(read.Status.Active, corev1.ObjectReference{Name: "extra"})
		assert.Equal(t, examplePeriodicJob(), kept, "direct %v: the memo's entry is untouched", on)
		again := &cronv1.PeriodicJob{}
		require.True(t, m.get(model.UID("u1"), 12, again))
		assert.Equal(t, examplePeriodicJob(), again, "direct %v", on)
		restore()
	}
}

// stampedKind's DeepCopyInto gives every copy a new serial: its direct
// call cannot agree with the reflective one, so the self-check refuses
// it, and its copies go through reflect.Value.Call.
type stampedKind struct {
	copyKindBase
	serial int
}

var stamps int

func (in *stampedKind) DeepCopyInto(out *stampedKind) {
	*out = *in
	stamps++
	out.serial = stamps
}

func (in *stampedKind) DeepCopyObject() apiruntime.Object {
	out := new(stampedKind)
	in.DeepCopyInto(out)
	return out
}

// A DeepCopyInto whose direct call does not give what reflect.Value.Call
// gives keeps the reflective call, and still copies; a method of the
// wrong shape is refused before any call.
func TestADirectCopyThatDisagreesKeepsReflection(t *testing.T) {
	typ := reflect.TypeFor[*stampedKind]()
	c := newCopyMethod(typ)
	require.True(t, c.method.Func.IsValid())
	assert.Nil(t, c.direct)
	src := &stampedKind{copyKindBase: copyKindBase{ObjectMeta: metav1.ObjectMeta{Name: "a"}}}
	into := &stampedKind{}
	reflectCopyInto(src, into)
	assert.Equal(t, "a", into.Name)
	assert.Equal(t, stamps, into.serial)

	m, ok := reflect.TypeFor[*generatedKind]().MethodByName("DeepCopyObject")
	require.True(t, ok)
	assert.Nil(t, directCopyFunc(reflect.TypeFor[*generatedKind](), m), "not func(*T, *T)")
	assert.Nil(t, directCopyFunc(reflect.TypeFor[generatedKind](), m), "not a pointer")
}
