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
// a write of a kind it read (a step that writes nothing, or writes only
// kinds the last check did not read, keeps its verdict), and it decodes
// each stored version once.
func Invariant(conv *convert.Converter, name string, check func(ctx context.Context, r client.Reader) error) properties.Invariant {
	return invariant(conv, name, check, true)
}

// invariant is Invariant with the verdict memo on or off (for the
// benchmark and TestFastPathsGiveTheSameTraces).
func invariant(conv *convert.Converter, name string, check func(ctx context.Context, r client.Reader) error, memoized bool) properties.Invariant {
	e := newEnv(conv, nil)
	e.versions = newVersionMemo()
	verdicts := &verdictMemo{}
	return properties.Invariant{Name: name, Check: func(s model.State) error {
		if !memoized || !verdictsByKind {
			return check(context.Background(), newStateReader(e, s))
		}
		if err, ok := verdicts.get(s); ok {
			return err
		}
		rec := &recordingReader{s: s}
		err := check(context.Background(), &modelClient{env: e, cache: rec, live: rec})
		verdicts.put(rec.read, err)
		return err
	}}
}

// verdictsByKind is false only in TestFastPathsGiveTheSameTraces, which
// checks that memoizing verdicts by the revisions of the kinds read gives
// the traces of checking at every step.
var verdictsByKind = true

// recordingReader is stateReader that notes the revision of every kind
// read (model.State.KindRevision), in the order first read.
type recordingReader struct {
	s    model.State
	read []kindRevision
}

// kindRevision is one kind a check read and the revision it read it at.
type kindRevision struct {
	kind string
	rev  model.Revision
}

func (r *recordingReader) note(kind string) {
	for _, k := range r.read {
		if k.kind == kind {
			return
		}
	}
	r.read = append(r.read, kindRevision{kind, r.s.KindRevision(kind)})
}

func (r *recordingReader) Get(kind, namespace, name string) (*model.Object, error) {
	r.note(kind)
	return stateReader{r.s}.Get(kind, namespace, name)
}

func (r *recordingReader) List(kind string, opts model.ListOptions) ([]*model.Object, error) {
	r.note(kind)
	return stateReader{r.s}.List(kind, opts)
}

// verdictMemo keeps an invariant's last verdicts with the kinds each check
// read and their revisions. A check is a function of the stored objects
// alone and reads only through its reader, so a state in which every kind
// it read is at the revision it read it at gives it the same reads, in the
// same order, and the same verdict: writes of other kinds (a kubelet's pod
// statuses under an invariant over Jobs) do not run it again. Revisions
// name their server, so verdicts of one cluster never answer another's. It
// is safe for concurrent use (fuzzrun's workers share a scenario's
// invariants) and bounded: it keeps the verdictLimit newest.
type verdictMemo struct {
	mu      sync.Mutex
	entries []verdictEntry
	next    int
}

type verdictEntry struct {
	read []kindRevision
	err  error
}

const verdictLimit = 16

// get returns the verdict kept for a state whose kinds are at the
// revisions some check read them at, newest first.
func (v *verdictMemo) get(s model.State) (error, bool) {
	v.mu.Lock()
	defer v.mu.Unlock()
	for i := range v.entries {
		e := &v.entries[(v.next-1-i+2*len(v.entries))%len(v.entries)]
		if e.matches(s) {
			return e.err, true
		}
	}
	return nil, false
}

func (e *verdictEntry) matches(s model.State) bool {
	for _, k := range e.read {
		if s.KindRevision(k.kind) != k.rev {
			return false
		}
	}
	return true
}

func (v *verdictMemo) put(read []kindRevision, err error) {
	v.mu.Lock()
	defer v.mu.Unlock()
	e := verdictEntry{read: read, err: err}
	if len(v.entries) < verdictLimit {
		v.entries = append(v.entries, e)
		v.next = len(v.entries) % verdictLimit
		return
	}
	v.entries[v.next] = e
	v.next = (v.next + 1) % verdictLimit
}
