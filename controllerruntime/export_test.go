package controllerruntime

// SetFastPaths turns the memos' shared first decodes and the reuse of a
// read status's encoding on or off, and returns a func that restores them
// (TestFastPathsGiveTheSameTraces).
func SetFastPaths(on bool) (restore func()) {
	decode, status := sharedDecode, reuseStatus
	sharedDecode, reuseStatus = on, on
	return func() { sharedDecode, reuseStatus = decode, status }
}
