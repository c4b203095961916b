// Package quantile summarizes a stream of non-negative integers, such as
// virtual durations in ticks, in bounded memory: a log-bucketed histogram
// whose quantiles are within a stated relative error and whose maximum is
// exact. Two sketches merge into the sketch of both streams.
//
//	var s quantile.Sketch
//	for _, v := range values {
//		s.Add(v)
//	}
//	p99, max := s.Quantile(99), s.Max()
package quantile

import (
	"fmt"
	"math/bits"
)

// Precision is the number of mantissa bits a bucket keeps: values below
// 2^(Precision+1) have a bucket each and are exact; above, a bucket
// spans 2^-Precision of its lower bound.
const Precision = 7

// exactBelow is the first value that shares its bucket with another.
const exactBelow = 1 << (Precision + 1)

// MaxBuckets is the most buckets a sketch holds, whatever it counts: one
// per value below exactBelow, then 2^Precision for each further power of
// two up to the largest int64. A sketch's memory is at most MaxBuckets
// counters.
const MaxBuckets = exactBelow + (63-Precision-1)*(1<<Precision)

// Sketch is a histogram of non-negative int64 values. Quantile(p) is the
// lower bound of the bucket holding the exact nearest-rank p-th
// percentile x, so it is never above x and below it by less than
// x/2^Precision (under 0.79%); values below 256 are exact. Max and Count
// are exact. The zero Sketch is empty and ready to use.
type Sketch struct {
	counts []uint64 // by bucket index, grown up to the highest bucket used
	n      uint64
	max    int64
}

// bucket returns the index of v's bucket.
func bucket(v int64) int {
	if v < exactBelow {
		return int(v)
	}
	shift := bits.Len64(uint64(v)) - (Precision + 1)
	mantissa := int(v >> shift)
	return exactBelow + (shift-1)<<Precision + mantissa - 1<<Precision
}

// lowerBound returns the least value of bucket i.
func lowerBound(i int) int64 {
	if i < exactBelow {
		return int64(i)
	}
	i -= exactBelow
	shift := i>>Precision + 1
	mantissa := int64(i&(1<<Precision-1) + 1<<Precision)
	return mantissa << shift
}

// Add counts v. A negative v is an error: the values are durations.
func (s *Sketch) Add(v int64) error {
	if v < 0 {
		return fmt.Errorf("quantile: negative value %d", v)
	}
	i := bucket(v)
	if i >= len(s.counts) {
		s.counts = append(s.counts, make([]uint64, i+1-len(s.counts))...)
	}
	s.counts[i]++
	if s.n == 0 || v > s.max {
		s.max = v
	}
	s.n++
	return nil
}

// Merge adds o's counts to s: s becomes the sketch of both streams.
func (s *Sketch) Merge(o *Sketch) {
	if o.n == 0 {
		return
	}
	if len(o.counts) > len(s.counts) {
		s.counts = append(s.counts, make([]uint64, len(o.counts)-len(s.counts))...)
	}
	for i, c := range o.counts {
		s.counts[i] += c
	}
	if s.n == 0 || o.max > s.max {
		s.max = o.max
	}
	s.n += o.n
}

// Count is the number of values added.
func (s *Sketch) Count() uint64 { return s.n }

// Max is the largest value added, exactly; 0 when none was.
func (s *Sketch) Max() int64 { return s.max }

// Quantile returns the nearest-rank p-th percentile within the error
// stated on Sketch; 0 when the sketch is empty. p is taken within 1…100:
// below 1 it is the least value's bucket, above 100 the maximum.
func (s *Sketch) Quantile(p int) int64 {
	if s.n == 0 {
		return 0
	}
	p = min(max(p, 1), 100)
	rank := (uint64(p)*s.n + 99) / 100 // the 1-based rank, ⌈p·n/100⌉
	var seen uint64
	for i, c := range s.counts {
		seen += c
		if seen >= rank {
			return min(lowerBound(i), s.max)
		}
	}
	return s.max
}

// Buckets is the number of buckets the sketch holds now, at most
// MaxBuckets.
func (s *Sketch) Buckets() int { return len(s.counts) }
