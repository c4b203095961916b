// Package agentsandbox runs agent-sandbox's Sandbox controller
// (sigs.k8s.io/agent-sandbox, controllers), as its main.go sets it up, in
// the model cluster, over the CRDs its module ships (k8s/crds), with the
// built-in kubelet running the pods it creates. A Sandbox
// (agents.x-k8s.io/v1beta1) is one pod, made from the Sandbox's pod
// template, with an optional Service of its name; the Sandbox can be
// suspended (its pod deleted) and resumed. The world and the goal are
// ours: two Sandboxes, one with a Service, a user who suspends and
// resumes one, and the goal that each running Sandbox has its one ready
// pod and its Service, and says Ready with the pod's addresses, and each
// suspended one has no pod and says Suspended.
package agentsandbox

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"

	crt "github.com/converge-sim/converge/controllerruntime"
	"github.com/converge-sim/converge/controllerruntime/builtin"
	"github.com/converge-sim/converge/controllerruntime/convert"
	"github.com/converge-sim/converge/controllerruntime/crd"
	"github.com/converge-sim/converge/faults"
	"github.com/converge-sim/converge/model"
	"github.com/converge-sim/converge/operators/goal"
	"github.com/converge-sim/converge/operators/moddir"
	"github.com/converge-sim/converge/properties"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/utils/ptr"
	sandboxv1beta1 "sigs.k8s.io/agent-sandbox/api/v1beta1"
	"sigs.k8s.io/agent-sandbox/controllers"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// Module is the operator's module, as go.mod requires it.
const Module = "sigs.k8s.io/agent-sandbox"

// World is what every run shares, built once: the converter of the
// operator's scheme and its CRDs.
type World struct {
	Conv *convert.Converter
	CRDs *crd.Set
}

// NewWorld builds the converter of main.go's scheme for the Sandbox
// controller (client-go's and agents.x-k8s.io/v1beta1) and loads the CRDs
// from the module's k8s/crds.
func NewWorld() (World, error) {
	scheme := runtime.NewScheme()
	for _, add := range []func(*runtime.Scheme) error{clientgoscheme.AddToScheme, sandboxv1beta1.AddToScheme} {
		if err := add(scheme); err != nil {
			return World{}, err
		}
	}
	conv, err := convert.New(scheme, convert.Options{})
	if err != nil {
		return World{}, err
	}
	dir, err := moddir.Dir(Module)
	if err != nil {
		return World{}, err
	}
	crds, err := crd.Load(filepath.Join(dir, "k8s", "crds"))
	if err != nil {
		return World{}, err
	}
	return World{Conv: conv, CRDs: crds}, nil
}

// Scenario runs the Sandbox controller with the kubelet over the Sandboxes
// default/coder (with a Service) and default/notebook (without), with a
// user who suspends and resumes coder; outside edits may delete a pod, a
// Service or a Sandbox, or suspend or resume one.
func Scenario(name string, w World) properties.Scenario {
	return properties.Scenario{
		Name: name,
		Doc:  "agent-sandbox's Sandbox controller, its own SetupWithManager and CRDs, with the built-in kubelet",
		Build: func(cfg model.Config) (*model.Cluster, error) {
			c := model.NewCluster(cfg)
			mgr, err := crt.NewManager(c, w.Conv, crt.ManagerOptions{CRDs: w.CRDs})
			if err != nil {
				return nil, err
			}
			err = mgr.Setup(func(m ctrl.Manager) error { return reconciler(m).SetupWithManager(m, 1) },
				crt.SetupOptions{Goals: map[string]crt.GoalFunc{"sandbox": Ready}})
			if err != nil {
				return nil, err
			}
			if err := mgr.Setup(builtin.Kubelet(mgr, builtin.KubeletOptions{}), crt.SetupOptions{}); err != nil {
				return nil, err
			}
			if err := c.AddActor(mgr.Actor("user", suspend), 2); err != nil {
				return nil, err
			}
			return c, mgr.Apply(New("default", "coder", true), New("default", "notebook", false))
		},
		Edits: []faults.EditTarget{
			{Resource: "Pod"},
			{Resource: "Service"},
			{Resource: "Sandbox"},
			{Resource: "Sandbox", Path: "spec.operatingMode", Values: []any{"Running", "Suspended"}},
		},
	}
}

// reconciler is what main.go builds for the Sandbox controller, with the
// options its flags give by default: no tracing (its no-op instrumenter),
// the cluster domain cluster.local, no write-behind window; SetupWithManager
// is called with one worker.
func reconciler(m ctrl.Manager) *controllers.SandboxReconciler {
	return &controllers.SandboxReconciler{
		Client:        m.GetClient(),
		Scheme:        m.GetScheme(),
		Recorder:      m.GetEventRecorder("sandbox-controller"),
		Tracer:        noTracing{},
		ClusterDomain: "cluster.local",
	}
}

// New returns a running Sandbox of one container, with a Service of its
// name if service is true and with none asked for otherwise.
func New(namespace, name string, service bool) *sandboxv1beta1.Sandbox {
	sb := &sandboxv1beta1.Sandbox{
		ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: name},
	}
	sb.Spec.PodTemplate.Spec = corev1.PodSpec{Containers: []corev1.Container{{
		Name: "agent", Image: "python:3.13-slim",
		Ports: []corev1.ContainerPort{{Name: "http", ContainerPort: 8888, Protocol: corev1.ProtocolTCP}},
	}}}
	if service {
		sb.Spec.Service = ptr.To(true)
	}
	sb.Spec.OperatingMode = sandboxv1beta1.SandboxOperatingModeRunning
	return sb
}

// suspend is a user's move: coder is suspended or resumed.
func suspend(ctx context.Context, c client.Client, choose func(int, string) int) error {
	var sb sandboxv1beta1.Sandbox
	if err := c.Get(ctx, client.ObjectKey{Namespace: "default", Name: "coder"}, &sb); err != nil {
		return client.IgnoreNotFound(err)
	}
	base := sb.DeepCopy()
	sb.Spec.OperatingMode = []sandboxv1beta1.SandboxOperatingMode{
		sandboxv1beta1.SandboxOperatingModeRunning, sandboxv1beta1.SandboxOperatingModeSuspended,
	}[choose(2, "user suspends or resumes coder")]
	return c.Patch(ctx, &sb, client.MergeFrom(base))
}

// Ready is the goal: every running Sandbox has exactly one pod, of its
// name, controlled by it, running and ready; a Service of its name
// controlled by it if it asks for one; and a Ready condition, true at its
// generation, with the pod's addresses in its status. Every suspended
// Sandbox has no pod and a Ready condition, false for being suspended, at
// its generation.
func Ready(ctx context.Context, r client.Reader) []model.Unmet {
	return goal.Each(ctx, r, &sandboxv1beta1.SandboxList{}, func(sb *sandboxv1beta1.Sandbox) string { return unmet(ctx, r, sb) })
}

func unmet(ctx context.Context, r client.Reader, sb *sandboxv1beta1.Sandbox) string {
	var pods corev1.PodList
	if err := r.List(ctx, &pods, client.InNamespace(sb.Namespace)); err != nil {
		return err.Error()
	}
	var owned []*corev1.Pod
	for i := range pods.Items {
		if metav1.IsControlledBy(&pods.Items[i], sb) {
			owned = append(owned, &pods.Items[i])
		}
	}
	ready := meta.FindStatusCondition(sb.Status.Conditions, string(sandboxv1beta1.SandboxConditionReady))
	switch {
	case ready == nil:
		return "has no Ready condition"
	case ready.ObservedGeneration != sb.Generation:
		return fmt.Sprintf("Ready condition at generation %d of %d", ready.ObservedGeneration, sb.Generation)
	}
	if sb.Spec.OperatingMode == sandboxv1beta1.SandboxOperatingModeSuspended {
		if len(owned) > 0 {
			return fmt.Sprintf("is suspended but still has its pod %s", owned[0].Name)
		}
		if ready.Status != metav1.ConditionFalse || ready.Reason != sandboxv1beta1.SandboxReasonSuspended {
			return fmt.Sprintf("is suspended but its Ready condition is %s (%s: %s)", ready.Status, ready.Reason, ready.Message)
		}
		return ""
	}
	if len(owned) != 1 {
		return fmt.Sprintf("controls %d pods", len(owned))
	}
	pod := owned[0]
	if pod.Name != sb.Name || !pod.DeletionTimestamp.IsZero() || !running(pod) {
		return fmt.Sprintf("has pod %s not running and ready (%s)", pod.Name, pod.Status.Phase)
	}
	if sb.Spec.Service != nil && *sb.Spec.Service {
		var svc corev1.Service
		if err := r.Get(ctx, client.ObjectKeyFromObject(sb), &svc); err != nil {
			return fmt.Sprintf("has no Service: %v", err)
		}
		if !metav1.IsControlledBy(&svc, sb) {
			return "does not control its Service"
		}
	}
	if ready.Status != metav1.ConditionTrue {
		return fmt.Sprintf("is not Ready: %s: %s", ready.Reason, ready.Message)
	}
	var ips []string
	for _, ip := range pod.Status.PodIPs {
		ips = append(ips, ip.IP)
	}
	if !slices.Equal(ips, sb.Status.PodIPs) {
		return fmt.Sprintf("status has pod addresses %v, its pod %v", sb.Status.PodIPs, ips)
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

// noTracing is the instrumenter main.go passes when tracing is off: the
// operator's own no-op is internal to its module, so this one has its
// methods, which is all the reconciler's field asks for.
type noTracing struct{}

func (noTracing) StartSpan(ctx context.Context, _ metav1.Object, _ string, _ map[string]string) (context.Context, func()) {
	return ctx, func() {}
}

func (noTracing) GetTraceContext(context.Context) string { return "" }

func (noTracing) AddEvent(context.Context, string, map[string]string) {}

func (noTracing) IsRecording(context.Context) bool { return false }
