package loadgen

import (
	"testing"
	"time"
)

// TestBucketBounds: every value lies in its bucket, and buckets are at
// most 1/128 of their value wide.
func TestBucketBounds(t *testing.T) {
	values := []uint64{0, 1, 255, 256, 257, 511, 512, 1000, 123456, 1 << 40, 1<<63 - 1}
	for v := uint64(1); v < 1<<62; v = v*3 + 1 {
		values = append(values, v-1, v, v+1)
	}
	for _, v := range values {
		i := bucketOf(v)
		low, high := bucketLow(i), bucketLow(i+1)
		if i < 0 || i >= histogramBuckets || v < low || v >= high {
			t.Fatalf("value %d in bucket %d = [%d, %d)", v, i, low, high)
		}
		if width := high - low; v >= 2*subBuckets && width > low/subBuckets {
			t.Errorf("bucket %d = [%d, %d) is wider than 1/128 of its value", i, low, high)
		}
	}
}

func TestPercentiles(t *testing.T) {
	var h histogram
	for us := 1; us <= 10000; us++ {
		h.record(time.Duration(us) * time.Microsecond)
	}
	for _, tc := range []struct {
		p    float64
		want time.Duration
	}{
		{50, 5000 * time.Microsecond},
		{90, 9000 * time.Microsecond},
		{99, 9900 * time.Microsecond},
		{100, 10000 * time.Microsecond},
	} {
		got := h.percentile(tc.p)
		if diff := got - tc.want; diff < -tc.want/128 || diff > tc.want/128 {
			t.Errorf("p%v = %v, want %v within 1/128", tc.p, got, tc.want)
		}
	}
	if h.max != 10*time.Millisecond {
		t.Errorf("max = %v, want 10ms", h.max)
	}
}

func TestPercentileSmallCounts(t *testing.T) {
	var h histogram
	if got := h.percentile(50); got != 0 {
		t.Errorf("empty p50 = %v, want 0", got)
	}
	// Below 256 ns buckets are exact: nearest rank on 10, 20, 30, 40.
	for _, ns := range []time.Duration{40, 10, 30, 20} {
		h.record(ns)
	}
	for p, want := range map[float64]time.Duration{25: 10, 50: 20, 75: 30, 90: 40, 100: 40} {
		if got := h.percentile(p); got != want {
			t.Errorf("p%v = %v, want %v", p, got, want)
		}
	}
}

func TestMerge(t *testing.T) {
	var a, b histogram
	a.record(100)
	b.record(200)
	b.record(300)
	a.merge(&b)
	if a.total != 3 || a.max != 300 || a.percentile(50) != 200 {
		t.Errorf("merged: total %d, max %v, p50 %v; want 3, 300ns, 200ns", a.total, a.max, a.percentile(50))
	}
}
