// Package model is converge's deterministic model cluster: an API server
// with resourceVersions, optimistic concurrency, garbage collection and a
// compacted watch history; controllers with their informers, caches and
// work queues; outside actors; and a virtual clock. It runs on one thread,
// reads no clock and draws no random numbers of its own: every choice goes
// through a Chooser, so the same choices give the same trace
// (docs/design.md, "The model cluster").
//
// The entry points, in the order a run uses them:
//
//   - [NewCluster] makes an empty cluster from a [Config].
//   - [Cluster.AddController] declares a [Controller]: the kinds it watches
//     (For, Owns, Watches) and either NewReconciler, a level-triggered
//     [Reconciler] that reads and writes through a [Client], or NewHandler,
//     an edge-triggered [Handler]. Its Goal says, as [Unmet] values, what
//     must hold once the cluster settles.
//   - [Cluster.AddActor] adds an outside [Actor], such as a user or a chaos
//     monkey, that writes through the API server like anyone else.
//   - [Cluster.Apply] stores the initial [Object] values.
//   - [Cluster.Start] starts every controller: each lists its kinds and
//     begins watching.
//   - [Cluster.SetChooser], [Cluster.Enabled] and [Cluster.Do] drive the
//     run: Enabled lists the [Action] values that may happen next (deliver
//     an event, reconcile a key, fire a timer, …), Do makes one happen.
//     [Cluster.Sources] numbers what the actions serve, for schedulers
//     that weigh them (PCT, settling's round-robin).
//   - [Cluster.Faults] is the fault surface: its primitives
//     ([Faults.ArmDrop], [Faults.Crash], [Faults.Partition],
//     [Faults.FailWrites], …) are what package faults injects;
//     [Faults.Heal] ends them all at once, except persistent rivals.
//   - [Cluster.State], [Cluster.Goals] and [Cluster.Trace] read the result:
//     the stored objects, the goals that do not hold, and one [Record] per
//     step.
//
// Package properties builds a cluster per run from a scenario, injects a
// fault schedule and judges the run; most users start there. The package
// example drives a cluster by hand.
package model
