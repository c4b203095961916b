package convert

import (
	"strconv"
	"unicode/utf8"
)

// scanMergePatch is parseMergePatch for the plain patches controllers
// send (controller-runtime's MergeFrom diffs: objects, integers, plain
// strings), read in one pass without encoding/json's reflection. It
// reports false wherever it is not sure to give what parseMergePatch
// gives, and parseMergePatch then reads the patch (TestScanMergePatch
// compares the two): a string with an escape, a control character or
// bytes that are not UTF-8, a number that is not an integer literal of
// int64's range, an object that repeats a key, an object holding a null
// inside an array, deep nesting, and anything that is not JSON.
func scanMergePatch(data []byte) (map[string]any, bool) {
	s := patchScanner{data: data}
	s.space()
	if s.i >= len(s.data) || s.data[s.i] != '{' {
		return nil, false
	}
	v, ok := s.value(0, false)
	if !ok {
		return nil, false
	}
	s.space()
	if s.i != len(s.data) {
		return nil, false
	}
	return v.(map[string]any), true
}

// scanPatch is false only in tests that check that the patches
// scanMergePatch reads give what encoding/json's reading gives
// (TestFastPathsGiveTheSameTraces, through SetScanMergePatch).
var scanPatch = true

// SetScanMergePatch turns on or off MergePatch's own reading of plain
// patches (rather than encoding/json's), and returns the setting it
// replaced. For tests.
func SetScanMergePatch(on bool) (was bool) {
	was, scanPatch = scanPatch, on
	return was
}

// maxScanDepth bounds the nesting scanMergePatch reads itself.
const maxScanDepth = 64

type patchScanner struct {
	data []byte
	i    int
}

func (s *patchScanner) space() {
	for s.i < len(s.data) {
		switch s.data[s.i] {
		case ' ', '\t', '\n', '\r':
			s.i++
		default:
			return
		}
	}
}

// value reads one JSON value at s.i (no leading space); inArray says
// whether it is inside an array, where an object may hold no null.
func (s *patchScanner) value(depth int, inArray bool) (any, bool) {
	if s.i >= len(s.data) || depth > maxScanDepth {
		return nil, false
	}
	switch c := s.data[s.i]; {
	case c == '{':
		return s.object(depth, inArray)
	case c == '[':
		return s.array(depth)
	case c == '"':
		return s.str()
	case c == '-' || (c >= '0' && c <= '9'):
		return s.number()
	case c == 't':
		return true, s.literal("true")
	case c == 'f':
		return false, s.literal("false")
	case c == 'n':
		return nil, s.literal("null")
	}
	return nil, false
}

func (s *patchScanner) literal(lit string) bool {
	if len(s.data)-s.i < len(lit) || string(s.data[s.i:s.i+len(lit)]) != lit {
		return false
	}
	s.i += len(lit)
	return true
}

func (s *patchScanner) object(depth int, inArray bool) (any, bool) {
	s.i++ // {
	m := map[string]any{}
	s.space()
	if s.i < len(s.data) && s.data[s.i] == '}' {
		s.i++
		return m, true
	}
	for {
		s.space()
		if s.i >= len(s.data) || s.data[s.i] != '"' {
			return nil, false
		}
		k, ok := s.str()
		if !ok {
			return nil, false
		}
		key := k.(string)
		if _, dup := m[key]; dup {
			return nil, false
		}
		s.space()
		if s.i >= len(s.data) || s.data[s.i] != ':' {
			return nil, false
		}
		s.i++
		s.space()
		v, ok := s.value(depth+1, inArray)
		if !ok || (v == nil && inArray) {
			return nil, false
		}
		m[key] = v
		if done, ok := s.separator('}'); !ok {
			return nil, false
		} else if done {
			return m, true
		}
	}
}

func (s *patchScanner) array(depth int) (any, bool) {
	s.i++ // [
	l := []any{}
	s.space()
	if s.i < len(s.data) && s.data[s.i] == ']' {
		s.i++
		return l, true
	}
	for {
		s.space()
		v, ok := s.value(depth+1, true)
		if !ok {
			return nil, false
		}
		l = append(l, v)
		if done, ok := s.separator(']'); !ok {
			return nil, false
		} else if done {
			return l, true
		}
	}
}

// separator reads what follows a member of an object or an element of an
// array: a comma, with more to come, or closing, which ends it (done).
func (s *patchScanner) separator(closing byte) (done, ok bool) {
	s.space()
	if s.i >= len(s.data) {
		return false, false
	}
	switch s.data[s.i] {
	case ',':
		s.i++
		return false, true
	case closing:
		s.i++
		return true, true
	}
	return false, false
}

// str reads a string without escapes, of valid UTF-8.
func (s *patchScanner) str() (any, bool) {
	s.i++ // "
	start := s.i
	ascii := true
	for ; s.i < len(s.data); s.i++ {
		switch c := s.data[s.i]; {
		case c == '"':
			b := s.data[start:s.i]
			s.i++
			if !ascii && !utf8.Valid(b) {
				return nil, false
			}
			return string(b), true
		case c == '\\' || c < 0x20:
			return nil, false
		case c >= utf8.RuneSelf:
			ascii = false
		}
	}
	return nil, false
}

// number reads an integer literal of int64's range: -?(0|[1-9][0-9]*),
// not followed by a fraction or an exponent.
func (s *patchScanner) number() (any, bool) {
	start := s.i
	if s.data[s.i] == '-' {
		s.i++
	}
	digits := s.i
	for s.i < len(s.data) && s.data[s.i] >= '0' && s.data[s.i] <= '9' {
		s.i++
	}
	if s.i == digits || (s.data[digits] == '0' && s.i-digits > 1) {
		return nil, false
	}
	if s.i < len(s.data) {
		switch s.data[s.i] {
		case '.', 'e', 'E':
			return nil, false
		}
	}
	n, err := strconv.ParseInt(string(s.data[start:s.i]), 10, 64)
	return n, err == nil
}
