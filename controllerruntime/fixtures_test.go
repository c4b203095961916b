package controllerruntime_test

import (
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// replicaSetSpec is a ReplicaSet spec the API server accepts (package
// admit): a selector app=web and a template of one container it selects.
func replicaSetSpec(replicas *int32) appsv1.ReplicaSetSpec {
	labels := map[string]string{"app": "web"}
	return appsv1.ReplicaSetSpec{
		Replicas: replicas,
		Selector: &metav1.LabelSelector{MatchLabels: labels},
		Template: corev1.PodTemplateSpec{
			ObjectMeta: metav1.ObjectMeta{Labels: labels},
			Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "app", Image: "app:v1"}}},
		},
	}
}
