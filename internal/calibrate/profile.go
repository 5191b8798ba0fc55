package calibrate

import (
	"math"
	"slices"

	"github.com/schedlab/schedlab/runtime"
)

// Quantiles returns the distribution of samples (in ns, at least one): its
// 21 quantiles by linear interpolation between the closest ranks (type 7
// of Hyndman and Fan, R's and NumPy's default), rounded to the nearest ns
// and at least 0.
func Quantiles(samples []float64) runtime.Dist {
	d := runtime.Dist{N: len(samples)}
	for i, v := range quantiles(samples) {
		d.Quantiles[i] = max(int64(math.Round(v)), 0)
	}
	return d
}

// stepQuantiles returns the distribution of samples with its quantiles
// rounded up to whole ns: the step's, a fraction of a ns that the profile's
// whole ns cannot hold.
func stepQuantiles(samples []float64) runtime.Dist {
	d := runtime.Dist{N: len(samples)}
	for i, v := range quantiles(samples) {
		d.Quantiles[i] = max(int64(math.Ceil(v)), 0)
	}
	return d
}

// quantiles returns the 21 quantiles of samples (at least one).
func quantiles(samples []float64) []float64 {
	s := slices.Clone(samples)
	slices.Sort(s)
	q := make([]float64, runtime.NumQuantiles)
	for i := range q {
		h := float64(len(s)-1) * float64(i) / float64(runtime.NumQuantiles-1)
		lo := int(math.Floor(h))
		hi := min(lo+1, len(s)-1)
		q[i] = s[lo] + (h-float64(lo))*(s[hi]-s[lo])
	}
	return q
}

// median returns the middle of samples (at least one).
func median(samples []float64) float64 {
	s := slices.Clone(samples)
	slices.Sort(s)
	n := len(s)
	if n%2 == 1 {
		return s[n/2]
	}
	return (s[n/2-1] + s[n/2]) / 2
}
