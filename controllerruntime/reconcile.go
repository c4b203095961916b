package controllerruntime

import (
	"context"
	"errors"
	"hash"

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
	// random, if set, serves the reconcile's crypto/rand reads
	// (cryptorand.go).
	random *runRandom
}

// withMemory is a model reconciler whose user reconciler declares its
// memory: bounded exploration fingerprints it (model.Fingerprinter) instead
// of naming the controller as unfingerprinted.
type withMemory struct {
	model.Reconciler
	memory model.Fingerprinter
}

// Fingerprint writes the user reconciler's memory.
func (w withMemory) Fingerprint(h hash.Hash64) { w.memory.Fingerprint(h) }

// declaring returns r, which runs user, as a reconciler that declares
// user's memory: the one user writes if it implements
// model.Fingerprinter, else the one a walk of it finds (memory.go), if
// the walk sees all of it.
func declaring(r model.Reconciler, user any) model.Reconciler {
	if fp, ok := user.(model.Fingerprinter); ok {
		return withMemory{Reconciler: r, memory: fp}
	}
	if m, ok := reflectMemory(user); ok {
		return withMemory{Reconciler: r, memory: m}
	}
	return r
}

func (a *adapter) Reconcile(req model.Request) (model.Result, error) {
	if a.before != nil {
		a.before()
	}
	if a.random != nil {
		defer dispatcher.bind(a.random)()
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
