package controllerruntime

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"reflect"
	"slices"
	"strings"
	"sync"

	"github.com/converge-sim/converge/model"
	"github.com/go-logr/logr"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/record"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/config"
	"sigs.k8s.io/controller-runtime/pkg/controller"
	"sigs.k8s.io/controller-runtime/pkg/healthz"
	"sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/manager"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
	"sigs.k8s.io/controller-runtime/pkg/recorder"
	"sigs.k8s.io/controller-runtime/pkg/webhook"
	"sigs.k8s.io/controller-runtime/pkg/webhook/conversion"
)

// SetupFunc is what a project's main.go does between ctrl.NewManager and
// mgr.Start: typically one SetupWithManager call per reconciler, with the
// reconciler built from mgr.GetClient(), mgr.GetScheme() and
// mgr.GetEventRecorderFor. The model calls it once to learn the
// controllers, then again at every start and restart of each controller,
// so that a restart builds fresh reconcilers and loses their memory.
type SetupFunc func(mgr manager.Manager) error

// SetupOptions configures Manager.Setup.
type SetupOptions struct {
	// Goals holds each controller's goal, by controller name (the
	// builder's Named, or the For kind in lower case).
	Goals map[string]GoalFunc
	// Reads lists kinds the controllers read without watching them. A
	// real manager's cache starts an informer on the first read; the
	// model gives each controller an informer for every kind it may read,
	// declared here, whose events enqueue nothing.
	Reads []client.Object
	// Inert says which Runnables the setup adds with mgr.Add, other than
	// controllers, the model may accept and never run: the user's word
	// that nothing under test depends on them running (a metrics
	// exporter, a certificate rotator for webhooks the model does not
	// call). Without it, or when it says no, such an Add is an error:
	// the model runs no goroutines of its own. A cache.Cache is refused
	// whatever it says (see projectManager.Add).
	Inert func(manager.Runnable) bool
	// Webhooks declares, by path, the webhooks the setup registers with
	// GetWebhookServer().Register at a path ctrl.NewWebhookManagedBy
	// would not generate: which kinds each handles and whether it
	// mutates (webhook.go). The model's API server calls every
	// registered webhook; a path neither generated nor declared is an
	// error.
	Webhooks map[string]Webhook

	_ struct{}
}

// Setup runs a project's own setup, byte for byte, against a
// manager.Manager of the model, and adds every controller it builds to the
// cluster. Controllers are built by the real ctrl.NewControllerManagedBy
// (For, Owns, Watches, WithEventFilter, WithOptions, Named, Complete) or
// controller.New; the model never starts them: it reads their watches and
// runs their handlers, predicates and Reconcile itself, choosing every
// interleaving. What the model cannot run is an error that names it.
func (m *Manager) Setup(setup SetupFunc, opts SetupOptions) error {
	if setup == nil {
		return errors.New("Setup needs a setup function")
	}
	probe := m.newProjectManager(nil, "")
	probe.inert = opts.Inert
	ctrls, err := probe.run(setup)
	if err != nil {
		return err
	}
	// The webhooks of the first run are the API server's from now on;
	// later runs (controller starts) register theirs on servers of their
	// own, which nothing calls.
	if err := m.webhooks.install(probe.webhook, opts.Webhooks); err != nil {
		return err
	}
	for _, r := range probe.unrun {
		m.opts.Logger.Info("mgr.Add: accepted and never run (SetupOptions.Inert)", "runnable", fmt.Sprintf("%T", r))
	}
	for name := range opts.Goals {
		if !slices.ContainsFunc(ctrls, func(c *runningController) bool { return c.name == name }) {
			return fmt.Errorf("a goal names controller %q, which the setup does not build", name)
		}
	}
	var reads []string
	for _, obj := range opts.Reads {
		if _, err := m.pin(obj); err != nil {
			return fmt.Errorf("SetupOptions.Reads: %w", err)
		}
		kind, err := m.conv.Kind(obj)
		if err != nil {
			return fmt.Errorf("SetupOptions.Reads: %w", err)
		}
		reads = append(reads, kind)
	}
	for _, c := range ctrls {
		if err := m.addProjectController(setup, c, opts.Goals[c.name], reads, opts.Inert); err != nil {
			return err
		}
	}
	return nil
}

// addProjectController declares one controller of the project to the
// cluster, from what the probe run of the setup learned.
func (m *Manager) addProjectController(setup SetupFunc, probe *runningController, goal GoalFunc, reads []string, inert func(manager.Runnable) bool) error {
	name := probe.name
	spec := model.Controller{
		Name:         name,
		For:          probe.sources[0].kind,
		ResyncPeriod: m.conv.Ticks(m.opts.SyncPeriod),
		Backoff:      m.opts.Backoff,
		Platform:     isPlatform(reconcilerOf(probe.ctrl)),
	}
	// The primary kind is For's: the first watch that enqueues the
	// object's own key, else the first watch.
	if i := slices.IndexFunc(probe.sources, (*kindSource).handlerIsFor); i >= 0 {
		spec.For = probe.sources[i].kind
	}
	for _, s := range probe.sources {
		switch {
		case s.kind == spec.For:
		case s.owner:
			spec.Owns = append(spec.Owns, s.kind)
		default:
			spec.Watches = append(spec.Watches, model.Watch{Kind: s.kind})
		}
	}
	for _, kind := range reads {
		if kind != spec.For && !slices.Contains(spec.Owns, kind) && !slices.ContainsFunc(spec.Watches, func(w model.Watch) bool { return w.Kind == kind }) {
			spec.Watches = append(spec.Watches, model.Watch{Kind: kind})
		}
	}
	// current is the running incarnation: NewReconciler replaces it at
	// every start, before the informers list and notify.
	var current *runningController
	spec.Notify = func(n model.Notification) []model.Request {
		q := &collector{}
		m.clock.sync(m.cluster)
		current.pm.env.dispatch(current.ctx, current.sources, n, q)
		return q.requests()
	}
	spec.NewReconciler = func(mc model.Client) model.Reconciler {
		pm := m.newProjectManager(mc, name)
		pm.inert = inert
		ctrls, err := pm.run(setup)
		if err != nil {
			panic(fmt.Sprintf("controllerruntime: the setup failed when controller %s (re)started: %v", name, err))
		}
		i := slices.IndexFunc(ctrls, func(c *runningController) bool { return c.name == name })
		if i < 0 {
			panic(fmt.Sprintf("controllerruntime: the setup did not build controller %s again when it (re)started", name))
		}
		current = ctrls[i]
		return declaring(&projectAdapter{m: m, c: current}, reconcilerOf(current.ctrl))
	}
	if goal != nil {
		e := &env{conv: m.conv, mapper: m.mapper, versions: newVersionMemo()}
		spec.Goal = func(s model.State) []model.Unmet {
			m.clock.sync(m.cluster)
			return goal(context.Background(), newStateReader(e, s))
		}
	}
	return m.cluster.AddController(spec)
}

// reconcilerOf returns the reconciler a controller built by the builder or
// controller.New runs: controller-runtime keeps it in the exported field
// Do of its controller struct. Nil if the controller is another type.
func reconcilerOf(c controller.Controller) any {
	v := reflect.ValueOf(c)
	if v.Kind() != reflect.Pointer || v.Elem().Kind() != reflect.Struct {
		return nil
	}
	if do := v.Elem().FieldByName("Do"); do.IsValid() && do.CanInterface() {
		return do.Interface()
	}
	return nil
}

// runningController is one controller-runtime controller the setup built,
// in one incarnation.
type runningController struct {
	name    string
	ctrl    controller.Controller
	logFor  func(*reconcile.Request) logr.Logger
	sources []*kindSource
	pm      *projectManager
	ctx     context.Context
}

// handlerIsFor reports whether the source enqueues the object's own key,
// as For does.
func (s *kindSource) handlerIsFor() bool {
	return strings.Contains(s.handler.Type().String(), "EnqueueRequestForObject")
}

// projectAdapter runs a captured controller's Reconcile, with
// controller-runtime's logger in the context and the result semantics of
// adapter.
type projectAdapter struct {
	m *Manager
	c *runningController
}

func (a *projectAdapter) Reconcile(req model.Request) (model.Result, error) {
	r := reconcile.Request{}
	r.Namespace, r.Name = req.Namespace, req.Name
	ctx := a.c.ctx
	if a.c.logFor != nil {
		ctx = log.IntoContext(ctx, a.c.logFor(&r))
	}
	ctx = log.IntoContext(ctx, quietUnwinds(log.FromContext(ctx), a.c.name))
	return (&adapter{ctx: ctx, r: a.c.ctrl, conv: a.m.conv, before: func() { a.m.clock.sync(a.m.cluster) }, waiter: a.c.pm.waiter, random: a.m.random}).Reconcile(req)
}

// projectManager is the manager.Manager a setup function gets, one per run
// of the setup. Bound to a controller's model client, its client reads
// that controller's informer caches; the probe run's (unbound) client
// fails every call, since no controller runs yet.
type projectManager struct {
	m      *Manager
	env    *env
	client *modelClient
	api    *modelClient
	cache  *modelCache
	added  []controller.Controller
	// inert is SetupOptions.Inert; unrun are the Runnables it accepted.
	inert   func(manager.Runnable) bool
	unrun   []manager.Runnable
	errs    []error
	webhook *webhookServer
	events  eventSink
	// waiter accounts for the time a reconcile of the bound controller
	// waits (wait.go); nil for the unbound probe.
	waiter *waiter
	// rest serves GetConfig and GetHTTPClient (rest.go); made on first use.
	rest *restTransport
}

var _ manager.Manager = (*projectManager)(nil)

// newProjectManager returns the manager a setup runs against, for the
// controller named name (the caller its client writes as) bound to the
// model client mc, or unbound when mc is nil. Its clients share the
// manager's API server (served kinds, status subresources, managed
// fields, rejections).
func (m *Manager) newProjectManager(mc model.Client, name string) *projectManager {
	e := &env{conv: m.conv, mapper: m.mapper, apiServer: m.apiServer, indexes: map[indexKey]map[string]client.IndexerFunc{}, memo: m.memo, pin: m.pin}
	pm := &projectManager{m: m, env: e, webhook: newWebhookServer()}
	var r reader = unbound{}
	var w writer = unbound{}
	var live reader = unbound{}
	if mc != nil {
		api, ok := mc.(model.APIReader)
		if !ok {
			panic(fmt.Sprintf("controllerruntime: the model's client %T does not read the API server", mc))
		}
		pm.waiter = newWaiter(mc, m.conv, m.clock.bubble)
		r, w, live = peekReader{mc, pm.waiter}, waitingWriter{mc, pm.waiter}, liveReader{api, pm.waiter}
		pm.events = eventSink{w: mc, conv: m.conv, now: mc.Now}
	}
	pm.client = &modelClient{env: e, cache: r, live: live, w: w, name: name}
	pm.api = &modelClient{env: e, cache: live, live: live}
	pm.cache = &modelCache{pm: pm}
	return pm
}

// run runs setup and returns the controllers it built, in the order they
// were added.
func (pm *projectManager) run(setup SetupFunc) ([]*runningController, error) {
	if err := setup(pm); err != nil {
		return nil, err
	}
	if err := errors.Join(pm.errs...); err != nil {
		return nil, err
	}
	if len(pm.added) == 0 {
		return nil, errors.New("the setup added no controller: call SetupWithManager (ctrl.NewControllerManagedBy(mgr)…Complete) inside it")
	}
	ctx := log.IntoContext(context.Background(), pm.m.opts.Logger)
	var out []*runningController
	for _, c := range pm.added {
		rc, err := pm.capture(c)
		if err != nil {
			return nil, err
		}
		if slices.ContainsFunc(out, func(o *runningController) bool { return o.name == rc.name }) {
			return nil, fmt.Errorf("two controllers are named %q: name one with Named", rc.name)
		}
		rc.ctx = ctx
		out = append(out, rc)
	}
	return out, nil
}

// defaultNewQueue is the code of controller-runtime's default NewQueue,
// to tell a user's own NewQueue apart.
var defaultNewQueue = sync.OnceValue(func() uintptr {
	c, err := controller.NewUnmanaged("converge-probe", controller.Options{Reconciler: reconcile.Func(nil), SkipNameValidation: ptr.To(true)})
	if err != nil {
		return 0
	}
	v, err := controllerValue(c)
	if err != nil {
		return 0
	}
	return v.FieldByName("NewQueue").Pointer()
})

// capture reads what the model needs from one controller Add received.
func (pm *projectManager) capture(c controller.Controller) (*runningController, error) {
	v, err := controllerValue(c)
	if err != nil {
		return nil, err
	}
	name := v.FieldByName("Name").String()
	if q := v.FieldByName("NewQueue"); q.IsValid() && !q.IsNil() && q.Pointer() != defaultNewQueue() {
		return nil, fmt.Errorf("controller %s: WithOptions(controller.Options{NewQueue: …}) is not supported: the model owns the work queue", name)
	}
	rc := &runningController{name: name, ctrl: c, pm: pm}
	if lc, ok := v.FieldByName("LogConstructor").Interface().(func(*reconcile.Request) logr.Logger); ok && lc != nil {
		rc.logFor = lc
	}
	srcs, err := startWatches(v)
	if err != nil {
		return nil, fmt.Errorf("controller %s: %w", name, err)
	}
	if len(srcs) == 0 {
		return nil, fmt.Errorf("controller %s watches nothing", name)
	}
	for _, src := range srcs {
		ks, err := pm.env.kindOf(src)
		if err != nil {
			return nil, fmt.Errorf("controller %s: %w", name, err)
		}
		rc.sources = append(rc.sources, ks)
	}
	return rc, nil
}

// Add takes a controller built by the builder or controller.New, and a
// Runnable SetupOptions.Inert accepts, which is never run. A cache.Cache
// (one built by cache.New(mgr.GetConfig(), …)) is an error: its reads
// would start informers of its own, whose goroutines list and watch
// outside the model's schedule; the model's own informers serve
// mgr.GetCache() and source.Kind watches whatever cache they name. Any
// other Runnable is an error: the model runs no goroutines of its own.
func (pm *projectManager) Add(r manager.Runnable) error {
	c, ok := r.(controller.Controller)
	if _, isCache := r.(cache.Cache); !ok && isCache && r != pm.cache {
		return fmt.Errorf("Add(%T): a second cache runs informers of its own, in goroutines outside the model's schedule; read through mgr.GetClient() or mgr.GetCache(), whose informers the model drives (a source.Kind naming this cache is served by them too), or mgr.GetAPIReader()", r)
	}
	if !ok {
		if r == pm.cache || (pm.inert != nil && pm.inert(r)) {
			pm.unrun = append(pm.unrun, r)
			return nil
		}
		return fmt.Errorf("Add(%T): the model runs only controllers (ctrl.NewControllerManagedBy, controller.New), not other Runnables; if nothing under test depends on it running, accept it with SetupOptions.Inert", r)
	}
	if _, err := controllerValue(c); err != nil {
		return err
	}
	pm.added = append(pm.added, c)
	return nil
}

// GetControllerOptions returns the defaults the builder applies: no name
// validation (every run builds the controllers again) and no panic
// recovery (a panic is a finding).
func (pm *projectManager) GetControllerOptions() config.Controller {
	return config.Controller{SkipNameValidation: ptr.To(true), RecoverPanic: ptr.To(false), Logger: pm.m.opts.Logger}
}

// GetClient returns the controller's client: reads from its informer
// caches in the model, writes to the model's API server.
func (pm *projectManager) GetClient() client.Client { return pm.client }

// GetAPIReader returns a reader of the model's API server itself.
func (pm *projectManager) GetAPIReader() client.Reader { return pm.api }

// GetScheme returns the converter's scheme.
func (pm *projectManager) GetScheme() *runtime.Scheme { return pm.m.conv.Scheme() }

// GetRESTMapper returns the model's REST mapper.
func (pm *projectManager) GetRESTMapper() meta.RESTMapper { return pm.m.mapper }

// GetFieldIndexer returns the indexer List's field selectors use.
func (pm *projectManager) GetFieldIndexer() client.FieldIndexer { return pm.cache }

// GetCache returns the model-backed cache: reads as GetClient's, indexes
// as GetFieldIndexer; informers are the model's and cannot be had.
func (pm *projectManager) GetCache() cache.Cache { return pm.cache }

// GetLogger returns ManagerOptions.Logger.
func (pm *projectManager) GetLogger() logr.Logger { return pm.m.opts.Logger }

// GetEventRecorderFor returns a recorder whose events become Event objects
// in the model.
func (pm *projectManager) GetEventRecorderFor(name string) record.EventRecorder {
	pm.needEvents("GetEventRecorderFor")
	return &legacyRecorder{sink: &pm.events, component: name}
}

// GetEventRecorder returns a recorder of the events API whose events
// become Event objects in the model.
func (pm *projectManager) GetEventRecorder(name string) recorder.EventRecorder {
	pm.needEvents("GetEventRecorder")
	return &eventsRecorder{sink: &pm.events, component: name}
}

// needEvents records an error if the scheme cannot hold core/v1 Events.
func (pm *projectManager) needEvents(method string) {
	if _, err := pm.m.conv.Kind(&corev1.Event{}); err != nil {
		pm.errs = append(pm.errs, fmt.Errorf("%s: events are core/v1 Event objects, which the scheme lacks (add k8s.io/client-go/kubernetes/scheme): %w", method, err))
	}
}

// Elected is closed: the one manager of the model is always the leader.
func (pm *projectManager) Elected() <-chan struct{} { return closedChannel }

var closedChannel = func() chan struct{} { c := make(chan struct{}); close(c); return c }()

// AddHealthzCheck is a no-op: the model serves no health probes.
func (pm *projectManager) AddHealthzCheck(string, healthz.Checker) error { return nil }

// AddReadyzCheck is a no-op: the model serves no readiness probes.
func (pm *projectManager) AddReadyzCheck(string, healthz.Checker) error { return nil }

// AddMetricsServerExtraHandler is not supported: the model serves no HTTP.
func (pm *projectManager) AddMetricsServerExtraHandler(path string, _ http.Handler) error {
	return fmt.Errorf("AddMetricsServerExtraHandler(%s): the model serves no metrics", path)
}

// Start is not supported: the model runs the controllers, step by step.
func (pm *projectManager) Start(context.Context) error {
	return errors.New("Start: the model runs the controllers; hand the setup to Manager.Setup and check the scenario")
}

// GetWebhookServer returns a server that records registrations: the
// model's API server calls the webhooks the setup registers (webhook.go).
func (pm *projectManager) GetWebhookServer() webhook.Server { return pm.webhook }

// GetConverterRegistry returns an empty registry: the model stores one
// version of each kind and converts nothing.
func (pm *projectManager) GetConverterRegistry() conversion.Registry { return conversion.NewRegistry() }

// GetConfig returns a rest.Config served by the model's API server,
// in-process (rest.go): clientsets, the dynamic and discovery clients and
// a controller-runtime client built from it read the API server and write
// as the controller, under the same faults as GetClient.
func (pm *projectManager) GetConfig() *rest.Config { return restConfig(pm.transport()) }

// GetHTTPClient returns an HTTP client over GetConfig's transport.
func (pm *projectManager) GetHTTPClient() *http.Client {
	return &http.Client{Transport: pm.transport()}
}

// transport returns the manager's HTTP transport, made on first use.
func (pm *projectManager) transport() *restTransport {
	if pm.rest == nil {
		c := pm.client
		pm.rest = &restTransport{cl: &modelClient{env: c.env, cache: c.live, live: c.live, w: c.w, name: c.name}, opts: &pm.m.opts, kinds: pm.m.resources}
	}
	return pm.rest
}

// unbound is the reader and writer of the probe run's client: the setup
// runs before any controller, so there is nothing to read or write yet.
type unbound struct{}

var errUnbound = errors.New("GetClient: the client was used inside the setup function, before any controller runs; the model has no API server to reach yet")

func (unbound) Get(string, string, string) (*model.Object, error)       { return nil, errUnbound }
func (unbound) List(string, model.ListOptions) ([]*model.Object, error) { return nil, errUnbound }
func (unbound) Create(*model.Object) error                              { return errUnbound }
func (unbound) Update(*model.Object) error                              { return errUnbound }
func (unbound) UpdateStatus(*model.Object) error                        { return errUnbound }
func (unbound) Delete(model.Ref, model.DeleteOptions) error             { return errUnbound }

// modelCache is the cache.Cache of a project manager: Get and List as the
// controller's client, IndexField as the manager's field indexer.
type modelCache struct{ pm *projectManager }

var _ cache.Cache = (*modelCache)(nil)

func (c *modelCache) Get(ctx context.Context, key client.ObjectKey, obj client.Object, opts ...client.GetOption) error {
	return c.pm.client.Get(ctx, key, obj, opts...)
}

func (c *modelCache) List(ctx context.Context, list client.ObjectList, opts ...client.ListOption) error {
	return c.pm.client.List(ctx, list, opts...)
}

// IndexField lets every client of this setup select obj's kind by field.
func (c *modelCache) IndexField(_ context.Context, obj client.Object, field string, extract client.IndexerFunc) error {
	return c.pm.env.indexField(obj, field, extract)
}

func (c *modelCache) GetInformer(_ context.Context, obj client.Object, _ ...cache.InformerGetOption) (cache.Informer, error) {
	return nil, fmt.Errorf("GetCache().GetInformer(%T): informers are the model's; watch the kind with For, Owns or Watches", obj)
}

func (c *modelCache) GetInformerForKind(_ context.Context, gvk schema.GroupVersionKind, _ ...cache.InformerGetOption) (cache.Informer, error) {
	return nil, fmt.Errorf("GetCache().GetInformerForKind(%v): informers are the model's; watch the kind with For, Owns or Watches", gvk)
}

func (c *modelCache) RemoveInformer(_ context.Context, obj client.Object) error {
	return fmt.Errorf("GetCache().RemoveInformer(%T): informers are the model's", obj)
}

func (c *modelCache) Start(context.Context) error {
	return errors.New("GetCache().Start: the model runs the informers")
}

// WaitForCacheSync reports true: the model's informers list before their
// controller runs.
func (c *modelCache) WaitForCacheSync(context.Context) bool { return true }
