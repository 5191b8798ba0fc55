package queueing

import (
	"math"
	"math/rand/v2"
	"testing"
)

func near(got, want, tol float64) bool { return math.Abs(got-want) <= tol*math.Abs(want) }

// TestErlang: Erlang B and C against values worked by hand from their
// definitions (Kleinrock vol. 1 §3.5).
func TestErlang(t *testing.T) {
	for _, test := range []struct {
		c    int
		a    float64
		b, w float64 // Erlang B and C
	}{
		{1, 0.5, 1.0 / 3, 0.5},                        // M/M/1: B = a/(1+a), C = ρ
		{1, 0.9, 0.9 / 1.9, 0.9},                      //
		{2, 1, 0.2, 1.0 / 3},                          // B = (a²/2)/(1+a+a²/2) = 0.5/2.5; C = 1/3
		{2, 1.6, 1.28 / 3.88, 2 * 0.64 / 1.8},         // c = 2: C = 2ρ²/(1+ρ)
		{4, 2, 2.0 / 21, 4.0 / 23},                    // B = (16/24)/(1+2+2+8/6+16/24); C = B/(1-ρ(1-B))
		{3, 0, 0, 0},                                  // no load, no wait
		{1, 0.999, 0.999 / 1.999, 0.999},              // near saturation
		{2, 1.8, 1.62 / (1 + 1.8 + 1.62), 1.62 / 1.9}, // 2ρ²/(1+ρ) with ρ = 0.9
	} {
		if got := ErlangB(test.c, test.a); !near(got, test.b, 1e-12) {
			t.Errorf("ErlangB(%d, %g) = %.15g, want %.15g", test.c, test.a, got, test.b)
		}
		if got := ErlangC(test.c, test.a); !near(got, test.w, 1e-12) {
			t.Errorf("ErlangC(%d, %g) = %.15g, want %.15g", test.c, test.a, got, test.w)
		}
	}
	for _, bad := range []struct {
		c int
		a float64
	}{{1, 1}, {2, 2.5}, {0, 0.1}, {1, -1}} {
		if got := ErlangC(bad.c, bad.a); !math.IsNaN(got) {
			t.Errorf("ErlangC(%d, %g) = %g, want NaN: no steady state", bad.c, bad.a, got)
		}
	}
}

// TestErlangCClosedForm: the recurrence agrees with the closed form,
// computed here in logarithms, up to c = 500, where the factorials of
// the closed form overflow a float.
func TestErlangCClosedForm(t *testing.T) {
	closed := func(c int, a float64) float64 {
		// C = (a^c/c! · c/(c-a)) / (Σ_{k<c} a^k/k! + a^c/c! · c/(c-a))
		lterm := func(k int) float64 { lf, _ := math.Lgamma(float64(k + 1)); return float64(k)*math.Log(a) - lf }
		top := math.Exp(lterm(c)) * float64(c) / (float64(c) - a)
		sum := 0.0
		for k := range c {
			sum += math.Exp(lterm(k))
		}
		return top / (sum + top)
	}
	for _, c := range []int{1, 2, 3, 4, 8, 16, 50, 100, 500} {
		for _, rho := range []float64{0.1, 0.5, 0.8, 0.9, 0.99} {
			a := rho * float64(c)
			if got, want := ErlangC(c, a), closed(c, a); !near(got, want, 1e-9) {
				t.Errorf("ErlangC(%d, %g) = %.12g, closed form %.12g", c, a, got, want)
			}
		}
	}
}

// TestMMcSojourn: the mean time in system against the textbook's special
// cases.
func TestMMcSojourn(t *testing.T) {
	for _, test := range []struct {
		c          int
		lambda, mu float64
		want       float64
	}{
		{1, 0.5, 1, 2},                      // M/M/1: 1/(μ-λ)
		{1, 0.9, 1, 10},                     //
		{1, 800, 1000, 1.0 / 200},           // the server of examples/server.star, in seconds: 5ms
		{2, 1, 1, 4.0 / 3},                  // M/M/2: 1/(μ(1-ρ²)), ρ = 0.5
		{2, 1.8, 1, 1 / (1 - 0.81)},         // ρ = 0.9
		{4, 0, 1, 1},                        // nobody waits: the service alone
		{4, 2, 1, 1 + (4.0/23)/(4-2)},       // from the Erlang C worked above
		{4, 20, 10, 0.1 + (4.0/23)/(40-20)}, // the same queue ten times faster
	} {
		if got := MMcSojourn(test.c, test.lambda, test.mu); !near(got, test.want, 1e-12) {
			t.Errorf("MMcSojourn(%d, %g, %g) = %.15g, want %.15g", test.c, test.lambda, test.mu, got, test.want)
		}
	}
	if got := MMcSojourn(2, 2, 1); !math.IsNaN(got) {
		t.Errorf("MMcSojourn(2, 2, 1) = %g, want NaN: the queue grows for ever", got)
	}
}

// TestStudentT: the t quantiles of confidence intervals against a
// printed table (Abramowitz and Stegun, table 26.10).
func TestStudentT(t *testing.T) {
	for _, test := range []struct {
		level float64
		df    int
		want  float64
	}{
		{0.95, 1, 12.706},
		{0.95, 2, 4.303},
		{0.95, 3, 3.182},
		{0.95, 4, 2.776},
		{0.95, 5, 2.571},
		{0.95, 9, 2.262},
		{0.95, 10, 2.228},
		{0.95, 19, 2.093},
		{0.95, 30, 2.042},
		{0.95, 120, 1.980},
		{0.99, 10, 3.169},
		{0.90, 5, 2.015},
		{0.95, 100000, 1.960}, // the normal's
	} {
		if got := StudentT(test.level, test.df); math.Abs(got-test.want) > 0.0006 {
			t.Errorf("StudentT(%g, %d) = %.4f, want %.3f", test.level, test.df, got, test.want)
		}
	}
}

// TestBatchMeans: the 95% interval of batch means covers the true mean
// of a correlated sequence (AR(1) with φ = 0.9, whose naive interval,
// taking the samples for independent, is √19 times too narrow) in about
// 95% of runs.
func TestBatchMeans(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	const (
		runs    = 400
		n       = 20_000
		batches = 20
		phi     = 0.9
		mean    = 5.0
	)
	covered := 0
	xs := make([]float64, n)
	for range runs {
		x := 0.0
		for i := range xs {
			x = phi*x + r.NormFloat64()
			xs[i] = mean + x
		}
		iv, err := BatchMeans(xs, batches)
		if err != nil {
			t.Fatal(err)
		}
		if math.Abs(iv.Mean-mean) <= iv.Half {
			covered++
		}
	}
	if f := float64(covered) / runs; f < 0.92 || f > 0.98 {
		t.Errorf("the 95%% interval covered the mean in %d of %d runs (%.1f%%)", covered, runs, 100*f)
	}
}

func TestBatchMeansShape(t *testing.T) {
	// 7 samples in 3 batches of 2: the first sample is left out.
	iv, err := BatchMeans([]float64{100, 1, 3, 5, 7, 9, 11}, 3)
	if err != nil {
		t.Fatal(err)
	}
	// batch means 2, 6, 10: mean 6, sd 4, half-width t(0.95, 2)·4/√3
	if iv.Mean != 6 || iv.Batches != 3 || !near(iv.Half, 4.302653*4/math.Sqrt(3), 1e-6) {
		t.Errorf("BatchMeans = %v, want 6 ± 9.94 (3 batches)", iv)
	}
	if _, err := BatchMeans([]float64{1, 2}, 3); err == nil {
		t.Error("BatchMeans of 2 samples in 3 batches: no error")
	}
	if _, err := BatchMeans([]float64{1, 2}, 1); err == nil {
		t.Error("BatchMeans in 1 batch: no error")
	}
	if iv := MeanInterval([]float64{4}); iv.Mean != 4 || !math.IsNaN(iv.Half) {
		t.Errorf("MeanInterval of one mean = %v, want 4 ± NaN", iv)
	}
}
