package model

import (
	"slices"
	"strings"
)

// Selector is an equality-based label selector (matchLabels): an object
// matches when every key/value pair is among its labels. A nil or empty
// Selector matches everything.
type Selector map[string]string

// Matches reports whether labels satisfy the selector.
func (s Selector) Matches(labels map[string]string) bool {
	for k, v := range s {
		if w, ok := labels[k]; !ok || w != v {
			return false
		}
	}
	return true
}

// String renders the selector as "a=1,b=2" in key order.
func (s Selector) String() string {
	pairs := make([]string, 0, len(s))
	for k, v := range s {
		pairs = append(pairs, k+"="+v)
	}
	slices.Sort(pairs)
	return strings.Join(pairs, ",")
}
