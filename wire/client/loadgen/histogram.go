package loadgen

import (
	"math"
	"math/bits"
	"time"
)

// histogram counts latencies in log-linear buckets, as HdrHistogram does:
// below 256 ns one bucket per nanosecond, above that 128 buckets per
// power of two, so a bucket is at most 1/128 of its value wide and a
// percentile read from it is within 0.8 %. Its size is fixed whatever the
// run's length, and one per connection needs no lock.
type histogram struct {
	counts [histogramBuckets]uint64
	total  uint64
	max    time.Duration
}

const (
	subBucketBits = 7
	subBuckets    = 1 << subBucketBits // 128 per power of two
	// Durations are positive int64 nanoseconds: bit lengths up to 63.
	histogramBuckets = (63 - subBucketBits + 1) * subBuckets
)

// bucketOf maps ns to its bucket: ns itself below 2*subBuckets, else the
// top subBucketBits+1 bits of ns and how far they were shifted.
func bucketOf(ns uint64) int {
	if ns < 2*subBuckets {
		return int(ns)
	}
	shift := bits.Len64(ns) - (subBucketBits + 1)
	return (shift+1)*subBuckets + int(ns>>shift) - subBuckets
}

// bucketLow is the smallest value in bucket i; bucketLow(i+1) bounds it
// above.
func bucketLow(i int) uint64 {
	if i < 2*subBuckets {
		return uint64(i)
	}
	shift := i/subBuckets - 1
	return uint64(i%subBuckets+subBuckets) << shift
}

func (h *histogram) record(d time.Duration) {
	if d < 0 {
		d = 0
	}
	h.counts[bucketOf(uint64(d))]++
	h.total++
	h.max = max(h.max, d)
}

func (h *histogram) merge(o *histogram) {
	for i, n := range o.counts {
		h.counts[i] += n
	}
	h.total += o.total
	h.max = max(h.max, o.max)
}

// percentile returns the latency at or below which p percent of the
// recorded ones lie: the middle of the bucket holding that rank, never
// above the largest latency recorded. 0 when nothing was recorded.
func (h *histogram) percentile(p float64) time.Duration {
	if h.total == 0 {
		return 0
	}
	// Nearest rank: the smallest recorded value with at least p percent
	// of all at or below it.
	rank := uint64(math.Ceil(p / 100 * float64(h.total)))
	rank = min(max(rank, 1), h.total) - 1
	var seen uint64
	for i, n := range h.counts {
		seen += n
		if seen > rank {
			mid := (bucketLow(i) + bucketLow(i+1) - 1) / 2
			return min(time.Duration(mid), h.max)
		}
	}
	return h.max
}
