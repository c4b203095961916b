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
	return fmt.Sprintf("%s (%d bytes)", strconv.Quote(cut(s, Max)+"…"), len(s))
}

// Clip returns s unquoted, or, when it is longer than max bytes, its
// first max bytes (at a character boundary) with an ellipsis and its full
// length: for a command line or a message, which quotes would garble.
func Clip(s string, max int) string {
	if len(s) <= max {
		return s
	}
	return fmt.Sprintf("%s… (%d bytes)", cut(s, max), len(s))
}

// cut returns the longest prefix of s of at most n bytes that ends at a
// character boundary.
func cut(s string, n int) string {
	c := s[:n]
	for len(c) > 0 && !utf8.ValidString(c) {
		c = c[:len(c)-1]
	}
	return c
}
