package controllerruntime

import (
	"context"
	"fmt"
	"time"

	"github.com/converge-sim/converge/controllerruntime/convert"
	"github.com/converge-sim/converge/controllerruntime/crd"
	"github.com/converge-sim/converge/model"
	"github.com/go-logr/logr"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// env is what every client of a manager shares: the converter, the REST
// mapper and the field indexes.
type env struct {
	apiServer
	conv    *convert.Converter
	mapper  *restMapper
	indexes map[indexKey]map[string]client.IndexerFunc // kind and form → field → extractor
	// memo is nil where the env outlives one cluster (invariants).
	memo memo
	// versions, when set, memoizes by stored version instead: for
	// readers of the API server's own stored objects (goals, invariants).
	versions *versionMemo
	// pin, when set, pins the group of a watched typed object's kind
	// (Manager.pin) and returns the converter to use from then on.
	pin func(...runtime.Object) (*convert.Converter, error)
}

func newEnv(conv *convert.Converter, clusterScoped map[string]bool) *env {
	return &env{conv: conv, mapper: &restMapper{conv: conv, clusterScoped: clusterScoped}, indexes: map[indexKey]map[string]client.IndexerFunc{}}
}

// ManagerOptions configures a Manager.
type ManagerOptions struct {
	// CRDs are the custom resource definitions the API server serves
	// (crd.Load of config/crd/bases): every write of a custom resource is
	// pruned, defaulted and validated as a real API server does, CEL rules
	// included, and writing a kind that is neither built in nor defined is
	// an error unless CRDOptions.AllowUndefined. Nil serves custom
	// resources unvalidated.
	CRDs *crd.Set
	// CRDOptions configures the admission of custom resources.
	CRDOptions crd.Options
	// SyncPeriod is how often each informer replays its cache to its
	// controller, as controller-runtime's cache SyncPeriod; zero turns
	// resync off. It is rounded up to whole ticks.
	SyncPeriod time.Duration
	// Backoff is the rate-limited requeue's backoff, in ticks, that an
	// error or Requeue gets; zero means model.DefaultBackoff.
	Backoff model.Backoff
	// Logger is the logger reconcilers find in their context
	// (log.FromContext); the zero value discards.
	Logger logr.Logger
	// ClusterScoped lists the kinds without a namespace besides the
	// built-in ones (Namespace, Node, ClusterRole, …).
	ClusterScoped []client.Object
	// StopClockWhenFaultsEnd stops the clock user code reads (time.Now,
	// metav1.Now) where the fault phase ends, while the model's timers go
	// on: a time-driven controller (a CronJob's schedule) then has no new
	// deadline to meet after the faults and can reach a fixed point, where
	// its goal is judged. Without it such a controller writes on every
	// tick of its schedule and never settles. It applies to reconcilers
	// run inside a testing/synctest bubble (see Check); see clock.go.
	StopClockWhenFaultsEnd bool
	// Exec answers the pods/exec requests made through mgr.GetConfig();
	// nil answers each with an error naming the pod and the command. See
	// ExecFunc and README.md, "Exec and logs".
	Exec ExecFunc
	// Logs answers the pods/log requests made through mgr.GetConfig();
	// nil answers each with an error naming the pod.
	Logs LogsFunc
}

// Manager stands in for controller-runtime's manager.Manager in one model
// cluster: controllers are registered with NewControllerManagedBy(m), the
// scenario's objects are created with Apply, and outside actors get
// clients from OutsideClient. Build a new one with each cluster.
type Manager struct {
	*env
	cluster *model.Cluster
	opts    ManagerOptions
	clock   *virtualClock
	// random is the run's crypto/rand stream (cryptorand.go).
	random *runRandom
	// resources is what GetConfig's API serves, built on its first request.
	resources *resourceTable
	// webhooks are the operator's admission webhooks the API server
	// calls (webhook.go).
	webhooks *webhooks
}

// NewManager returns a manager for controllers of cluster c whose objects
// conv converts.
func NewManager(c *model.Cluster, conv *convert.Converter, opts ManagerOptions) (*Manager, error) {
	if opts.SyncPeriod < 0 {
		return nil, fmt.Errorf("negative SyncPeriod %v", opts.SyncPeriod)
	}
	scoped := map[string]bool{}
	objs := make([]runtime.Object, len(opts.ClusterScoped))
	for i, obj := range opts.ClusterScoped {
		objs[i] = obj
	}
	conv, err := conv.Pin(objs...)
	if err != nil {
		return nil, err
	}
	for _, obj := range opts.ClusterScoped {
		kind, err := conv.Kind(obj)
		if err != nil {
			return nil, err
		}
		scoped[kind] = true
	}
	if opts.Logger.GetSink() == nil {
		opts.Logger = logr.Discard()
	}
	e := newEnv(conv, scoped)
	wh := &webhooks{e: e}
	installAPIServer(c, e, opts.CRDs, opts.CRDOptions, wh)
	e.memo = memo{}
	return &Manager{env: e, cluster: c, opts: opts, clock: newVirtualClock(conv, opts.StopClockWhenFaultsEnd),
		random: &runRandom{c: c}, resources: newResourceTable(e, opts.CRDs), webhooks: wh}, nil
}

// Cluster returns the model cluster.
func (m *Manager) Cluster() *model.Cluster { return m.cluster }

// Converter returns the converter of typed objects.
func (m *Manager) Converter() *convert.Converter { return m.conv }

// GetScheme returns the scheme.
func (m *Manager) GetScheme() *runtime.Scheme { return m.conv.Scheme() }

// GetRESTMapper returns a REST mapper for the scheme's kinds.
func (m *Manager) GetRESTMapper() meta.RESTMapper { return m.mapper }

// GetFieldIndexer returns the indexer that List's field selectors use.
func (m *Manager) GetFieldIndexer() client.FieldIndexer { return m }

// IndexField lets every client of the manager select obj's kind by field
// with List(…, client.MatchingFields{field: value}). Call it before the
// cluster starts, as with controller-runtime.
func (m *Manager) IndexField(_ context.Context, obj client.Object, field string, extract client.IndexerFunc) error {
	return m.indexField(obj, field, extract)
}

// Apply creates objects as the scenario's setup; an object's status is
// written too.
func (m *Manager) Apply(objs ...client.Object) error {
	mos := make([]*model.Object, len(objs))
	for _, obj := range objs {
		if _, err := m.pin(obj); err != nil {
			return err
		}
	}
	for i, obj := range objs {
		mo, err := m.conv.ToModel(obj)
		if err != nil {
			return err
		}
		mos[i] = mo
	}
	return m.cluster.Apply(mos...)
}

// OutsideClient returns a client that reads the API server directly and
// writes under name, for actors and test setup: the world outside the
// controllers.
func (m *Manager) OutsideClient(name string) client.Client {
	out := m.cluster.Outside(name)
	r := outsideReader{out}
	return &modelClient{env: m.env, cache: r, live: r, w: out, name: name}
}
