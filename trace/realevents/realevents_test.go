package realevents

import (
	"testing"

	"github.com/schedlab/schedlab/internal/realtrace"
	"github.com/schedlab/schedlab/runtime"
)

// TestEvents translates a small trace written by hand, one of each kind
// of the package comment's table, and checks every event's kind, P, M,
// Gs, Arg and reason.
func TestEvents(t *testing.T) {
	const none = realtrace.None
	tr := &realtrace.Trace{
		Start:   100,
		Threads: []realtrace.Thread{{M: 7001, First: 100}},
		Procs: []realtrace.ProcEvent{
			{Time: 100, P: 0, M: 7001, Start: true},
			{Time: 170, P: 1, M: none, Steal: true},
			{Time: 190, P: 0, M: 7001},
		},
		Logs: []realtrace.Log{{Time: 115, G: 1, P: 0, M: 7001, Category: "phase", Message: "one"}},
		Transitions: []realtrace.Transition{
			{Time: 101, G: 1, To: realtrace.Running, P: 0, M: 7001, Status: true},
			{Time: 102, G: 3, To: realtrace.Syscall, P: 1, M: 7002, Status: true},
			{Time: 110, G: 2, From: realtrace.NotExist, To: realtrace.Runnable, P: 0, M: 7001, By: 1, Func: "main.worker"},
			{Time: 120, G: 1, From: realtrace.Running, To: realtrace.Waiting, P: 0, M: 7001, Reason: "chan receive"},
			{Time: 130, G: 2, From: realtrace.Runnable, To: realtrace.Running, P: 0, M: 7001},
			{Time: 140, G: 1, From: realtrace.Waiting, To: realtrace.Runnable, P: 0, M: 7001, By: 2},
			{Time: 150, G: 2, From: realtrace.Running, To: realtrace.Runnable, P: 0, M: 7001, Reason: "preempted"},
			{Time: 160, G: 1, From: realtrace.Runnable, To: realtrace.Running, P: 0, M: 7001},
			{Time: 165, G: 1, From: realtrace.Running, To: realtrace.Runnable, P: 0, M: 7001, Reason: "runtime.Gosched"},
			{Time: 175, G: 3, From: realtrace.Syscall, To: realtrace.Runnable, P: none, M: 7002},
			{Time: 180, G: 2, From: realtrace.Running, To: realtrace.Syscall, P: 0, M: 7001},
			{Time: 185, G: 2, From: realtrace.Syscall, To: realtrace.Running, P: 0, M: 7001},
			{Time: 186, G: 2, From: realtrace.Running, To: realtrace.NotExist, P: 0, M: 7001},
		},
	}
	type want struct {
		time   int64
		kind   runtime.EventKind
		p, m   int32
		g, g2  int64
		arg    int64
		reason string
	}
	wants := []want{
		{0, runtime.EvProcStart, 0, 0, 0, 0, 0, ""},
		{1, runtime.EvGoStart, 0, 0, 1, 0, 0, ""},
		{2, runtime.EvGoStart, 1, 1, 3, 0, 0, ""},
		{2, runtime.EvGoSyscallBegin, 1, 1, 3, 0, 73, ""},
		{10, runtime.EvGoCreate, 0, 0, 1, 2, -1, "main.worker"},
		{15, runtime.EvPrint, 0, 0, 1, 0, 0, "phase: one"},
		{20, runtime.EvGoBlock, 0, 0, 1, 0, 0, "chan receive"},
		{30, runtime.EvGoStart, 0, 0, 2, 0, 0, ""},
		{40, runtime.EvGoUnblock, 0, 0, 2, 1, -1, ""},
		{50, runtime.EvGoPreempt, 0, 0, 2, 0, 0, ""},
		{60, runtime.EvGoStart, 0, 0, 1, 0, 0, ""},
		{65, runtime.EvGoSched, 0, 0, 1, 0, 0, ""},
		{70, runtime.EvProcSteal, 1, -1, 0, 0, 0, ""},
		{75, runtime.EvGoSyscallEnd, -1, 1, 3, 0, 0, "no p"},
		{80, runtime.EvGoSyscallBegin, 0, 0, 2, 0, 5, ""},
		{85, runtime.EvGoSyscallEnd, 0, 0, 2, 0, 0, "fast"},
		{86, runtime.EvGoDestroy, 0, 0, 2, 0, 0, ""},
		{90, runtime.EvProcStop, 0, 0, 0, 0, 0, ""},
	}
	evs, procs := Events(tr)
	if procs != 2 {
		t.Errorf("procs = %d, want 2", procs)
	}
	if len(evs) != len(wants) {
		t.Fatalf("%d events, want %d: %v", len(evs), len(wants), evs)
	}
	for i, w := range wants {
		ev := evs[i]
		got := want{ev.Time, ev.Kind, ev.P, ev.M, ev.G, ev.G2, ev.Arg, ev.Reason}
		if got != w || ev.Seq != uint64(i+1) || ev.P2 != -1 {
			t.Errorf("event %d: got %+v (seq %d, P2 %d), want %+v", i, got, ev.Seq, ev.P2, w)
		}
	}
}

// TestEventsEmpty: a trace with no events names one P.
func TestEventsEmpty(t *testing.T) {
	evs, procs := Events(&realtrace.Trace{})
	if len(evs) != 0 || procs != 1 {
		t.Errorf("got %d events and %d Ps, want none and 1", len(evs), procs)
	}
}
