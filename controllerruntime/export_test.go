package controllerruntime

// SetFastPaths turns the memos' shared first decodes, the reuse of a read
// status's encoding, the memo of built-in defaulting and the invariants'
// verdicts memoized by the kinds read on or off, and
// returns a func that restores them (TestFastPathsGiveTheSameTraces).
func SetFastPaths(on bool) (restore func()) {
	decode, status, defaults, verdicts := sharedDecode, reuseStatus, memoDefaults, verdictsByKind
	sharedDecode, reuseStatus, memoDefaults, verdictsByKind = on, on, on, on
	return func() {
		sharedDecode, reuseStatus, memoDefaults, verdictsByKind = decode, status, defaults, verdicts
	}
}
