// Package timeline renders one run of a scenario — usually a shrunk
// counterexample — as a single self-contained HTML page: inline CSS,
// inline JavaScript and the run's data, with no network access, so that it
// opens from disk in any browser.
//
// The page draws one lane per controller (its reconciles, with their
// result), one per informer (deliveries, dropped and duplicated
// notifications, resyncs, relists, lag), one per outside actor, one for the
// faults and one for the API server's writes (with resourceVersions and
// conflicts), along an axis of step numbers labelled with virtual time; the
// fault phase and quiescence are shaded. Clicking a mark shows its trace
// record and the object it touched as a diff against the object's previous
// version; selecting an object shows the history of its fields, which for a
// fight is the value flipping between the writers. The violation is marked,
// with its diagnosis beside it, and each fault of the schedule links to the
// step where it struck.
//
// Only the steps in view are drawn, so a run of thousands of steps loads
// about as fast as a short one.
//
// The smallest use, after properties.Replay or properties.Execute (the
// WriteFile example runs it):
//
//	err := timeline.WriteFile("run.html", timeline.Run{
//		Title:    "scenario replicaset-edge, faults drop, seed 6",
//		Cluster:  out.Cluster,
//		Schedule: out.Schedule,
//	})
package timeline
