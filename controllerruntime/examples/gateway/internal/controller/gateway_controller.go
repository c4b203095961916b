// Package controller holds the Gateway reconciler, as a kubebuilder
// project lays it out.
package controller

import (
	"context"
	"fmt"
	"hash/fnv"
	"maps"
	"slices"
	"strconv"

	netv1alpha1 "github.com/converge-sim/converge/controllerruntime/examples/gateway/api/v1alpha1"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// GatewayReconciler reconciles a Gateway object: a Deployment of proxy
// pods named after it, and the proxy's ConfigMap <name>-proxy. The pod
// template carries the configuration's checksum, so a change of the
// configuration rolls the pods out (a new ReplicaSet; the old one is kept,
// scaled to zero, as revision history).
type GatewayReconciler struct {
	client.Client
	Scheme *runtime.Scheme

	// DerefsSecretName is the bug: the reconciler reads
	// *spec.tls.secretName without checking it is set, so a Gateway with
	// TLS and no secret name (which the schema admits, documenting a
	// default) panics it on every reconcile.
	DerefsSecretName bool
}

// Reconcile keeps the Gateway's ConfigMap and Deployment as its spec
// says, and reports the ready pods.
func (r *GatewayReconciler) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	gw := &netv1alpha1.Gateway{}
	if err := r.Get(ctx, req.NamespacedName, gw); err != nil {
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	if !gw.DeletionTimestamp.IsZero() {
		return ctrl.Result{}, nil
	}
	if err := r.syncConfigMap(ctx, gw); err != nil {
		return ctrl.Result{}, err
	}
	dep := &appsv1.Deployment{}
	err := r.Get(ctx, types.NamespacedName{Namespace: gw.Namespace, Name: gw.Name}, dep)
	switch {
	case apierrors.IsNotFound(err):
		dep, err = r.deploymentFor(gw)
		if err != nil {
			return ctrl.Result{}, err
		}
		if err := r.Create(ctx, dep); err != nil {
			return ctrl.Result{}, err
		}
	case err != nil:
		return ctrl.Result{}, err
	case dep.Spec.Replicas == nil || *dep.Spec.Replicas != gw.Spec.Replicas || dep.Spec.Template.Annotations[checksumAnnotation] != r.checksum(gw):
		replicas := gw.Spec.Replicas
		dep.Spec.Replicas = &replicas
		if dep.Spec.Template.Annotations == nil {
			dep.Spec.Template.Annotations = map[string]string{}
		}
		dep.Spec.Template.Annotations[checksumAnnotation] = r.checksum(gw)
		if err := r.Update(ctx, dep); err != nil {
			return ctrl.Result{}, err
		}
	}
	if gw.Status.ReadyReplicas != dep.Status.ReadyReplicas {
		gw.Status.ReadyReplicas = dep.Status.ReadyReplicas
		return ctrl.Result{}, r.Status().Update(ctx, gw)
	}
	return ctrl.Result{}, nil
}

// proxyConfig is the proxy's configuration, key by key.
func (r *GatewayReconciler) proxyConfig(gw *netv1alpha1.Gateway) map[string]string {
	data := map[string]string{"listen": "8080"}
	if tls := gw.Spec.TLS; tls != nil {
		var secret string
		switch {
		case r.DerefsSecretName:
			secret = *tls.SecretName
		case tls.SecretName != nil:
			secret = *tls.SecretName
		default:
			secret = gw.Name + "-tls"
		}
		data["tlsListen"] = strconv.Itoa(int(tls.Port))
		data["certificate"] = "/etc/tls/" + secret + "/tls.crt"
	}
	return data
}

// checksumAnnotation is the pod template annotation that holds the
// configuration's checksum.
const checksumAnnotation = "checksum/config"

// checksum is a hash of the proxy's configuration.
func (r *GatewayReconciler) checksum(gw *netv1alpha1.Gateway) string {
	data := r.proxyConfig(gw)
	h := fnv.New64a()
	for _, k := range slices.Sorted(maps.Keys(data)) {
		fmt.Fprintf(h, "%s=%s\n", k, data[k])
	}
	return strconv.FormatUint(h.Sum64(), 16)
}

// syncConfigMap creates or updates the proxy's ConfigMap.
func (r *GatewayReconciler) syncConfigMap(ctx context.Context, gw *netv1alpha1.Gateway) error {
	want := r.proxyConfig(gw)
	cm := &corev1.ConfigMap{}
	err := r.Get(ctx, types.NamespacedName{Namespace: gw.Namespace, Name: gw.Name + "-proxy"}, cm)
	if apierrors.IsNotFound(err) {
		cm = &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: gw.Namespace, Name: gw.Name + "-proxy"}, Data: want}
		if err := ctrl.SetControllerReference(gw, cm, r.Scheme); err != nil {
			return err
		}
		return r.Create(ctx, cm)
	}
	if err != nil || maps.Equal(cm.Data, want) {
		return err
	}
	cm.Data = want
	return r.Update(ctx, cm)
}

// deploymentFor returns the proxy Deployment of a Gateway.
func (r *GatewayReconciler) deploymentFor(gw *netv1alpha1.Gateway) (*appsv1.Deployment, error) {
	labels := map[string]string{"app.kubernetes.io/name": "gateway", "app.kubernetes.io/instance": gw.Name}
	replicas := gw.Spec.Replicas
	dep := &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Namespace: gw.Namespace, Name: gw.Name},
		Spec: appsv1.DeploymentSpec{
			Replicas: &replicas,
			Selector: &metav1.LabelSelector{MatchLabels: labels},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: labels, Annotations: map[string]string{checksumAnnotation: r.checksum(gw)}},
				Spec: corev1.PodSpec{Containers: []corev1.Container{{
					Name: "proxy", Image: "proxy:2.4",
					VolumeMounts: []corev1.VolumeMount{{Name: "config", MountPath: "/etc/proxy"}},
				}}, Volumes: []corev1.Volume{{Name: "config", VolumeSource: corev1.VolumeSource{
					ConfigMap: &corev1.ConfigMapVolumeSource{LocalObjectReference: corev1.LocalObjectReference{Name: gw.Name + "-proxy"}},
				}}}},
			},
		},
	}
	if err := ctrl.SetControllerReference(gw, dep, r.Scheme); err != nil {
		return nil, err
	}
	return dep, nil
}

// SetupWithManager sets up the controller with the Manager.
func (r *GatewayReconciler) SetupWithManager(mgr ctrl.Manager) error {
	return ctrl.NewControllerManagedBy(mgr).
		For(&netv1alpha1.Gateway{}).
		Owns(&appsv1.Deployment{}).
		Owns(&corev1.ConfigMap{}).
		Named("gateway").
		Complete(r)
}
