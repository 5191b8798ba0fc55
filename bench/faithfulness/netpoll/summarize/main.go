// Command summarize prints a table of the recordings of the netpoll twins:
// for each file named on the command line (values in ns, one per line;
// lines that start with # are the header), the count, p50, p90, p99, p99.9
// and max in µs, and the 1-minute load average its header gives.
//
//	go run ./bench/faithfulness/netpoll/summarize FILE...
//
// A percentile is the nearest rank: the value at rank ceil(q·n) of the n
// sorted values.
package main

import (
	"bufio"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"
)

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: summarize FILE...")
		os.Exit(2)
	}
	tw := tabwriter.NewWriter(os.Stdout, 0, 8, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "cell\tcount\tp50 µs\tp90 µs\tp99 µs\tp99.9 µs\tmax µs\tload1\t")
	for _, path := range os.Args[1:] {
		vs, load, err := read(path)
		if err != nil {
			fmt.Fprintf(os.Stderr, "summarize: %v\n", err)
			os.Exit(1)
		}
		name := strings.TrimSuffix(filepath.Base(path), ".txt")
		if len(vs) == 0 {
			fmt.Fprintf(tw, "%s\t0\t\t\t\t\t\t%s\t\n", name, load)
			continue
		}
		slices.Sort(vs)
		fmt.Fprintf(tw, "%s\t%d\t%s\t%s\t%s\t%s\t%s\t%s\t\n", name, len(vs),
			us(rank(vs, 0.5)), us(rank(vs, 0.9)), us(rank(vs, 0.99)), us(rank(vs, 0.999)), us(vs[len(vs)-1]), load)
	}
	tw.Flush()
}

// rank is the nearest-rank q-quantile of sorted vs.
func rank(vs []int64, q float64) int64 {
	i := int(math.Ceil(q*float64(len(vs)))) - 1
	return vs[max(0, min(i, len(vs)-1))]
}

func us(ns int64) string {
	return strconv.FormatFloat(float64(ns)/1e3, 'f', 1, 64)
}

// read returns a recording's values and the first load average of its
// header's uptime= field.
func read(path string) ([]int64, string, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, "", err
	}
	defer f.Close()
	var vs []int64
	load := "?"
	sc := bufio.NewScanner(f)
	for line := 1; sc.Scan(); line++ {
		t := strings.TrimSpace(sc.Text())
		if t == "" {
			continue
		}
		if strings.HasPrefix(t, "#") {
			if _, rest, ok := strings.Cut(t, "uptime="); ok {
				if f := strings.Fields(rest); len(f) > 0 {
					load, _, _ = strings.Cut(f[0], ",")
				}
			}
			continue
		}
		v, err := strconv.ParseInt(t, 10, 64)
		if err != nil {
			return nil, "", fmt.Errorf("%s:%d: %v", path, line, err)
		}
		vs = append(vs, v)
	}
	return vs, load, sc.Err()
}
