package exectrace

import (
	"bytes"
	"errors"
	"go/ast"
	"go/parser"
	"go/token"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	xtrace "golang.org/x/exp/trace"

	"github.com/schedlab/schedlab/runtime"
)

// TestEventTypesMatchGo checks the event type numbers of wire.go against
// the EventType constants of the Go tree's tracev2/events.go.
func TestEventTypesMatchGo(t *testing.T) {
	goroot := os.Getenv("GOROOT")
	if goroot == "" {
		out, err := exec.Command("go", "env", "GOROOT").Output()
		if err != nil {
			t.Skip("no GOROOT: no go command")
		}
		goroot = strings.TrimSpace(string(out))
	}
	file := filepath.Join(goroot, "src", "internal", "trace", "tracev2", "events.go")
	f, err := parser.ParseFile(token.NewFileSet(), file, nil, 0)
	if err != nil {
		t.Skipf("no Go source tree: %v", err)
	}
	// The first const block is the EventType iota sequence.
	goTypes := map[string]int{}
	for _, d := range f.Decls {
		gd, ok := d.(*ast.GenDecl)
		if !ok || gd.Tok != token.CONST {
			continue
		}
		for i, spec := range gd.Specs {
			for _, n := range spec.(*ast.ValueSpec).Names {
				goTypes[n.Name] = i
			}
		}
		break
	}
	for name, ours := range map[string]int{
		"EvEventBatch": evEventBatch, "EvStacks": evStacks, "EvStack": evStack,
		"EvStrings": evStrings, "EvString": evString, "EvFrequency": evFrequency,
		"EvProcsChange": evProcsChange, "EvProcStart": evProcStart, "EvProcStop": evProcStop,
		"EvProcSteal": evProcSteal, "EvProcStatus": evProcStatus, "EvGoCreate": evGoCreate,
		"EvGoStart": evGoStart, "EvGoDestroy": evGoDestroy, "EvGoStop": evGoStop,
		"EvGoBlock": evGoBlock, "EvGoUnblock": evGoUnblock, "EvGoSyscallBegin": evGoSyscallBegin,
		"EvGoSyscallEnd": evGoSyscallEnd, "EvGoSyscallEndBlocked": evGoSyscallEndBlocked,
		"EvGoStatus": evGoStatus, "EvUserLog": evUserLog, "EvSync": evSync, "EvGoCreateBlocked": evGoCreateBlocked,
		"EvClockSnapshot": evClockSnapshot, "EvEndOfGeneration": evEndOfGeneration,
	} {
		got, ok := goTypes[name]
		if !ok {
			t.Errorf("%s: not in %s", name, file)
		} else if got != ours {
			t.Errorf("%s = %d in %s, ours is %d", name, got, file, ours)
		}
	}
}

// stream builds an event stream by hand.
type stream struct {
	evs []runtime.Event
}

func (s *stream) add(t int64, kind runtime.EventKind, p, m int32, g int64, g2 int64, arg int64, reason string) {
	s.evs = append(s.evs, runtime.Event{Seq: uint64(len(s.evs) + 1), Time: t, P: p, M: m, G: g, Kind: kind, G2: g2, P2: -1, Arg: arg, Reason: reason})
}

// write encodes the stream with opts and returns the trace and Close's error.
func (s *stream) write(opts Options) ([]byte, error) {
	var buf bytes.Buffer
	w := New(&buf, opts)
	for i := range s.evs {
		w.Event(&s.evs[i])
	}
	err := w.Close()
	return buf.Bytes(), err
}

// read parses a trace with x/exp/trace.
func read(t *testing.T, data []byte) []xtrace.Event {
	t.Helper()
	r, err := xtrace.NewReader(bytes.NewReader(data))
	if err != nil {
		t.Fatalf("NewReader: %v", err)
	}
	var evs []xtrace.Event
	for {
		ev, err := r.ReadEvent()
		if err != nil {
			if errors.Is(err, io.EOF) {
				return evs
			}
			t.Fatalf("ReadEvent: %v", err)
		}
		evs = append(evs, ev)
	}
}

// pingpong is a valid two-P stream: G1 creates G2, which P1 steals and
// runs; G1 blocks on a channel, G2 readies it and exits; G2 makes a
// syscall that sysmon retakes the P from.
func pingpong() *stream {
	var s stream
	s.add(0, runtime.EvProcStart, 0, 0, 0, 0, 0, "")
	s.add(0, runtime.EvGoStart, 0, 0, 1, 0, 0, "")
	s.add(100, runtime.EvGoCreate, 0, 0, 1, 2, 1, "worker")
	s.add(200, runtime.EvMStart, 1, 1, 0, 0, 1, "")
	s.add(300, runtime.EvProcStart, 1, 1, 0, 0, 0, "")
	s.add(300, runtime.EvRunqSteal, 1, 1, 0, 2, 1, "")
	s.add(300, runtime.EvGoStart, 1, 1, 2, 0, 0, "")
	s.add(400, runtime.EvGoBlock, 0, 0, 1, 0, 0, "chan receive")
	s.add(400, runtime.EvProcStop, 0, 0, 0, 0, 0, "")
	s.add(500, runtime.EvGoSyscallBegin, 1, 1, 2, 0, 30_000, "")
	s.add(20_500, runtime.EvProcSteal, 1, -1, 0, 0, 0, "")
	s.add(30_500, runtime.EvProcStart, 0, 1, 0, 0, 0, "")
	s.add(30_500, runtime.EvGoSyscallEnd, 0, 1, 2, 0, 0, "idle p")
	s.add(30_600, runtime.EvGoUnblock, 0, 1, 2, 1, 1, "")
	s.add(30_700, runtime.EvPrint, 0, 1, 2, 0, 0, "done\n")
	s.add(30_800, runtime.EvGoDestroy, 0, 1, 2, 0, 0, "")
	s.add(30_800, runtime.EvGoStart, 0, 1, 1, 0, 1, "")
	s.add(31_000, runtime.EvGoDestroy, 0, 1, 1, 0, 0, "")
	return &s
}

// fakeStacks gives every goroutine a two-frame stack.
type fakeStacks struct{}

func (fakeStacks) Stack(dst []Frame, g int64) []Frame {
	return append(dst, Frame{"leaf", "x.star", int(g) * 10}, Frame{"root", "x.star", 1})
}

func (fakeStacks) Entry(dst []Frame, g int64) []Frame {
	return append(dst, Frame{"worker", "x.star", 3})
}

func TestWriterValid(t *testing.T) {
	s := pingpong()
	for _, gens := range []int{0, 1, 2, 5} {
		data, err := s.write(Options{Procs: 2, Stacks: fakeStacks{}, GenerationEvents: gens})
		if err != nil {
			t.Fatalf("generations of %d events: %v", gens, err)
		}
		evs := read(t, data)
		var syncs, steals, logs int
		for _, ev := range evs {
			switch ev.Kind() {
			case xtrace.EventSync:
				syncs++
			case xtrace.EventLog:
				logs++
				if l := ev.Log(); l.Category != "print" || l.Message != "done" {
					t.Errorf("log = %+v, want print: done", l)
				}
			case xtrace.EventStateTransition:
				st := ev.StateTransition()
				if st.Resource.Kind == xtrace.ResourceProc {
					if from, to := st.Proc(); from == xtrace.ProcRunning && to == xtrace.ProcIdle && ev.Thread() == SysmonThread {
						steals++
					}
				}
				if st.Resource.Kind == xtrace.ResourceGoroutine && st.Resource.Goroutine() == 2 {
					if from, to := st.Goroutine(); from == xtrace.GoNotExist && to == xtrace.GoRunnable {
						var names []string
						for f := range st.Stack.Frames() {
							names = append(names, f.Func)
						}
						if strings.Join(names, " ") != "worker" {
							t.Errorf("G2's creation stack = %q, want worker", names)
						}
						// Virtual time plus Origin, and the few ns by which
						// the reader moves events of equal times apart.
						if got := ev.Time(); got < Origin+100 || got > Origin+110 {
							t.Errorf("G2 created at %d, want %d", got, Origin+100)
						}
					}
				}
			}
		}
		if steals != 1 || logs != 1 {
			t.Errorf("generations of %d: %d steals by sysmon, %d logs; want 1, 1", gens, steals, logs)
		}
		if gens > 0 && syncs < 3 {
			t.Errorf("generations of %d events: %d syncs, want several generations", gens, syncs)
		}
	}
}

// TestWriterRefusesBrokenStreams feeds streams whose transitions Go could
// not make: the Writer must report the event rather than write a trace.
func TestWriterRefusesBrokenStreams(t *testing.T) {
	for _, test := range []struct {
		name   string
		break_ func(s *stream)
		want   string
	}{
		{"start without P", func(s *stream) { s.evs[1].P = 1 }, "M0 holds P0, the event says P1"},
		{"create twice", func(s *stream) { s.evs[2].G2 = 1 }, "G1 created while it exists"},
		{"block not running", func(s *stream) { s.evs[7].G = 2 }, "G2 is not running on M0"},
		{"unblock running", func(s *stream) { s.evs[13].G2 = 2 }, "G2 readied while running"},
		{"steal no syscall", func(s *stream) { s.evs[10].P = 0 }, "P0 retaken but no syscall holds it"},
		{"no p exit holding a P", func(s *stream) {
			s.evs = append(s.evs[:10], s.evs[12:]...) // no ProcSteal, no ProcStart
			s.evs[10].Reason, s.evs[10].P = "no p", -1
		}, "exit from a syscall with no P, but M1 holds P1"},
	} {
		s := pingpong()
		test.break_(s)
		_, err := s.write(Options{Procs: 2})
		if err == nil || !strings.Contains(err.Error(), test.want) {
			t.Errorf("%s: Close = %v, want an error containing %q", test.name, err, test.want)
		}
	}
}

// TestWriterTime checks that timestamps are virtual time plus Origin, and
// that events of one thread at one virtual time are 1ns apart.
func TestWriterTime(t *testing.T) {
	s := pingpong()
	data, err := s.write(Options{Procs: 2})
	if err != nil {
		t.Fatal(err)
	}
	var starts []xtrace.Time
	for _, ev := range read(t, data) {
		if ev.Kind() != xtrace.EventStateTransition {
			continue
		}
		st := ev.StateTransition()
		if st.Resource.Kind != xtrace.ResourceGoroutine {
			continue
		}
		if _, to := st.Goroutine(); to == xtrace.GoRunning {
			starts = append(starts, ev.Time())
		}
	}
	// Events of one thread at one virtual time are 1ns apart, and the
	// reader moves events of equal times 1ns apart again: G1 starts
	// after its ProcStart and GoCreate at 0, G2 after P1's ProcStart at
	// 300, and after its ProcStart and GoSyscallEndBlocked at 30500; G1
	// after G2's GoDestroy at 30800.
	want := []xtrace.Time{Origin + 0, Origin + 300, Origin + 30_500, Origin + 30_800}
	if len(starts) != len(want) {
		t.Fatalf("starts at %v, want %v", starts, want)
	}
	for i := range want {
		if starts[i] <= want[i] || starts[i] > want[i]+5 {
			t.Errorf("start %d at %d, want just after %d", i, starts[i], want[i])
		}
	}
}

// TestWriterBigBatches writes a stream whose events fill many batches, and
// a print longer than the format's longest string.
func TestWriterBigBatches(t *testing.T) {
	var s stream
	s.add(0, runtime.EvProcStart, 0, 0, 0, 0, 0, "")
	s.add(0, runtime.EvGoStart, 0, 0, 1, 0, 0, "")
	s.add(1, runtime.EvPrint, 0, 0, 1, 0, 0, strings.Repeat("é", 2000))
	for i := int64(0); i < 20_000; i++ {
		s.add(10+i*10, runtime.EvGoSched, 0, 0, 1, 0, 0, "")
		s.add(10+i*10+5, runtime.EvGoStart, 0, 0, 1, 0, 0, "")
	}
	data, err := s.write(Options{Procs: 1, Stacks: fakeStacks{}})
	if err != nil {
		t.Fatal(err)
	}
	if len(data) < 2*maxBatchSize {
		t.Fatalf("trace of %d bytes: want more than two batches", len(data))
	}
	n := 0
	for _, ev := range read(t, data) {
		if ev.Kind() == xtrace.EventLog && len(ev.Log().Message) > maxStringSize {
			t.Errorf("log of %d bytes, want at most %d", len(ev.Log().Message), maxStringSize)
		}
		if ev.Kind() == xtrace.EventStateTransition && ev.StateTransition().Resource.Kind == xtrace.ResourceGoroutine {
			n++
		}
	}
	if want := 1 + 1 + 2*20_000; n != want {
		t.Errorf("%d goroutine transitions, want %d", n, want)
	}
}

func TestBlockReason(t *testing.T) {
	for in, want := range map[string]string{
		"chan receive": "chan receive", "chan send": "chan send", "select": "select", "sleep": "sleep",
		"chan receive (nil chan)": "forever", "select (no cases)": "forever",
		"sync.Mutex.Lock": "sync", "sync.WaitGroup.Wait": "sync", "sync.RWMutex.RLock": "sync",
		"sync.Cond.Wait": "sync.(*Cond).Wait", "IO wait": "network", "parked": "parked", "": "unspecified",
	} {
		if got := BlockReason(in); got != want {
			t.Errorf("BlockReason(%q) = %q, want %q", in, got, want)
		}
	}
}
