package controllerruntime

import (
	"reflect"
	"strings"
)

// platformPackage is the package of the built-in controllers that stand
// in for Kubernetes' own (builtin/).
const platformPackage = "github.com/converge-sim/converge/controllerruntime/builtin"

// isPlatform reports whether reconciler r is one of the built-in
// controllers of package builtin (Deployment, ReplicaSet, Job, kubelet),
// which stand in for the platform under a project rather than being under
// test. Setup marks their controllers model.Controller.Platform, so that
// faults aimed at controllers strike the project's own by default
// (properties.Scenario.FaultPlatform aims them at the platform too).
func isPlatform(r any) bool {
	t := reflect.TypeOf(r)
	for t != nil && t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	return t != nil && (t.PkgPath() == platformPackage || strings.HasPrefix(t.PkgPath(), platformPackage+"/"))
}
