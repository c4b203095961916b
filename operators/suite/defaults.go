package suite

import (
	"fmt"

	"github.com/converge-sim/converge/model"
)

// ServiceTargetPorts is an admission step that gives each port of a
// Service whose targetPort is unset, 0 or empty (a typed client
// sends the zero IntOrString as 0) its port as targetPort, as the API
// server's defaulting of core/v1 Service does (SetDefaults_Service). The
// model applies no built-in defaults; an operator that reads a Service's
// targetPort back (KubeRay fills RayCluster status.endpoints from it)
// would otherwise see a field no real cluster leaves empty.
func ServiceTargetPorts(_ string, _ model.Verb, _, obj *model.Object) error {
	if obj.Kind != "Service" {
		return nil
	}
	for i := 0; ; i++ {
		port, ok := obj.Spec.Get(fmt.Sprintf("ports[%d].port", i))
		if !ok {
			return nil
		}
		target := fmt.Sprintf("ports[%d].targetPort", i)
		if v, ok := obj.Spec.Get(target); !ok || v == int64(0) || v == "" {
			obj.Spec.Set(target, port)
		}
	}
}
