package controllerruntime

import (
	"context"

	"github.com/converge-sim/converge/model"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
)

// A fault that crashes a controller mid-reconcile unwinds its code with a
// panic of the model's own (model.IsUnwind). On its way up it passes
// through apimachinery's HandleCrash, which wait.PollUntilContextTimeout,
// wait.Backoff loops and client-go's helpers defer: its panic handlers log
// "Observed a panic" with a full stack, for a crash that is the fault
// working as meant. So, once, when the package is loaded, the handlers
// are wrapped to skip the model's unwinding; every other panic reaches
// them as before, and a panic of user code is still a finding with its
// stack (HandleCrash panics again, with the same value).
func init() {
	handlers := utilruntime.PanicHandlers
	utilruntime.PanicHandlers = []func(context.Context, any){func(ctx context.Context, r any) {
		if model.IsUnwind(r) {
			return
		}
		for _, h := range handlers {
			h(ctx, r)
		}
	}}
}
