package controllerruntime

import (
	"context"
	"hash"
	"reflect"

	"github.com/converge-sim/converge/model"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// ActFunc is one move of an outside actor: it changes the cluster through
// c, which reads the API server directly, and draws every choice it makes
// from choose (an integer in [0, n)), the run's single source of choices.
type ActFunc func(ctx context.Context, c client.Client, choose func(n int, label string) int) error

type actor struct {
	name string
	m    *Manager
	act  ActFunc
}

// Actor returns a model.Actor named name that makes its moves with act,
// for model.Cluster.AddActor. A func declared at package level captures
// nothing, so the actor declares it keeps no memory (model.Fingerprinter);
// a closure or a method value may, so bounded exploration's guarantee
// names the actor.
func (m *Manager) Actor(name string, act ActFunc) model.Actor {
	a := &actor{name: name, m: m, act: act}
	if _, ok := packageLevelFunc(reflect.ValueOf(act)); ok {
		return memoryless{a}
	}
	return a
}

// memoryless is an actor whose move is a func declared at package level.
type memoryless struct{ *actor }

// Fingerprint writes nothing: the actor keeps no memory.
func (memoryless) Fingerprint(hash.Hash64) {}

func (a *actor) Name() string { return a.name }

func (a *actor) Act(o *model.Outside) error {
	r := outsideReader{o}
	c := &modelClient{env: a.m.env, cache: r, live: r, w: o, name: a.name}
	return a.act(context.Background(), c, o.Choose)
}
