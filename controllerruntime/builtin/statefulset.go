package builtin

import (
	crt "github.com/converge-sim/converge/controllerruntime"
	"github.com/converge-sim/converge/controllers/statefulset"
)

// StatefulSets declares, in m's cluster, the core module's StatefulSet
// controller (controllers/statefulset) for typed apps/v1 StatefulSets. It
// is a model controller, not a reconciler of this package: it reads the
// StatefulSet as the converter flattens it (spec.template.metadata.labels,
// spec.template.spec copied whole into each pod, volumeClaimTemplates,
// podManagementPolicy, updateStrategy,
// persistentVolumeClaimRetentionPolicy), and writes pods <set>-<i> and
// PersistentVolumeClaims <template>-<set>-<i> that decode as typed
// corev1 objects, with the status a typed client reads (replicas,
// readyReplicas, currentRevision, updateRevision, observedGeneration). A
// pod is ready for it when its Ready condition is True, as Kubelet sets
// it. Call it once per cluster, before the cluster starts, with
// Kubelet so that pods become ready; faults reach it as any controller.
// An unset spec.replicas means one, as the API server defaults it. The
// cluster's API server then validates StatefulSet updates as Kubernetes'
// does (statefulset.Validate): an update of volumeClaimTemplates, the
// selector or another fixed field is Invalid.
func StatefulSets(m *crt.Manager, opts statefulset.Options) error {
	statefulset.Install(m.Cluster())
	spec := statefulset.Controller(opts)
	spec.Platform = true // the platform's: faults leave it alone by default
	return m.Cluster().AddController(spec)
}
