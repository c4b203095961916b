package replicaset

import (
	"slices"

	"github.com/converge-sim/converge/model"
)

// Edge returns the edge-triggered ReplicaSet controller, named name. It acts
// on each notification's delta and keeps its counts in memory:
//
//   - a ReplicaSet add sets the wanted count; an update adds
//     new.replicas − old.replicas to it;
//   - it counts the pods it believes alive: +1 for each pod it creates, −1
//     for each pod delete it is told of;
//   - it remembers the names of the pods it created, to pick victims when
//     scaling down, and the pods it deleted, so that their deletes do not
//     trigger replacements.
//
// With every notification delivered exactly once, and no other writer of
// its pods, it converges (a control group, tested). It trusts its memory
// over the cluster, so it diverges when a notification is lost (drop),
// delivered twice (duplicate), collapsed by a relist (expire), or when its
// memory is lost (restart: the relist delivers an add for every ReplicaSet,
// and it creates a full set of pods again, as trap 3 in docs/design.md says).
func Edge(name string) model.Controller {
	return model.Controller{
		Name: name,
		For:  Kind,
		Owns: []string{PodKind},
		NewHandler: func(c model.Client) model.Handler {
			return &edge{c: c, rs: map[string]*edgeState{}}
		},
		Goal: PodsMatchReplicas,
	}
}

type edge struct {
	c  model.Client
	rs map[string]*edgeState
}

type edgeState struct {
	obj      *model.Object // the latest ReplicaSet notified, for owner refs
	want     int64
	live     int64
	created  []string        // pods it created and has not deleted, oldest first
	deleting map[string]bool // pods it deleted whose delete it has not been told of
}

func (h *edge) OnAdd(obj *model.Object) {
	if obj.Kind != Kind {
		return // pods it did not create mean nothing to it
	}
	st := &edgeState{obj: obj, want: obj.Spec.Int("replicas"), deleting: map[string]bool{}}
	h.rs[obj.Key()] = st
	h.scale(st)
}

func (h *edge) OnUpdate(old, new *model.Object) {
	if new.Kind != Kind {
		return
	}
	st := h.rs[new.Key()]
	if st == nil {
		return
	}
	st.obj = new
	st.want += new.Spec.Int("replicas") - old.Spec.Int("replicas")
	h.scale(st)
}

func (h *edge) OnDelete(obj *model.Object, _ bool) {
	if obj.Kind == Kind {
		delete(h.rs, obj.Key())
		return
	}
	ref, ok := obj.ControllerRef()
	if !ok || ref.Kind != Kind {
		return
	}
	st := h.rs[model.Key(obj.Namespace, ref.Name)]
	if st == nil {
		return
	}
	st.live--
	if st.deleting[obj.Name] {
		delete(st.deleting, obj.Name)
	} else {
		st.created = slices.DeleteFunc(st.created, func(n string) bool { return n == obj.Name })
	}
	h.scale(st)
}

// scale creates or deletes pods until its belief matches what it wants.
// Failed calls are not retried: nothing will tell it to try again.
func (h *edge) scale(st *edgeState) {
	for st.live-int64(len(st.deleting)) < st.want {
		pod := NewPod(st.obj)
		if err := h.c.Create(pod); err != nil {
			return
		}
		st.live++
		st.created = append(st.created, pod.Name)
	}
	for st.live-int64(len(st.deleting)) > st.want && len(st.created) > 0 {
		victim := st.created[len(st.created)-1]
		st.created = st.created[:len(st.created)-1]
		err := h.c.Delete(model.Ref{Kind: PodKind, Namespace: st.obj.Namespace, Name: victim}, model.DeleteOptions{})
		if err == nil {
			st.deleting[victim] = true
		}
	}
}
