package faults

import (
	"fmt"

	"github.com/converge-sim/converge/internal/echo"
)

// Class says whether a fault kind is something real clusters do or stands
// for a bug in the code under test (docs/design.md, section "Fault
// classes").
type Class string

const (
	// Faithful faults are what a real API server and client-go do: watch
	// expiry and relist, restarts, stale caches, delays, API errors
	// (including the ambiguous timeout), partitions, outside writers, and
	// the duplicate update a relist or resync produces. Under faithful
	// faults only, a correct controller reaches its goal by events,
	// relists, retries and RequeueAfter, without waiting for a resync.
	Faithful Class = "faithful"
	// Adversarial faults stand for bugs in event handling that client-go
	// itself never produces. A controller may rely on resync to recover
	// from them: that is what resync is for.
	Adversarial Class = "adversarial"
)

// kindInfo is one entry of the fault catalog.
type kindInfo struct {
	class Class
	// what says what the fault does.
	what string
	// why says why it is in its class.
	why string
}

var catalog = map[Kind]kindInfo{
	KindDrop: {Adversarial,
		"an event's notification never reaches one informer's handlers; the cache still applies it",
		"client-go never loses a notification while its cache applies the event: a broken watch is an error and a relist (expire); a lost notification is a handler bug, such as a filter that returns early"},
	KindDuplicate: {Faithful,
		"an event is delivered to one informer twice in a row",
		"a relist or a resync delivers an update for an object whose state the handler has already seen"},
	KindDelay: {Faithful,
		"an event is held back for D ticks; later events of other objects overtake it, its own object's wait",
		"watch streams of different objects are not ordered with each other, and a slow consumer sees them late"},
	KindExpire: {Faithful,
		"a watch ends with Expired (410 Gone); the informer relists: intermediate states collapse, deletes arrive as tombstones",
		"the API server compacts its history and ends watches that fall behind it"},
	KindRestart: {Faithful,
		"a controller crashes, possibly between two writes of one reconcile: memory, cache and queue lost; down D ticks, then relists",
		"pods are evicted, OOM-killed and rescheduled, and leadership moves"},
	KindStale: {Faithful,
		"an informer lags: for D ticks its cache stays K resourceVersions behind the server",
		"an informer's cache trails the API server, and reads from a watch cache may be behind"},
	KindEdit: {Faithful,
		"a one-shot outside write or delete by a non-controller",
		"users, kubectl and other tools write the objects a controller owns"},
	KindRival: {Faithful,
		"a second writer owns a field with another goal and restores it whenever it changes; a persistent rival never stops; at most one rival per field",
		"two operators, or an operator and a GitOps sync, may own one field; the controller is one side of every such fight"},
	KindAPIError: {Faithful,
		"a controller's next writes fail: conflict, timeout, throttling (429 with retry-after), internal error, or a timeout after the write was applied",
		"optimistic concurrency, API priority and fairness, and timeouts after a write was applied happen every day"},
	KindPartition: {Faithful,
		"a controller cannot reach the API server for D ticks: writes fail, watches break; it rewatches or relists after",
		"networks split and API servers restart"},
	KindTimeTravel: {Faithful,
		"a controller restarts and lists from a server K resourceVersions behind what it had seen (up to 1000, or back to where a watched object was deleting, deleted or recreated): an exact past state, then the later events in order",
		"a restarted informer's first list may be served by a lagging API server's watch cache, behind the server the controller read before the restart"},
}

// ClassOf returns the class of a fault kind.
func ClassOf(k Kind) (Class, error) {
	info, ok := catalog[k]
	if !ok {
		return "", fmt.Errorf("unknown fault kind %s", echo.Quote(string(k)))
	}
	return info.class, nil
}

// Why says why a fault kind is in its class, in a sentence.
func Why(k Kind) string {
	if info, ok := catalog[k]; ok {
		return info.why
	}
	return "unknown fault kind"
}

// Split returns the faithful and the adversarial kinds of the mix, each in
// the mix's order.
func (m Mix) Split() (faithful, adversarial Mix) {
	for _, k := range m {
		if catalog[k].class == Adversarial {
			adversarial = append(adversarial, k)
		} else {
			faithful = append(faithful, k)
		}
	}
	return faithful, adversarial
}

// Class returns Adversarial if any fault of the schedule is adversarial,
// else Faithful (also for no faults): a run whose schedule is faithful
// must reach its goal without relying on a resync.
func (s Schedule) Class() Class {
	for _, t := range s {
		if catalog[t.Fault.Kind()].class == Adversarial {
			return Adversarial
		}
	}
	return Faithful
}
