// Package draw holds rapid generators of integers in a range that shrink
// to their smallest failing value every time. Use them for every integer a
// search draws and rapid shrinks: fault parameters, input values, and the
// index of a choice among alternatives.
//
// rapid's own IntRange and Int64Range are biased: a few draws in a hundred
// take a long geometric draw that lands on the range's maximum, and
// rapid's shrinker cannot undo that landing. A property that fails from 3
// up, in [0, 10], then ends at 10 in about 3% of runs instead of 3, and a
// fault schedule keeps a parameter, or the last of its alternatives, where
// a smaller one fails too. Drawn from [lo, hi+1] instead, that landing is
// hi+1, which is redrawn: the stuck draw no longer decides the value, and
// the redraw shrinks. Over [lo, hi] the distribution stays rapid's, except
// that the maximum loses those landings: it is drawn about as often as the
// value below it.
package draw

import "pgregory.net/rapid"

// redraws is how many draws from [lo, hi+1] may land on hi+1 before the
// value is drawn from [lo, hi] as rapid does.
const redraws = 3

// IntRange draws an int in [lo, hi], as rapid.IntRange does, so that a
// failure shrinks to its smallest value.
func IntRange(lo, hi int) *rapid.Generator[int] {
	return within(lo, hi, rapid.IntRange)
}

// Int64Range draws an int64 in [lo, hi], as rapid.Int64Range does, so that
// a failure shrinks to its smallest value.
func Int64Range(lo, hi int64) *rapid.Generator[int64] {
	return within(lo, hi, rapid.Int64Range)
}

// within builds the generator of [lo, hi] on rapid's biased generator of
// a range.
func within[I int | int64](lo, hi I, biased func(lo, hi I) *rapid.Generator[I]) *rapid.Generator[I] {
	exact := biased(lo, hi)
	if hi+1 < hi { // the range ends at the type's maximum: nothing to widen it with
		return exact
	}
	wider := biased(lo, hi+1)
	return rapid.Custom(func(t *rapid.T) I {
		for range redraws {
			if v := wider.Draw(t, "v"); v <= hi {
				return v
			}
		}
		return exact.Draw(t, "v")
	})
}
