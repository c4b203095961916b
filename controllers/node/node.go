// Package node holds the controllers that put pods on nodes and take them
// off: a scheduler, a kubelet per node, the node lifecycle controller that
// evicts the pods of a dead node, and a drain controller that evicts pods
// through the eviction API.
//
// A Node is cluster-scoped; its status holds the Ready condition
// ("conditions[0].type" Ready, "conditions[0].status" "True" while its
// kubelet is alive) and its spec "unschedulable" (cordoned) and "drain"
// (a drain was asked for: the one field of the model's that a real Node
// lacks, where kubectl drain is a client's loop). A pod's spec "nodeName"
// binds it; its kubelet sets the pod's phase Running and its Ready
// condition True (replicaset.RunningReady).
package node

import (
	"fmt"

	"github.com/converge-sim/converge/controllers/replicaset"
	"github.com/converge-sim/converge/model"
)

// Kind is the Node kind.
const Kind = "Node"

// Paths of a node's Ready condition.
const (
	ReadyTypePath   = "conditions[0].type"
	ReadyStatusPath = "conditions[0].status"
)

// New returns a ready, schedulable node.
func New(name string) *model.Object {
	return &model.Object{Kind: Kind, Name: name, Status: model.NewFields(model.Values{ReadyTypePath: "Ready", ReadyStatusPath: "True"})}
}

// Alive reports whether a node's kubelet is alive: its Ready condition
// is True.
func Alive(n *model.Object) bool {
	return n != nil && !n.Deleting() && n.Status.Str(ReadyTypePath) == "Ready" && n.Status.Str(ReadyStatusPath) == "True"
}

// podsOn returns the pods bound to node, from the client's cache, without
// copying them: callers only read them.
func podsOn(c model.Client, node string) ([]*model.Object, error) {
	pods, err := c.PeekList(replicaset.PodKind, model.ListOptions{})
	if err != nil {
		return nil, err
	}
	var out []*model.Object
	for _, p := range pods {
		if p.Spec.Str("nodeName") == node && !p.Deleting() {
			out = append(out, p)
		}
	}
	return out, nil
}

// removeAll removes every pod bound to node with remove (a delete, an
// eviction), stopping at the first failure; a pod already gone is fine.
func removeAll(c model.Client, node string, remove func(p *model.Object) error) error {
	pods, err := podsOn(c, node)
	if err != nil {
		return err
	}
	for _, p := range pods {
		if err := remove(p); err != nil && !model.IsNotFound(err) {
			return err
		}
	}
	return nil
}

// podsToTheirNode maps a pod's events to the node it is bound to.
func podsToTheirNode(_ model.Client, p *model.Object) []model.Request {
	if n := p.Spec.Str("nodeName"); n != "" {
		return []model.Request{{Name: n}}
	}
	return nil
}

// Resync is the resync period of the node controllers.
const Resync = 20

// Scheduler returns the scheduler: it binds each unbound pod to the alive,
// schedulable node with the fewest pods (by name on a tie), and retries
// every few ticks while no node will do.
func Scheduler() model.Controller {
	return model.Controller{
		Name:         "scheduler",
		ResyncPeriod: Resync,
		For:          replicaset.PodKind,
		Watches:      []model.Watch{{Kind: Kind, Map: func(model.Client, *model.Object) []model.Request { return nil }}},
		NewReconciler: func(c model.Client) model.Reconciler {
			return model.StatelessFunc(func(req model.Request) (model.Result, error) {
				// Read without copying, as a lister does; copy to write.
				pod, err := c.Peek(replicaset.PodKind, req.Namespace, req.Name)
				if err != nil || pod.Deleting() || pod.Spec.Str("nodeName") != "" {
					return model.Result{}, nil
				}
				nodes, err := c.List(Kind, model.ListOptions{})
				if err != nil {
					return model.Result{}, err
				}
				best, bestLoad := "", 0
				for _, n := range nodes {
					if !Alive(n) || n.Spec.Bool("unschedulable") {
						continue
					}
					on, err := podsOn(c, n.Name)
					if err != nil {
						return model.Result{}, err
					}
					if best == "" || len(on) < bestLoad {
						best, bestLoad = n.Name, len(on)
					}
				}
				if best == "" {
					return model.Result{RequeueAfter: 5}, nil
				}
				pod = pod.DeepCopy()
				pod.Spec.Set("nodeName", best)
				return model.Result{}, c.Update(pod)
			})
		},
		Goal: AllScheduled,
	}
}

// AllScheduled is the scheduler's goal: every live pod is bound to an alive
// node, unless no node can take it.
func AllScheduled(s model.State) []model.Unmet {
	var out []model.Unmet
	usable := false
	for _, n := range s.List(Kind, model.ListOptions{}) {
		usable = usable || (Alive(n) && !n.Spec.Bool("unschedulable"))
	}
	for _, p := range s.List(replicaset.PodKind, model.ListOptions{}) {
		if !p.Deleting() && p.Spec.Str("nodeName") == "" && usable {
			out = append(out, model.Unmet{Object: p.Ref(), Message: "is not scheduled"})
		}
	}
	return out
}

// Kubelet returns the kubelet of one node, named "kubelet-<node>": it runs
// the pods bound to its node and reports them ready, as long as its node
// is alive.
//
// A node's "ready" is its kubelet being alive, so the kubelet reads its own
// node from the API server, not from a cache: a dead kubelet does not
// learn of its death through a watch. With a cached read it went on
// starting pods on its dead node until its Node event arrived, and a
// Deployment counted them ready (a false "fewer than
// replicas-maxUnavailable ready pods" under PCT, with no fault).
func Kubelet(node string) model.Controller {
	return model.Controller{
		Name:         "kubelet-" + node,
		ResyncPeriod: Resync,
		For:          replicaset.PodKind,
		NewReconciler: func(c model.Client) model.Reconciler {
			server := c.(model.APIReader)
			return model.StatelessFunc(func(req model.Request) (model.Result, error) {
				self, err := server.GetLive(Kind, "", node)
				if model.IsNotFound(err) || (err == nil && !Alive(self)) {
					return model.Result{}, nil // a dead node runs nothing
				}
				if err != nil {
					return model.Result{}, err
				}
				// Read without copying, as a lister does; copy to write.
				pod, err := c.Peek(replicaset.PodKind, req.Namespace, req.Name)
				if err != nil || pod.Deleting() || pod.Spec.Str("nodeName") != node || replicaset.Ready(pod) {
					return model.Result{}, nil
				}
				pod = pod.DeepCopy()
				pod.Status = replicaset.RunningReady()
				return model.Result{}, c.UpdateStatus(pod)
			})
		},
		Goal: func(s model.State) []model.Unmet { return runs(s, node) },
	}
}

// runs is a kubelet's goal: every pod bound to its alive node is ready.
func runs(s model.State, node string) []model.Unmet {
	if !Alive(s.Get(Kind, "", node)) {
		return nil
	}
	var out []model.Unmet
	for _, p := range s.List(replicaset.PodKind, model.ListOptions{}) {
		if !p.Deleting() && p.Spec.Str("nodeName") == node && !replicaset.Ready(p) {
			out = append(out, model.Unmet{Object: p.Ref(), Message: "is bound to " + node + " but not running"})
		}
	}
	return out
}

// Lifecycle returns the node lifecycle controller: it deletes the pods of
// a dead node (taint-based eviction, which disruption budgets do not stop),
// so that their owners replace them elsewhere.
func Lifecycle() model.Controller {
	return model.Controller{
		Name:         "node-lifecycle",
		ResyncPeriod: Resync,
		For:          Kind,
		Watches:      []model.Watch{{Kind: replicaset.PodKind, Map: podsToTheirNode}},
		NewReconciler: func(c model.Client) model.Reconciler {
			return model.StatelessFunc(func(req model.Request) (model.Result, error) {
				n, err := c.Get(Kind, "", req.Name)
				if err != nil || Alive(n) {
					return model.Result{}, nil
				}
				return model.Result{}, removeAll(c, n.Name, func(p *model.Object) error {
					return c.Delete(p.Ref(), model.DeleteOptions{UID: p.UID})
				})
			})
		},
		Goal: func(s model.State) []model.Unmet {
			var out []model.Unmet
			for _, p := range s.List(replicaset.PodKind, model.ListOptions{}) {
				if n := p.Spec.Str("nodeName"); n != "" && !p.Deleting() && !Alive(s.Get(Kind, "", n)) {
					out = append(out, model.Unmet{Object: p.Ref(), Message: "is still bound to dead node " + n})
				}
			}
			return out
		},
	}
}

// Drain returns the drain controller: for a node whose spec asks for a
// drain, it cordons the node and evicts its pods through the eviction API,
// retrying with backoff while a disruption budget refuses. Its goal is that
// a node asked to drain holds no pods.
func Drain() model.Controller {
	return model.Controller{
		Name:         "drain",
		ResyncPeriod: Resync,
		For:          Kind,
		Watches:      []model.Watch{{Kind: replicaset.PodKind, Map: podsToTheirNode}},
		NewReconciler: func(c model.Client) model.Reconciler {
			return model.StatelessFunc(func(req model.Request) (model.Result, error) {
				n, err := c.Get(Kind, "", req.Name)
				if err != nil || !n.Spec.Bool("drain") {
					return model.Result{}, nil
				}
				if !n.Spec.Bool("unschedulable") {
					n.Spec.Set("unschedulable", true)
					return model.Result{}, c.Update(n)
				}
				return model.Result{}, removeAll(c, n.Name, func(p *model.Object) error { return c.Evict(p.Ref()) })
			})
		},
		Goal: Drained,
	}
}

// Drained is the drain controller's goal: a node asked to drain holds no
// live pods.
func Drained(s model.State) []model.Unmet {
	var out []model.Unmet
	for _, n := range s.List(Kind, model.ListOptions{}) {
		if !n.Spec.Bool("drain") {
			continue
		}
		var left []string
		for _, p := range s.List(replicaset.PodKind, model.ListOptions{}) {
			if p.Spec.Str("nodeName") == n.Name && !p.Deleting() {
				left = append(left, p.Ref().String())
			}
		}
		if len(left) > 0 {
			out = append(out, model.Unmet{Object: n.Ref(), Message: fmt.Sprintf("is asked to drain but still runs %d pods: %v", len(left), left)})
		}
	}
	return out
}
