package controllerruntime

import (
	"context"

	"github.com/converge-sim/converge/model"
	"github.com/go-logr/logr"
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

// controller-runtime's own Reconcile logs every panic that passes it,
// "Observed a panic in reconciler: <value>", before it panics again (with
// RecoverPanic off, as the model runs it). quietUnwinds keeps the line of
// the model's crash of the controller out of the reconcile's logger;
// other panics are logged as before.
func quietUnwinds(l logr.Logger, controller string) logr.Logger {
	if l.GetSink() == nil {
		return l
	}
	return l.WithSink(unwindFilter{LogSink: l.GetSink(), line: "Observed a panic in reconciler: fault: " + controller + " crashed mid-reconcile"})
}

// unwindFilter drops one line, the model's crash of the controller
// (model's crashSignal as controller-runtime prints it).
type unwindFilter struct {
	logr.LogSink
	line string
}

func (f unwindFilter) Info(level int, msg string, kv ...any) {
	if msg != f.line {
		f.LogSink.Info(level, msg, kv...)
	}
}

func (f unwindFilter) WithValues(kv ...any) logr.LogSink {
	return unwindFilter{LogSink: f.LogSink.WithValues(kv...), line: f.line}
}

func (f unwindFilter) WithName(name string) logr.LogSink {
	return unwindFilter{LogSink: f.LogSink.WithName(name), line: f.line}
}
