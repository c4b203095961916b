// Package controller holds the KVStore reconciler, as a kubebuilder
// project lays it out.
package controller

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"maps"
	"slices"

	storev1alpha1 "github.com/converge-sim/converge/controllerruntime/examples/kvstore/api/v1alpha1"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// ConfigHashAnnotation on the pod template carries the hash of the
// ConfigMap's data, so that a configuration change rolls the pods.
const ConfigHashAnnotation = "store.example.converge.dev/config-hash"

// KVStoreReconciler reconciles a KVStore object: a StatefulSet named after
// it and a ConfigMap <name>-config.
type KVStoreReconciler struct {
	client.Client
	Scheme *runtime.Scheme

	// StaleOnScaleDown is the first bug: the reconciler acts on the
	// difference between the spec and the one it last rolled out
	// (status.applied). A change that lowers spec.replicas takes the
	// scale-down path, which sets the StatefulSet's replicas only; the
	// spec is then recorded as applied, so an image or configuration
	// change in the same edit is never rolled out.
	StaleOnScaleDown bool
	// KeepsRemovedLogLevel is the second bug: the ConfigMap's data is
	// updated key by key from the set fields, so removing the optional
	// spec.logLevel leaves the old level in the ConfigMap.
	KeepsRemovedLogLevel bool
}

// Reconcile keeps the KVStore's ConfigMap and StatefulSet as its spec
// says, and reports the ready pods.
func (r *KVStoreReconciler) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	kv := &storev1alpha1.KVStore{}
	if err := r.Get(ctx, req.NamespacedName, kv); err != nil {
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	if !kv.DeletionTimestamp.IsZero() {
		return ctrl.Result{}, nil
	}
	if r.StaleOnScaleDown && kv.Status.Applied != nil && *kv.Status.Applied == kv.Spec {
		return ctrl.Result{}, r.reportReady(ctx, kv) // nothing changed since the last rollout
	}

	data, err := r.syncConfigMap(ctx, kv)
	if err != nil {
		return ctrl.Result{}, err
	}

	sts := &appsv1.StatefulSet{}
	err = r.Get(ctx, types.NamespacedName{Namespace: kv.Namespace, Name: kv.Name}, sts)
	switch {
	case apierrors.IsNotFound(err):
		sts, err = r.statefulSetFor(kv, data)
		if err != nil {
			return ctrl.Result{}, err
		}
		if err := r.Create(ctx, sts); err != nil {
			return ctrl.Result{}, err
		}
	case err != nil:
		return ctrl.Result{}, err
	case r.StaleOnScaleDown && kv.Status.Applied != nil && kv.Spec.Replicas < kv.Status.Applied.Replicas:
		// Scale down first: only the replica count changes.
		replicas := kv.Spec.Replicas
		sts.Spec.Replicas = &replicas
		if err := r.Update(ctx, sts); err != nil {
			return ctrl.Result{}, err
		}
	default:
		want, err := r.statefulSetFor(kv, data)
		if err != nil {
			return ctrl.Result{}, err
		}
		if *sts.Spec.Replicas != *want.Spec.Replicas || !equalTemplates(&sts.Spec.Template, &want.Spec.Template) {
			sts.Spec.Replicas = want.Spec.Replicas
			sts.Spec.Template = want.Spec.Template
			if err := r.Update(ctx, sts); err != nil {
				return ctrl.Result{}, err
			}
		}
	}
	applied := kv.Spec
	kv.Status.Applied = &applied
	return ctrl.Result{}, r.reportReady(ctx, kv)
}

// reportReady writes status.readyReplicas from the StatefulSet in the
// cache, and status.applied as kv has it.
func (r *KVStoreReconciler) reportReady(ctx context.Context, kv *storev1alpha1.KVStore) error {
	sts := &appsv1.StatefulSet{}
	if err := r.Get(ctx, types.NamespacedName{Namespace: kv.Namespace, Name: kv.Name}, sts); client.IgnoreNotFound(err) != nil {
		return err
	}
	kv.Status.ReadyReplicas = sts.Status.ReadyReplicas
	return r.Status().Update(ctx, kv)
}

// desiredConfig is the store's configuration file, key by key.
func desiredConfig(kv *storev1alpha1.KVStore) map[string]string {
	data := map[string]string{"port": "6379"}
	if kv.Spec.LogLevel != "" {
		data["logLevel"] = kv.Spec.LogLevel
	}
	return data
}

// syncConfigMap creates or updates the ConfigMap and returns its data.
func (r *KVStoreReconciler) syncConfigMap(ctx context.Context, kv *storev1alpha1.KVStore) (map[string]string, error) {
	want := desiredConfig(kv)
	cm := &corev1.ConfigMap{}
	err := r.Get(ctx, types.NamespacedName{Namespace: kv.Namespace, Name: kv.Name + "-config"}, cm)
	if apierrors.IsNotFound(err) {
		cm = &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: kv.Namespace, Name: kv.Name + "-config"}, Data: want}
		if err := ctrl.SetControllerReference(kv, cm, r.Scheme); err != nil {
			return nil, err
		}
		return want, r.Create(ctx, cm)
	}
	if err != nil {
		return nil, err
	}
	data := want
	if r.KeepsRemovedLogLevel {
		data = maps.Clone(cm.Data)
		if data == nil {
			data = map[string]string{}
		}
		maps.Copy(data, want)
	}
	if !maps.Equal(cm.Data, data) {
		cm.Data = data
		if err := r.Update(ctx, cm); err != nil {
			return nil, err
		}
	}
	return data, nil
}

// configHash hashes the configuration, keys sorted.
func configHash(data map[string]string) string {
	h := sha256.New()
	for _, k := range slices.Sorted(maps.Keys(data)) {
		h.Write([]byte(k + "=" + data[k] + "\n"))
	}
	return hex.EncodeToString(h.Sum(nil))[:16]
}

func equalTemplates(a, b *corev1.PodTemplateSpec) bool {
	return a.Annotations[ConfigHashAnnotation] == b.Annotations[ConfigHashAnnotation] &&
		len(a.Spec.Containers) == 1 && a.Spec.Containers[0].Image == b.Spec.Containers[0].Image
}

// statefulSetFor returns the StatefulSet of a KVStore with the given
// configuration.
func (r *KVStoreReconciler) statefulSetFor(kv *storev1alpha1.KVStore, data map[string]string) (*appsv1.StatefulSet, error) {
	labels := map[string]string{"app.kubernetes.io/name": "kvstore", "app.kubernetes.io/instance": kv.Name}
	replicas := kv.Spec.Replicas
	sts := &appsv1.StatefulSet{
		ObjectMeta: metav1.ObjectMeta{Namespace: kv.Namespace, Name: kv.Name},
		Spec: appsv1.StatefulSetSpec{
			Replicas:    &replicas,
			ServiceName: kv.Name,
			Selector:    &metav1.LabelSelector{MatchLabels: labels},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: labels, Annotations: map[string]string{ConfigHashAnnotation: configHash(data)}},
				Spec: corev1.PodSpec{Containers: []corev1.Container{{
					Name: "kv", Image: kv.Spec.Image,
					VolumeMounts: []corev1.VolumeMount{{Name: "config", MountPath: "/etc/kv"}},
				}}, Volumes: []corev1.Volume{{Name: "config", VolumeSource: corev1.VolumeSource{
					ConfigMap: &corev1.ConfigMapVolumeSource{LocalObjectReference: corev1.LocalObjectReference{Name: kv.Name + "-config"}},
				}}}},
			},
		},
	}
	if err := ctrl.SetControllerReference(kv, sts, r.Scheme); err != nil {
		return nil, err
	}
	return sts, nil
}

// SetupWithManager sets up the controller with the Manager.
func (r *KVStoreReconciler) SetupWithManager(mgr ctrl.Manager) error {
	return ctrl.NewControllerManagedBy(mgr).
		For(&storev1alpha1.KVStore{}).
		Owns(&appsv1.StatefulSet{}).
		Owns(&corev1.ConfigMap{}).
		Named("kvstore").
		Complete(r)
}
