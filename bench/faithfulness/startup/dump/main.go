// Command dump prints an execution trace of a corpus program, recorded by
// startup.sh -trace, as one line per scheduling event: the time in µs
// from the program's first probe point (main.main's first statement), the
// thread, the P, and what changed (a goroutine's state, with the function
// it runs, or a P's). It is the evidence of docs/faithfulness.md's
// "Start-up": what every M and P is doing when main.main begins, and what
// happens around the race.
//
//	go run ./bench/faithfulness/startup/dump TRACE...
package main

import (
	"errors"
	"fmt"
	"io"
	"os"

	xtrace "golang.org/x/exp/trace"
)

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: dump TRACE...")
		os.Exit(2)
	}
	for _, name := range os.Args[1:] {
		if err := dump(name, os.Stdout); err != nil {
			fmt.Fprintln(os.Stderr, "dump:", err)
			os.Exit(1)
		}
	}
}

// event is one line of the dump.
type event struct {
	t    int64
	m, p int64
	what string
}

func dump(name string, w io.Writer) error {
	f, err := os.Open(name)
	if err != nil {
		return err
	}
	defer f.Close()
	rd, err := xtrace.NewReader(f)
	if err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	var evs []event
	funcOf := map[xtrace.GoID]string{}
	var zero int64 = -1
	for {
		ev, err := rd.ReadEvent()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
		e := event{t: int64(ev.Time()), m: int64(ev.Thread()), p: int64(ev.Proc())}
		switch ev.Kind() {
		case xtrace.EventLog:
			l := ev.Log()
			if l.Category == "probe" && zero < 0 {
				zero = e.t
			}
			e.what = fmt.Sprintf("G%d log %s", ev.Goroutine(), l.Message)
		case xtrace.EventStateTransition:
			st := ev.StateTransition()
			switch st.Resource.Kind {
			case xtrace.ResourceGoroutine:
				g := st.Resource.Goroutine()
				from, to := st.Goroutine()
				if fn := topFunc(st.Stack); fn != "" && funcOf[g] == "" {
					funcOf[g] = fn
				}
				by := ""
				if ev.Goroutine() != xtrace.NoGoroutine && ev.Goroutine() != g {
					by = fmt.Sprintf(" by G%d", ev.Goroutine())
				}
				reason := ""
				if st.Reason != "" {
					reason = " (" + st.Reason + ")"
				}
				e.what = fmt.Sprintf("G%d %s→%s%s%s {%s}", g, from, to, reason, by, funcOf[g])
			case xtrace.ResourceProc:
				from, to := st.Proc()
				e.what = fmt.Sprintf("P%d %s→%s", st.Resource.Proc(), from, to)
			default:
				continue
			}
		default:
			continue
		}
		evs = append(evs, e)
	}
	if zero < 0 && len(evs) > 0 {
		zero = evs[0].t
	}
	fmt.Fprintf(w, "== %s\n", name)
	for _, e := range evs {
		fmt.Fprintf(w, "%9.3f M%-3s P%-3s %s\n", float64(e.t-zero)/1000, idStr(e.m, int64(xtrace.NoThread)), idStr(e.p, int64(xtrace.NoProc)), e.what)
	}
	return nil
}

func idStr(x, none int64) string {
	if x == none {
		return "-"
	}
	return fmt.Sprint(x)
}

// topFunc returns the function a goroutine started in: the outermost
// frame of stk other than runtime.goexit, or "".
func topFunc(stk xtrace.Stack) string {
	var fn string
	for f := range stk.Frames() {
		if f.Func != "runtime.goexit" {
			fn = f.Func
		}
	}
	return fn
}
