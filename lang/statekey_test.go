package lang

import (
	"fmt"
	"slices"
	"testing"
)

// TestCleanCalls: the calls a state key can stand at are whole
// statements outside for loops; the builtin's own, with simple arguments.
func TestCleanCalls(t *testing.T) {
	src := `def f(c, mu, xs):
    k, _, _ = select(c.on_recv(), default = True)
    mu.lock()
    c.send(len(xs))
    x = [c.recv()]
    for x in xs:
        mu.unlock()
    while c.recv():
        pass
    return g(lambda: mu.unlock())
def g(h):
    h()
`
	p, err := Compile("x.star", []byte(src), Options{})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for k, cs := range p.clean {
		for _, c := range cs {
			got = append(got, fmt.Sprintf("%d:%d=%d", k.line, k.col, c.kind))
		}
	}
	slices.Sort(got)
	want := []string{
		"10:13=1", // return g(...): a lambda is not a simple argument
		"10:31=2", // the lambda's body
		"12:6=2",  // h()
		"2:21=2",  // select(c.on_recv(), default = True)
		"3:12=2",  // mu.lock()
		"4:11=1",  // c.send(len(xs)): len is not a pure method
		"8:17=2",  // while c.recv()
	}
	if !slices.Equal(got, want) {
		t.Errorf("clean calls %v, want %v", got, want)
	}
}
