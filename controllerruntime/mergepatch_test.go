package controllerruntime

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/converge-sim/converge/controllerruntime/convert"
	"github.com/converge-sim/converge/model"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/intstr"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"pgregory.net/rapid"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// patchOutcome is what one patch did: its error, the object the caller
// got back, and the stored object, each rendered in full.
type patchOutcome struct {
	err      string
	returned string
	stored   string
}

// dumpModel renders every field of a model object the server keeps.
func dumpModel(mo *model.Object) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s %s/%s uid=%s rv=%d gen=%d created=%d gn=%q fin=%v owners=%v",
		mo.Kind, mo.Namespace, mo.Name, mo.UID, mo.ResourceVersion, mo.Generation, mo.CreationTimestamp, mo.GenerateName, mo.Finalizers, mo.OwnerReferences)
	if mo.DeletionTimestamp != nil {
		fmt.Fprintf(&b, " deleted=%d", *mo.DeletionTimestamp)
	}
	for k, v := range mo.Labels.All() {
		fmt.Fprintf(&b, "\n label %s=%s", k, v)
	}
	for k, v := range mo.Spec.All() {
		fmt.Fprintf(&b, "\n spec %s=%#v", k, v)
	}
	for k, v := range mo.Status.All() {
		fmt.Fprintf(&b, "\n status %s=%#v", k, v)
	}
	return b.String()
}

var patchConv = func() *convert.Converter {
	c, err := convert.New(clientgoscheme.Scheme, convert.Options{})
	if err != nil {
		panic(err)
	}
	return c
}()

// patchPath is the path a test's merge patch takes.
type patchPath int

const (
	// throughJSON: the stored object encoded, patched and decoded.
	throughJSON patchPath = iota
	// mapsMerge: convert.Converter.MergePatch, the patch read by
	// encoding/json and merged into the stored part's unflattened maps.
	mapsMerge
	// keptMerge: the same, the patch read by the converter's own reader,
	// and the target read before it is patched (as a user's read, change
	// and patch does), so that the patch is merged into a copy of its
	// parts' kept decodes.
	keptMerge
)

// patchWith applies p to a copy of target, through a fresh manager whose
// server holds setup's objects (created, then each updated once), by the
// path given.
func patchWith(t require.TestingT, path patchPath, setup []client.Object, target client.Object, p client.Patch, status bool) (patchOutcome, bool) {
	restore := fastMergePatch
	fastMergePatch = path != throughJSON
	typed, scan := convert.SetTypedMerge(path == keptMerge), convert.SetScanMergePatch(path == keptMerge)
	defer func() {
		fastMergePatch = restore
		convert.SetTypedMerge(typed)
		convert.SetScanMergePatch(scan)
	}()
	conv := patchConv
	m, err := NewManager(model.NewCluster(model.Config{}), conv, ManagerOptions{})
	require.NoError(t, err)
	c := m.OutsideClient("user")
	ctx := context.Background()
	for _, o := range setup {
		o = o.DeepCopyObject().(client.Object)
		require.NoError(t, c.Create(ctx, o))
		o.SetLabels(map[string]string{"updated": "yes"})
		require.NoError(t, c.Update(ctx, o))
	}
	if path == keptMerge {
		read := target.DeepCopyObject().(client.Object)
		require.NoError(t, c.Get(ctx, client.ObjectKeyFromObject(target), read))
	}
	obj := target.DeepCopyObject().(client.Object)
	kind, err := conv.Kind(target)
	require.NoError(t, err)
	var took bool
	if cur, err := m.Cluster().Server().Get(kind, target.GetNamespace(), target.GetName()); err == nil && p.Type() == types.MergePatchType {
		data, err := p.Data(obj)
		require.NoError(t, err)
		next, err := conv.New(kind)
		require.NoError(t, err)
		took = conv.MergePatch(cur, data, next)
	}
	if status {
		err = c.Status().Patch(ctx, obj, p)
	} else {
		err = c.Patch(ctx, obj, p)
	}
	var out patchOutcome
	if err != nil {
		code := int32(0)
		if s, ok := err.(apierrors.APIStatus); ok {
			code = s.Status().Code
		}
		out.err = fmt.Sprintf("%d %v", code, err)
	}
	back, err := conv.ToModel(obj)
	if err == nil {
		out.returned = dumpModel(back)
	} else {
		out.returned = "error: " + err.Error()
	}
	if mo, err := m.Cluster().Server().Get(kind, target.GetNamespace(), target.GetName()); err == nil {
		out.stored = dumpModel(mo)
	}
	return out, took
}

func testReplicaSet() *appsv1.ReplicaSet {
	return &appsv1.ReplicaSet{
		ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "web", Labels: map[string]string{"app": "web"},
			Annotations: map[string]string{"note": "a"}, Finalizers: []string{"example.com/keep"}},
		Spec: appsv1.ReplicaSetSpec{
			Replicas: new(int32(3)),
			Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "web"}},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": "web"}},
				Spec: corev1.PodSpec{
					Containers:   []corev1.Container{{Name: "app", Image: "app:v1", Args: []string{"-a", "-b"}}},
					NodeSelector: map[string]string{"disk": "ssd", "zone": "a"},
				},
			},
		},
	}
}

// TestMergePatchFastPathAgreesWithJSON: a JSON merge patch applied to the
// stored object's body (convert.Converter.MergePatch) stores the object,
// returns the object and fails with the error the path through JSON
// gives, on patches chosen for encoding/json's edge cases; and it takes
// the plain ones.
func TestMergePatchFastPathAgreesWithJSON(t *testing.T) {
	rs := testReplicaSet()
	raw := func(s string) client.Patch { return client.RawPatch(types.MergePatchType, []byte(s)) }
	cases := []struct {
		name   string
		patch  client.Patch
		status bool
		fast   bool // the fast path takes it
	}{
		{"replicas", raw(`{"spec":{"replicas":5}}`), false, true},
		{"replicas as zero", raw(`{"spec":{"replicas":0}}`), false, true},
		{"replicas deleted", raw(`{"spec":{"replicas":null}}`), false, true},
		{"image in a replaced array", raw(`{"spec":{"template":{"spec":{"containers":[{"name":"app","image":"app:v2"}]}}}}`), false, true},
		{"a map key deleted, another added", raw(`{"spec":{"template":{"spec":{"nodeSelector":{"zone":null,"rack":"r1"}}}}}`), false, true},
		{"a whole map deleted", raw(`{"spec":{"template":{"spec":{"nodeSelector":null}}}}`), false, true},
		{"a new map with a null pruned", raw(`{"spec":{"template":{"metadata":{"annotations":{"a":"1","b":null}}}}}`), false, true},
		{"a new object with nulls pruned", raw(`{"spec":{"template":{"spec":{"securityContext":{"runAsUser":7,"fsGroup":null}}}}}`), false, true},
		{"an object replacing a scalar", raw(`{"spec":{"minReadySeconds":{"x":1}}}`), false, false},
		{"a null element in an array", raw(`{"spec":{"template":{"spec":{"containers":[null,{"name":"b","image":"b"}]}}}}`), false, true},
		{"args emptied", raw(`{"spec":{"template":{"spec":{"containers":[{"name":"app","image":"i","args":[]}]}}}}`), false, true},
		{"metadata labels", raw(`{"metadata":{"labels":{"app":null,"tier":"front"}}}`), false, true},
		{"metadata and spec", raw(`{"metadata":{"annotations":{"note":"b"}},"spec":{"replicas":1}}`), false, true},
		{"a finalizer removed", raw(`{"metadata":{"finalizers":null}}`), false, true},
		{"an optimistic lock that holds", raw(`{"metadata":{"resourceVersion":"2"},"spec":{"replicas":4}}`), false, true},
		{"an optimistic lock that fails", raw(`{"metadata":{"resourceVersion":"1"},"spec":{"replicas":4}}`), false, true},
		{"a rename", raw(`{"metadata":{"name":"other"}}`), false, true},
		{"status through the status subresource", raw(`{"status":{"replicas":3,"readyReplicas":2}}`), true, true},
		{"spec through the status subresource is ignored", raw(`{"spec":{"replicas":9},"status":{"replicas":1}}`), true, true},
		{"status through the main resource is ignored", raw(`{"spec":{"replicas":2},"status":{"replicas":5}}`), false, true},
		{"a string where an integer goes", raw(`{"spec":{"replicas":"5"}}`), false, false},
		{"an array where an object goes", raw(`{"spec":{"template":[]}}`), false, false},
		{"env in a container", raw(`{"spec":{"template":{"spec":{"containers":[{"name":"a","image":"a","env":[{"name":"X","value":"1"}]}]}}}}`), false, true},
		{"an unknown field", raw(`{"spec":{"noSuchField":1}}`), false, false},
		{"a key in another case", raw(`{"spec":{"Replicas":7}}`), false, false},
		{"a key in another case beside its own", raw(`{"spec":{"Replicas":7,"replicas":6}}`), false, false},
		{"a top-level key in another case", raw(`{"Spec":{"replicas":7}}`), false, false},
		{"an integer as a float literal", raw(`{"spec":{"replicas":3.0}}`), false, false},
		{"an exponent", raw(`{"spec":{"replicas":1e1}}`), false, false},
		{"a fraction", raw(`{"spec":{"replicas":1.5}}`), false, false},
		{"an int32 overflow", raw(`{"spec":{"replicas":3000000000}}`), false, false},
		{"an int64 overflow", raw(`{"spec":{"replicas":30000000000000000000}}`), false, false},
		{"a negative unsigned-free field", raw(`{"spec":{"replicas":-1}}`), false, true},
		{"a null inside an object in an array", raw(`{"spec":{"template":{"spec":{"containers":[{"name":"app","image":null}]}}}}`), false, false},
		{"a kind change", raw(`{"kind":"Pod"}`), false, false},
		{"metadata null", raw(`{"metadata":null}`), false, false},
		{"metadata a string", raw(`{"metadata":"x"}`), false, false},
		{"malformed", raw(`{"spec":`), false, false},
		{"trailing garbage", raw(`{"spec":{}} x`), false, false},
		{"an array", raw(`[{"spec":{}}]`), false, false},
		{"null", raw(`null`), false, false},
		{"a string", raw(`"x"`), false, false},
		{"empty", raw(``), false, false},
		{"empty object", raw(`{}`), false, true},
		{"from a typed diff", client.MergeFrom(func() *appsv1.ReplicaSet { b := rs.DeepCopy(); b.Spec.Replicas = new(int32(1)); return b }()), false, true},
		{"strategic", client.RawPatch(types.StrategicMergePatchType, []byte(`{"spec":{"template":{"spec":{"containers":[{"name":"side","image":"s"}]}}}}`)), false, false},
		{"json patch", client.RawPatch(types.JSONPatchType, []byte(`[{"op":"replace","path":"/spec/replicas","value":6}]`)), false, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			fast, took := patchWith(t, mapsMerge, []client.Object{rs}, rs, c.patch, c.status)
			slow, _ := patchWith(t, throughJSON, []client.Object{rs}, rs, c.patch, c.status)
			kept, keptTook := patchWith(t, keptMerge, []client.Object{rs}, rs, c.patch, c.status)
			assert.Equal(t, slow, fast)
			assert.Equal(t, slow, kept, "merged into the kept decodes")
			assert.Equal(t, c.fast, took, "whether the fast path takes the patch")
			assert.Equal(t, c.fast, keptTook, "whether the fast path takes the patch after a read")
		})
	}
}

// TestMergePatchFastPathAgreesWithJSONOnAnyPatch: the same, for patches
// rapid draws, both random JSON over names of the ReplicaSet's and the
// Pod's fields (in other cases too) and merge patches controller-runtime
// computes from random edits of the object, applied to random ReplicaSets
// and Pods (quantities, int-or-strings, timestamps).
func TestMergePatchFastPathAgreesWithJSONOnAnyPatch(t *testing.T) {
	var checks, taken, written int
	// compare patches obj both ways and counts what the fast path took.
	compare := func(rt *rapid.T, obj client.Object, p client.Patch, status bool) {
		path := mapsMerge
		if rapid.Bool().Draw(rt, "readFirst") {
			path = keptMerge
		}
		fast, took := patchWith(rt, path, []client.Object{obj}, obj, p, status)
		slow, _ := patchWith(rt, throughJSON, []client.Object{obj}, obj, p, status)
		require.Equal(rt, slow, fast)
		checks++
		if took {
			taken++
			if fast.err == "" {
				written++
			}
		}
	}
	rapid.Check(t, func(rt *rapid.T) {
		var p client.Patch
		if rapid.IntRange(0, 3).Draw(rt, "pod") == 0 {
			pod := drawPod(rt)
			v := map[string]any{rapid.SampledFrom([]string{"spec", "status", "metadata"}).Draw(rt, "top"): drawJSON(rt, 1)}
			d, err := json.Marshal(v)
			require.NoError(rt, err)
			p = client.RawPatch(types.MergePatchType, d)
			compare(rt, pod, p, rapid.Bool().Draw(rt, "status"))
			return
		}
		rs := drawReplicaSet(rt)
		if rapid.Bool().Draw(rt, "typed") {
			base := rs.DeepCopy()
			edited := drawReplicaSet(rt)
			edited.ObjectMeta = *base.ObjectMeta.DeepCopy()
			if rapid.Bool().Draw(rt, "editLabels") {
				edited.Labels = rapid.MapOfN(rapid.SampledFrom([]string{"app", "tier", "x"}), rapid.SampledFrom([]string{"a", "b"}), 0, 3).Draw(rt, "labels")
			}
			d, err := client.MergeFrom(base).Data(edited)
			require.NoError(rt, err)
			p = client.RawPatch(types.MergePatchType, d)
		} else {
			v := drawJSON(rt, 0)
			if rapid.IntRange(0, 9).Draw(rt, "wrap") > 0 {
				v = map[string]any{rapid.SampledFrom([]string{"spec", "spec", "spec", "status", "metadata", "Spec"}).Draw(rt, "top"): v}
			}
			d, err := json.Marshal(v)
			require.NoError(rt, err)
			p = client.RawPatch(types.MergePatchType, d)
		}
		compare(rt, rs, p, rapid.IntRange(0, 4).Draw(rt, "status") == 0)
	})
	t.Logf("the fast path took %d of %d patches, %d of them written", taken, checks, written)
	assert.Positive(t, written, "the fast path took patches that were written")
}

var patchNames = []string{"replicas", "Replicas", "minReadySeconds", "template", "spec", "metadata", "labels", "annotations",
	"containers", "name", "image", "Image", "args", "nodeSelector", "activeDeadlineSeconds", "selector", "matchLabels",
	"readyReplicas", "observedGeneration", "finalizers", "resourceVersion", "conditions", "type", "status", "ports",
	"containerPort", "resources", "limits", "requests", "cpu", "memory", "securityContext", "runAsUser", "env", "value",
	"phase", "startTime", "lastTransitionTime", "podIP", "containerStatuses", "ready", "restartCount", "livenessProbe",
	"httpGet", "port", "path", "x"}

// drawJSON draws a JSON value whose numbers are literals of every form.
func drawJSON(t *rapid.T, depth int) any {
	kinds := 6
	if depth >= 4 {
		kinds = 4
	}
	switch rapid.IntRange(0, kinds-1).Draw(t, "kind") {
	case 0:
		return nil
	case 1:
		return json.Number(rapid.SampledFrom([]string{"0", "1", "-1", "3", "7", "1.5", "2.0", "1e2", "3000000000", "-3000000000",
			"9007199254740993", "99999999999999999999"}).Draw(t, "number"))
	case 2:
		return rapid.SampledFrom([]string{"", "a", "web", "app:v2", "100m", "0.5", "2Gi", "1000m", "true", "AAAA", "!!", "http",
			"Running", "2025-01-01T00:00:05Z", "2025-01-01T00:00:05.5Z", "8080"}).Draw(t, "string")
	case 3:
		return rapid.Bool().Draw(t, "bool")
	case 4:
		n := rapid.IntRange(0, 3).Draw(t, "len")
		l := make([]any, n)
		for i := range l {
			l[i] = drawJSON(t, depth+1)
		}
		return l
	default:
		n := rapid.IntRange(0, 3).Draw(t, "keys")
		m := map[string]any{}
		for range n {
			m[rapid.SampledFrom(patchNames).Draw(t, "key")] = drawJSON(t, depth+1)
		}
		return m
	}
}

// drawReplicaSet draws a ReplicaSet named web with a random spec.
func drawReplicaSet(t *rapid.T) *appsv1.ReplicaSet {
	rs := testReplicaSet()
	if rapid.Bool().Draw(t, "noReplicas") {
		rs.Spec.Replicas = nil
	} else {
		rs.Spec.Replicas = new(rapid.Int32Range(0, 5).Draw(t, "replicas"))
	}
	rs.Spec.MinReadySeconds = rapid.Int32Range(0, 2).Draw(t, "minReady")
	ps := &rs.Spec.Template.Spec
	ps.NodeSelector = rapid.MapOfN(rapid.SampledFrom([]string{"disk", "zone", "rack"}), rapid.SampledFrom([]string{"a", "b"}), 0, 3).Draw(t, "nodeSelector")
	n := rapid.IntRange(1, 3).Draw(t, "containers")
	ps.Containers = nil
	for i := range n {
		c := corev1.Container{Name: fmt.Sprintf("c%d", i), Image: rapid.SampledFrom([]string{"a:v1", "a:v2"}).Draw(t, "image")}
		c.Args = rapid.SliceOfN(rapid.SampledFrom([]string{"-a", "-b"}), 0, 2).Draw(t, "args")
		if len(c.Args) == 0 {
			c.Args = nil
		}
		ps.Containers = append(ps.Containers, c)
	}
	if rapid.Bool().Draw(t, "deadline") {
		ps.ActiveDeadlineSeconds = new(int64(rapid.IntRange(1, 100).Draw(t, "seconds")))
	}
	return rs
}

// drawPod draws a Pod named web with resources, a probe and a status.
func drawPod(t *rapid.T) *corev1.Pod {
	p := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "web", Labels: map[string]string{"app": "web"}},
		Spec: corev1.PodSpec{Containers: []corev1.Container{{
			Name: "app", Image: "app:v1",
			Resources: corev1.ResourceRequirements{Limits: corev1.ResourceList{
				corev1.ResourceCPU: resource.MustParse(rapid.SampledFrom([]string{"100m", "1", "1500m"}).Draw(t, "cpu"))}},
		}}},
		Status: corev1.PodStatus{Phase: corev1.PodPending},
	}
	if rapid.Bool().Draw(t, "probe") {
		p.Spec.Containers[0].LivenessProbe = &corev1.Probe{ProbeHandler: corev1.ProbeHandler{
			HTTPGet: &corev1.HTTPGetAction{Path: "/", Port: intstr.FromInt32(rapid.Int32Range(1, 9000).Draw(t, "port"))}}}
	}
	if rapid.Bool().Draw(t, "started") {
		p.Status.StartTime = &metav1.Time{Time: time.Date(2025, 1, 1, 0, 0, rapid.IntRange(0, 59).Draw(t, "second"), 0, time.UTC)}
	}
	return p
}

// TestMergePatchDeclinesSubSecondTimes: with a tick finer than a second
// the JSON path truncates the metadata's timestamps, so the fast path
// leaves such a converter's patches to it.
func TestMergePatchDeclinesSubSecondTimes(t *testing.T) {
	stored, err := patchConv.ToModel(testReplicaSet())
	require.NoError(t, err)
	stored.UID, stored.ResourceVersion, stored.Generation, stored.CreationTimestamp = "u", 2, 1, 3
	data := []byte(`{"spec":{"replicas":1}}`)
	assert.True(t, patchConv.MergePatch(stored, data, &appsv1.ReplicaSet{}))
	fine, err := convert.New(clientgoscheme.Scheme, convert.Options{Tick: 500 * time.Millisecond})
	require.NoError(t, err)
	assert.False(t, fine.MergePatch(stored, data, &appsv1.ReplicaSet{}))
}

// TestMergePatchOfInvalidUTF8AgreesWithJSON: encoding/json replaces the
// bytes of a string that is not valid UTF-8, so the fast path leaves an
// object holding one to the JSON path.
func TestMergePatchOfInvalidUTF8AgreesWithJSON(t *testing.T) {
	rs := testReplicaSet()
	rs.Spec.Template.Spec.Containers[0].Args = []string{"-a\xff"}
	p := client.RawPatch(types.MergePatchType, []byte(`{"spec":{"replicas":1}}`))
	fast, took := patchWith(t, keptMerge, []client.Object{rs}, rs, p, false)
	slow, _ := patchWith(t, throughJSON, []client.Object{rs}, rs, p, false)
	assert.Equal(t, slow, fast)
	assert.False(t, took)
	assert.NotContains(t, fast.stored, `\xff`, "the JSON path replaced the byte")
}
