package lang

import (
	"fmt"

	libtime "go.starlark.net/lib/time"
	"go.starlark.net/starlark"

	"github.com/schedlab/schedlab/runtime"
)

// duration is a virtual duration in nanoseconds, as a builtin's argument:
// an int (ns), a Go duration string ("1.5ms", "20us") or a time module
// duration (5 * time.millisecond). It implements
// starlark.Unpacker, as lib/time's Duration does.
type duration int64

var _ starlark.Unpacker = (*duration)(nil)

// Unpack reads an int or a duration string.
func (d *duration) Unpack(v starlark.Value) error {
	switch v := v.(type) {
	case starlark.Int:
		n, ok := v.Int64()
		if !ok {
			return fmt.Errorf("duration %s out of range", v)
		}
		*d = duration(n)
		return nil
	case libtime.Duration: // time.millisecond, time.parse_duration("1ms") (stdlib.go)
		*d = duration(v)
		return nil
	case starlark.String:
		n, err := runtime.ParseDuration(string(v))
		if err != nil {
			return fmt.Errorf("invalid duration %q (want ns as an int, or a Go duration such as \"1.5ms\")", string(v))
		}
		*d = duration(n)
		return nil
	}
	return fmt.Errorf("got %s, want int (ns), duration string or time.duration", v.Type())
}

// nonNegative returns d, or an error naming the builtin if d < 0.
func (d duration) nonNegative(fn string) (int64, error) {
	if d < 0 {
		return 0, fmt.Errorf("%s: negative duration %s", fn, runtime.FormatDuration(int64(d)))
	}
	return int64(d), nil
}
