package controllerruntime

import (
	"context"
	"errors"

	"github.com/converge-sim/converge/controllerruntime/convert"
	"github.com/converge-sim/converge/model"
	"github.com/go-logr/logr"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
)

func logIntoContext(l logr.Logger) context.Context {
	return log.IntoContext(context.Background(), l)
}

// adapter runs a controller-runtime reconciler as a model reconciler, with
// controller-runtime's result semantics: an error requeues with backoff
// and overrides the result; a terminal error (reconcile.TerminalError) is
// not requeued; RequeueAfter requeues after the duration, in whole ticks;
// Requeue requeues with backoff. A panic is not recovered into an error,
// as controller-runtime's RecoverPanic would: the model reports it as a
// finding.
type adapter struct {
	ctx  context.Context
	r    reconcile.Reconciler
	conv *convert.Converter
	// before, if set, runs before each reconcile (the virtual clock).
	before func()
	// waiter, if set, lets the time the reconcile waits pass in the model
	// (wait.go).
	waiter *waiter
}

func (a *adapter) Reconcile(req model.Request) (model.Result, error) {
	if a.before != nil {
		a.before()
	}
	if a.waiter != nil {
		a.waiter.begin()
	}
	res, err := a.r.Reconcile(a.ctx, reconcile.Request{NamespacedName: types.NamespacedName{Namespace: req.Namespace, Name: req.Name}})
	if a.waiter != nil {
		a.waiter.end()
	}
	if err != nil {
		if errors.Is(err, reconcile.TerminalError(nil)) {
			return model.Result{}, nil
		}
		return model.Result{}, err
	}
	//lint:ignore SA1019 Requeue is deprecated, not gone: reconcilers still set it, and the adapter must honour it
	return model.Result{Requeue: res.Requeue, RequeueAfter: a.conv.Ticks(res.RequeueAfter)}, nil
}
