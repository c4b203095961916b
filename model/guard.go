package model

import (
	"fmt"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
)

// Panic is a panic raised by user code (a controller, a handler, an actor or
// a mapping function), recovered by the cluster.
type Panic struct {
	Who   string
	Value string
	// Stack lists the panicking frames as "function file:line", without
	// addresses, so that it is the same on every replay.
	Stack []string
}

func (p *Panic) String() string { return p.Who + " panicked: " + p.Value }

// guard runs user code. A panic becomes the cluster's Panic (the run is a
// finding); a crash fault's signal becomes a crash at the end of the step.
// It reports whether fn returned normally.
func (c *Cluster) guard(who string, fn func()) (ok bool) {
	defer func() {
		r := recover()
		if r == nil {
			return
		}
		if sp, fromSource := r.(sourcePanic); fromSource {
			panic(sp.value)
		}
		ok = false
		if sig, isCrash := r.(crashSignal); isCrash {
			ctl := c.controller(sig.controller)
			ctl.up = false
			c.pendingCrash = append(c.pendingCrash, ctl)
			c.notef("%s", sig)
			return
		}
		if c.panic == nil {
			c.panic = &Panic{Who: who, Value: fmt.Sprint(r), Stack: callers()}
			c.note(Note{Kind: NotePanic, Text: c.panic.Value})
		}
	}()
	fn()
	return true
}

// callers lists the frames of a recovered panic, innermost first, from the
// panicking function down to the model's own frames.
func callers() []string {
	pcs := make([]uintptr, 32)
	n := runtime.Callers(4, pcs)
	frames := runtime.CallersFrames(pcs[:n])
	var out []string
	for {
		f, more := frames.Next()
		if strings.HasPrefix(f.Function, "runtime.") {
			if !more {
				break
			}
			continue
		}
		if strings.Contains(f.Function, "/converge/model.") {
			break
		}
		out = append(out, f.Function+" "+filepath.Base(f.File)+":"+strconv.Itoa(f.Line))
		if !more {
			break
		}
	}
	return out
}
