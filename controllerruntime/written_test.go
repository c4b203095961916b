package controllerruntime

import (
	"context"
	"fmt"
	"reflect"
	"testing"
	"time"

	"github.com/converge-sim/converge/controllerruntime/convert"
	"github.com/converge-sim/converge/model"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"pgregory.net/rapid"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/randfill"
)

// drawStatusInstant is a timestamp as a writer may hold it: whole or
// sub-second, in UTC, the local zone or another, or zero.
func drawStatusInstant(t *rapid.T) metav1.Time {
	if rapid.IntRange(0, 5).Draw(t, "zeroTime") == 0 {
		return metav1.Time{}
	}
	at := time.Unix(1735689600+rapid.Int64Range(0, 600).Draw(t, "second"), 0)
	if rapid.Bool().Draw(t, "subSecond") {
		at = at.Add(time.Duration(rapid.Int64Range(1, 999).Draw(t, "ms")) * time.Millisecond)
	}
	zones := []*time.Location{time.UTC, time.Local, time.FixedZone("x", 5*3600+1800)}
	return metav1.Time{Time: at.In(rapid.SampledFrom(zones).Draw(t, "zone"))}
}

// drawStatus fills obj's status at random (randfill, seeded by rapid, with
// timestamps of every kind), as a reconciler writing its status might.
func drawStatus(t *rapid.T, obj client.Object) {
	f := randfill.NewWithSeed(rapid.Int64().Draw(t, "statusSeed")).NilChance(0.4).NumElements(0, 2).MaxDepth(6).Funcs(
		func(tm *metav1.Time, _ randfill.Continue) { *tm = drawStatusInstant(t) },
		func(q *resource.Quantity, c randfill.Continue) {
			*q = resource.MustParse([]string{"0", "100m", "2Gi"}[c.Rand.Intn(3)])
		},
		func(s *string, c randfill.Continue) { *s = []string{"", "a", "Running", "x.y"}[c.Rand.Intn(4)] },
	)
	switch o := obj.(type) {
	case *corev1.Pod:
		o.Status = corev1.PodStatus{}
		f.Fill(&o.Status)
	case *appsv1.ReplicaSet:
		o.Status = appsv1.ReplicaSetStatus{}
		f.Fill(&o.Status)
	case *batchv1.Job:
		o.Status = batchv1.JobStatus{}
		f.Fill(&o.Status)
	}
}

// drawJob draws a Job named web.
func drawJob(t *rapid.T) *batchv1.Job {
	j := &batchv1.Job{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "web"}}
	j.Spec.Template.Spec.Containers = []corev1.Container{{Name: "app", Image: rapid.SampledFrom([]string{"a:v1", "a:v2"}).Draw(t, "jobImage")}}
	j.Spec.Template.Spec.RestartPolicy = corev1.RestartPolicyNever
	if rapid.Bool().Draw(t, "backoff") {
		j.Spec.BackoffLimit = new(rapid.Int32Range(0, 6).Draw(t, "backoffLimit"))
	}
	return j
}

// writeOutcome is what one write did: its error, and the object the
// caller got back and a Get after it, each as the fields' decode
// compares them.
type writeOutcome struct {
	err      string
	returned client.Object
	read     client.Object
}

// TestTheAnswerToAWriteIsAFreshDecode: after every write through the
// client (create, update, status update, merge patch) of Pods,
// ReplicaSets and Jobs with random specs and statuses (nil and empty
// lists, null elements, timestamps of every kind, a status the server
// ignores or resets), the object the caller gets back, and what a Get
// reads of that version through the memo, is exactly what a fresh
// decode of the stored version gives (reflect.DeepEqual), and the same as
// with the written version decoded from the stored fields; and the round
// trip made some of them.
func TestTheAnswerToAWriteIsAFreshDecode(t *testing.T) {
	ref, err := convert.New(clientgoscheme.Scheme, convert.Options{})
	require.NoError(t, err)
	before := convert.RoundTrips()
	writes := 0
	rapid.Check(t, func(rt *rapid.T) {
		var obj client.Object
		switch rapid.IntRange(0, 2).Draw(rt, "kind") {
		case 0:
			obj = drawPod(rt)
		case 1:
			obj = drawReplicaSet(rt)
			obj.SetFinalizers(nil)
		default:
			obj = drawJob(rt)
		}
		drawStatus(rt, obj)
		type op struct {
			name  string
			patch []byte
			edit  func(client.Object)
		}
		// withStatus draws a status now, for an edit that sets it (a copy)
		// when a run makes the write.
		withStatus := func() func(client.Object) {
			st := obj.DeepCopyObject().(client.Object)
			drawStatus(rt, st)
			return func(o client.Object) {
				from := reflect.ValueOf(st.DeepCopyObject()).Elem().FieldByName("Status")
				reflect.ValueOf(o).Elem().FieldByName("Status").Set(from)
			}
		}
		var ops []op
		for i := range rapid.IntRange(1, 5).Draw(rt, "ops") {
			switch rapid.IntRange(0, 5).Draw(rt, "op") {
			case 0, 1:
				ops = append(ops, op{name: "status", edit: withStatus()})
			case 2:
				ops = append(ops, op{name: "status", edit: func(client.Object) {}})
			case 3:
				set := func(client.Object) {}
				if rapid.Bool().Draw(rt, "statusToo") {
					set = withStatus() // an update ignores it
				}
				ops = append(ops, op{name: "update", edit: func(o client.Object) {
					o.SetLabels(map[string]string{"op": fmt.Sprint(i)})
					set(o)
				}})
			case 4:
				ops = append(ops, op{name: "patch", patch: []byte(fmt.Sprintf(`{"metadata":{"labels":{"patched":"%d"}}}`, i))})
			default:
				ops = append(ops, op{name: "statusPatch", patch: []byte(`{"status":{"conditions":null}}`)})
			}
		}
		run := func(on bool) []writeOutcome {
			was := sentDecode
			sentDecode = on
			defer func() { sentDecode = was }()
			m, err := NewManager(model.NewCluster(model.Config{}), patchConv, ManagerOptions{})
			require.NoError(rt, err)
			c := m.OutsideClient("user")
			ctx := context.Background()
			o := obj.DeepCopyObject().(client.Object)
			var outs []writeOutcome
			record := func(err error) {
				out := writeOutcome{}
				if err != nil {
					out.err = err.Error()
				} else {
					out.returned = o.DeepCopyObject().(client.Object)
					kind, err := patchConv.Kind(o)
					require.NoError(rt, err)
					stored, err := m.Cluster().Server().Get(kind, o.GetNamespace(), o.GetName())
					require.NoError(rt, err)
					fresh := reflect.New(reflect.TypeOf(o).Elem()).Interface().(client.Object)
					require.NoError(rt, ref.FromModel(stored, fresh))
					require.Equal(rt, fresh, o, "the answer is the stored version's decode")
					out.read = reflect.New(reflect.TypeOf(o).Elem()).Interface().(client.Object)
					require.NoError(rt, c.Get(ctx, client.ObjectKeyFromObject(o), out.read))
					require.Equal(rt, fresh, out.read, "a read of that version is its decode")
					writes++
				}
				outs = append(outs, out)
			}
			record(c.Create(ctx, o))
			for _, p := range ops {
				if p.edit != nil {
					p.edit(o)
				}
				switch p.name {
				case "status":
					record(c.Status().Update(ctx, o))
				case "update":
					record(c.Update(ctx, o))
				case "patch":
					record(c.Patch(ctx, o, client.RawPatch("application/merge-patch+json", p.patch)))
				default:
					record(c.Status().Patch(ctx, o, client.RawPatch("application/merge-patch+json", p.patch)))
				}
			}
			return outs
		}
		// First with the round trip, whose parts the converter then
		// keeps: the second run finds them by content.
		with := run(true)
		require.Equal(rt, run(false), with)
	})
	tripped := convert.RoundTrips() - before
	t.Logf("%d writes compared; %d parts made by the round trip", writes, tripped)
	assert.Positive(t, tripped, "the round trip made parts of written versions")
}

// TestAWrittenStatusIsNotDecodedAgain: a status update that changes the
// status is answered from the status sent (its round trip), not decoded
// from the stored fields, and without Unflatten's maps: the answer takes
// fewer allocations than with the path off. A Pod's status of four
// conditions and two container statuses, changed at each update.
func TestAWrittenStatusIsNotDecodedAgain(t *testing.T) {
	allocs := func(on bool) float64 {
		was := sentDecode
		sentDecode = on
		defer func() { sentDecode = was }()
		m, err := NewManager(model.NewCluster(model.Config{}), patchConv, ManagerOptions{})
		require.NoError(t, err)
		c := m.OutsideClient("user")
		ctx := context.Background()
		pod := drawnPodWithStatus()
		status := pod.Status
		require.NoError(t, c.Create(ctx, pod)) // which drops the status
		pod.Status = status
		n := 0
		return testing.AllocsPerRun(50, func() {
			n++
			pod.Status.ContainerStatuses[0].RestartCount = int32(n)
			require.NoError(t, c.Status().Update(ctx, pod))
		})
	}
	before := convert.RoundTrips()
	with := allocs(true)
	tripped := convert.RoundTrips() - before
	without := allocs(false)
	t.Logf("allocations a status update: %.0f made from what was sent, %.0f decoded", with, without)
	assert.GreaterOrEqual(t, tripped, int64(50), "every update's status was made by the round trip")
	assert.Less(t, with, without)
}

// drawnPodWithStatus is a Pod with a kubelet's status.
func drawnPodWithStatus() *corev1.Pod {
	now := metav1.NewTime(time.Unix(1735689600, 0).UTC())
	pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "web"},
		Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "app", Image: "app:v1"}, {Name: "side", Image: "side:v1"}}}}
	pod.Status = corev1.PodStatus{Phase: corev1.PodRunning, StartTime: &now, HostIP: "10.0.0.1", PodIP: "10.1.0.1",
		PodIPs: []corev1.PodIP{{IP: "10.1.0.1"}}, QOSClass: corev1.PodQOSBestEffort}
	for _, c := range []corev1.PodConditionType{corev1.PodScheduled, corev1.PodInitialized, corev1.ContainersReady, corev1.PodReady} {
		pod.Status.Conditions = append(pod.Status.Conditions, corev1.PodCondition{Type: c, Status: corev1.ConditionTrue, LastTransitionTime: now})
	}
	for _, c := range pod.Spec.Containers {
		pod.Status.ContainerStatuses = append(pod.Status.ContainerStatuses, corev1.ContainerStatus{Name: c.Name, Image: c.Image, Ready: true,
			State: corev1.ContainerState{Running: &corev1.ContainerStateRunning{StartedAt: now}}})
	}
	return pod
}
