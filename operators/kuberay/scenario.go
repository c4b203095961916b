// Package kuberay runs KubeRay's RayCluster controller
// (github.com/ray-project/kuberay/ray-operator, controllers/ray), as its
// main.go sets it up, in the model cluster, over the CRDs its module ships
// (config/crd/bases), with the built-in kubelet running the pods it
// creates. The world and the goal are ours: one RayCluster with a head and
// a worker group, a user who resizes the group, and the goal that the
// cluster's head and workers run and its status says so.
package kuberay

//lint:file-ignore SA1019 GetEventRecorderFor, as the operator's NewReconciler calls it

import (
	"context"
	"fmt"
	"path/filepath"

	crt "github.com/converge-sim/converge/controllerruntime"
	"github.com/converge-sim/converge/controllerruntime/builtin"
	"github.com/converge-sim/converge/controllerruntime/convert"
	"github.com/converge-sim/converge/controllerruntime/crd"
	"github.com/converge-sim/converge/faults"
	"github.com/converge-sim/converge/model"
	"github.com/converge-sim/converge/operators/goal"
	"github.com/converge-sim/converge/operators/moddir"
	"github.com/converge-sim/converge/properties"
	rayv1 "github.com/ray-project/kuberay/ray-operator/apis/ray/v1"
	"github.com/ray-project/kuberay/ray-operator/controllers/ray"
	"github.com/ray-project/kuberay/ray-operator/controllers/ray/utils"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// Module is the operator's module, as go.mod requires it.
const Module = "github.com/ray-project/kuberay/ray-operator"

// World is what every run shares, built once: the converter of the
// operator's scheme and its CRDs.
type World struct {
	Conv *convert.Converter
	CRDs *crd.Set
}

// NewWorld builds the converter of main.go's scheme (client-go's and
// ray.io/v1) and loads the CRDs from the module's config/crd/bases.
func NewWorld() (World, error) {
	scheme := runtime.NewScheme()
	if err := clientgoscheme.AddToScheme(scheme); err != nil {
		return World{}, err
	}
	if err := rayv1.AddToScheme(scheme); err != nil {
		return World{}, err
	}
	conv, err := convert.New(scheme, convert.Options{})
	if err != nil {
		return World{}, err
	}
	dir, err := moddir.Dir(Module)
	if err != nil {
		return World{}, err
	}
	crds, err := crd.Load(filepath.Join(dir, "config", "crd", "bases"))
	if err != nil {
		return World{}, err
	}
	return World{Conv: conv, CRDs: crds}, nil
}

// Scenario runs the RayCluster controller with the kubelet over the
// RayCluster default/ray (a head and two workers), with a user who resizes
// its worker group; outside edits may delete pods or the RayCluster, or
// resize the group.
func Scenario(name string, w World) properties.Scenario {
	return properties.Scenario{
		Name: name,
		Doc:  "KubeRay's RayCluster controller, its own SetupWithManager and CRDs, with the built-in kubelet",
		Build: func(cfg model.Config) (*model.Cluster, error) {
			c := model.NewCluster(cfg)
			mgr, err := crt.NewManager(c, w.Conv, crt.ManagerOptions{CRDs: w.CRDs})
			if err != nil {
				return nil, err
			}
			// What main.go does for the RayCluster controller, with the
			// options its flags give by default (no batch scheduler, no
			// metrics, not OpenShift).
			err = mgr.Setup(func(m ctrl.Manager) error {
				return ray.NewReconciler(context.Background(), m, ray.RayClusterReconcilerOptions{}).SetupWithManager(m, 1)
			}, crt.SetupOptions{
				Goals: map[string]crt.GoalFunc{"raycluster": Running},
				Reads: []client.Object{&corev1.ServiceAccount{}},
			})
			if err != nil {
				return nil, err
			}
			if err := mgr.Setup(builtin.Kubelet(mgr, builtin.KubeletOptions{}), crt.SetupOptions{}); err != nil {
				return nil, err
			}
			if err := c.AddActor(mgr.Actor("user", resize), 2); err != nil {
				return nil, err
			}
			return c, mgr.Apply(New("default", "ray", 2))
		},
		Edits: []faults.EditTarget{
			{Resource: "Pod"},
			{Resource: "RayCluster"},
			{Resource: "RayCluster", Path: "spec.workerGroupSpecs[0].replicas", Min: 0, Max: 3},
		},
	}
}

// New returns a RayCluster with a head and one worker group of workers
// replicas (at most 3).
func New(namespace, name string, workers int32) *rayv1.RayCluster {
	container := func(n string) corev1.PodSpec {
		return corev1.PodSpec{Containers: []corev1.Container{{Name: n, Image: "rayproject/ray:2.46.0"}}}
	}
	return &rayv1.RayCluster{
		ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: name},
		Spec: rayv1.RayClusterSpec{
			HeadGroupSpec: rayv1.HeadGroupSpec{
				RayStartParams: map[string]string{},
				Template:       corev1.PodTemplateSpec{Spec: container("ray-head")},
			},
			WorkerGroupSpecs: []rayv1.WorkerGroupSpec{{
				GroupName:      "workers",
				Replicas:       ptr.To(workers),
				MinReplicas:    ptr.To[int32](0),
				MaxReplicas:    ptr.To[int32](3),
				RayStartParams: map[string]string{},
				Template:       corev1.PodTemplateSpec{Spec: container("ray-worker")},
			}},
		},
	}
}

// resize is a user's move: set the worker group's replicas to 0..3.
func resize(ctx context.Context, c client.Client, choose func(int, string) int) error {
	var rc rayv1.RayCluster
	if err := c.Get(ctx, client.ObjectKey{Namespace: "default", Name: "ray"}, &rc); err != nil {
		return client.IgnoreNotFound(err)
	}
	if len(rc.Spec.WorkerGroupSpecs) == 0 {
		return nil
	}
	base := rc.DeepCopy()
	rc.Spec.WorkerGroupSpecs[0].Replicas = ptr.To(int32(choose(4, "user picks a worker count")))
	return c.Patch(ctx, &rc, client.MergeFrom(base))
}

// Running is the goal: every RayCluster has one running, ready head pod
// and, per worker group, as many running, ready worker pods as it asks
// for, each controlled by it; a head Service; and a status that has seen
// its latest spec, says it is ready with that many ready workers, and
// that its head pod is ready.
func Running(ctx context.Context, r client.Reader) []model.Unmet {
	return goal.Each(ctx, r, &rayv1.RayClusterList{}, func(rc *rayv1.RayCluster) string { return unmet(ctx, r, rc) })
}

func unmet(ctx context.Context, r client.Reader, rc *rayv1.RayCluster) string {
	var pods corev1.PodList
	if err := r.List(ctx, &pods, client.InNamespace(rc.Namespace), client.MatchingLabels{utils.RayClusterLabelKey: rc.Name}); err != nil {
		return err.Error()
	}
	heads, workers := 0, map[string]int32{}
	for i := range pods.Items {
		p := &pods.Items[i]
		if !metav1.IsControlledBy(p, rc) {
			return fmt.Sprintf("does not control its pod %s", p.Name)
		}
		if !p.DeletionTimestamp.IsZero() {
			return fmt.Sprintf("still has its deleted pod %s", p.Name)
		}
		if !running(p) {
			return fmt.Sprintf("has pod %s not running and ready (%s)", p.Name, p.Status.Phase)
		}
		switch p.Labels[utils.RayNodeTypeLabelKey] {
		case string(rayv1.HeadNode):
			heads++
		case string(rayv1.WorkerNode):
			workers[p.Labels[utils.RayNodeGroupLabelKey]]++
		}
	}
	if heads != 1 {
		return fmt.Sprintf("has %d head pods", heads)
	}
	var want int32
	for _, g := range rc.Spec.WorkerGroupSpecs {
		n := ptr.Deref(g.Replicas, 0)
		want += n
		if workers[g.GroupName] != n {
			return fmt.Sprintf("group %s wants %d workers, has %d", g.GroupName, n, workers[g.GroupName])
		}
	}
	var svcs corev1.ServiceList
	if err := r.List(ctx, &svcs, client.InNamespace(rc.Namespace), client.MatchingLabels{utils.RayClusterLabelKey: rc.Name, utils.RayNodeTypeLabelKey: string(rayv1.HeadNode)}); err != nil {
		return err.Error()
	}
	switch st := rc.Status; {
	case len(svcs.Items) != 1:
		return fmt.Sprintf("has %d head Services", len(svcs.Items))
	case st.ObservedGeneration != rc.Generation:
		return fmt.Sprintf("status has seen generation %d of %d", st.ObservedGeneration, rc.Generation)
	case st.State != rayv1.Ready:
		return fmt.Sprintf("is %q, not ready", st.State)
	case st.ReadyWorkerReplicas != want || st.DesiredWorkerReplicas != want:
		return fmt.Sprintf("status says %d of %d workers ready, wants %d", st.ReadyWorkerReplicas, st.DesiredWorkerReplicas, want)
	case !meta.IsStatusConditionTrue(st.Conditions, string(rayv1.HeadPodReady)):
		return fmt.Sprintf("head pod is not Ready in its status: %v", meta.FindStatusCondition(st.Conditions, string(rayv1.HeadPodReady)))
	}
	return ""
}

func running(p *corev1.Pod) bool {
	if p.Status.Phase != corev1.PodRunning {
		return false
	}
	for _, c := range p.Status.Conditions {
		if c.Type == corev1.PodReady {
			return c.Status == corev1.ConditionTrue
		}
	}
	return false
}
