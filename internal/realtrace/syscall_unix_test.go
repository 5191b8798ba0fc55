//go:build unix

package realtrace

import (
	"context"
	"runtime/trace"
	"syscall"
	"testing"
)

// doSyscall makes a short system call through the runtime's
// entersyscall/exitsyscall (syscall.Syscall, not the raw form).
func doSyscall() { syscall.Syscall(syscall.SYS_GETPID, 0, 0, 0) }

// A goroutine in a syscall shows one span per call, in order, on its M.
func TestSyscalls(t *testing.T) {
	tr := record(t, func(ctx context.Context) {
		trace.Log(ctx, "test", "caller")
		for range 10 {
			doSyscall()
		}
	})
	caller := logG(t, tr, "caller").G
	var last int64
	n := 0
	for _, s := range tr.Syscalls() {
		if s.G != caller || !s.Ended {
			continue
		}
		n++
		if s.Begin < last || s.End < s.Begin {
			t.Errorf("syscall [%d, %d] after %d", s.Begin, s.End, last)
		}
		last = s.End
	}
	if n < 10 {
		t.Errorf("%d syscalls of G%d, want at least 10", n, caller)
	}
}
