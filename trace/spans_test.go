// Tests of the two derivations the graphical writers share: spans on P
// and M tracks, and the queue lengths.

package trace

import (
	"fmt"
	"strings"
	"testing"

	"github.com/schedlab/schedlab/runtime"
)

// spanLines renders the spans of evs, one line each, in emission order.
func spanLines(evs []runtime.Event) string {
	var sb strings.Builder
	tr := spanTracker{emit: func(s *span) {
		track := "P"
		if s.track == trackM {
			track = "M"
		}
		kind := [...]string{"run", "syscall", "spin", "netpoll"}[s.kind]
		end := "end of trace"
		if s.endKind != runtime.EvNone {
			end = fmt.Sprintf("%v #%d", s.endKind, s.endSeq)
		}
		fmt.Fprintf(&sb, "%s%d %-7s G%-2d %9d..%-11d %v #%d → %s\n",
			track, s.id, kind, s.g, s.start, s.end, s.startKind, s.startSeq, end)
	}}
	for i := range evs {
		tr.event(&evs[i], i)
	}
	tr.finish()
	return sb.String()
}

func TestSpansGolden(t *testing.T) {
	golden(t, "scenario.spans.txt", []byte(spanLines(scenario())))
}

func TestSpans(t *testing.T) {
	ev := func(t int64, p, m int32, g int64, k runtime.EventKind, reason string) runtime.Event {
		return runtime.Event{Time: t, P: p, M: m, G: g, Kind: k, P2: -1, Reason: reason}
	}
	for _, test := range []struct {
		name string
		evs  []runtime.Event
		want string
	}{{
		name: "a GoStart of the running G continues its span",
		evs: []runtime.Event{
			ev(0, 0, 0, 1, runtime.EvGoStart, ""),
			ev(5, 0, 0, 1, runtime.EvGoStart, ""),
			ev(9, 0, 0, 1, runtime.EvGoDestroy, ""),
		},
		want: "P0 run     G1          0..9           GoStart #0 → GoDestroy #0\n" +
			"M0 run     G1          0..9           GoStart #0 → GoDestroy #0\n",
	}, {
		name: "a GoStart on a busy P closes the other G's span",
		evs: []runtime.Event{
			ev(0, 0, 0, 1, runtime.EvGoStart, ""),
			ev(5, 0, 0, 2, runtime.EvGoStart, ""),
		},
		want: "P0 run     G1          0..5           GoStart #0 → GoStart #0\n" +
			"M0 run     G1          0..5           GoStart #0 → GoStart #0\n" +
			"P0 run     G2          5..5           GoStart #0 → end of trace\n" +
			"M0 run     G2          5..5           GoStart #0 → end of trace\n",
	}, {
		name: "a G starting elsewhere leaves its old P",
		evs: []runtime.Event{
			ev(0, 0, 0, 1, runtime.EvGoStart, ""),
			ev(5, 1, 1, 1, runtime.EvGoStart, ""),
			ev(7, -1, -1, 0, runtime.EvMStop, ""),
		},
		want: "P0 run     G1          0..5           GoStart #0 → GoStart #0\n" +
			"M0 run     G1          0..5           GoStart #0 → GoStart #0\n" +
			"P1 run     G1          5..7           GoStart #0 → end of trace\n" +
			"M1 run     G1          5..7           GoStart #0 → end of trace\n",
	}, {
		name: "a syscall without a P to return to",
		evs: []runtime.Event{
			ev(0, 0, 0, 1, runtime.EvGoStart, ""),
			ev(1, 0, 0, 1, runtime.EvGoSyscallBegin, ""),
			ev(4, -1, 0, 1, runtime.EvGoSyscallEnd, "no p"),
		},
		want: "P0 run     G1          0..1           GoStart #0 → GoSyscallBegin #0\n" +
			"M0 run     G1          0..1           GoStart #0 → GoSyscallBegin #0\n" +
			"M0 syscall G1          1..4           GoSyscallBegin #0 → GoSyscallEnd #0\n",
	}, {
		name: "procresize destroys Ps",
		evs: []runtime.Event{
			ev(0, 0, 0, 1, runtime.EvGoStart, ""),
			ev(0, 1, 1, 2, runtime.EvGoStart, ""),
			{Time: 3, P: -1, M: 0, G: 1, Kind: runtime.EvProcResize, P2: 1, Arg: 2},
		},
		want: "P1 run     G2          0..3           GoStart #0 → ProcResize #0\n" +
			"P0 run     G1          0..3           GoStart #0 → end of trace\n" +
			"M0 run     G1          0..3           GoStart #0 → end of trace\n" +
			"M1 run     G2          0..3           GoStart #0 → end of trace\n",
	}, {
		name: "an M blocked in netpoll until an arrival, then until a timer, then until nothing",
		evs: []runtime.Event{
			ev(0, -1, 0, 0, runtime.EvMNetpoll, ""),
			ev(3, -1, -1, 0, runtime.EvNetReady, "r"), // the kernel's: no M
			ev(4, 1, 1, 2, runtime.EvGoStart, ""),     // another M
			ev(5, -1, 0, 0, runtime.EvNetpoll, "block"),
			ev(5, 0, 0, 0, runtime.EvMStart, ""),
			ev(6, -1, 0, 0, runtime.EvMNetpoll, ""),
			ev(8, 0, 0, 0, runtime.EvMStart, ""), // a timer woke it: nothing polled
			ev(9, -1, 0, 0, runtime.EvMNetpoll, ""),
			ev(9, -1, 0, 0, runtime.EvMStop, ""), // woken with no P to take
			ev(10, -1, 0, 0, runtime.EvMNetpoll, ""),
		},
		want: "M0 netpoll G0          0..5           MNetpoll #0 → Netpoll #0\n" +
			"M0 netpoll G0          6..8           MNetpoll #0 → MStart #0\n" +
			"M0 netpoll G0          9..9           MNetpoll #0 → MStop #0\n" +
			"P1 run     G2          4..10          GoStart #0 → end of trace\n" +
			"M0 netpoll G0         10..10          MNetpoll #0 → end of trace\n" +
			"M1 run     G2          4..10          GoStart #0 → end of trace\n",
	}, {
		name: "ids out of range are ignored",
		evs: []runtime.Event{
			ev(0, maxTrackID, 1<<30, 1, runtime.EvGoStart, ""),
			ev(1, 0, 0, 1, runtime.EvGoBlock, "x"),
		},
		want: "",
	}} {
		if got := spanLines(test.evs); got != test.want {
			t.Errorf("%s:\n got:\n%s\nwant:\n%s", test.name, got, test.want)
		}
	}
}

func TestQueueModel(t *testing.T) {
	var q queueModel
	var got []string
	for _, ev := range scenario() {
		if q.event(&ev) {
			global, runq := q.counts()
			got = append(got, fmt.Sprintf("%d:%v global=%d runnable=%d", ev.Seq, ev.Kind, global, runq))
		}
	}
	want := []string{
		"3:GoCreate global=0 runnable=1",
		"4:GoCreate global=0 runnable=2",
		"9:GoStart global=0 runnable=1",
		"12:GoStart global=0 runnable=0",
		"15:GoUnblock global=0 runnable=1",
		"16:GoSched global=1 runnable=2",
		"17:GoStart global=1 runnable=1",
		"21:GlobalRunqGet global=0 runnable=1",
		"22:GoStart global=0 runnable=0",
		"35:TimerFire global=0 runnable=1",
		"37:GoPreempt global=1 runnable=2",
		"38:GoStart global=1 runnable=1",
		"39:GoCreate global=2 runnable=2",
		"40:GlobalRunqPut global=3 runnable=2",
		"47:GlobalRunqGet global=2 runnable=2",
		"48:GoStart global=2 runnable=1",
		"56:GoUnblock global=2 runnable=2", // to=run: the polling M runs it at once
		"57:GoStart global=2 runnable=1",
		"68:GoStart global=2 runnable=0",
		"74:GoUnblock global=2 runnable=1", // the mark worker readies G1 waiting for the cycle
		"76:GoStart global=2 runnable=0",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("queue changes:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	// never below zero
	q = queueModel{}
	q.event(&runtime.Event{Kind: runtime.EvGlobalRunqGet, Arg: 5})
	if g, _ := q.counts(); g != 0 {
		t.Errorf("global = %d after a get from an empty queue, want 0", g)
	}
}
