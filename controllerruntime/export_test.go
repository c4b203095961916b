package controllerruntime

import "github.com/converge-sim/converge/controllerruntime/internal/shared"

// SetFastPaths turns the memos' shared first decodes, the reuse of a read
// status's encoding, the memo of built-in defaulting and the invariants'
// verdicts memoized by the kinds read and the memo's own objects for the
// builder's Owns watches and the built-in controllers' shared reads on or
// off, and
// returns a func that restores them (TestFastPathsGiveTheSameTraces).
func SetFastPaths(on bool) (restore func()) {
	decode, status, defaults, verdicts, owns, reads := sharedDecode, reuseStatus, memoDefaults, verdictsByKind, ownsReadOnly, shared.Enabled
	sharedDecode, reuseStatus, memoDefaults, verdictsByKind, ownsReadOnly, shared.Enabled = on, on, on, on, on, on
	return func() {
		sharedDecode, reuseStatus, memoDefaults, verdictsByKind, ownsReadOnly, shared.Enabled = decode, status, defaults, verdicts, owns, reads
	}
}
