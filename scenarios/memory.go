package scenarios

import (
	"encoding/binary"
	"hash"
)

// writeMemory writes a monitor's memory to h (properties.Invariant's
// Fingerprint), canonically: each flag as a byte, then the number of
// strings and each string after its length. Callers pass strings in a
// fixed order (sorted, for a set).
func writeMemory(h hash.Hash64, flags []bool, strs []string) {
	var buf []byte
	for _, f := range flags {
		if f {
			buf = append(buf, 1)
		} else {
			buf = append(buf, 0)
		}
	}
	buf = binary.AppendUvarint(buf, uint64(len(strs)))
	for _, s := range strs {
		buf = binary.AppendUvarint(buf, uint64(len(s)))
		buf = append(buf, s...)
	}
	_, _ = h.Write(buf)
}
