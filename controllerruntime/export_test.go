package controllerruntime

// SetFastPaths turns the memos' shared first decodes, the reuse of a read
// status's encoding and the memo of built-in defaulting on or off, and
// returns a func that restores them (TestFastPathsGiveTheSameTraces).
func SetFastPaths(on bool) (restore func()) {
	decode, status, defaults := sharedDecode, reuseStatus, memoDefaults
	sharedDecode, reuseStatus, memoDefaults = on, on, on
	return func() { sharedDecode, reuseStatus, memoDefaults = decode, status, defaults }
}
