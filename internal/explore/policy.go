package explore

import (
	"fmt"
	"slices"
	"strings"
)

// A Policy says how a sweep sorts its runs into classes and which classes
// fail. The zero value is the default: a class is the outcome, message
// and output, and every outcome but ok and left fails.
type Policy struct {
	// Group is what names a class: GroupFull (outcome, message and a hash
	// of the output; "" means it too), GroupMessage (outcome and message)
	// or GroupOutcome (the outcome alone). A program whose output order
	// varies makes hundreds of full classes in a thousand runs, and a
	// handful of outcome classes.
	Group string

	// Accept are failing outcomes that count as passing: for a program
	// that leaks by design, or that is meant to hit a limit.
	Accept []Outcome
}

// Groupings of a Policy.
const (
	GroupFull    = "full"
	GroupMessage = "message"
	GroupOutcome = "outcome"
)

// Groupings lists the values of --group, the default first.
var Groupings = []string{GroupFull, GroupMessage, GroupOutcome}

// acceptable are the outcomes --accept may name: the failures.
var acceptable = []Outcome{Assert, Panic, Fatal, Deadlock, Leak, Limit, Error}

// ParseAccept reads --accept's comma-separated list of failing outcomes
// ("leak,limit").
func ParseAccept(s string) ([]Outcome, error) {
	var out []Outcome
	for _, f := range strings.Split(s, ",") {
		o := Outcome(strings.TrimSpace(f))
		if !slices.Contains(acceptable, o) {
			names := make([]string, len(acceptable))
			for i, a := range acceptable {
				names[i] = string(a)
			}
			return nil, fmt.Errorf("--accept: %q is not a failing outcome (want a list of %s)", f, strings.Join(names, ", "))
		}
		if !slices.Contains(out, o) {
			out = append(out, o)
		}
	}
	return out, nil
}

// Key returns the class of a run that ended with key k.
func (p Policy) Key(k Key) Key {
	switch p.Group {
	case GroupMessage:
		k.Output = ""
	case GroupOutcome:
		k.Message, k.Output = "", ""
	}
	return k
}

// Failure reports whether outcome o fails under p.
func (p Policy) Failure(o Outcome) bool {
	return o.Failure() && !slices.Contains(p.Accept, o)
}

// group returns the Group to write in a report: never "".
func (p Policy) group() string {
	if p.Group == "" {
		return GroupFull
	}
	return p.Group
}
