// Package samples reads the recordings of bench/faithfulness's timing
// tools (spawntimes, syscalltimes, timertimes, waketimes, wakestall),
// and perf script's system call events for those that time a program
// from outside (sysmontimes, ctxperf),
// writes and reads their lines of samples, and turns the samples into the
// 21 quantiles of a costs profile's entry, so that a profile's cost is
// made from its recordings by a command, not by hand. P tells a tool which
// P its goroutine runs on.
//
// The quantiles are nearest-rank (the sample at rank (n-1)·i/20, rounded
// down), as the shipped default's malg and syscall_timer_late were made;
// internal/calibrate's Quantiles interpolates between ranks, which moves
// a quantile by less than the gap between two samples.
package samples

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"slices"
	"strconv"
	"strings"

	"github.com/schedlab/schedlab/runtime"
)

// Quantiles returns the 21 quantiles of xs (at least one sample), 0% to
// 100% by 5%.
func Quantiles(xs []int64) [runtime.NumQuantiles]int64 {
	s := slices.Clone(xs)
	slices.Sort(s)
	var q [runtime.NumQuantiles]int64
	for i := range q {
		q[i] = s[i*(len(s)-1)/(runtime.NumQuantiles-1)]
	}
	return q
}

// Capped is Quantiles with its p100 lowered to the samples' p99.5 (no
// lower than p95): above it lie the OS's preemptions of the thread, which
// the profile's stall costs model, and a profile's sampling interpolates
// between p95 and p100, so one such outlier would weigh on a twentieth of
// the draws.
func Capped(xs []int64) [runtime.NumQuantiles]int64 {
	q := Quantiles(xs)
	s := slices.Clone(xs)
	slices.Sort(s)
	q[runtime.NumQuantiles-1] = max(s[int(0.995*float64(len(s)-1))], q[runtime.NumQuantiles-2])
	return q
}

// Spread formats the p10/p25/p50/p75/p90 of xs, nearest rank, as the
// timing tools' summaries print them ("83418/92425/110400/124748/143643");
// "-" for no samples. xs is left as it is.
func Spread(xs []int64) string {
	if len(xs) == 0 {
		return "-"
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	var parts []string
	for _, q := range []int{10, 25, 50, 75, 90} {
		i := max((q*len(s)+99)/100-1, 0)
		parts = append(parts, strconv.FormatInt(s[i], 10))
	}
	return strings.Join(parts, "/")
}

// Format writes q as a profile's file holds it: "[55, 65, ...]".
func Format(q [runtime.NumQuantiles]int64) string {
	parts := make([]string, len(q))
	for i, v := range q {
		parts[i] = strconv.FormatInt(v, 10)
	}
	return "[" + strings.Join(parts, ", ") + "]"
}

// DeriveArg formats xs's Capped quantiles as bench/faithfulness/profiles/derive's
// -dist and -rank take a distribution: "N:Q0,Q5,...,Q100".
func DeriveArg(xs []int64) string {
	q := Capped(xs)
	return strconv.Itoa(len(xs)) + ":" + joinInts(q[:])
}

// Tail returns the tail quantiles of xs (at least one sample), at
// runtime.TailLevels: p96, p97, p98, p99, p99.5 and p99.9, nearest-rank
// as Quantiles.
func Tail(xs []int64) [runtime.NumTail]int64 {
	s := slices.Clone(xs)
	slices.Sort(s)
	var t [runtime.NumTail]int64
	for j, level := range runtime.TailLevels {
		t[j] = s[level*(len(s)-1)/1000]
	}
	return t
}

// DeriveArgTail formats xs's distribution whole, its p100 the largest
// sample and its tail after it, as derive's -dist takes one:
// "N:Q0,Q5,...,Q100:T96,...,T99.9". For the costs whose top twentieth is
// what is measured (a thread's stalls), where DeriveArg's cap would cut
// it.
func DeriveArgTail(xs []int64) string {
	q, t := Quantiles(xs), Tail(xs)
	return strconv.Itoa(len(xs)) + ":" + joinInts(q[:]) + ":" + joinInts(t[:])
}

// joinInts writes xs as "1,2,3".
func joinInts(xs []int64) string {
	parts := make([]string, len(xs))
	for i, v := range xs {
		parts[i] = strconv.FormatInt(v, 10)
	}
	return strings.Join(parts, ",")
}

// Summarize runs summary on the recordings in paths, read one after the
// other as one recording (so that two recordings pool their samples), and
// writes what it prints to standard output. An error names the tool and
// the files, and exits with status 1.
func Summarize(tool string, paths []string, summary func(io.Reader, io.Writer) error) {
	var rs []io.Reader
	for _, p := range paths {
		f, err := os.Open(p)
		if err != nil {
			fmt.Fprintf(os.Stderr, "%s: %v\n", tool, err)
			os.Exit(1)
		}
		defer f.Close()
		rs = append(rs, f)
	}
	if err := summary(io.MultiReader(rs...), os.Stdout); err != nil {
		fmt.Fprintf(os.Stderr, "%s: %s: %v\n", tool, strings.Join(paths, " "), err)
		os.Exit(1)
	}
}

// Line formats a series of samples as a recording's line: its kind, then
// each sample in ns, separated by spaces ("wake 13346 1623").
func Line(kind string, xs []int64) string {
	var b strings.Builder
	b.WriteString(kind)
	for _, x := range xs {
		b.WriteString(" ")
		b.WriteString(strconv.FormatInt(x, 10))
	}
	return b.String()
}

// ReadLines reads a recording of Line's lines, blank lines and lines
// starting with # left out, and returns each kind's samples, the lines of
// one kind appended in order. A line of a kind not in kinds, or a sample
// that is not a number, is an error that names its line.
func ReadLines(r io.Reader, kinds ...string) (map[string][]int64, error) {
	series := make(map[string][]int64, len(kinds))
	sc := bufio.NewScanner(r)
	sc.Buffer(nil, 1<<24)
	for ln := 1; sc.Scan(); ln++ {
		text := strings.TrimSpace(sc.Text())
		if text == "" || strings.HasPrefix(text, "#") {
			continue
		}
		f := strings.Fields(text)
		if !slices.Contains(kinds, f[0]) {
			return nil, fmt.Errorf("line %d: %q is not a line of %s", ln, f[0], strings.Join(kinds, ", "))
		}
		for _, x := range f[1:] {
			v, err := strconv.ParseInt(x, 10, 64)
			if err != nil {
				return nil, fmt.Errorf("line %d: %v", ln, err)
			}
			series[f[0]] = append(series[f[0]], v)
		}
	}
	return series, sc.Err()
}
