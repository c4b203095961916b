package model

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// scriptArgs are a command's arguments: positional words and key=value
// pairs. Reading one marks it used; unused reports any left over, so that
// a misspelt argument is an error, not a silent default.
type scriptArgs struct {
	words []string
	kv    map[string]string
	used  map[string]bool
	err   error
}

func parseScriptArgs(args []string) *scriptArgs {
	a := &scriptArgs{kv: map[string]string{}, used: map[string]bool{}}
	for _, s := range args {
		if k, v, ok := strings.Cut(s, "="); ok {
			a.kv[k] = v
		} else {
			a.words = append(a.words, s)
		}
	}
	return a
}

// pos returns the i-th word, noting an error when it is missing.
func (a *scriptArgs) pos(i int) string {
	if i >= len(a.words) {
		if a.err == nil {
			a.err = fmt.Errorf("missing argument %d", i+1)
		}
		return ""
	}
	a.used[strconv.Itoa(i)] = true
	return a.words[i]
}

// opt returns the i-th word, or "" when there is none.
func (a *scriptArgs) opt(i int) string {
	if i >= len(a.words) {
		return ""
	}
	return a.pos(i)
}

// flag reports whether word is among the words.
func (a *scriptArgs) flag(word string) bool {
	i := slices.Index(a.words, word)
	if i >= 0 {
		a.used[strconv.Itoa(i)] = true
	}
	return i >= 0
}

func (a *scriptArgs) str(key, def string) string {
	v, ok := a.kv[key]
	if !ok {
		return def
	}
	a.used[key] = true
	return v
}

func (a *scriptArgs) int(key string, def int) int {
	v, ok := a.kv[key]
	if !ok {
		return def
	}
	a.used[key] = true
	n, err := strconv.Atoi(v)
	if err != nil && a.err == nil {
		a.err = fmt.Errorf("%s=%s: not an integer", key, v)
	}
	return n
}

// need returns the integer at key, noting an error when it is missing.
func (a *scriptArgs) need(key string) int {
	if _, ok := a.kv[key]; !ok && a.err == nil {
		a.err = fmt.Errorf("missing %s=", key)
	}
	return a.int(key, 0)
}

// fields returns the keys that are field paths, sorted, marking them used.
func (a *scriptArgs) fields() []string {
	var out []string
	for k := range a.kv {
		if strings.HasPrefix(k, "spec.") || strings.HasPrefix(k, "status.") || strings.HasPrefix(k, "metadata.") {
			out = append(out, k)
			a.used[k] = true
		}
	}
	slices.Sort(out)
	return out
}

// unused reports the first argument no command read.
func (a *scriptArgs) unused() error {
	if a.err != nil {
		return a.err
	}
	for i, w := range a.words {
		if !a.used[strconv.Itoa(i)] {
			return fmt.Errorf("unexpected argument %q", w)
		}
	}
	keys := make([]string, 0, len(a.kv))
	for k := range a.kv {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		if !a.used[k] {
			return fmt.Errorf("unknown argument %s=", k)
		}
	}
	return nil
}
