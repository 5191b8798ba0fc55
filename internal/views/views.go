// Package views is what the REPL's :ps, :runq, :ms and :netpoll show of a Machine, as
// data and as text: one source for the REPL, which prints the text, and
// for the playground's M:P:G picture, which draws the data (both read
// runtime.Machine.Snapshot). Keeping the two on one function is what lets
// a test hold the picture to the REPL's text.
//
// PS lists every goroutine, headed as in Go's goroutine dump, with where
// it is: on which P and M it runs, in which run queue it waits. Runq
// lists every P with its status, M, schedtick, the G it runs, runnext and
// its ring in order; then the global queue, the idle Ps (the next to be
// taken last, as pidleget takes them) and the spinning Ms; Ms lists every
// M with what it does, in runtime.MState.Activity's words; Netpoll (in
// Runq, for the picture) lists the goroutines parked on poll descriptors
// and the M blocked in netpoll. WritePS, WriteRunq, WriteMs and
// WriteNetpoll print them as the REPL does, WritePS and WriteRunq through
// a Painter for colour.
package views

import (
	"fmt"
	"io"
	"strings"
	"unicode/utf8"

	"github.com/schedlab/schedlab/runtime"
)

// A Goroutine is one line of :ps.
type Goroutine struct {
	ID     int64  `json:"id"`
	Status string `json:"status"` // as the dump's header shows it: the wait reason, else the state
	State  string `json:"state"`  // the state's name as the dump prints it: runnable, running, waiting...
	Name   string `json:"name"`   // the function it was created with
	Where  string `json:"where"`  // "P0 M0", "P1 runnext", "P0 ring[2]", "global[0]", "about to run", "fd=5 read", "polled by M1", or ""

	status runtime.Status
}

// PS returns the lines of :ps for Machine m, in goroutine id order.
func PS(m *runtime.Machine) []Goroutine {
	where := locate(m.Snapshot())
	var gs []Goroutine
	for _, g := range m.Goroutines() {
		status := g.WaitReason()
		if status == "" {
			status = g.Status().String()
		}
		loc, ok := where[g.ID()]
		if !ok && g.Status() == runtime.Grunnable {
			loc = "about to run" // taken from a queue by findRunnable, or stolen
		}
		gs = append(gs, Goroutine{ID: g.ID(), Status: status, State: g.Status().String(), Name: g.Name(), Where: loc, status: g.Status()})
	}
	return gs
}

// locate says where each goroutine is, from a snapshot: "P0 M0" for one
// that runs, "P1 runnext", "P0 ring[2]", "global[0]" for one that waits
// to run, "fd=5 read" for one parked on a poll descriptor, "polled by
// M1" for one an M back from netpoll took and has not run or queued yet.
func locate(s *runtime.Snapshot) map[int64]string {
	where := make(map[int64]string)
	for _, mm := range s.Ms {
		if mm.Curg == 0 {
			continue
		}
		switch {
		case mm.P >= 0:
			where[mm.Curg] = fmt.Sprintf("P%d M%d", mm.P, mm.ID)
		default:
			where[mm.Curg] = fmt.Sprintf("M%d", mm.ID)
		}
	}
	for _, p := range s.Ps {
		if p.Runnext != 0 {
			where[p.Runnext] = fmt.Sprintf("P%d runnext", p.ID)
		}
		for i, g := range p.Runq {
			where[g] = fmt.Sprintf("P%d ring[%d]", p.ID, i)
		}
	}
	for i, g := range s.GlobalRunq {
		where[g] = fmt.Sprintf("global[%d]", i)
	}
	for _, pd := range s.Polls {
		for _, g := range []int64{pd.ReadG, pd.WriteG} {
			if g != 0 {
				where[g] = fmt.Sprintf("fd=%d %s", pd.FD, pd.Mode(g))
			}
		}
	}
	for _, mm := range s.Ms {
		for _, g := range mm.Polled {
			where[g] = fmt.Sprintf("polled by M%d", mm.ID)
		}
	}
	return where
}

// A P is one line of :runq.
type P struct {
	ID        int     `json:"id"`
	Status    string  `json:"status"` // idle, running, syscall, gcstop, dead
	M         int     `json:"m"`      // the M holding it, -1 for none
	Schedtick uint32  `json:"schedtick"`
	Curg      int64   `json:"curg"`             // the G its M runs, 0 for none
	GCMode    string  `json:"gcMode,omitempty"` // the mode of the GC mark worker it runs: dedicated, fractional or idle; "" for none
	Runnext   int64   `json:"runnext"`          // 0 for none
	Ring      []int64 `json:"ring"`             // head first
	Timers    int     `json:"timers"`

	status runtime.PStatus
}

// An M is one line of :ms.
type M struct {
	ID       int    `json:"id"`
	P        int    `json:"p"`        // the P it holds, -1 for none
	SyscallP int    `json:"syscallP"` // the P it left in _Psyscall, -1 for none
	Curg     int64  `json:"curg"`     // the G it runs, 0 for none (it runs g0)
	Spinning bool   `json:"spinning"`
	Idle     bool   `json:"idle"`     // parked on the idle list
	Syscall  bool   `json:"syscall"`  // blocked in a syscall
	Netpoll  bool   `json:"netpoll"`  // blocked in netpoll
	Activity string `json:"activity"` // what it does: runtime.MState.Activity
}

// Runq is what :runq shows, and the Ms.
type Runq struct {
	Time     int64   `json:"time"` // virtual ns
	Ps       []P     `json:"ps"`
	Global   []int64 `json:"global"`   // head first
	IdlePs   []int   `json:"idlePs"`   // in idle-list order, the next to be taken last
	Spinning []int   `json:"spinning"` // spinning Ms
	Ms       []M     `json:"ms"`
	Netpoll  Netpoll `json:"netpoll"` // the network poller: :netpoll
}

// Netpoll is what :netpoll shows: the network poller's waiters and the M
// blocked in it.
type Netpoll struct {
	Waiters int      `json:"waiters"` // netpollWaiters: goroutines parked in netpollblock
	M       int      `json:"m"`       // the M blocked in netpoll, -1 for none
	Waiting []Waiter `json:"waiting"` // one per parked goroutine, in fd order, the reader first
}

// A Waiter is one goroutine parked on a poll descriptor, one line of
// :netpoll.
type Waiter struct {
	G        int64  `json:"g"`
	FD       int64  `json:"fd"`
	Kind     string `json:"kind"`     // listener or conn
	Mode     string `json:"mode"`     // accept, read or connect (runtime.PollState.Mode)
	Deadline int64  `json:"deadline"` // the read deadline: 0 none, -1 expired, else virtual ns; a connect has none
}

// NetpollOf returns what :netpoll shows of snapshot s.
func NetpollOf(s *runtime.Snapshot) Netpoll {
	n := Netpoll{Waiters: s.NetpollWaiters, M: s.PollM, Waiting: []Waiter{}}
	for _, pd := range s.Polls {
		for _, g := range []int64{pd.ReadG, pd.WriteG} {
			if g == 0 {
				continue
			}
			w := Waiter{G: g, FD: pd.FD, Kind: pd.Kind, Mode: pd.Mode(g)}
			if g == pd.ReadG {
				w.Deadline = pd.ReadDeadline
			}
			n.Waiting = append(n.Waiting, w)
		}
	}
	return n
}

// RunqOf returns what :runq shows of snapshot s.
func RunqOf(s *runtime.Snapshot) Runq {
	curg := make(map[int]int64)
	q := Runq{Time: s.Time, Global: nonNil(s.GlobalRunq), IdlePs: s.IdlePs, Spinning: []int{}}
	if q.IdlePs == nil {
		q.IdlePs = []int{}
	}
	for _, mm := range s.Ms {
		if mm.P >= 0 && mm.Curg != 0 {
			curg[mm.P] = mm.Curg
		}
		if mm.Spinning {
			q.Spinning = append(q.Spinning, mm.ID)
		}
		q.Ms = append(q.Ms, M{ID: mm.ID, P: mm.P, SyscallP: mm.SyscallP, Curg: mm.Curg, Spinning: mm.Spinning, Idle: mm.Idle, Syscall: mm.Syscall, Netpoll: mm.Netpoll, Activity: mm.Activity()})
	}
	for _, p := range s.Ps {
		q.Ps = append(q.Ps, P{ID: p.ID, Status: p.Status.String(), M: p.M, Schedtick: p.Schedtick, Curg: curg[p.ID],
			GCMode: p.GCMarkWorkerMode, Runnext: p.Runnext, Ring: nonNil(p.Runq), Timers: p.Timers, status: p.Status})
	}
	if q.Ms == nil {
		q.Ms = []M{}
	}
	q.Netpoll = NetpollOf(s)
	return q
}

func nonNil(ids []int64) []int64 {
	if ids == nil {
		return []int64{}
	}
	return ids
}

// A Painter colours the states in the views' text; nil paints nothing.
type Painter interface {
	Status(s runtime.Status, text string) string   // a goroutine's status (a state, or a wait reason)
	PStatus(s runtime.PStatus, text string) string // a P's status
}

// WritePS writes the lines of :ps: the header of each goroutine as in
// Go's goroutine dump ("goroutine 5 [chan receive]:"), then its function,
// its state and where it is.
func WritePS(w io.Writer, gs []Goroutine, pt Painter) {
	var t table
	for _, g := range gs {
		header := fmt.Sprintf("goroutine %d [%s]:", g.ID, g.Status)
		shown := header
		if pt != nil {
			shown = fmt.Sprintf("goroutine %d [%s]:", g.ID, pt.Status(g.status, g.Status))
		}
		t.add(cell{header, shown}, plain(g.Name), plain(g.State), plain(g.Where))
	}
	t.write(w, 1)
}

// WriteRunq writes the lines of :runq.
func WriteRunq(w io.Writer, q Runq, pt Painter) {
	var t table
	for _, p := range q.Ps {
		m := "-"
		if p.M >= 0 {
			m = fmt.Sprintf("M%d", p.M)
		}
		shown := p.Status
		if pt != nil {
			shown = pt.PStatus(p.status, p.Status)
		}
		curg := "curg=" + GName(p.Curg)
		if p.GCMode != "" {
			curg += " GC (" + p.GCMode + ")" // a mark worker, as Go's trace labels it
		}
		t.add(plain(fmt.Sprintf("P%d", p.ID)), cell{p.Status, shown}, plain(m),
			plain(fmt.Sprintf("schedtick=%d", p.Schedtick)), plain(curg),
			plain("runnext="+GName(p.Runnext)), plain("ring="+GList(p.Ring)), plain(fmt.Sprintf("timers=%d", p.Timers)))
	}
	t.write(w, 2)
	fmt.Fprintf(w, "global queue: %s\n", GList(q.Global))
	idle := make([]string, len(q.IdlePs))
	for i, p := range q.IdlePs {
		idle[i] = fmt.Sprintf("P%d", p)
	}
	spinning := make([]string, len(q.Spinning))
	for i, m := range q.Spinning {
		spinning[i] = fmt.Sprintf("M%d", m)
	}
	fmt.Fprintf(w, "idle Ps: [%s]\n", strings.Join(idle, " "))
	fmt.Fprintf(w, "spinning Ms: [%s]\n", strings.Join(spinning, " "))
}

// WriteMs writes the lines of :ms: each M in creation order, the P it
// holds (or, in parentheses, the P it left in _Psyscall), its curg ("g0",
// the scheduler's own stack, when it runs no G) and what it does.
func WriteMs(w io.Writer, q Runq) {
	var t table
	for _, mm := range q.Ms {
		p := "-"
		switch {
		case mm.P >= 0:
			p = fmt.Sprintf("P%d", mm.P)
		case mm.SyscallP >= 0:
			p = fmt.Sprintf("(P%d)", mm.SyscallP) // left in _Psyscall, not yet retaken
		}
		g := "g0"
		if mm.Curg != 0 {
			g = fmt.Sprintf("G%d", mm.Curg)
		}
		t.add(plain(fmt.Sprintf("M%d", mm.ID)), plain(p), plain("curg="+g), plain(mm.Activity))
	}
	t.write(w, 2)
}

// WriteNetpoll writes the lines of :netpoll: a line for each goroutine
// parked on a descriptor (its fd, listener or conn, what it waits for and
// its read deadline, at virtual time now), then the waiter count and the
// M blocked in netpoll.
func WriteNetpoll(w io.Writer, n Netpoll, now int64) {
	var t table
	for _, wt := range n.Waiting {
		dl := "deadline=none"
		switch {
		case wt.Mode == "connect":
			dl = ""
		case wt.Deadline < 0:
			dl = "deadline=expired"
		case wt.Deadline > 0:
			dl = "deadline=" + runtime.FormatDuration(wt.Deadline) + " (in " + runtime.FormatDuration(wt.Deadline-now) + ")"
		}
		t.add(plain(GName(wt.G)), plain(fmt.Sprintf("fd=%d", wt.FD)), plain(wt.Kind), plain(wt.Mode), plain(dl))
	}
	t.write(w, 2)
	m := "no M is blocked in netpoll"
	if n.M >= 0 {
		m = fmt.Sprintf("M%d is blocked in netpoll", n.M)
	}
	fmt.Fprintf(w, "%d %s on descriptors; %s\n", n.Waiters, plural(n.Waiters, "goroutine parked", "goroutines parked"), m)
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// GName names goroutine id as the views do: "G5", or "-" for none (0).
func GName(id int64) string {
	if id == 0 {
		return "-"
	}
	return fmt.Sprintf("G%d", id)
}

// GList names goroutines as the views do: "[G5 G6]".
func GList(ids []int64) string {
	s := make([]string, len(ids))
	for i, id := range ids {
		s[i] = GName(id)
	}
	return "[" + strings.Join(s, " ") + "]"
}

// A table is text in aligned columns whose cells may be coloured: the
// width of a cell is that of its plain text.
type table struct{ rows [][]cell }

// A cell is a table's cell: its plain text and what is shown.
type cell struct{ text, shown string }

func plain(s string) cell { return cell{s, s} }

func (t *table) add(cells ...cell) { t.rows = append(t.rows, cells) }

// write writes the table with gap blanks between columns and no trailing
// blanks.
func (t *table) write(w io.Writer, gap int) {
	var widths []int
	for _, row := range t.rows {
		for i, c := range row {
			if i == len(widths) {
				widths = append(widths, 0)
			}
			widths[i] = max(widths[i], utf8.RuneCountInString(c.text))
		}
	}
	var b strings.Builder
	for _, row := range t.rows {
		b.Reset()
		for i, c := range row {
			b.WriteString(c.shown)
			if i < len(row)-1 {
				b.WriteString(strings.Repeat(" ", widths[i]-utf8.RuneCountInString(c.text)+gap))
			}
		}
		io.WriteString(w, strings.TrimRight(b.String(), " ")+"\n")
	}
}
