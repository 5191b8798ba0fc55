package calibrate

import (
	"math"
	"slices"

	"github.com/schedlab/schedlab/runtime"
)

// Quantiles returns the distribution of samples (in ns, at least one): its
// 21 quantiles and its tail (runtime.TailLevels) by linear interpolation
// between the closest ranks (type 7 of Hyndman and Fan, R's and NumPy's
// default), rounded to the nearest ns and at least 0.
func Quantiles(samples []float64) runtime.Dist {
	return distOf(samples, math.Round)
}

// stepQuantiles returns the distribution of samples with its quantiles
// rounded up to whole ns: the step's, a fraction of a ns that the profile's
// whole ns cannot hold.
func stepQuantiles(samples []float64) runtime.Dist {
	return distOf(samples, math.Ceil)
}

// distOf returns the distribution of samples (at least one), each
// quantile rounded to whole ns by round.
func distOf(samples []float64, round func(float64) float64) runtime.Dist {
	s := slices.Clone(samples)
	slices.Sort(s)
	d := runtime.Dist{N: len(s), HasTail: true}
	for i := range d.Quantiles {
		d.Quantiles[i] = max(int64(round(at(s, float64(i)/float64(runtime.NumQuantiles-1)))), 0)
	}
	for j, level := range runtime.TailLevels {
		d.Tail[j] = max(int64(round(at(s, float64(level)/1000))), 0)
	}
	return d
}

// at is the quantile p of the sorted samples s.
func at(s []float64, p float64) float64 {
	h := float64(len(s)-1) * p
	lo := int(math.Floor(h))
	hi := min(lo+1, len(s)-1)
	return s[lo] + (h-float64(lo))*(s[hi]-s[lo])
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
