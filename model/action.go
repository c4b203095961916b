package model

// ActionKind is the kind of an enabled action.
type ActionKind uint8

// The kinds of action the scheduler chooses among, in the fixed order
// Enabled lists them.
const (
	// ActDeliver delivers the next watch event to an informer.
	ActDeliver ActionKind = iota + 1
	// ActRewatch re-establishes an informer's broken watch (or relists).
	ActRewatch
	// ActReconcile processes the next key of a level-triggered controller.
	ActReconcile
	// ActCollect lets the garbage collector delete one orphaned dependent.
	ActCollect
	// ActActor lets an outside actor make one change.
	ActActor
	// ActRival lets a rival writer restore its value.
	ActRival
	// ActTimer advances the clock to the next timer and fires it.
	ActTimer
)

// Action is one enabled action. Index selects the informer, controller or
// actor, in the cluster's fixed order.
type Action struct {
	Kind  ActionKind
	Index int
}
