package controllerruntime_test

//lint:file-ignore SA1019 these projects call GetEventRecorderFor as kubebuilder scaffolds do

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	crt "github.com/converge-sim/converge/controllerruntime"
	"github.com/converge-sim/converge/controllerruntime/convert"
	"github.com/converge-sim/converge/controllerruntime/examples/replicaset"
	"github.com/converge-sim/converge/faults"
	"github.com/converge-sim/converge/model"
	"github.com/converge-sim/converge/properties"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/tools/record"
	"k8s.io/client-go/util/workqueue"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/healthz"
	"sigs.k8s.io/controller-runtime/pkg/manager"
	"sigs.k8s.io/controller-runtime/pkg/predicate"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
	"sigs.k8s.io/controller-runtime/pkg/source"
)

// setupReplicaSet is a SetupWithManager as a scaffold writes it, over the
// example's unmodified ReplicaSet reconciler; filter is its event filter.
type setupReplicaSet struct {
	replicaset.Reconciler
	filter predicate.Predicate
}

func (r *setupReplicaSet) SetupWithManager(mgr ctrl.Manager) error {
	return ctrl.NewControllerManagedBy(mgr).
		For(&appsv1.ReplicaSet{}).
		Owns(&corev1.Pod{}).
		WithEventFilter(r.filter).
		WithOptions(controller.Options{MaxConcurrentReconciles: 2}).
		Named("rs").
		Complete(r)
}

var inDefault = predicate.NewPredicateFuncs(func(o client.Object) bool { return o.GetNamespace() == "default" })

func projectScenario(t *testing.T, conv *convert.Converter, filter predicate.Predicate) properties.Scenario {
	sc := replicaset.Scenario("rs", conv, replicaset.Options{Scale: true})
	sc.Build = func(cfg model.Config) (*model.Cluster, error) {
		c := model.NewCluster(cfg)
		mgr, err := crt.NewManager(c, conv, crt.ManagerOptions{SyncPeriod: 20 * time.Second})
		if err != nil {
			return nil, err
		}
		err = mgr.Setup(func(m manager.Manager) error {
			return (&setupReplicaSet{replicaset.Reconciler{Client: m.GetClient(), Scheme: m.GetScheme()}, filter}).SetupWithManager(m)
		}, crt.SetupOptions{Goals: map[string]crt.GoalFunc{"rs": replicaset.PodsMatchReplicas}})
		if err != nil {
			return nil, err
		}
		return c, mgr.Apply(replicaset.New("default", "web", 3))
	}
	return sc
}

func clientgoConverter(t *testing.T) *convert.Converter {
	t.Helper()
	conv, err := convert.New(clientgoscheme.Scheme, convert.Options{})
	require.NoError(t, err)
	return conv
}

// TestSetupWithManagerRunsUnderEveryFault runs a scaffold's
// SetupWithManager, through the real ctrl.NewControllerManagedBy, under
// every fault: the model reads the builder's watches and runs them.
func TestSetupWithManagerRunsUnderEveryFault(t *testing.T) {
	sc := projectScenario(t, clientgoConverter(t), inDefault)
	every := faults.Mix{faults.KindDrop, faults.KindDuplicate, faults.KindDelay, faults.KindExpire, faults.KindRestart, faults.KindStale, faults.KindEdit, faults.KindAPIError, faults.KindPartition, faults.KindTimeTravel}
	res, err := properties.Search(sc, every, properties.SearchOptions{Test: t, Checks: 50, Seed: 1})
	require.NoError(t, err)
	if cx := res.Counterexample; cx != nil {
		t.Fatalf("must converge:\n%s", cx.Report())
	}
	assert.Equal(t, 50, res.Runs)
}

// TestEventFilterReachesTheModel: WithEventFilter's predicates run on the
// model's notifications. ResourceVersionChangedPredicate drops resyncs
// (old == new), so a dropped Pod notification is never repaired, and the
// search finds it with one drop and one outside delete.
func TestEventFilterReachesTheModel(t *testing.T) {
	sc := projectScenario(t, clientgoConverter(t), predicate.ResourceVersionChangedPredicate{})
	res, err := properties.Search(sc, faults.Mix{faults.KindDrop, faults.KindEdit}, properties.SearchOptions{Test: t, Checks: 100, Seed: 1})
	require.NoError(t, err)
	require.NotNil(t, res.Counterexample, "a filter that drops resyncs must be caught")
	assert.Equal(t, properties.GoalUnmet, res.Counterexample.Failure.Verdict)
}

// stamper writes, once per ConfigMap, the time it first saw it (from
// metav1.Now, the wall clock in a real cluster) and records an event.
type stamper struct {
	client.Client
	Recorder record.EventRecorder
}

func (s *stamper) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	var cm corev1.ConfigMap
	if err := s.Get(ctx, req.NamespacedName, &cm); err != nil {
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	if cm.Annotations["seen"] != "" {
		return ctrl.Result{}, nil
	}
	if cm.Annotations == nil {
		cm.Annotations = map[string]string{}
	}
	now := metav1.Now()
	cm.Annotations["seen"] = now.UTC().Format(time.RFC3339Nano)
	if err := s.Update(ctx, &cm); err != nil {
		return ctrl.Result{}, err
	}
	s.Recorder.Eventf(&cm, corev1.EventTypeNormal, "Stamped", "seen at %s", now.UTC().Format(time.RFC3339))
	return ctrl.Result{RequeueAfter: 3 * time.Second}, nil
}

func (s *stamper) SetupWithManager(mgr ctrl.Manager) error {
	return ctrl.NewControllerManagedBy(mgr).For(&corev1.ConfigMap{}).Complete(s)
}

func stamperScenario(conv *convert.Converter) properties.Scenario {
	return properties.Scenario{
		Name: "stamper",
		Build: func(cfg model.Config) (*model.Cluster, error) {
			c := model.NewCluster(cfg)
			mgr, err := crt.NewManager(c, conv, crt.ManagerOptions{SyncPeriod: 20 * time.Second})
			if err != nil {
				return nil, err
			}
			err = mgr.Setup(func(m manager.Manager) error {
				return (&stamper{Client: m.GetClient(), Recorder: m.GetEventRecorderFor("stamper")}).SetupWithManager(m)
			}, crt.SetupOptions{})
			if err != nil {
				return nil, err
			}
			return c, mgr.Apply(
				&corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "a"}},
				&corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "b"}},
			)
		},
		Edits: []faults.EditTarget{{Resource: "ConfigMap"}},
	}
}

// TestTimestampsReplayByteForByte: inside a synctest bubble, metav1.Now in
// a reconciler reads the model's virtual clock, so the same choices give
// the same trace, timestamps and events included.
func TestTimestampsReplayByteForByte(t *testing.T) {
	conv := clientgoConverter(t)
	sc := stamperScenario(conv)
	sched := faults.Schedule{{At: 3, Fault: faults.Restart{Controller: "configmap", Down: 4}}}
	choices := []int{1, 0, 2, 1, 1, 0, 3, 1, 0, 2}
	var hashes []string
	var stamps []string
	for range 2 {
		synctest.Test(t, func(t *testing.T) {
			out, _, err := properties.Replay(sc, sched, choices, properties.RunOptions{})
			require.NoError(t, err)
			require.Nil(t, out.Failure)
			hashes = append(hashes, out.Cluster.Trace().Hash())
			s := out.Cluster.State()
			cm := s.Get("ConfigMap", "default", "a")
			require.NotNil(t, cm)
			var typed corev1.ConfigMap
			require.NoError(t, conv.FromModel(cm, &typed))
			stamps = append(stamps, typed.Annotations["seen"])
			seen, err := time.Parse(time.RFC3339Nano, typed.Annotations["seen"])
			require.NoError(t, err)
			assert.False(t, seen.Before(conv.Time(0).Time), "a stamp is virtual time: %v", seen)
			assert.False(t, seen.After(conv.Time(out.Cluster.Now()).Time), "a stamp is virtual time: %v", seen)
			events := s.List("Event", model.ListOptions{})
			assert.Len(t, events, 2, "one Stamped event per ConfigMap")
		})
	}
	assert.Equal(t, hashes[0], hashes[1])
	assert.Equal(t, stamps[0], stamps[1])
}

// TestCheckRunsInABubble: crt.Check runs every case in a bubble; the
// stamper converges under restarts and edits.
func TestCheckRunsInABubble(t *testing.T) {
	crt.Check(t, stamperScenario(clientgoConverter(t)), faults.Mix{faults.KindRestart, faults.KindEdit})
}

func setupError(t *testing.T, setup crt.SetupFunc) error {
	t.Helper()
	conv := clientgoConverter(t)
	mgr, err := crt.NewManager(model.NewCluster(model.Config{}), conv, crt.ManagerOptions{})
	require.NoError(t, err)
	return mgr.Setup(setup, crt.SetupOptions{})
}

// TestUnsupportedFeaturesAreErrorsThatNameThem.
func TestUnsupportedFeaturesAreErrorsThatNameThem(t *testing.T) {
	rs := func(m manager.Manager) *setupReplicaSet {
		return &setupReplicaSet{replicaset.Reconciler{Client: m.GetClient(), Scheme: m.GetScheme()}, inDefault}
	}
	cases := map[string]struct {
		setup crt.SetupFunc
		want  string
	}{
		"runnable": {func(m manager.Manager) error {
			return m.Add(manager.RunnableFunc(func(context.Context) error { return nil }))
		}, "Add(manager.RunnableFunc)"},
		"webhook": {func(m manager.Manager) error {
			m.GetWebhookServer().Register("/validate-v1-pod", http.NotFoundHandler())
			return rs(m).SetupWithManager(m)
		}, "GetWebhookServer().Register(/validate-v1-pod)"},
		"new queue": {func(m manager.Manager) error {
			return ctrl.NewControllerManagedBy(m).For(&appsv1.ReplicaSet{}).
				WithOptions(controller.Options{NewQueue: func(string, workqueue.TypedRateLimiter[reconcile.Request]) workqueue.TypedRateLimitingInterface[reconcile.Request] {
					return nil
				}}).Complete(rs(m))
		}, "NewQueue"},
		"nothing": {func(manager.Manager) error { return nil }, "added no controller"},
		"metrics": {func(m manager.Manager) error {
			return m.AddMetricsServerExtraHandler("/debug", http.NotFoundHandler())
		}, "AddMetricsServerExtraHandler(/debug)"},
		"start": {func(m manager.Manager) error { return m.Start(context.Background()) }, "Start:"},
		"client in setup": {func(m manager.Manager) error {
			return m.GetClient().List(context.Background(), &corev1.PodList{})
		}, "GetClient:"},
		"informer": {func(m manager.Manager) error {
			_, err := m.GetCache().GetInformer(context.Background(), &corev1.Pod{})
			return err
		}, "GetInformer(*v1.Pod)"},
		"channel source": {func(m manager.Manager) error {
			ch := make(chan event.GenericEvent)
			return ctrl.NewControllerManagedBy(m).For(&appsv1.ReplicaSet{}).
				WatchesRawSource(source.Channel(ch, &handler.EnqueueRequestForObject{})).Complete(rs(m))
		}, "WatchesRawSource"},
		// The model's HTTP API (rest.go) inside the setup, before any
		// controller runs.
		"rest config": {func(m manager.Manager) error {
			cs, err := kubernetes.NewForConfig(m.GetConfig())
			if err != nil {
				return err
			}
			_, err = cs.CoreV1().ConfigMaps("default").Get(context.Background(), "a", metav1.GetOptions{})
			return err
		}, "before any controller runs"},
		"webhook server start": {func(m manager.Manager) error {
			return m.GetWebhookServer().Start(context.Background())
		}, "GetWebhookServer().Start"},
		"informer for kind": {func(m manager.Manager) error {
			_, err := m.GetCache().GetInformerForKind(context.Background(), appsv1.SchemeGroupVersion.WithKind("ReplicaSet"))
			return err
		}, "GetInformerForKind(apps/v1, Kind=ReplicaSet)"},
		"remove informer": {func(m manager.Manager) error {
			return m.GetCache().RemoveInformer(context.Background(), &corev1.Pod{})
		}, "RemoveInformer(*v1.Pod)"},
		"cache start": {func(m manager.Manager) error {
			return m.GetCache().Start(context.Background())
		}, "GetCache().Start"},
		"func source": {func(m manager.Manager) error {
			return ctrl.NewControllerManagedBy(m).For(&appsv1.ReplicaSet{}).
				WatchesRawSource(source.Func(func(context.Context, workqueue.TypedRateLimitingInterface[reconcile.Request]) error { return nil })).Complete(rs(m))
		}, "WatchesRawSource"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			err := setupError(t, tc.setup)
			require.Error(t, err)
			assert.True(t, strings.Contains(err.Error(), tc.want), "%q must name %q", err, tc.want)
		})
	}
}

// TestDocumentedNoOpsAreAccepted: probes, leader election and the
// controller options the model has no use for are accepted and change
// nothing (README, "manager.Manager, method by method").
func TestDocumentedNoOpsAreAccepted(t *testing.T) {
	err := setupError(t, func(m manager.Manager) error {
		if err := m.AddHealthzCheck("ping", healthz.Ping); err != nil {
			return err
		}
		if err := m.AddReadyzCheck("ping", healthz.Ping); err != nil {
			return err
		}
		<-m.Elected()
		r := &setupReplicaSet{replicaset.Reconciler{Client: m.GetClient(), Scheme: m.GetScheme()}, inDefault}
		return ctrl.NewControllerManagedBy(m).For(&appsv1.ReplicaSet{}).Owns(&corev1.Pod{}).
			WithOptions(controller.Options{MaxConcurrentReconciles: 4, NeedLeaderElection: ptr.To(true), CacheSyncTimeout: time.Minute}).
			Complete(r)
	})
	assert.NoError(t, err)
}

// TestRestartRunsTheSetupAgain: the setup runs once to learn the
// controllers, once at start, and again at every restart, so that a
// restarted controller gets a fresh reconciler.
func TestRestartRunsTheSetupAgain(t *testing.T) {
	conv := clientgoConverter(t)
	var reconcilers []*stamper
	sc := stamperScenario(conv)
	sc.Build = func(cfg model.Config) (*model.Cluster, error) {
		c := model.NewCluster(cfg)
		mgr, err := crt.NewManager(c, conv, crt.ManagerOptions{})
		if err != nil {
			return nil, err
		}
		err = mgr.Setup(func(m manager.Manager) error {
			s := &stamper{Client: m.GetClient(), Recorder: m.GetEventRecorderFor("stamper")}
			reconcilers = append(reconcilers, s)
			return s.SetupWithManager(m)
		}, crt.SetupOptions{})
		if err != nil {
			return nil, err
		}
		return c, mgr.Apply(&corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "a"}})
	}
	for _, tc := range []struct {
		sched faults.Schedule
		want  int
	}{
		{nil, 2},
		{faults.Schedule{{At: 1, Fault: faults.Restart{Controller: "configmap", Down: 2}}}, 3},
	} {
		reconcilers = nil
		synctest.Test(t, func(t *testing.T) {
			out, _, err := properties.Replay(sc, tc.sched, nil, properties.RunOptions{})
			require.NoError(t, err)
			require.Nil(t, out.Failure)
		})
		assert.Len(t, reconcilers, tc.want, "setup runs: probe, start, one per restart")
	}
}

// TestEventsNeedTheEventKind: a recorder over a scheme without core/v1
// Event is an error at Setup, not events silently lost.
func TestEventsNeedTheEventKind(t *testing.T) {
	scheme := runtime.NewScheme()
	require.NoError(t, appsv1.AddToScheme(scheme))
	conv, err := convert.New(scheme, convert.Options{})
	require.NoError(t, err)
	mgr, err := crt.NewManager(model.NewCluster(model.Config{}), conv, crt.ManagerOptions{})
	require.NoError(t, err)
	err = mgr.Setup(func(m manager.Manager) error {
		_ = m.GetEventRecorderFor("rs")
		return ctrl.NewControllerManagedBy(m).For(&appsv1.ReplicaSet{}).Complete(reconcile.Func(func(context.Context, reconcile.Request) (reconcile.Result, error) {
			return reconcile.Result{}, nil
		}))
	}, crt.SetupOptions{})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "GetEventRecorderFor")
}

// metadataOnly owns pods through a metadata-only watch.
type metadataOnly struct{ replicaset.Reconciler }

func (r *metadataOnly) SetupWithManager(mgr ctrl.Manager) error {
	return ctrl.NewControllerManagedBy(mgr).
		For(&appsv1.ReplicaSet{}).
		Owns(&corev1.Pod{}, builder.OnlyMetadata).
		Named("rs").
		Complete(r)
}

// TestMetadataOnlyWatches: an OnlyMetadata watch hands its handler
// PartialObjectMetadata, and owner mapping still works: a deleted pod is
// replaced.
func TestMetadataOnlyWatches(t *testing.T) {
	conv := clientgoConverter(t)
	sc := projectScenario(t, conv, inDefault)
	sc.Build = func(cfg model.Config) (*model.Cluster, error) {
		c := model.NewCluster(cfg)
		mgr, err := crt.NewManager(c, conv, crt.ManagerOptions{})
		if err != nil {
			return nil, err
		}
		err = mgr.Setup(func(m manager.Manager) error {
			return (&metadataOnly{replicaset.Reconciler{Client: m.GetClient(), Scheme: m.GetScheme()}}).SetupWithManager(m)
		}, crt.SetupOptions{Goals: map[string]crt.GoalFunc{"rs": replicaset.PodsMatchReplicas}})
		if err != nil {
			return nil, err
		}
		return c, mgr.Apply(replicaset.New("default", "web", 3))
	}
	res, err := properties.Search(sc, faults.Mix{faults.KindEdit, faults.KindRestart}, properties.SearchOptions{Test: t, Checks: 30, Seed: 1})
	require.NoError(t, err)
	if cx := res.Counterexample; cx != nil {
		t.Fatalf("must converge:\n%s", cx.Report())
	}
}

// TestControllerNewWithATypedSource: a controller built with controller.New
// and a typed source.Kind runs as one built by the builder.
func TestControllerNewWithATypedSource(t *testing.T) {
	conv := clientgoConverter(t)
	sc := stamperScenario(conv)
	sc.Build = func(cfg model.Config) (*model.Cluster, error) {
		c := model.NewCluster(cfg)
		mgr, err := crt.NewManager(c, conv, crt.ManagerOptions{})
		if err != nil {
			return nil, err
		}
		err = mgr.Setup(func(m manager.Manager) error {
			ctl, err := controller.New("stamper", m, controller.Options{Reconciler: &stamper{Client: m.GetClient(), Recorder: m.GetEventRecorderFor("stamper")}})
			if err != nil {
				return err
			}
			return ctl.Watch(source.Kind(m.GetCache(), &corev1.ConfigMap{}, &handler.TypedEnqueueRequestForObject[*corev1.ConfigMap]{},
				predicate.TypedFuncs[*corev1.ConfigMap]{CreateFunc: func(e event.TypedCreateEvent[*corev1.ConfigMap]) bool { return e.Object.Name != "skip" }}))
		}, crt.SetupOptions{})
		if err != nil {
			return nil, err
		}
		return c, mgr.Apply(
			&corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "a"}},
			&corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "skip"}},
		)
	}
	synctest.Test(t, func(t *testing.T) {
		out, _, err := properties.Replay(sc, nil, nil, properties.RunOptions{})
		require.NoError(t, err)
		require.Nil(t, out.Failure)
		s := out.Cluster.State()
		var a, skip corev1.ConfigMap
		require.NoError(t, conv.FromModel(s.Get("ConfigMap", "default", "a"), &a))
		require.NoError(t, conv.FromModel(s.Get("ConfigMap", "default", "skip"), &skip))
		assert.NotEmpty(t, a.Annotations["seen"], "the typed source enqueued a")
		assert.Empty(t, skip.Annotations["seen"], "the typed predicate filtered skip's create")
	})
}
