package lang

import "testing"

// BenchmarkSteps is plain Starlark code with no builtin call: a counting
// loop in a function, one op one turn (about ten steps). It measures what
// the step accounting costs between scheduling points, such as the call
// depth check every depthCheckSteps steps (OnMaxSteps, see arm).
func BenchmarkSteps(b *testing.B) {
	benchRun(b, `
def loop(n):
    i = 0
    while i < n:
        i += 1
reset_timer()
loop(N)
`, benchOptions(), nil)
}

// BenchmarkTimerChan is a timer channel's round trip: timer(d), then a
// receive that parks until it fires (blockTimerChan puts it on the heap).
// One op is one timer.
func BenchmarkTimerChan(b *testing.B) {
	benchRun(b, `
reset_timer()
for i in range(N):
    timer(1000).c.recv()
`, benchOptions(), nil)
}

// BenchmarkTickerRecv is a ticker read without pause: every receive runs
// the expired tick on the spot or parks for the next. One op is one tick.
func BenchmarkTickerRecv(b *testing.B) {
	benchRun(b, `
tk = ticker(1000)
reset_timer()
for i in range(N):
    tk.c.recv()
`, benchOptions(), nil)
}
