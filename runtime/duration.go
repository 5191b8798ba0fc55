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
	if isInteger(s) {
		if n, err := strconv.ParseInt(s, 10, 64); err == nil {
			return n, nil
		}
	}
	d, err := time.ParseDuration(s)
	return int64(d), err
}

// isInteger reports whether s looks like a decimal integer, so that a
// duration such as "1us" is not first tried (and failed, which allocates
// an error) as one.
func isInteger(s string) bool {
	if s != "" && (s[0] == '-' || s[0] == '+') {
		s = s[1:]
	}
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}
