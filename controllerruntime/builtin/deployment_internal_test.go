package builtin

import (
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// TestTheTemplateHashIsKeptByVersion: the Deployment controller hashes a
// version's template once, gives what hashing it again gives, and keeps a
// bounded number of versions.
func TestTheTemplateHashIsKeptByVersion(t *testing.T) {
	r := &deploymentController{hashes: map[hashKey]string{}}
	d := &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{UID: "u", ResourceVersion: "5"},
		Spec: appsv1.DeploymentSpec{Template: corev1.PodTemplateSpec{
			Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "app", Image: "app:v1"}}}}},
	}
	want := templateHash(&d.Spec.Template)
	assert.Equal(t, want, r.hash(d))
	assert.Equal(t, want, r.hash(d))
	assert.Equal(t, map[hashKey]string{{"u", "5"}: want}, r.hashes)

	next := d.DeepCopy()
	next.ResourceVersion = "6"
	next.Spec.Template.Spec.Containers[0].Image = "app:v2"
	assert.Equal(t, templateHash(&next.Spec.Template), r.hash(next))
	assert.NotEqual(t, want, r.hash(next))
	assert.Len(t, r.hashes, 2)

	for i := range maxHashes {
		d.ResourceVersion = strconv.Itoa(100 + i)
		r.hash(d)
	}
	assert.LessOrEqual(t, len(r.hashes), maxHashes)
}
