package shared_test

import (
	"context"
	"testing"

	"github.com/converge-sim/converge/controllerruntime/internal/shared"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// one is a Reader that shares one pod, as the adapter's clients share the
// memo's objects.
type one struct {
	client.Reader
	pod *corev1.Pod
}

func (o one) GetShared(context.Context, client.ObjectKey, client.Object) (client.Object, error) {
	return o.pod, nil
}

func (o one) ListShared(context.Context, client.ObjectList, ...client.ListOption) ([]client.Object, error) {
	return []client.Object{o.pod}, nil
}

// TestTheLogNamesASharedObjectThatWasModified: the check the built-in
// controllers are held to fails when a reader modifies what it was shared.
func TestTheLogNamesASharedObjectThatWasModified(t *testing.T) {
	r := one{pod: &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "p", ResourceVersion: "3"}}}
	log, stop := shared.Install()
	defer stop()
	got, err := shared.Get[*corev1.Pod](context.Background(), r, client.ObjectKey{Namespace: "ns", Name: "p"})
	require.NoError(t, err)
	require.Same(t, r.pod, got)
	list, err := shared.List[*corev1.Pod](context.Background(), r, &corev1.PodList{})
	require.NoError(t, err)
	require.Equal(t, []*corev1.Pod{r.pod}, list)
	assert.Equal(t, 2, log.Reads())
	assert.Empty(t, log.Changed(), "only read")

	got.Labels = map[string]string{"changed": "yes"}
	assert.Equal(t, []string{"*v1.Pod ns/p (resourceVersion 3)"}, log.Changed())
}

// TestAClientThatSharesNothingGetsItsOwnObjects: through a client that is
// not a Reader (or with shared reads off), Get and List read as usual.
func TestAClientThatSharesNothingGetsItsOwnObjects(t *testing.T) {
	pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "p"}}
	plain := plainReader{pod: pod}
	r := one{Reader: plain, pod: pod}
	shared.Enabled = false
	defer func() { shared.Enabled = true }()
	for _, c := range []client.Reader{r, plain} {
		got, err := shared.Get[*corev1.Pod](context.Background(), c, client.ObjectKey{Name: "p"})
		require.NoError(t, err)
		assert.NotSame(t, r.pod, got)
		assert.Equal(t, "p", got.Name)
		list, err := shared.List[*corev1.Pod](context.Background(), c, &corev1.PodList{})
		require.NoError(t, err)
		require.Len(t, list, 1)
		assert.NotSame(t, r.pod, list[0])
	}
}

// plainReader copies its one pod out, as a client's Get and List do.
type plainReader struct{ pod *corev1.Pod }

func (p plainReader) Get(_ context.Context, _ client.ObjectKey, obj client.Object, _ ...client.GetOption) error {
	p.pod.DeepCopyInto(obj.(*corev1.Pod))
	return nil
}

func (p plainReader) List(_ context.Context, list client.ObjectList, _ ...client.ListOption) error {
	list.(*corev1.PodList).Items = []corev1.Pod{*p.pod.DeepCopy()}
	return nil
}
