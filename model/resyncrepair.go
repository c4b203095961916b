package model

import (
	"hash/fnv"
	"io"
	"maps"
	"slices"
)

// What brought a controller back to a key, for the check that a
// controller needs no resync (docs/design.md, "Prompt convergence"): a
// reconcile that a resync replay alone enqueued, and that wrote, after
// the key's reconcile before it had a write fail and returned nil with
// nothing requeued, is the resync doing the retry the controller
// swallowed. None of this is part of the cluster's state (Fingerprint):
// it only reports on reconciles.

// enqueueCause says what added a key to a controller's queue since the
// key's last reconcile began: a resync's replay, anything else, or both.
type enqueueCause uint8

const (
	causeResync enqueueCause = 1 << iota
	causeOther
)

// resyncTrack is a controller's record of why its keys were enqueued and
// how their last reconciles ended, reset when the controller starts.
type resyncTrack struct {
	causes map[string]enqueueCause
	// swallowed holds the keys whose last reconcile had a write fail, and
	// returned nil with no requeue; at, the step of that reconcile.
	swallowed map[string]int
	// failed counts the controller's writes that failed for another
	// reason than NotFound or AlreadyExists (an object gone, or there
	// already, is news an event brings): a Conflict, a timeout, a
	// throttle, an internal error, a partition.
	failed int
	// replaying is set while a resync replays one object.
	replaying bool
}

func (t *resyncTrack) reset() {
	*t = resyncTrack{causes: map[string]enqueueCause{}, swallowed: map[string]int{}}
}

// added records that key was added to the queue, by a resync's replay or
// not.
func (t *resyncTrack) added(key string) {
	if t.causes == nil {
		t.reset()
	}
	if t.replaying {
		t.causes[key] |= causeResync
	} else {
		t.causes[key] |= causeOther
	}
}

// writeFailed counts a failed write.
func (t *resyncTrack) writeFailed(err error) {
	if !IsNotFound(err) && !IsAlreadyExists(err) {
		t.failed++
	}
}

// begin takes what enqueued key since its last reconcile, as that
// reconcile begins: it returns the step of key's reconcile before when
// that one swallowed a failed write and only a resync enqueued key since,
// and ok.
func (t *resyncTrack) begin(key string) (swallowedAt int, ok bool) {
	if t.causes == nil {
		t.reset()
	}
	cause := t.causes[key]
	delete(t.causes, key)
	at, swallowed := t.swallowed[key]
	delete(t.swallowed, key)
	return at, swallowed && cause == causeResync
}

// RepairedByResync reports that the last step was a reconcile that wrote,
// brought about by a resync's replay alone, after the reconcile of the
// same key before it (at step swallowedAt) had a write fail and returned
// nil with nothing requeued: the resync did the retry the controller
// swallowed, which without resync (controller-runtime's default
// SyncPeriod is 10 hours) would not come.
func (c *Cluster) RepairedByResync() (controller, key string, swallowedAt int, ok bool) {
	r := c.reconciled
	if r.step != c.step || r.controller == "" || r.writes == 0 || !r.byResync {
		return "", "", 0, false
	}
	return r.controller, r.key, r.swallowedAt, true
}

// ResyncTrackFingerprint hashes what RepairedByResync will read at later
// reconciles: per controller, the keys whose last reconcile swallowed a
// failed write and what enqueued each key since. Fingerprint leaves it
// out, as it decides no step; a search that merges states by fingerprint
// and judges promptness (exploration) adds it to its key.
func (c *Cluster) ResyncTrackFingerprint() uint64 {
	h := fnv.New64a()
	for _, ctl := range c.ctrls {
		t := &ctl.track
		if len(t.swallowed) == 0 && len(t.causes) == 0 {
			continue
		}
		_, _ = io.WriteString(h, ctl.spec.Name)
		for _, k := range slices.Sorted(maps.Keys(t.swallowed)) {
			_, _ = io.WriteString(h, "\x00s")
			_, _ = io.WriteString(h, k)
		}
		for _, k := range slices.Sorted(maps.Keys(t.causes)) {
			_, _ = io.WriteString(h, "\x00c")
			_, _ = io.WriteString(h, k)
			_, _ = h.Write([]byte{byte(t.causes[k])})
		}
		_, _ = io.WriteString(h, "\x01")
	}
	return h.Sum64()
}
