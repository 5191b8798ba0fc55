package runtime

import (
	"strconv"
	"time"
)

// FormatDuration prints a virtual duration in ns the way Go's
// time.Duration.String does ("1.5ms", "20µs", "0s").
func FormatDuration(ns int64) string { return time.Duration(ns).String() }

// ParseDuration reads a duration written as Go does ("1.5ms", "20us") or
// as a plain integer count of nanoseconds.
func ParseDuration(s string) (int64, error) {
	if n, err := strconv.ParseInt(s, 10, 64); err == nil {
		return n, nil
	}
	d, err := time.ParseDuration(s)
	return int64(d), err
}
