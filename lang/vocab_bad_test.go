package lang

import "testing"

// TestVocabBadInput: every new builtin given bad input (a wrong type, a
// negative count, a missing argument, the unlock of an unlocked rwmutex,
// ...) ends the run with Go's message, or a clear one where Go has none,
// and the position of the call, as a panic or fatal error does.
func TestVocabBadInput(t *testing.T) {
	for _, tc := range []struct {
		src    string
		code   int
		stderr string
	}{
		{"ticker(0)\n", 2, "panic: non-positive interval for NewTicker\n\ngoroutine 1 [running]:\n  main.star:1:7: in <toplevel>\n"},
		{"ticker(\"-1s\")\n", 2, "panic: non-positive interval for NewTicker\n\ngoroutine 1 [running]:\n  main.star:1:7: in <toplevel>\n"},
		{"tk = ticker(\"1ms\")\ntk.reset(0)\n", 2, "panic: non-positive interval for Ticker.Reset\n\ngoroutine 1 [running]:\n  main.star:2:9: in <toplevel>\n"},
		{"timer(\"soon\")\n", 2, "panic: timer: for parameter d: invalid duration \"soon\" (want ns as an int, or a Go duration such as \"1.5ms\")\n\ngoroutine 1 [running]:\n  main.star:1:6: in <toplevel>\n"},
		{"timer(1.5)\n", 2, "panic: timer: for parameter d: got float, want int (ns), duration string or time.duration\n\ngoroutine 1 [running]:\n  main.star:1:6: in <toplevel>\n"},
		{"timer()\n", 2, "panic: timer: missing argument for d\n\ngoroutine 1 [running]:\n  main.star:1:6: in <toplevel>\n"},
		{"tick([])\n", 2, "panic: tick: for parameter d: got list, want int (ns), duration string or time.duration\n\ngoroutine 1 [running]:\n  main.star:1:5: in <toplevel>\n"},
		{"after_func(\"1ms\")\n", 2, "panic: after_func: got 1 arguments, want at least 2 (d, fn)\n\ngoroutine 1 [running]:\n  main.star:1:11: in <toplevel>\n"},
		{"after_func(\"1ms\", 3)\n", 2, "panic: after_func: for parameter fn: got int, want callable\n\ngoroutine 1 [running]:\n  main.star:1:11: in <toplevel>\n"},
		{"after_func(\"x\", print)\n", 2, "panic: after_func: for parameter d: invalid duration \"x\" (want ns as an int, or a Go duration such as \"1.5ms\")\n\ngoroutine 1 [running]:\n  main.star:1:11: in <toplevel>\n"},
		{"t = timer(\"1ms\")\nt.c.send(1)\n", 2, "panic: invalid operation: cannot send to receive-only channel <chan 1 cap=0> (a timer's channel)\n\ngoroutine 1 [running]:\n  main.star:2:9: in <toplevel>\n"},
		{"after(\"1ms\").close()\n", 2, "panic: invalid operation: cannot close receive-only channel <chan 1 cap=0> (a timer's channel)\n\ngoroutine 1 [running]:\n  main.star:1:19: in <toplevel>\n"},
		// Reset of a stopped ticker is no error in Go (it starts the
		// ticker again: timer_stop_reset's twin); a bad duration for it is.
		{"tk = ticker(\"1ms\")\ntk.stop()\ntk.reset(\"x\")\n", 2, "panic: reset: for parameter d: invalid duration \"x\" (want ns as an int, or a Go duration such as \"1.5ms\")\n\ngoroutine 1 [running]:\n  main.star:3:9: in <toplevel>\n"},
		{"tk = ticker(\"1ms\")\ntk.stop()\ntk.reset(-1)\n", 2, "panic: non-positive interval for Ticker.Reset\n\ngoroutine 1 [running]:\n  main.star:3:9: in <toplevel>\n"},
		{"after_func(\"1ms\", print).reset(1.5)\n", 2, "panic: reset: for parameter d: got float, want int (ns), duration string or time.duration\n\ngoroutine 1 [running]:\n  main.star:1:31: in <toplevel>\n"},
		{"timer(\"1ms\").stop(1)\n", 2, "panic: stop: got 1 arguments, want at most 0\n\ngoroutine 1 [running]:\n  main.star:1:18: in <toplevel>\n"},
		{"t = timer(\"1ms\")\nt.reset(\"x\")\n", 2, "panic: reset: for parameter d: invalid duration \"x\" (want ns as an int, or a Go duration such as \"1.5ms\")\n\ngoroutine 1 [running]:\n  main.star:2:8: in <toplevel>\n"},
		{"nil_chan(1)\n", 2, "panic: nil_chan: got 1 arguments, want at most 0\n\ngoroutine 1 [running]:\n  main.star:1:9: in <toplevel>\n"},
		{"nil_chan().close()\n", 2, "panic: close of nil channel\n\ngoroutine 1 [running]:\n  main.star:1:17: in <toplevel>\n"},
		{"select(1)\n", 2, "panic: select: argument 1: got int, want a case made by ch.on_recv() or ch.on_send(v), or None\n\ngoroutine 1 [running]:\n  main.star:1:7: in <toplevel>\n"},
		{"select([None, 2])\n", 2, "panic: select: argument 2: got int, want a case made by ch.on_recv() or ch.on_send(v), or None\n\ngoroutine 1 [running]:\n  main.star:1:7: in <toplevel>\n"},
		{"cap([1, 2])\n", 2, "panic: cap: for parameter ch: got list, want chan (Starlark's lists have no capacity)\n\ngoroutine 1 [running]:\n  main.star:1:4: in <toplevel>\n"},
		{"cap()\n", 2, "panic: cap: missing argument for ch\n\ngoroutine 1 [running]:\n  main.star:1:4: in <toplevel>\n"},
		{"rw = rwmutex()\nrw.runlock()\n", 2, "fatal error: sync: RUnlock of unlocked RWMutex\n\ngoroutine 1 [running]:\n  main.star:2:11: in <toplevel>\n"},
		{"rw = rwmutex()\nrw.unlock()\n", 2, "fatal error: sync: Unlock of unlocked RWMutex\n\ngoroutine 1 [running]:\n  main.star:2:10: in <toplevel>\n"},
		{"rw = rwmutex()\nrw.rlock()\nrw.unlock()\n", 2, "fatal error: sync: Unlock of unlocked RWMutex\n\ngoroutine 1 [running]:\n  main.star:3:10: in <toplevel>\n"},
		{"rw = rwmutex()\nrw.lock()\nrw.runlock()\n", 2, "fatal error: sync: RUnlock of unlocked RWMutex\n\ngoroutine 1 [running]:\n  main.star:3:11: in <toplevel>\n"},
		{"rw = rwmutex()\nrw.lock()\nrw.unlock()\nrw.unlock()\n", 2, "fatal error: sync: Unlock of unlocked RWMutex\n\ngoroutine 1 [running]:\n  main.star:4:10: in <toplevel>\n"},
		{"rwmutex(1)\n", 2, "panic: rwmutex: got 1 arguments, want at most 0\n\ngoroutine 1 [running]:\n  main.star:1:8: in <toplevel>\n"},
		{"cond(1)\n", 2, "panic: cond: for parameter l: got int, want mutex or rwmutex\n\ngoroutine 1 [running]:\n  main.star:1:5: in <toplevel>\n"},
		{"cond()\n", 2, "panic: cond: missing argument for l\n\ngoroutine 1 [running]:\n  main.star:1:5: in <toplevel>\n"},
		{"c = cond(mutex())\nc.wait()\n", 2, "fatal error: sync: unlock of unlocked mutex\n\ngoroutine 1 [running]:\n  main.star:2:7: in <toplevel>\n"},
		{"once().do(1)\n", 2, "panic: do: for parameter fn: got int, want callable\n\ngoroutine 1 [running]:\n  main.star:1:10: in <toplevel>\n"},
		{"once().do()\n", 2, "panic: do: missing argument for fn\n\ngoroutine 1 [running]:\n  main.star:1:10: in <toplevel>\n"},
		{"atomic_int(\"x\")\n", 2, "panic: atomic_int: for parameter v: got string, want int\n\ngoroutine 1 [running]:\n  main.star:1:11: in <toplevel>\n"},
		{"atomic_int().add(\"x\")\n", 2, "panic: add: for parameter delta: got string, want int\n\ngoroutine 1 [running]:\n  main.star:1:17: in <toplevel>\n"},
		{"atomic_int().cas(1)\n", 2, "panic: cas: missing argument for new\n\ngoroutine 1 [running]:\n  main.star:1:17: in <toplevel>\n"},
		{"atomic_int().set()\n", 2, "panic: set: missing argument for v\n\ngoroutine 1 [running]:\n  main.star:1:17: in <toplevel>\n"},
		{"atomic_int(1 << 70)\n", 2, "panic: atomic_int: for parameter v: 1180591620717411303424 out of range (want value in signed 64-bit range)\n\ngoroutine 1 [running]:\n  main.star:1:11: in <toplevel>\n"},
		{"atomic_int().swap()\n", 2, "panic: swap: missing argument for v\n\ngoroutine 1 [running]:\n  main.star:1:18: in <toplevel>\n"},
		{"atomic_int().cas(\"a\", 1)\n", 2, "panic: cas: for parameter old: got string, want int\n\ngoroutine 1 [running]:\n  main.star:1:17: in <toplevel>\n"},
		{"atomic_int().add(1 << 70)\n", 2, "panic: add: for parameter delta: 1180591620717411303424 out of range (want value in signed 64-bit range)\n\ngoroutine 1 [running]:\n  main.star:1:17: in <toplevel>\n"},
		{"semaphore(1).acquire(\"x\")\n", 2, "panic: acquire: for parameter k: got string, want int\n\ngoroutine 1 [running]:\n  main.star:1:21: in <toplevel>\n"},
		{"semaphore(-1)\n", 2, "panic: semaphore: negative size -1\n\ngoroutine 1 [running]:\n  main.star:1:10: in <toplevel>\n"},
		{"semaphore(\"x\")\n", 2, "panic: semaphore: for parameter n: got string, want int\n\ngoroutine 1 [running]:\n  main.star:1:10: in <toplevel>\n"},
		{"semaphore(1).acquire(-1)\n", 2, "panic: semaphore: n < 0\n\ngoroutine 1 [running]:\n  main.star:1:21: in <toplevel>\n"},
		{"semaphore(1).release(-2)\n", 2, "panic: semaphore: n < 0\n\ngoroutine 1 [running]:\n  main.star:1:21: in <toplevel>\n"},
		{"semaphore(1).try_acquire(-1)\n", 2, "panic: semaphore: n < 0\n\ngoroutine 1 [running]:\n  main.star:1:25: in <toplevel>\n"},
		{"semaphore(2).release()\n", 2, "panic: semaphore: released more than held\n\ngoroutine 1 [running]:\n  main.star:1:21: in <toplevel>\n"},
		{"waitgroup().go(1)\n", 2, "panic: go: for parameter fn: got int, want callable\n\ngoroutine 1 [running]:\n  main.star:1:15: in <toplevel>\n"},
		{"waitgroup().go()\n", 2, "panic: go: missing argument for fn\n\ngoroutine 1 [running]:\n  main.star:1:15: in <toplevel>\n"},
		{"ctx, cancel = with_cancel(background())\ncancel(1)\n", 2, "panic: cancel: got 1 arguments, want at most 0\n\ngoroutine 1 [running]:\n  main.star:2:7: in <toplevel>\n"},
		{"with_deadline(background(), 1.5)\n", 2, "panic: with_deadline: for parameter t: got float, want int\n\ngoroutine 1 [running]:\n  main.star:1:14: in <toplevel>\n"},
		{"background().done(1)\n", 2, "panic: done: got 1 arguments, want at most 0\n\ngoroutine 1 [running]:\n  main.star:1:18: in <toplevel>\n"},
		{"with_cancel(1)\n", 2, "panic: with_cancel: for parameter parent: got int, want context\n\ngoroutine 1 [running]:\n  main.star:1:12: in <toplevel>\n"},
		{"with_cancel()\n", 2, "panic: with_cancel: missing argument for parent\n\ngoroutine 1 [running]:\n  main.star:1:12: in <toplevel>\n"},
		{"with_timeout(background(), \"later\")\n", 2, "panic: with_timeout: for parameter d: invalid duration \"later\" (want ns as an int, or a Go duration such as \"1.5ms\")\n\ngoroutine 1 [running]:\n  main.star:1:13: in <toplevel>\n"},
		{"with_timeout(1, \"1ms\")\n", 2, "panic: with_timeout: for parameter parent: got int, want context\n\ngoroutine 1 [running]:\n  main.star:1:13: in <toplevel>\n"},
		{"with_deadline(background())\n", 2, "panic: with_deadline: missing argument for t\n\ngoroutine 1 [running]:\n  main.star:1:14: in <toplevel>\n"},
		{"with_deadline(background(), \"x\")\n", 2, "panic: with_deadline: for parameter t: got string, want int\n\ngoroutine 1 [running]:\n  main.star:1:14: in <toplevel>\n"},
		{"background(1)\n", 2, "panic: background: got 1 arguments, want at most 0\n\ngoroutine 1 [running]:\n  main.star:1:11: in <toplevel>\n"},
		{"printf(1)\n", 2, "panic: printf: for parameter format: got int, want string\n\ngoroutine 1 [running]:\n  main.star:1:7: in <toplevel>\n"},
		{"sprintf()\n", 2, "panic: sprintf: missing argument for format\n\ngoroutine 1 [running]:\n  main.star:1:8: in <toplevel>\n"},
		{"println(1, sep=\"\")\n", 2, "panic: println: unexpected keyword argument \"sep\"\n\ngoroutine 1 [running]:\n  main.star:1:8: in <toplevel>\n"},
	} {
		code, _, stderr := runCase(t, map[string]string{"main.star": tc.src}, Options{Procs: 1})
		if code != tc.code || stderr != tc.stderr {
			t.Errorf("%s: exit %d, stderr:\n%s\nwant exit %d, stderr:\n%s", tc.src, code, stderr, tc.code, tc.stderr)
		}
	}
}
