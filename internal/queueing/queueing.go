// Package queueing holds the textbook answers that the latency lab is
// checked against: the M/M/c queue's probability of waiting (Erlang C)
// and its mean time in system, and the batch-means confidence interval of
// a simulation's mean.
//
// An M/M/c queue has Poisson arrivals at rate λ, c servers, and service
// times exponential with mean 1/μ; a request that finds every server busy
// waits in one first-come-first-served queue. Its offered load is
// a = λ/μ (in Erlangs: the servers' worth of work arriving) and its
// utilisation ρ = a/c, below 1 for a queue that does not grow for ever.
// Everything follows from the Erlang B formula, the probability that a
// request finds all c servers busy when there is no queue, computed by its
// recurrence (stable for any c, unlike the factorials of the closed form):
//
//	B(0, a) = 1,  B(k, a) = a·B(k-1, a) / (k + a·B(k-1, a))
//
// With a queue, the probability that a request waits is Erlang C,
//
//	C(c, a) = B(c, a) / (1 - ρ·(1 - B(c, a))),
//
// the mean wait in the queue is Wq = C(c, a) / (cμ - λ), and the mean
// time in system (the sojourn: waiting plus service) is W = Wq + 1/μ.
// For c = 1, C is ρ and W is 1/(μ - λ). Little's law, L = λW, gives the
// mean number of requests in the system. The mean wait, and so W, is the
// same for any order of service that does not look at the service times
// and never leaves a server idle while a request waits: first come first
// served, last come first served, or Go's run queues.
//
// A simulation's mean comes with an error. Its samples (the sojourns of
// successive requests) are correlated: a request that waited long is
// followed by others that do, the more so the nearer ρ is to 1. The
// method of batch means cuts the run into k batches of consecutive
// samples, long enough that their means are nearly independent, and
// takes the spread of those k means for the error: a Student t interval
// with k-1 degrees of freedom around their mean. Independent runs (seeds)
// are batches too, exactly independent.
//
// The formulas are those of Kleinrock, Queueing Systems, vol. 1 (1975),
// §3.5 (M/M/c) and of Law, Simulation Modeling and Analysis (5th ed.,
// 2015), §9.5.3 (batch means); the t distribution's tail is Abramowitz
// and Stegun 26.7.3–26.7.4. The code is written from them, without a
// library, and tested against their tables.
package queueing

import (
	"fmt"
	"math"
)

// ErlangB returns B(c, a), the probability that an arrival finds all c
// servers busy in a loss system (no queue) offered a Erlangs.
func ErlangB(c int, a float64) float64 {
	b := 1.0
	for k := 1; k <= c; k++ {
		b = a * b / (float64(k) + a*b)
	}
	return b
}

// ErlangC returns C(c, a), the probability that an arrival waits in an
// M/M/c queue offered a = λ/μ Erlangs. It wants 0 <= a < c (a stable
// queue) and returns NaN otherwise.
func ErlangC(c int, a float64) float64 {
	if c < 1 || a < 0 || a >= float64(c) {
		return math.NaN()
	}
	b := ErlangB(c, a)
	rho := a / float64(c)
	return b / (1 - rho*(1-b))
}

// MMcSojourn returns the mean time in system (waiting plus service) of an
// M/M/c queue with arrival rate lambda and service rate mu per server, in
// the unit of 1/mu. It wants lambda < c·mu and returns NaN otherwise.
func MMcSojourn(c int, lambda, mu float64) float64 {
	if mu <= 0 || lambda < 0 || lambda >= float64(c)*mu {
		return math.NaN()
	}
	wq := ErlangC(c, lambda/mu) / (float64(c)*mu - lambda)
	return wq + 1/mu
}

// An Interval is a sample mean and the half-width of its confidence
// interval: the true mean is in [Mean-Half, Mean+Half] at the interval's
// level.
type Interval struct {
	Mean    float64
	Half    float64 // half-width
	Batches int     // the number of batch means it was made from
}

// Rel returns the half-width relative to the mean.
func (iv Interval) Rel() float64 { return iv.Half / iv.Mean }

func (iv Interval) String() string {
	return fmt.Sprintf("%g ± %g (%d batches)", iv.Mean, iv.Half, iv.Batches)
}

// BatchMeans cuts xs into k batches of consecutive samples (Batches)
// and returns the mean of the batch means with the half-width of its 95%
// confidence interval. It wants k >= 2 and at least k samples.
func BatchMeans(xs []float64, k int) (Interval, error) {
	means, err := Batches(xs, k)
	if err != nil {
		return Interval{}, err
	}
	return MeanInterval(means), nil
}

// Batches cuts xs into k batches of consecutive samples, each of
// len(xs)/k, leaving out the len(xs) mod k first samples (the start of a
// run, its least stationary part), and returns the mean of each batch.
// It wants k >= 2 and at least k samples.
func Batches(xs []float64, k int) ([]float64, error) {
	if k < 2 {
		return nil, fmt.Errorf("batch means: %d batches, want at least 2", k)
	}
	size := len(xs) / k
	if size == 0 {
		return nil, fmt.Errorf("batch means: %d samples, want at least %d (one a batch)", len(xs), k)
	}
	xs = xs[len(xs)-size*k:]
	means := make([]float64, k)
	for j := range k {
		sum := 0.0
		for _, x := range xs[j*size : (j+1)*size] {
			sum += x
		}
		means[j] = sum / float64(size)
	}
	return means, nil
}

// MeanInterval returns the mean of means, independent estimates of one
// mean (batch means, or the means of independent runs), and the
// half-width of its 95% confidence interval, Student's t with
// len(means)-1 degrees of freedom. The half-width is NaN for fewer than
// two means.
func MeanInterval(means []float64) Interval {
	k := len(means)
	iv := Interval{Batches: k, Half: math.NaN()}
	if k == 0 {
		iv.Mean = math.NaN()
		return iv
	}
	for _, m := range means {
		iv.Mean += m
	}
	iv.Mean /= float64(k)
	if k < 2 {
		return iv
	}
	ss := 0.0
	for _, m := range means {
		ss += (m - iv.Mean) * (m - iv.Mean)
	}
	sd := math.Sqrt(ss / float64(k-1))
	iv.Half = StudentT(0.95, k-1) * sd / math.Sqrt(float64(k))
	return iv
}

// StudentT returns t such that a Student t variable with df degrees of
// freedom lies in [-t, t] with probability level (0 < level < 1): the
// two-sided quantile of confidence intervals, 12.706 for df 1 and level
// 0.95, 1.960 as df grows. It bisects studentA, exact to the float's
// precision.
func StudentT(level float64, df int) float64 {
	if df < 1 || level <= 0 || level >= 1 {
		return math.NaN()
	}
	lo, hi := 0.0, 1.0
	for studentA(hi, df) < level {
		hi *= 2
	}
	for range 200 {
		mid := (lo + hi) / 2
		if mid == lo || mid == hi {
			break
		}
		if studentA(mid, df) < level {
			lo = mid
		} else {
			hi = mid
		}
	}
	return (lo + hi) / 2
}

// studentA returns A(t|ν), the probability that a Student t variable with
// ν degrees of freedom lies in [-t, t], by the finite series of
// Abramowitz and Stegun 26.7.3 (ν odd) and 26.7.4 (ν even), with
// θ = arctan(t/√ν):
//
//	ν odd:  A = (2/π)·(θ + sinθ·cosθ·(1 + (2/3)cos²θ + (2·4)/(3·5)cos⁴θ + ... + (2·4···(ν-3))/(1·3···(ν-2))·cos^(ν-3)θ))
//	ν even: A = sinθ·(1 + (1/2)cos²θ + (1·3)/(2·4)cos⁴θ + ... + (1·3···(ν-3))/(2·4···(ν-2))·cos^(ν-2)θ)
//
// (for ν = 1 the sum is empty: A = 2θ/π).
func studentA(t float64, df int) float64 {
	theta := math.Atan(t / math.Sqrt(float64(df)))
	s, c := math.Sin(theta), math.Cos(theta)
	c2 := c * c
	if df%2 == 1 {
		if df == 1 {
			return 2 * theta / math.Pi
		}
		sum, term := 1.0, 1.0
		for k := 2; k <= df-3; k += 2 {
			term *= float64(k) / float64(k+1) * c2
			sum += term
		}
		return 2 / math.Pi * (theta + s*c*sum)
	}
	sum, term := 1.0, 1.0
	for k := 1; k <= df-3; k += 2 {
		term *= float64(k) / float64(k+1) * c2
		sum += term
	}
	return s * sum
}
