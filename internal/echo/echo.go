// Package echo quotes input in error messages, clipped: a message that
// names a bad value helps, one that repeats a megabyte of it buries
// itself (and a log's limits).
package echo

import (
	"fmt"
	"strconv"
	"unicode/utf8"
)

// Max is the most bytes of a value Quote echoes.
const Max = 80

// Quote quotes s as %q does; a value longer than Max bytes is cut to its
// first Max bytes (at a character boundary), with an ellipsis and its
// full length: "aaaa…" (1048576 bytes).
func Quote(s string) string {
	if len(s) <= Max {
		return strconv.Quote(s)
	}
	cut := s[:Max]
	for len(cut) > 0 && !utf8.ValidString(cut) {
		cut = cut[:len(cut)-1]
	}
	return fmt.Sprintf("%s (%d bytes)", strconv.Quote(cut+"…"), len(s))
}
