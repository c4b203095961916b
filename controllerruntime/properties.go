package controllerruntime

import (
	"context"
	"fmt"
	"sync"

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
// the API server's state after every step and returns what is wrong. check
// must be a function of the stored objects alone: it runs again only after
// a write (a step that writes nothing keeps its last verdict), and it
// decodes each stored version once.
func Invariant(conv *convert.Converter, name string, check func(ctx context.Context, r client.Reader) error) properties.Invariant {
	return invariant(conv, name, check, true)
}

// invariant is Invariant with the verdict memo on or off (for the
// benchmark).
func invariant(conv *convert.Converter, name string, check func(ctx context.Context, r client.Reader) error, byRevision bool) properties.Invariant {
	e := newEnv(conv, nil)
	e.versions = newVersionMemo()
	verdicts := &verdictMemo{m: map[model.Revision]error{}}
	return properties.Invariant{Name: name, Check: func(s model.State) error {
		if !byRevision {
			return check(context.Background(), newStateReader(e, s))
		}
		rev := s.Revision()
		if err, ok := verdicts.get(rev); ok {
			return err
		}
		err := check(context.Background(), newStateReader(e, s))
		verdicts.put(rev, err)
		return err
	}}
}

// verdictMemo keeps an invariant's verdict per state Revision. It is safe
// for concurrent use (fuzzrun's workers share a scenario's invariants) and
// bounded: past verdictLimit revisions it starts afresh.
type verdictMemo struct {
	mu sync.Mutex
	m  map[model.Revision]error
}

const verdictLimit = 256

func (v *verdictMemo) get(rev model.Revision) (error, bool) {
	v.mu.Lock()
	defer v.mu.Unlock()
	err, ok := v.m[rev]
	return err, ok
}

func (v *verdictMemo) put(rev model.Revision, err error) {
	v.mu.Lock()
	defer v.mu.Unlock()
	if len(v.m) >= verdictLimit {
		clear(v.m)
	}
	v.m[rev] = err
}
