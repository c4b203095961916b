package controllerruntime

import (
	"context"
	"fmt"

	"github.com/converge-sim/converge/controllerruntime/convert"
	"github.com/converge-sim/converge/model"
	"github.com/converge-sim/converge/properties"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// GoalFunc is a controller's goal over typed objects: what is unmet, read
// from r, which reads the API server's current state (not a cache).
type GoalFunc func(ctx context.Context, r client.Reader) []model.Unmet

// Unmet says what is wrong with obj, an object read through a reader of
// this package (which sets its kind).
func Unmet(obj client.Object, format string, args ...any) model.Unmet {
	ref := model.Ref{Kind: obj.GetObjectKind().GroupVersionKind().Kind, Namespace: obj.GetNamespace(), Name: obj.GetName()}
	return model.Unmet{Object: ref, Message: fmt.Sprintf(format, args...)}
}

// newStateReader returns a client.Reader over a read-only view of the API
// server.
func newStateReader(e *env, s model.State) client.Reader {
	r := stateReader{s}
	return &modelClient{env: e, cache: r, live: r}
}

// Invariant returns a properties.Invariant over typed objects: check reads
// the API server's state after every step and returns what is wrong.
func Invariant(conv *convert.Converter, name string, check func(ctx context.Context, r client.Reader) error) properties.Invariant {
	e := newEnv(conv, nil)
	e.versions = newVersionMemo()
	return properties.Invariant{Name: name, Check: func(s model.State) error {
		return check(context.Background(), newStateReader(e, s))
	}}
}
