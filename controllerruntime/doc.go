// Package controllerruntime runs unmodified controller-runtime reconcilers
// (sigs.k8s.io/controller-runtime/pkg/reconcile.Reconciler) inside
// converge's model cluster, under faults, deterministically.
//
// A reconciler gets a client.Client whose reads come from its own informer
// caches in the model (stale under faults) and whose writes go to the
// model's API server, with real resourceVersion conflicts, generation
// semantics, finalizers, ownerReference garbage collection and injected
// API errors as apierrors values; with ManagerOptions.CRDs, custom
// resources are defaulted and validated as the real API server does
// (package crd); server-side apply runs the API server's field manager;
// objects may be typed or unstructured. mgr.GetConfig() is served by the
// model in-process (rest.go), so clientsets, the dynamic and discovery
// clients and a second controller-runtime client built from it make the
// controller's own calls, under the same faults. Controllers are declared with a builder
// that mirrors controller-runtime's (For, Owns, Watches with any
// handler.EventHandler, predicates); goals and invariants read typed
// objects. Package convert says how typed objects are represented in the
// model, and what is lossy.
//
// A kubebuilder or operator-sdk project runs as it is: Manager.Setup
// hands its own setup (the SetupWithManager calls of its main.go) a
// manager.Manager of the model, the real ctrl.NewControllerManagedBy
// builds the controllers, and the model runs their handlers, predicates
// and Reconcile, choosing every interleaving. Check (or properties.Search
// with properties.InBubble) runs each case in a testing/synctest bubble,
// where the reconciler's clock is the model's. Package builtin has the Job,
// Deployment, ReplicaSet and pod lifecycle controllers operators lean on.
// The Manager.Setup example runs this:
//
//	err = mgr.Setup(func(m ctrl.Manager) error {
//		return (&controller.MyReconciler{Client: m.GetClient(), Scheme: m.GetScheme()}).SetupWithManager(m)
//	}, crt.SetupOptions{Goals: map[string]crt.GoalFunc{"mykind": myGoal}})
//
// A reconciler without SetupWithManager can be declared with this
// package's look-alike builder instead. The smallest use, inside a
// properties.Scenario's Build (the package example runs it, with the
// reconciler of examples/replicaset):
//
//	c := model.NewCluster(cfg)
//	mgr, err := crt.NewManager(c, conv, crt.ManagerOptions{SyncPeriod: 20 * time.Second})
//	err = crt.NewControllerManagedBy(mgr).For(&appsv1.ReplicaSet{}).Owns(&corev1.Pod{}).
//		WithGoal(replicaset.PodsMatchReplicas).
//		Complete(func(cl client.Client) reconcile.Reconciler { return &replicaset.Reconciler{Client: cl, Scheme: mgr.GetScheme()} })
//	err = mgr.Apply(replicaset.New("default", "web", 3))
//
// where conv, built once with convert.New(scheme, convert.Options{}),
// converts the scheme's types. See README.md for a walk-through and the
// deliberate differences from a real cluster and from controller-runtime's
// fake client.
package controllerruntime
