package broken

import (
	"errors"

	"github.com/converge-sim/converge/controllers/replicaset"
	"github.com/converge-sim/converge/model"
)

// Broken controllers that converge, but not promptly (docs/design.md,
// section "Prompt convergence"), each with its fixed twin.

// promptResync is the resync period of the controllers below: they resync,
// as most controllers do, and the resync hides their bug.
const promptResync = 20

// withResync builds the level-triggered ReplicaSet controller named name,
// with resync, whose reconciler is the reference one decorated by wrap.
func withResync(name string, decorate func(inner model.Reconciler) model.Reconciler) model.Controller {
	ctrl := replicaset.Level(replicaset.LevelOptions{Name: name, Resync: promptResync})
	build := ctrl.NewReconciler
	ctrl.NewReconciler = func(c model.Client) model.Reconciler { return decorate(build(c)) }
	return ctrl
}

// IgnoresConflicts is the level-triggered ReplicaSet controller, with
// resync, that returns nil when a write fails with Conflict, on the theory
// that whoever changed the object will trigger another reconcile. Nothing
// does when the conflict came from its own stale read, so the work waits
// for the next resync: 10 hours with controller-runtime's default. It
// converges, and is resync-dependent: exposed by apierror (conflict).
func IgnoresConflicts() model.Controller {
	return withResync("ignores-conflicts", func(inner model.Reconciler) model.Reconciler {
		return model.ReconcilerFunc(func(req model.Request) (model.Result, error) {
			res, err := inner.Reconcile(req)
			if model.IsConflict(err) {
				return model.Result{}, nil
			}
			return res, err
		})
	})
}

// RequeuesConflicts is IgnoresConflicts fixed: on Conflict it asks for a
// requeue, and the work queue retries with backoff.
func RequeuesConflicts() model.Controller {
	return withResync("requeues-conflicts", func(inner model.Reconciler) model.Reconciler {
		return model.ReconcilerFunc(func(req model.Request) (model.Result, error) {
			res, err := inner.Reconcile(req)
			if model.IsConflict(err) {
				return model.Result{Requeue: true}, nil
			}
			return res, err
		})
	})
}

// GateKind and GateName name the object that stands for an outside
// condition the gated controllers wait on: ConfigMap default/gate, open
// when spec.open is true.
const (
	GateKind = "ConfigMap"
	GateName = "gate"
)

// NewGate returns the closed gate.
func NewGate() *model.Object {
	return &model.Object{Kind: GateKind, Namespace: "default", Name: GateName, Spec: model.NewFields(model.Values{"open": false})}
}

// errGateClosed is what WaitsWithErrors returns while the gate is closed.
var errGateClosed = errors.New("gate is closed: waiting")

// gated builds a level-triggered ReplicaSet controller, without resync,
// that creates pods only once the gate is open; its goal holds trivially
// while the gate is closed. It reads the gate from its
// cache but maps the gate's events to no key: the gate stands for a system
// outside the cluster (a cloud load balancer, a DNS record) that nothing
// notifies it about, so it has to poll. wait says what a reconcile returns
// while the gate is closed.
func gated(name string, wait func() (model.Result, error)) model.Controller {
	ctrl := replicaset.Level(replicaset.LevelOptions{Name: name})
	build, goal := ctrl.NewReconciler, ctrl.Goal
	ctrl.Goal = func(s model.State) []model.Unmet {
		if gate := s.Get(GateKind, "default", GateName); gate == nil || gate.Spec.Value("open") != true {
			return nil // nothing is owed before the gate opens
		}
		return goal(s)
	}
	ctrl.Watches = append(ctrl.Watches, model.Watch{Kind: GateKind, Map: func(model.Client, *model.Object) []model.Request { return nil }})
	ctrl.NewReconciler = func(c model.Client) model.Reconciler {
		inner := build(c)
		return model.ReconcilerFunc(func(req model.Request) (model.Result, error) {
			gate, err := c.Get(GateKind, "default", GateName)
			if err != nil || gate.Spec.Value("open") != true {
				return wait()
			}
			return inner.Reconcile(req)
		})
	}
	return ctrl
}

// WaitsWithErrors waits for the gate by returning an error, so the work
// queue retries it with exponential backoff: the longer the gate stays
// closed, the longer after it opens the controller notices. It converges,
// and is slow: exposed with no fault at all, by a gate that opens late,
// and caught by Scenario.ConvergeWithin (slow-convergence).
func WaitsWithErrors() model.Controller {
	return gated("waits-with-errors", func() (model.Result, error) { return model.Result{}, errGateClosed })
}

// PollInterval is how often WaitsWithRequeueAfter polls the gate.
const PollInterval = 4

// WaitsWithRequeueAfter is WaitsWithErrors fixed: it polls the gate every
// PollInterval ticks with RequeueAfter, so it notices the gate open within
// PollInterval ticks however long it waited.
func WaitsWithRequeueAfter() model.Controller {
	return gated("waits-with-requeue-after", func() (model.Result, error) { return model.Result{RequeueAfter: PollInterval}, nil })
}

// GateOpensAt is when the outside system behind the gate opens it in
// GateWorld: after a fault phase of 60 ticks (the default horizon without
// resync), so that the controllers wait under the fair scheduler of
// quiescence, where waiting takes the time it would take in a real cluster.
const GateOpensAt = 100

// GateWorld builds one ReplicaSet web with 3 replicas run by ctrl (one of
// the gated controllers), and the closed gate, which the outside system
// behind it opens at GateOpensAt.
func GateWorld(ctrl model.Controller) func(model.Config) (*model.Cluster, error) {
	return func(cfg model.Config) (*model.Cluster, error) {
		c := model.NewCluster(cfg)
		if err := c.AddController(ctrl); err != nil {
			return nil, err
		}
		c.At(GateOpensAt, "cloud", "open the gate", func() {
			out := c.Outside("cloud")
			if gate, err := out.Get(GateKind, "default", GateName); err == nil {
				_ = out.Set(gate, "spec.open", true)
			}
		})
		if err := c.Apply(NewGate()); err != nil {
			return nil, err
		}
		return c, c.Apply(replicaset.New("default", "web", 3))
	}
}
