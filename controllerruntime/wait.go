package controllerruntime

import (
	"time"

	"github.com/converge-sim/converge/controllerruntime/convert"
	"github.com/converge-sim/converge/model"
)

// waiter lets a reconcile that waits see the world move (docs/design.md,
// "A reconcile that waits"). Inside a testing/synctest bubble a
// time.Sleep, a wait.PollUntilContextTimeout or a ticker returns at once
// with the bubble's clock moved on; the model's clock has not moved, and the
// controller's cache is the one it read before. So at the reconcile's next
// API call, and when it returns, the waiter hands the whole ticks the
// reconcile spent waiting to model.Client.Wait: the controller's informers
// deliver, the rest of the cluster takes its rounds, and the model's clock
// catches up with the time the reconcile reads. No wall time passes.
//
// Outside a bubble (a fuzzrun worker), user code sleeps in wall time and
// the waiter does nothing: catching up with the wall clock would make the
// run depend on the machine's speed.
type waiter struct {
	mc     model.Client
	conv   *convert.Converter
	bubble bool
	// began is the bubble's time when the reconcile in progress began;
	// zero outside a reconcile.
	began time.Time
	// passed counts the ticks of waiting already handed to the model.
	passed model.Time
}

func newWaiter(mc model.Client, conv *convert.Converter, bubble bool) *waiter {
	return &waiter{mc: mc, conv: conv, bubble: bubble}
}

// begin starts a reconcile's account of time waited.
func (w *waiter) begin() {
	if w.bubble {
		w.began, w.passed = time.Now(), 0
	}
}

// end hands the model what is left to wait and closes the account.
func (w *waiter) end() {
	w.catchUp()
	w.began = time.Time{}
}

// catchUp hands the model the whole ticks the reconcile has waited since its
// last API call. A crash that strikes meanwhile unwinds the reconcile from
// here (model.Client.Wait).
func (w *waiter) catchUp() {
	if w.began.IsZero() {
		return
	}
	waited := model.Time(time.Since(w.began) / w.conv.Tick())
	if d := waited - w.passed; d > 0 {
		w.passed = waited
		// Wait fails only outside a reconcile or with a negative wait; began
		// is set only during a reconcile and d is positive.
		_ = w.mc.Wait(d)
	}
}

// waitingWriter is a controller's writer that first lets the time its
// reconcile waited pass in the model.
type waitingWriter struct {
	model.Client
	w *waiter
}

func (ww waitingWriter) Create(obj *model.Object) error {
	ww.w.catchUp()
	return ww.Client.Create(obj)
}

func (ww waitingWriter) Update(obj *model.Object) error {
	ww.w.catchUp()
	return ww.Client.Update(obj)
}

func (ww waitingWriter) UpdateStatus(obj *model.Object) error {
	ww.w.catchUp()
	return ww.Client.UpdateStatus(obj)
}

func (ww waitingWriter) Delete(ref model.Ref, opts model.DeleteOptions) error {
	ww.w.catchUp()
	return ww.Client.Delete(ref, opts)
}
