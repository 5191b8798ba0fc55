package realtrace

import (
	"bytes"
	"context"
	"runtime"
	"runtime/trace"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// record runs f under runtime/trace and reads the trace back.
func record(t *testing.T, f func(ctx context.Context)) *Trace {
	t.Helper()
	if trace.IsEnabled() {
		t.Skip("tracing already on (go test -trace)")
	}
	var buf bytes.Buffer
	if err := trace.Start(&buf); err != nil {
		t.Fatal(err)
	}
	f(context.Background())
	trace.Stop()
	tr, err := Read(&buf)
	if err != nil {
		t.Fatal(err)
	}
	return tr
}

// logG returns the goroutine that wrote the log line msg.
func logG(t *testing.T, tr *Trace, msg string) Log {
	t.Helper()
	for _, l := range tr.Logs {
		if l.Category == "test" && l.Message == msg {
			return l
		}
	}
	t.Fatalf("no log %q in the trace", msg)
	return Log{}
}

// A goroutine created by another, blocked on a channel, readied by a third
// and sleeping: every pair is found, with the right goroutines and causes.
func TestReadPairs(t *testing.T) {
	const sleep = 2 * time.Millisecond
	tr := record(t, func(ctx context.Context) {
		trace.Log(ctx, "test", "main")
		ch := make(chan int)
		var wg sync.WaitGroup
		wg.Add(2)
		go func() {
			defer wg.Done()
			trace.Log(ctx, "test", "receiver")
			<-ch
			time.Sleep(sleep)
		}()
		go func() {
			defer wg.Done()
			trace.Log(ctx, "test", "sender")
			time.Sleep(time.Millisecond) // let the receiver block first
			ch <- 1
		}()
		wg.Wait()
	})
	main := logG(t, tr, "main").G
	recv := logG(t, tr, "receiver").G
	send := logG(t, tr, "sender").G
	if main == recv || recv == send || main == None {
		t.Fatalf("goroutines main %d receiver %d sender %d", main, recv, send)
	}

	// Creation: the receiver was made by main, then started.
	var created, readied bool
	for _, d := range tr.Dispatches() {
		if d.G != recv || !d.Started {
			continue
		}
		if d.Start < d.Ready {
			t.Errorf("dispatch of G%d starts at %d before it is ready at %d", d.G, d.Start, d.Ready)
		}
		switch d.Cause {
		case NotExist:
			created = true
			if d.By != main {
				t.Errorf("receiver created by G%d, want main G%d", d.By, main)
			}
			for _, tr := range tr.Transitions {
				if tr.G == recv && tr.From == NotExist && !strings.Contains(tr.Func, "TestReadPairs.func") {
					t.Errorf("receiver starts in %q, want TestReadPairs.func...", tr.Func)
				}
			}
		case Waiting:
			if d.By == send {
				readied = true
			}
		}
	}
	if !created || !readied {
		t.Errorf("receiver's dispatches: created %v, readied by the sender %v; want both", created, readied)
	}

	// Blocks: a channel receive ended by the sender, and a sleep of at
	// least its duration, ended by the runtime.
	var chanBlock, sleepBlock bool
	for _, b := range tr.Blocks() {
		if b.G != recv || !b.Unblocked {
			continue
		}
		switch {
		case strings.Contains(b.Reason, "chan receive"):
			chanBlock = true
			if b.By != send {
				t.Errorf("receive ended by G%d, want the sender G%d", b.By, send)
			}
		case b.Reason == "sleep":
			sleepBlock = true
			if late := b.End - b.Begin - int64(sleep); late < 0 {
				t.Errorf("sleep of %v ended %dns early", sleep, -late)
			}
		}
	}
	if !chanBlock || !sleepBlock {
		t.Errorf("receiver's blocks: chan receive %v, sleep %v; want both (blocks %+v)", chanBlock, sleepBlock, tr.Blocks())
	}

	// Every start is on a P and an M the trace knows.
	known := map[int64]bool{}
	for _, th := range tr.Threads {
		known[th.M] = true
	}
	for _, d := range tr.Dispatches() {
		if d.Started && (d.StartP == None || !known[d.StartM]) {
			t.Errorf("G%d started on P%d M%d, want a P and a known M", d.G, d.StartP, d.StartM)
		}
	}
	if tr.End <= tr.Start {
		t.Errorf("trace spans [%d, %d]", tr.Start, tr.End)
	}
}

// Gosched stops the goroutine with reason "runtime.Gosched" and the thread switches
// to the other goroutine on the same P.
func TestSwitchesGosched(t *testing.T) {
	old := runtime.GOMAXPROCS(1)
	defer runtime.GOMAXPROCS(old)
	tr := record(t, func(ctx context.Context) {
		var wg sync.WaitGroup
		for i := range 2 {
			wg.Go(func() {
				trace.Log(ctx, "test", "yielder"+strconv.Itoa(i))
				for range 20 {
					runtime.Gosched()
				}
			})
		}
		wg.Wait()
	})
	a, b := logG(t, tr, "yielder0").G, logG(t, tr, "yielder1").G
	n := 0
	for _, s := range tr.Switches() {
		if s.Reason == "runtime.Gosched" && s.FromTo == Runnable && (s.From == a && s.To == b || s.From == b && s.To == a) {
			n++
			if !s.SameP || s.Start < s.Left {
				t.Errorf("switch %+v: want the same P and start after the stop", s)
			}
		}
	}
	if n < 20 {
		t.Errorf("%d yield switches between G%d and G%d, want at least 20", n, a, b)
	}
}

// Procs and ProcRuns pair every stop with a start of the same P.
func TestProcRuns(t *testing.T) {
	tr := record(t, func(ctx context.Context) {
		var wg sync.WaitGroup
		for range 4 {
			wg.Go(func() { time.Sleep(100 * time.Microsecond) })
		}
		wg.Wait()
	})
	runs := tr.ProcRuns()
	if len(runs) == 0 {
		t.Fatal("no P runs")
	}
	starts := 0
	for _, r := range runs {
		if r.Stopped && r.Stop < r.Start {
			t.Errorf("P%d runs [%d, %d]", r.P, r.Start, r.Stop)
		}
		starts += r.Starts
	}
	if starts == 0 {
		t.Error("no goroutine started in any P run")
	}
}

func TestReadErrors(t *testing.T) {
	for _, in := range []string{"", "go 1.26 trace\x00\x00\x00", "not a trace at all"} {
		if _, err := Read(strings.NewReader(in)); err == nil || !strings.Contains(err.Error(), "reading trace") {
			t.Errorf("Read(%q) = %v, want a reading trace error", in, err)
		}
	}
}
