package builtin

import (
	crt "github.com/converge-sim/converge/controllerruntime"
	"github.com/converge-sim/converge/controllers/volume"
)

// Volumes declares, in m's cluster, the core module's volume controller
// (controllers/volume) for typed corev1 PersistentVolumeClaims and
// storage/v1 StorageClasses, and makes the cluster's API server validate
// claims as Kubernetes' does (volume.Install): a claim of a class that
// exists is bound with the capacity it requests; a bound claim's request
// may grow, and its capacity then follows in two status writes, only when
// its class has allowVolumeExpansion; a smaller request, or any other
// change of a claim's spec, is Invalid. Storage quantities must be whole
// Mi or Gi (volume.ParseStorage). Call it once per cluster, before the
// cluster starts; faults reach the controller as any controller.
func Volumes(m *crt.Manager, opts volume.Options) error {
	volume.Install(m.Cluster())
	spec := volume.Controller(opts)
	spec.Platform = true // the platform's: faults leave it alone by default
	return m.Cluster().AddController(spec)
}
