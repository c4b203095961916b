package controllerruntime

// SetFastPaths turns the memos' shared first decodes, the reuse of a read
// status's encoding, the memo of built-in defaulting and the invariants'
// verdicts memoized by the kinds read and the memo's own objects for the
// builder's Owns watches and JSON merge patches applied to the stored
// body (convert.Converter.MergePatch) on or off, and
// returns a func that restores them (TestFastPathsGiveTheSameTraces).
func SetFastPaths(on bool) (restore func()) {
	decode, status, defaults, verdicts, owns, patch := sharedDecode, reuseStatus, memoDefaults, verdictsByKind, ownsReadOnly, fastMergePatch
	sharedDecode, reuseStatus, memoDefaults, verdictsByKind, ownsReadOnly, fastMergePatch = on, on, on, on, on, on
	return func() {
		sharedDecode, reuseStatus, memoDefaults, verdictsByKind, ownsReadOnly, fastMergePatch = decode, status, defaults, verdicts, owns, patch
	}
}

// SetFastMergePatch turns the JSON merge patch applied to the stored body
// (convert.Converter.MergePatch) alone on or off, and returns a func that
// restores it (TestFastPathsGiveTheSameTraces).
func SetFastMergePatch(on bool) (restore func()) {
	was := fastMergePatch
	fastMergePatch = on
	return func() { fastMergePatch = was }
}
