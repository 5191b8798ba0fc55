package latency

import (
	"strings"
	"testing"
)

// The percentiles of 1..1000 µs are the histogram's, within its three
// significant digits; the maximum is exact.
func TestSummarize(t *testing.T) {
	var vs []int64
	for i := int64(1000); i >= 1; i-- {
		vs = append(vs, i*1000)
	}
	vs = append(vs, 1234567) // the largest, exactly
	s := Summarize(vs)
	if s.Count != 1001 || s.Max != 1234567 {
		t.Errorf("count %d max %d", s.Count, s.Max)
	}
	want := []int64{501_000, 901_000, 991_000, 1_000_000} // of 1001 values
	for i, w := range want {
		if d := s.P[i] - w; d < -w/500 || d > w/500 {
			t.Errorf("%s = %d, want %d within 0.2%%", Names()[i], s.P[i], w)
		}
	}
	if e := Summarize(nil); e.Count != 0 || e.Max != 0 || e.P[0] != 0 {
		t.Errorf("empty: %+v", e)
	}
}

// TestPercentileAtMostMax: a histogram bucket's top may lie above the
// largest value recorded in it; the summary's percentiles do not.
func TestPercentileAtMostMax(t *testing.T) {
	s := Summarize([]int64{6_401_234, 1000})
	for i, p := range s.P {
		if p > s.Max {
			t.Errorf("%s = %d, above the maximum %d", Names()[i], p, s.Max)
		}
	}
	if s.P[3] != s.Max {
		t.Errorf("p99.9 = %d, want the maximum %d", s.P[3], s.Max)
	}
}

func TestFormat(t *testing.T) {
	for ns, want := range map[int64]string{0: "0s", 999: "999ns", 1234567: "1.23ms", 10397677: "10.4ms", 999_999: "1ms", 12_345_678_901: "12.3s"} {
		if got := Format(ns); got != want {
			t.Errorf("Format(%d) = %s, want %s", ns, got, want)
		}
	}
}

func TestWriteTable(t *testing.T) {
	var b strings.Builder
	WriteTable(&b, []Row{{Name: "1 :8080", Sent: 10, Failed: 1, Summary: Summarize([]int64{1000, 2000})}})
	want := "traffic  sent  done  failed  p50  p90  p99  p99.9  max\n" +
		"1 :8080    10     2       1  1µs  2µs  2µs    2µs  2µs\n"
	if b.String() != want {
		t.Errorf("got\n%s\nwant\n%s", b.String(), want)
	}
}

// TestCurve: the curve's percentiles are HdrHistogram's ticks, 5 for
// each halving of the distance to 100%, and end at the exact maximum at
// the percentile of the largest value; its latencies are the
// histogram's and never go down.
func TestCurve(t *testing.T) {
	var vs []int64
	for i := int64(1); i <= 1000; i++ {
		vs = append(vs, i*1000)
	}
	vs = append(vs, 1234567)
	c := Curve(vs)
	// 2^(k/5) < 1001 for k = 0..49: 50 ticks, then the maximum.
	if len(c) != 51 {
		t.Fatalf("%d points, want 51", len(c))
	}
	if c[0].Percentile != 0 || c[0].Value != 1000 {
		t.Errorf("first point %+v, want the minimum at 0%%", c[0])
	}
	if c[5].Percentile != 50 || c[10].Percentile != 75 {
		t.Errorf("points 5 and 10 at %v%% and %v%%, want 50%% and 75%% (a halving each)", c[5].Percentile, c[10].Percentile)
	}
	if last := c[len(c)-1]; last.Value != 1234567 || last.Percentile != 100*(1-1/1001.0) {
		t.Errorf("last point %+v, want the maximum 1234567 at 100(1-1/1001)%%", last)
	}
	s := Summarize(vs)
	if c[5].Value != s.P[0] {
		t.Errorf("the curve's p50 %d, the summary's %d", c[5].Value, s.P[0])
	}
	for i := 1; i < len(c); i++ {
		if c[i].Value < c[i-1].Value || c[i].Percentile <= c[i-1].Percentile {
			t.Errorf("point %d %+v after %+v: the curve goes back", i, c[i], c[i-1])
		}
	}
	if Curve(nil) != nil {
		t.Errorf("no value: want no curve")
	}
	if one := Curve([]int64{7}); len(one) != 1 || one[0] != (Point{0, 7}) {
		t.Errorf("one value: %+v, want its value at 0%%", one)
	}
}
