package admit

import (
	"testing"

	"github.com/converge-sim/converge/controllerruntime/convert"
	"github.com/converge-sim/converge/model"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
)

// TestDefaultsKeepsItsResults: the second write of a content is answered
// from the memo, and a content that differs (another image) is not.
// Without the memo, nothing is kept and the test fails.
func TestDefaultsKeepsItsResults(t *testing.T) {
	conv, err := convert.New(clientgoscheme.Scheme, convert.Options{})
	require.NoError(t, err)
	pod := func(name, image string) *model.Object {
		mo, err := conv.ToModel(&corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: name},
			Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "app", Image: image}}}})
		require.NoError(t, err)
		return mo
	}
	first := pod("a", "app:v1")
	require.NoError(t, Defaults(conv)("user", model.VerbCreate, nil, first))
	_, ok := memoOf(conv).lookup(pod("b", "app:v1"))
	assert.True(t, ok, "a pod of the same spec is answered from the memo")
	_, ok = memoOf(conv).lookup(pod("c", "app:v2"))
	assert.False(t, ok)
	second := pod("b", "app:v1")
	require.NoError(t, Defaults(conv)("user", model.VerbCreate, nil, second))
	assert.True(t, first.Spec.Equal(second.Spec))
	assert.Len(t, memoOf(conv).kept["Pod"], 1)
}
