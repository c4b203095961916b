package controllerruntime

import (
	"github.com/converge-sim/converge/controllerruntime/convert"
	"github.com/converge-sim/converge/controllerruntime/internal/shared"
)

// SetFastPaths turns the memos' shared first decodes, the reuse of a read
// status's encoding, the memo of built-in defaulting and the invariants'
// verdicts memoized by the kinds read and the memo's own objects for the
// builder's Owns watches, the built-in controllers' shared reads, the
// Deployment controller's kept template hashes, the converter's kept
// decodes of parts that refer to nothing (for converters made after) and
// JSON merge patches applied to the stored body
// (convert.Converter.MergePatch) and custom resources' copies into
// destinations not zeroed first on or off, and returns a func that
// restores them (TestFastPathsGiveTheSameTraces).
func SetFastPaths(on bool) (restore func()) {
	decode, status, defaults, verdicts, owns, reads, hashes, patch := sharedDecode, reuseStatus, memoDefaults, verdictsByKind, ownsReadOnly, shared.Enabled, shared.KeepHashes, fastMergePatch
	sharedDecode, reuseStatus, memoDefaults, verdictsByKind, ownsReadOnly, shared.Enabled, shared.KeepHashes, fastMergePatch = on, on, on, on, on, on, on, on
	plain := convert.SetPlainCopy(on)
	unzeroed := SetUnzeroedCopies(on)
	return func() {
		unzeroed()
		sharedDecode, reuseStatus, memoDefaults, verdictsByKind, ownsReadOnly, shared.Enabled, shared.KeepHashes, fastMergePatch = decode, status, defaults, verdicts, owns, reads, hashes, patch
		convert.SetPlainCopy(plain)
	}
}

// SetSharedReads turns the built-in controllers' shared reads (package
// shared) on or off alone, and returns a func that restores them.
func SetSharedReads(on bool) (restore func()) {
	was := shared.Enabled
	shared.Enabled = on
	return func() { shared.Enabled = was }
}

// SetPlainCopy turns on or off alone the converter's kept decodes of
// parts that refer to nothing, for converters made after, and returns a
// func that restores them.
func SetPlainCopy(on bool) (restore func()) {
	was := convert.SetPlainCopy(on)
	return func() { convert.SetPlainCopy(was) }
}

// SetUnzeroedCopies turns on or off alone the copies of custom resources
// into a destination not zeroed first (copyOverwrites), and returns a
// func that restores them.
func SetUnzeroedCopies(on bool) (restore func()) {
	was := unzeroedCopies
	unzeroedCopies = on
	return func() { unzeroedCopies = was }
}

// SetKeepHashes turns on or off alone the built-in Deployment
// controller's kept template hashes, and returns a func that restores them.
func SetKeepHashes(on bool) (restore func()) {
	was := shared.KeepHashes
	shared.KeepHashes = on
	return func() { shared.KeepHashes = was }
}

// SetFastMergePatch turns the JSON merge patch applied to the stored body
// (convert.Converter.MergePatch) alone on or off, and returns a func that
// restores it (TestFastPathsGiveTheSameTraces).
func SetFastMergePatch(on bool) (restore func()) {
	was := fastMergePatch
	fastMergePatch = on
	return func() { fastMergePatch = was }
}
