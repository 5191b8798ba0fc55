// Command derive writes a costs profile made from another: the base
// profile with some of its costs set to a constant, copied from a third
// profile or given as quantiles. The profiles of bench/faithfulness/profiles that are variations
// on the default are made this way, so that each can be made again; the
// command that made one is in its "command" field.
//
//	go run ./bench/faithfulness/profiles/derive -base runtime/costs_default.json -name NAME [-set COST=N]... [-copy COST=FILE]... [-dist COST=N:Q0,...,Q100[:T96,...,T99.9]]... [-rank LIST=N:Q0,...,Q100]... [-notes TEXT] > profile.json
//
// -set gives a cost one value at every quantile (in the cost's unit: ns,
// or ps for step_ps), so that --perturb=timing never varies it; -copy
// takes a cost's distribution from FILE, another profile (malg_rank=FILE
// or sysmon_late_rank=FILE its list by rank); -dist gives it as a
// recording's summary prints it (bench/faithfulness/waketimes), with its
// tail after a second colon where the summary has one
// (bench/faithfulness/stalltimes); -rank
// appends one distribution, given so, to a list by rank, replacing the
// base's list (bench/faithfulness/sysmontimes prints its list so).
package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"

	"github.com/schedlab/schedlab/runtime"
)

func main() { os.Exit(run(os.Args[1:], os.Stdout, os.Stderr)) }

// A change is one -set, -copy or -dist, in the order given.
type change struct {
	cost  runtime.CostKind
	value int64         // -set
	from  string        // -copy: the profile to copy the cost from
	dist  *runtime.Dist // -dist, -rank
	ranks string        // -copy LIST=FILE or -rank LIST=...: a list by rank, not a cost
}

// rankLists are the profile's lists by rank, by their key in the file.
var rankLists = map[string]func(*runtime.Costs) *[]runtime.Dist{
	"malg_rank":        func(c *runtime.Costs) *[]runtime.Dist { return &c.MalgRank },
	"sysmon_late_rank": func(c *runtime.Costs) *[]runtime.Dist { return &c.SysmonLateRank },
}

// rankArg splits LIST=VALUE when LIST is a list by rank.
func rankArg(v string) (list, val string, ok bool) {
	list, val, ok = strings.Cut(v, "=")
	if _, isList := rankLists[list]; !ok || !isList {
		return "", "", false
	}
	return list, val, true
}

func run(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("derive", flag.ContinueOnError)
	fs.SetOutput(stderr)
	base := fs.String("base", "runtime/costs_default.json", "the profile to start from (`FILE`)")
	name := fs.String("name", "", "the new profile's `name` (required)")
	notes := fs.String("notes", "", "`text` added to the base's notes")
	var changes []change
	fs.Func("set", "give cost `COST=N` the value N at every quantile (repeatable)", func(v string) error {
		k, val, err := costArg(v)
		if err != nil {
			return err
		}
		n, err := strconv.ParseInt(val, 10, 64)
		if err != nil || n < 0 {
			return fmt.Errorf("want COST=N with N a whole number from 0, got %q", v)
		}
		changes = append(changes, change{cost: k, value: n})
		return nil
	})
	fs.Func("dist", "give cost `COST=N:Q0,Q5,...,Q100[:T96,...,T99.9]` the distribution of N samples with those 21 quantiles (and that tail: p96, p97, p98, p99, p99.5, p99.9), as a recording's summary prints it (repeatable)", func(v string) error {
		k, val, err := costArg(v)
		if err != nil {
			return err
		}
		d, err := parseDist(val)
		if err != nil {
			return fmt.Errorf("%s: %v", v, err)
		}
		changes = append(changes, change{cost: k, dist: &d})
		return nil
	})
	fs.Func("rank", "append to the list by rank `LIST=N:Q0,Q5,...,Q100` (malg_rank, sysmon_late_rank) the distribution of N samples with those quantiles; the first -rank of a list replaces the base's (repeatable)", func(v string) error {
		list, val, ok := rankArg(v)
		if !ok {
			return fmt.Errorf("want LIST=N:Q0,...,Q100 with LIST malg_rank or sysmon_late_rank, got %q", v)
		}
		d, err := parseDist(val)
		if err != nil {
			return fmt.Errorf("%s: %v", v, err)
		}
		changes = append(changes, change{ranks: list, dist: &d})
		return nil
	})
	fs.Func("copy", "take cost `COST=FILE`'s distribution from the profile FILE, or with malg_rank=FILE or sysmon_late_rank=FILE that list by rank (repeatable)", func(v string) error {
		if list, file, ok := rankArg(v); ok {
			changes = append(changes, change{from: file, ranks: list})
			return nil
		}
		k, file, err := costArg(v)
		if err != nil {
			return err
		}
		changes = append(changes, change{cost: k, from: file})
		return nil
	})
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if *name == "" || fs.NArg() > 0 || len(changes) == 0 {
		fmt.Fprintln(stderr, "usage: derive -base FILE -name NAME [-set COST=N]... [-copy COST=FILE]... [-dist COST=N:Q0,...,Q100[:T96,...,T99.9]]... [-rank LIST=N:Q0,...,Q100]... [-notes TEXT]: a name and at least one -set, -copy, -dist or -rank")
		return 2
	}
	c, err := readProfile(*base)
	if err != nil {
		fmt.Fprintf(stderr, "derive: %v\n", err)
		return 1
	}
	var said []string
	ranked := map[string]int{} // the -rank entries given so far, by list
	for _, ch := range changes {
		if ch.ranks != "" && ch.dist != nil {
			list := rankLists[ch.ranks](c)
			if ranked[ch.ranks] == 0 {
				*list = nil
			}
			*list = append(*list, *ch.dist)
			ranked[ch.ranks]++
			said = append(said, fmt.Sprintf("%s[%d] given as %d samples' quantiles", ch.ranks, len(*list)-1, ch.dist.N))
			continue
		}
		if ch.ranks != "" {
			other, err := readProfile(ch.from)
			if err != nil {
				fmt.Fprintf(stderr, "derive: %v\n", err)
				return 1
			}
			from := *rankLists[ch.ranks](other)
			if len(from) == 0 {
				fmt.Fprintf(stderr, "derive: %s has no %s to copy\n", ch.from, ch.ranks)
				return 1
			}
			*rankLists[ch.ranks](c) = from
			said = append(said, fmt.Sprintf("%s (%d ranks) copied from %s", ch.ranks, len(from), ch.from))
			continue
		}
		d := c.Dist(ch.cost)
		if ch.dist != nil {
			*d = *ch.dist
			said = append(said, fmt.Sprintf("%v given as %d samples' quantiles", ch.cost, ch.dist.N))
			continue
		}
		if ch.from == "" {
			*d = runtime.Const(ch.value)
			said = append(said, fmt.Sprintf("%v set to %d at every quantile", ch.cost, ch.value))
			continue
		}
		other, err := readProfile(ch.from)
		if err != nil {
			fmt.Fprintf(stderr, "derive: %v\n", err)
			return 1
		}
		*d = *other.Dist(ch.cost)
		said = append(said, fmt.Sprintf("%v copied from %s", ch.cost, ch.from))
	}
	baseName := c.Name
	c.Name = *name
	quoted := make([]string, len(args))
	for i, a := range args {
		quoted[i] = shellQuote(a)
	}
	c.Command = "go run ./bench/faithfulness/profiles/derive " + strings.Join(quoted, " ")
	c.Notes = strings.TrimSpace(fmt.Sprintf("Made from %s (%s): %s. %s %s", *base, baseName, strings.Join(said, "; "), *notes, c.Notes))
	if _, err := stdout.Write(c.JSON()); err != nil {
		fmt.Fprintf(stderr, "derive: %v\n", err)
		return 1
	}
	return 0
}

// parseDist reads N:Q0,Q5,...,Q100: a sample count and 21 quantiles,
// whole and not decreasing, and optionally :T96,T97,T98,T99,T99.5,T99.9,
// the tail (runtime.TailLevels).
func parseDist(v string) (runtime.Dist, error) {
	var d runtime.Dist
	n, qs, ok := strings.Cut(v, ":")
	if !ok {
		return d, fmt.Errorf("want N:Q0,Q5,...,Q100[:T96,...,T99.9]")
	}
	qs, tail, hasTail := strings.Cut(qs, ":")
	var err error
	if d.N, err = strconv.Atoi(n); err != nil || d.N < 0 {
		return d, fmt.Errorf("the sample count %q is not a whole number from 0", n)
	}
	parts := strings.Split(qs, ",")
	if len(parts) != runtime.NumQuantiles {
		return d, fmt.Errorf("%d quantiles, want %d", len(parts), runtime.NumQuantiles)
	}
	for i, p := range parts {
		q, err := strconv.ParseInt(strings.TrimSpace(p), 10, 64)
		if err != nil || q < 0 || i > 0 && q < d.Quantiles[i-1] {
			return d, fmt.Errorf("quantile %d, %q: want a whole number from 0, no less than the one before", i, p)
		}
		d.Quantiles[i] = q
	}
	if !hasTail {
		return d, nil
	}
	parts = strings.Split(tail, ",")
	if len(parts) != runtime.NumTail {
		return d, fmt.Errorf("a tail of %d quantiles, want %d (p96, p97, p98, p99, p99.5, p99.9)", len(parts), runtime.NumTail)
	}
	prev := d.Quantiles[runtime.NumQuantiles-2]
	for j, p := range parts {
		q, err := strconv.ParseInt(strings.TrimSpace(p), 10, 64)
		if err != nil || q < prev || q > d.Quantiles[runtime.NumQuantiles-1] {
			return d, fmt.Errorf("tail quantile %d, %q: want a whole number from the one before (p95's first) to p100's", j, p)
		}
		d.Tail[j], prev = q, q
	}
	d.HasTail = true
	return d, nil
}

// shellQuote quotes a for a POSIX shell where it needs quoting, so that
// the command written into the profile can be run again as it is.
func shellQuote(a string) string {
	if a != "" && strings.Trim(a, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_./=:,+-") == "" {
		return a
	}
	return "'" + strings.ReplaceAll(a, "'", `'\''`) + "'"
}

// costArg splits COST=VALUE and finds the cost.
func costArg(v string) (runtime.CostKind, string, error) {
	name, val, ok := strings.Cut(v, "=")
	if !ok {
		return 0, "", fmt.Errorf("want COST=VALUE, got %q", v)
	}
	for _, k := range runtime.CostKinds() {
		if k.String() == name {
			return k, val, nil
		}
	}
	var names []string
	for _, k := range runtime.CostKinds() {
		names = append(names, k.String())
	}
	return 0, "", fmt.Errorf("no cost %q; the costs are %s", name, strings.Join(names, ", "))
}

func readProfile(file string) (*runtime.Costs, error) {
	data, err := os.ReadFile(file)
	if err != nil {
		return nil, err
	}
	return runtime.ParseCosts(file, data)
}
