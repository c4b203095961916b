package admit

import (
	"fmt"

	"github.com/converge-sim/converge/model"
)

// Defaults is the part of a real API server's defaulting of built-in kinds
// that operators read back, as a model.Admission that fills fields of the
// object written: today a Service port's targetPort, which core/v1's
// defaulting sets to the port when it is unset, 0 or empty (a typed client
// sends the zero IntOrString as 0). Without it an operator that derives
// its status from a Service's target ports, as KubeRay does, sees a field
// no real cluster leaves empty, and converge would blame the operator for
// a loop of the model's making. Every other default of k8s.io/kubernetes
// is left out (controllerruntime/README.md, "Validation of built-in
// kinds").
func Defaults(_ string, verb model.Verb, _, obj *model.Object) error {
	if obj.Kind != "Service" || (verb != model.VerbCreate && verb != model.VerbUpdate) {
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
