package replicaset

import (
	"context"
	"fmt"
	"time"

	crt "github.com/converge-sim/converge/controllerruntime"
	"github.com/converge-sim/converge/controllerruntime/convert"
	"github.com/converge-sim/converge/faults"
	"github.com/converge-sim/converge/model"
	"github.com/converge-sim/converge/properties"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
)

// Options says which world a scenario builds.
type Options struct {
	// GenerateName turns on the reconciler's bug; see Reconciler.
	GenerateName bool
	// Scale adds a user who rescales the ReplicaSet twice (with a merge
	// patch); without it the spec holds still, so that pods beyond
	// spec.replicas can only be the controller's doing.
	Scale bool
}

// Converter converts the client-go scheme's types; build it once and share
// it between runs.
func Converter() (*convert.Converter, error) {
	return convert.New(clientgoscheme.Scheme, convert.Options{})
}

// Scenario runs the reconciler over one ReplicaSet web with 3 replicas, a
// chaos actor that deletes two pods and, with opts.Scale, a user who
// rescales it; resync every 20 seconds (20 ticks).
func Scenario(name string, conv *convert.Converter, opts Options) properties.Scenario {
	return properties.Scenario{
		Name: name,
		Doc:  "controller-runtime ReplicaSet reconciler over appsv1.ReplicaSet and corev1.Pod",
		Build: func(cfg model.Config) (*model.Cluster, error) {
			c := model.NewCluster(cfg)
			mgr, err := crt.NewManager(c, conv, crt.ManagerOptions{SyncPeriod: 20 * time.Second})
			if err != nil {
				return nil, err
			}
			err = crt.NewControllerManagedBy(mgr).
				For(&appsv1.ReplicaSet{}).
				Owns(&corev1.Pod{}).
				Named(name).
				WithGoal(PodsMatchReplicas).
				Complete(func(cl client.Client) reconcile.Reconciler {
					return &Reconciler{Client: cl, Scheme: mgr.GetScheme(), GenerateName: opts.GenerateName}
				})
			if err != nil {
				return nil, err
			}
			if err := c.AddActor(mgr.Actor("chaos", deletePod), 2); err != nil {
				return nil, err
			}
			if opts.Scale {
				if err := c.AddActor(mgr.Actor("user", rescale), 2); err != nil {
					return nil, err
				}
			}
			return c, mgr.Apply(New("default", "web", 3))
		},
		Edits: []faults.EditTarget{
			{Resource: "Pod"},
			{Resource: "ReplicaSet", Path: "spec.replicas", Min: 0, Max: 5},
		},
	}
}

// New returns a ReplicaSet whose pods are labelled app=name.
func New(namespace, name string, replicas int32) *appsv1.ReplicaSet {
	labels := map[string]string{"app": name}
	return &appsv1.ReplicaSet{
		ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: name},
		Spec: appsv1.ReplicaSetSpec{
			Replicas: &replicas,
			Selector: &metav1.LabelSelector{MatchLabels: labels},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: labels},
				Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "app", Image: "app:v1"}}},
			},
		},
	}
}

// deletePod is a chaos actor's move: delete one live pod.
func deletePod(ctx context.Context, c client.Client, choose func(int, string) int) error {
	var pods corev1.PodList
	if err := c.List(ctx, &pods); err != nil {
		return err
	}
	var live []*corev1.Pod
	for i := range pods.Items {
		if pods.Items[i].DeletionTimestamp.IsZero() {
			live = append(live, &pods.Items[i])
		}
	}
	if len(live) == 0 {
		return nil
	}
	return c.Delete(ctx, live[choose(len(live), "chaos picks a pod")])
}

// rescale is a user's move: set spec.replicas of web to 0..5 with a merge
// patch.
func rescale(ctx context.Context, c client.Client, choose func(int, string) int) error {
	var rs appsv1.ReplicaSet
	if err := c.Get(ctx, client.ObjectKey{Namespace: "default", Name: "web"}, &rs); err != nil {
		return client.IgnoreNotFound(err)
	}
	base := rs.DeepCopy()
	n := int32(choose(6, "user picks replicas"))
	rs.Spec.Replicas = &n
	return c.Patch(ctx, &rs, client.MergeFrom(base))
}

// activePods counts the live pods rs controls, in the API server's state.
func activePods(ctx context.Context, r client.Reader, rs *appsv1.ReplicaSet) (int32, error) {
	var pods corev1.PodList
	if err := r.List(ctx, &pods, client.InNamespace(rs.Namespace)); err != nil {
		return 0, err
	}
	var n int32
	for i := range pods.Items {
		if p := &pods.Items[i]; metav1.IsControlledBy(p, rs) && p.DeletionTimestamp.IsZero() {
			n++
		}
	}
	return n, nil
}

// PodsMatchReplicas is the goal: every ReplicaSet controls exactly
// spec.replicas live pods and its status says so for the current
// generation.
func PodsMatchReplicas(ctx context.Context, r client.Reader) []model.Unmet {
	var list appsv1.ReplicaSetList
	if err := r.List(ctx, &list); err != nil {
		return []model.Unmet{{Message: err.Error()}}
	}
	var out []model.Unmet
	for i := range list.Items {
		rs := &list.Items[i]
		if !rs.DeletionTimestamp.IsZero() {
			continue
		}
		have, err := activePods(ctx, r, rs)
		switch {
		case err != nil:
			out = append(out, crt.Unmet(rs, "%v", err))
		case have != *rs.Spec.Replicas:
			out = append(out, crt.Unmet(rs, "wants %d pods, has %d", *rs.Spec.Replicas, have))
		case rs.Status.Replicas != have:
			out = append(out, crt.Unmet(rs, "reports status.replicas=%d, has %d pods", rs.Status.Replicas, have))
		case rs.Status.ObservedGeneration != rs.Generation:
			out = append(out, crt.Unmet(rs, "reports observedGeneration=%d, generation is %d", rs.Status.ObservedGeneration, rs.Generation))
		}
	}
	return out
}

// AtMostOneExtraPod is the safety invariant the generateName bug breaks:
// no ReplicaSet ever controls more than spec.replicas+1 live pods.
func AtMostOneExtraPod(conv *convert.Converter) properties.Invariant {
	return crt.Invariant(conv, "at most replicas+1 pods", func(ctx context.Context, r client.Reader) error {
		var list appsv1.ReplicaSetList
		if err := r.List(ctx, &list); err != nil {
			return err
		}
		for i := range list.Items {
			rs := &list.Items[i]
			have, err := activePods(ctx, r, rs)
			if err != nil {
				return err
			}
			if have > *rs.Spec.Replicas+1 {
				return fmt.Errorf("ReplicaSet %s/%s wants %d pods, has %d", rs.Namespace, rs.Name, *rs.Spec.Replicas, have)
			}
		}
		return nil
	})
}
