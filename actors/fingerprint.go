package actors

import (
	"hash"

	"github.com/converge-sim/converge/model"
)

// The reference actors keep no memory between moves: their fingerprint
// (model.Fingerprinter) is empty, which tells bounded exploration so.

// Fingerprint writes nothing: a Scaler keeps no memory.
func (Scaler) Fingerprint(hash.Hash64) {}

// Fingerprint writes nothing: a Killer keeps no memory.
func (Killer) Fingerprint(hash.Hash64) {}

// Fingerprint writes nothing: a Set keeps no memory.
func (Set) Fingerprint(hash.Hash64) {}

var (
	_ model.Fingerprinter = Scaler{}
	_ model.Fingerprinter = Killer{}
	_ model.Fingerprinter = Set{}
)
