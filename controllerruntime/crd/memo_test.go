package crd_test

import (
	"fmt"
	"testing"

	"github.com/converge-sim/converge/controllerruntime/crd"
	"github.com/converge-sim/converge/controllerruntime/examples/schemaops"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// admissionStory writes to a fresh cluster serving crds what a run does:
// creates that get defaults, creates and updates the schema rejects,
// status updates, a transition rule's rejection. It returns every error,
// with its causes, and every object as the server stored it.
func admissionStory(t *testing.T, crds *crd.Set) []string {
	t.Helper()
	c := outside(t, crds, crd.Options{})
	var out []string
	note := func(err error) {
		if err != nil {
			out = append(out, fmt.Sprintf("%v %q", err, causes(t, err)))
			return
		}
		out = append(out, "ok")
	}
	stored := func(obj client.Object) {
		require.NoError(t, c.Get(ctx, client.ObjectKeyFromObject(obj), obj))
		out = append(out, fmt.Sprintf("%+v", obj))
	}

	b := batch("b")
	note(c.Create(ctx, b))
	stored(b)
	bad := batch("bad")
	bad.Spec.Parallelism, bad.Spec.Image = 60, "Not An Image"
	note(c.Create(ctx, bad))
	for i := range 11 {
		b.Status.Active = append(b.Status.Active, fmt.Sprintf("pod-%d", i))
	}
	note(c.Status().Update(ctx, b))
	b.Status.Active = b.Status.Active[:3]
	note(c.Status().Update(ctx, b))
	stored(b)

	a := &schemaops.App{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "shop"},
		Spec: schemaops.AppSpec{Image: "shop:v1", StorageClass: "standard"}}
	note(c.Create(ctx, a))
	a.Spec.StorageClass = "fast"
	note(c.Update(ctx, a))
	a.Spec.StorageClass, a.Spec.Image = "standard", "shop:v2"
	note(c.Update(ctx, a))
	stored(a)
	return out
}

// TestAWriteAdmittedAgainGivesWhatItGaveFirst: runs that share a Set, as
// an exploration's do, admit the same writes from its memo, with the same
// defaults, rejections and causes as admitting them anew.
func TestAWriteAdmittedAgainGivesWhatItGaveFirst(t *testing.T) {
	shared := load(t)
	first := admissionStory(t, shared)
	remembered := crd.Remembered(shared)
	require.Positive(t, remembered)
	assert.Contains(t, first, "ok")
	assert.Contains(t, fmt.Sprint(first), "storageClass is immutable")
	assert.Contains(t, fmt.Sprint(first), "must have at most 10 items")

	again := admissionStory(t, shared)
	assert.Equal(t, first, again)
	assert.Equal(t, remembered, crd.Remembered(shared), "the second run's writes are the first's: all from the memo")
	assert.Equal(t, first, admissionStory(t, load(t)), "and the same as a Set that remembers nothing")
}

// TestRejectionsListTheirCausesInOneOrder: the schema validator meets an
// object's properties in a map's order; a rejection's causes, and its
// message, come sorted by field all the same, so that every run writes
// the same trace.
func TestRejectionsListTheirCausesInOneOrder(t *testing.T) {
	var first error
	for range 20 {
		c := outside(t, load(t), crd.Options{})
		bad := batch("bad")
		bad.Spec.Parallelism, bad.Spec.Image = 60, "Not An Image"
		err := c.Create(ctx, bad)
		got := causes(t, err)
		require.Len(t, got, 2)
		assert.Contains(t, got[0], "spec.image: ")
		assert.Contains(t, got[1], "spec.parallelism: ")
		if first == nil {
			first = err
		}
		assert.Equal(t, first.Error(), err.Error())
	}
}
