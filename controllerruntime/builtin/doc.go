// Package builtin holds the built-in controllers typed operators lean on,
// declared like any other controller so that every fault reaches them:
// most are ordinary controller-runtime reconcilers (crt.Manager.Setup); two
// are core model controllers added to the cluster (StatefulSets, Volumes).
//
//   - Kubelet: the pod lifecycle as operators read it (status.phase,
//     conditions, containerStatuses, podIPs and hostIPs): Pending with ContainerCreating,
//     Running and ready, CrashLoopBackOff with a growing backoff for a
//     container that keeps failing, and for pods that run to completion
//     (restartPolicy Never or OnFailure) Succeeded or Failed after a
//     duration the run draws.
//   - Job: batch/v1 Jobs run their pods and complete or fail, with the
//     status operators read (active, succeeded, failed, ready, startTime,
//     completionTime, Complete and Failed conditions).
//   - StatefulSet: the core module's StatefulSet controller, declared in
//     the cluster for typed StatefulSets, with the API server's validation
//     of their fixed fields (StatefulSets).
//   - PersistentVolumeClaim and StorageClass: the core module's volume
//     controller binds and resizes typed claims, with the API server's
//     validation of claims (Volumes).
//   - Deployment and ReplicaSet: a Deployment keeps one ReplicaSet per pod
//     template and scales the old ones to zero; a ReplicaSet keeps its
//     pods; both report readyReplicas and availableReplicas.
//
// They are simplifications of the real controllers, each documented on its
// type; see docs/design.md on what the model must keep of a real cluster.
// The package example declares two of them:
//
//	err = mgr.Setup(builtin.Kubelet(mgr, builtin.KubeletOptions{}), crt.SetupOptions{})
//	err = mgr.Setup(builtin.Jobs(mgr), crt.SetupOptions{})
package builtin
