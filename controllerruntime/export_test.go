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
// (convert.Converter.MergePatch, with its merge into kept decodes and its
// own reading of plain patches), the written version made from what was
// sent (convert.Converter.FromModelWritten) and custom resources' copies
// into destinations not zeroed first on or off, and returns a func that
// restores them (TestFastPathsGiveTheSameTraces).
func SetFastPaths(on bool) (restore func()) {
	decode, status, defaults, verdicts, owns, reads, hashes, patch, sent := sharedDecode, reuseStatus, memoDefaults, verdictsByKind, ownsReadOnly, shared.Enabled, shared.KeepHashes, fastMergePatch, sentDecode
	sharedDecode, reuseStatus, memoDefaults, verdictsByKind, ownsReadOnly, shared.Enabled, shared.KeepHashes, fastMergePatch, sentDecode = on, on, on, on, on, on, on, on, on
	plain := convert.SetPlainCopy(on)
	typed, scan := convert.SetTypedMerge(on), convert.SetScanMergePatch(on)
	unzeroed := SetUnzeroedCopies(on)
	return func() {
		unzeroed()
		convert.SetTypedMerge(typed)
		convert.SetScanMergePatch(scan)
		sharedDecode, reuseStatus, memoDefaults, verdictsByKind, ownsReadOnly, shared.Enabled, shared.KeepHashes, fastMergePatch, sentDecode = decode, status, defaults, verdicts, owns, reads, hashes, patch, sent
		convert.SetPlainCopy(plain)
	}
}

// SetSentDecode turns alone on or off the written version made from what
// the write sent (convert.Converter.FromModelWritten) rather than decoded
// from the stored fields, and returns a func that restores it
// (TestFastPathsGiveTheSameTraces).
func SetSentDecode(on bool) (restore func()) {
	was := sentDecode
	sentDecode = on
	return func() { sentDecode = was }
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

// SetTypedMergePatch turns on or off alone the merge patch's merge into a
// copy of a part's kept decode (convert.SetTypedMerge), and returns a func
// that restores it (TestFastPathsGiveTheSameTraces).
func SetTypedMergePatch(on bool) (restore func()) {
	was := convert.SetTypedMerge(on)
	return func() { convert.SetTypedMerge(was) }
}

// SetScanMergePatch turns on or off alone the merge patch's own reading of
// plain patches (convert.SetScanMergePatch), and returns a func that
// restores it.
func SetScanMergePatch(on bool) (restore func()) {
	was := convert.SetScanMergePatch(on)
	return func() { convert.SetScanMergePatch(was) }
}
