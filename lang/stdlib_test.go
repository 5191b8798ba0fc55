package lang

import (
	"strings"
	"testing"

	"github.com/schedlab/schedlab/runtime"
)

// TestStdModules: math, json, struct and time are predeclared; time's
// clock is the run's virtual one and its zones UTC only; a time module
// duration is a duration for every builtin that takes one.
func TestStdModules(t *testing.T) {
	src := `print(math.sqrt(16), math.floor(2.5))
print(json.encode({"a": [1, 2]}), json.decode('{"x": 1}')["x"])
s = struct(a=1, b="x")
print(s.a, s.b)
sleep(5 * time.millisecond)
print(now(), time.now())
t = time.now()
work(time.parse_duration("2ms"))
print(time.now() - t, after(time.microsecond).recv())
print(time.from_timestamp(86400), time.time(year=2026, month=12, day=5))
print(time.parse_time("2026-12-05T06:00:00Z"))
`
	out, stderr, res := runSrc(t, src, Options{Procs: 1, Costs: runtime.ZeroCosts()})
	if res.ExitCode != 0 {
		t.Fatalf("exit %d: %s", res.ExitCode, stderr)
	}
	want := `4.0 2
{"a":[1,2]} 1
1 x
5000000 1970-01-01 00:00:00.005 +0000 UTC
2ms 7001000
1970-01-02 00:00:00 +0000 UTC 2026-12-05 00:00:00 +0000 UTC
2026-12-05 06:00:00 +0000 UTC
`
	if out != want {
		t.Errorf("stdout:\n%s\nwant:\n%s", out, want)
	}
	for _, tc := range []struct{ src, err string }{
		{`time.time(year=2026, location="Europe/Berlin")`, `time.time: location "Europe/Berlin": only "UTC" is available`},
		{`time.parse_time("2026-12-05T06:00:00Z", "2006-01-02T15:04:05Z07:00", "Local")`, `time.parse_time: location "Local": only "UTC" is available`},
		{`time.is_valid_timezone("UTC")`, `time has no .is_valid_timezone (only UTC is available`},
		{`sleep(math.pi)`, `got float, want int (ns), duration string or time.duration`},
	} {
		_, stderr, res := runSrc(t, tc.src+"\n", Options{Procs: 1})
		if res.ExitCode == 0 || !strings.Contains(stderr, tc.err) {
			t.Errorf("%s: exit %d, stderr %q; want %q", tc.src, res.ExitCode, stderr, tc.err)
		}
	}
}
