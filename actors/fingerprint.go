package actors

import (
	"fmt"
	"hash"

	"github.com/converge-sim/converge/model"
)

// The reference actors declare their memory between moves to bounded
// exploration (model.Fingerprinter): Scaler, Killer and Set keep none, a
// Recreator the object it waits to create again.

// Fingerprint writes nothing: a Scaler keeps no memory.
func (Scaler) Fingerprint(hash.Hash64) {}

// Fingerprint writes nothing: a Killer keeps no memory.
func (Killer) Fingerprint(hash.Hash64) {}

// Fingerprint writes the object a Recreator waits to create again, if any.
func (r *Recreator) Fingerprint(h hash.Hash64) {
	if r.held != nil {
		fmt.Fprintf(h, "held=%s/%s@%d", r.held.Ref(), r.held.UID, r.held.ResourceVersion)
	}
}

// Fingerprint writes nothing: a Set keeps no memory.
func (Set) Fingerprint(hash.Hash64) {}

var (
	_ model.Fingerprinter = Scaler{}
	_ model.Fingerprinter = Killer{}
	_ model.Fingerprinter = (*Recreator)(nil)
	_ model.Fingerprinter = Set{}
)
