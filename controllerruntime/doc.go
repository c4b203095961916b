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
// objects may be typed or unstructured. Controllers are declared with a builder
// that mirrors controller-runtime's (For, Owns, Watches with any
// handler.EventHandler, predicates); goals and invariants read typed
// objects. Package convert says how typed objects are represented in the
// model, and what is lossy.
//
// The smallest use, inside a properties.Scenario's Build:
//
//	c := model.NewCluster(cfg)
//	mgr, err := crt.NewManager(c, conv, crt.ManagerOptions{SyncPeriod: 20 * time.Second})
//	err = crt.NewControllerManagedBy(mgr).For(&appsv1.ReplicaSet{}).Owns(&corev1.Pod{}).
//		WithGoal(podsMatchReplicas).
//		Complete(func(cl client.Client) reconcile.Reconciler { return &MyReconciler{Client: cl} })
//	err = mgr.Apply(&appsv1.ReplicaSet{...})
//
// where conv, built once with convert.New(scheme, convert.Options{}),
// converts the scheme's types. See README.md for a walk-through and the
// deliberate differences from a real cluster and from controller-runtime's
// fake client.
package controllerruntime
