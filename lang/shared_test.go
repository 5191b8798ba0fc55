package lang

import (
	"regexp"
	"testing"
)

// TestSharedPlainState: the syntax that may let goroutines share a plain
// value that changes is named, with its position; programs whose shared
// values are engine objects, bound once before anyone reads them, are not.
func TestSharedPlainState(t *testing.T) {
	for _, tc := range []struct {
		src  string
		want string // a regexp of the reason; "" for none
	}{
		{"c = chan()\ndef f():\n    c.send(1)\nspawn(f)\nc.recv()\n", ""},
		{"def f(c):\n    c.send(1)\ndef main():\n    c = chan()\n    spawn(f, c)\n    c.recv()\nmain()\n", ""},
		{"def main():\n    c = chan()\n    spawn(lambda: c.send(1))\n    c.recv()\nmain()\n", ""},
		{"x = [0]\ndef f():\n    x[0] = 1\nspawn(f)\n", `^x.star:3:6: an assignment to an element$`},
		{"x = []\ndef f():\n    x.append(1)\nspawn(f)\n", `a call of .append`},
		{"s = set()\ndef f():\n    s.add(1)\nspawn(f)\n", `a call of .add`},
		{"wg = waitgroup()\nwg.add(1)\ndef f():\n    wg.done()\nspawn(f)\nwg.wait()\n", ""},
		{"n = 0\ndef f():\n    print(n)\nspawn(f)\nn = 1\n", `n is bound more than once`},
		{"def f():\n    print(n)\nspawn(f)\nn = 1\n", `n is read by a function that may run before it is bound`},
		{"def main():\n    v = 1\n    spawn(lambda: print(v))\n    v = 2\nmain()\n", `v is bound more than once`},
		{"def main():\n    for i in range(2):\n        spawn(lambda: print(i))\nmain()\n", `i is bound more than once`},
		{"def f(t):\n    print(t.state)\nspawn(f, current())\n", `a read of .state`},
		{"o = once()\n", `once\(\) makes a value`},
		{"def f():\n    l = []\n    l += [1]\n", `an augmented assignment \(\+=\)`},
		{"def f():\n    i = 0\n    i += 1\n", ""},
	} {
		p, err := Compile("x.star", []byte(tc.src), Options{})
		if err != nil {
			t.Fatalf("%q: %v", tc.src, err)
		}
		got := p.SharedPlainState()
		if tc.want == "" && got != "" || tc.want != "" && !regexp.MustCompile(tc.want).MatchString(got) {
			t.Errorf("%q: %q, want %q", tc.src, got, tc.want)
		}
	}
}
