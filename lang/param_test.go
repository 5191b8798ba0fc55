package lang

import "testing"

// param(name, default): the default unset; the command line's text in the
// default's type; an error naming the parameter for text of another type;
// a warning for a parameter the script never reads.
func TestParam(t *testing.T) {
	src := `
print(param("rate", 800), param("f", 1.5), param("on", False), param("name", "x"), param("d", None))
`
	for _, tc := range []struct {
		params         map[string]string
		stdout, stderr string
		code           int
	}{
		{nil, "800 1.5 False x None\n", "", 0},
		{map[string]string{"rate": "1000", "f": "2", "on": "true", "name": "y", "d": "1ms"}, "1000 2.0 True y 1ms\n", "", 0},
		{map[string]string{"rate": "1000", "zz": "3"}, "1000 1.5 False x None\n", "schedlab: warning: --param zz was never read: the script has no param(\"zz\", ...)\n", 0},
		{map[string]string{"rate": "fast"}, "", "panic: param: --param rate=fast: want an int, as the default is\n\ngoroutine 1 [running]:\n  x.star:2:12: in <toplevel>\n", 2},
		{map[string]string{"f": "x"}, "", "panic: param: --param f=x: want a number, as the default is a float\n\ngoroutine 1 [running]:\n  x.star:2:32: in <toplevel>\n", 2},
	} {
		stdout, stderr, res := runSrc(t, src, Options{Params: tc.params})
		if stdout != tc.stdout || stderr != tc.stderr || res.ExitCode != tc.code {
			t.Errorf("params %v: got %q, %q, exit %d; want %q, %q, exit %d", tc.params, stdout, stderr, res.ExitCode, tc.stdout, tc.stderr, tc.code)
		}
	}
}
