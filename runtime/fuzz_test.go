package runtime

import (
	"fmt"
	"runtime/debug"
	"slices"
	"testing"
)

// FuzzEngine drives the Machine with a random program decoded from the
// fuzz input: a configuration (1 to 4 Ps, seed, preemption, perturbations)
// and a few goroutine bodies, each a sequence of operations (spawn,
// gosched, work, syscall, sleep, channel send, receive and close, select,
// mutex, wait group, park and ready, GOMAXPROCS, after, preempt). After
// every Step it checks the scheduler's invariants (CheckInvariants: every G
// in at most one place, run queue bounds, state and queue agree, no
// runnable G lost, idle Ps idle); at the end it checks that the run ended,
// that every value received was sent once and received once, and that
// marking the blocked goroutines leaked keeps the invariants.
//
// Seeds live in testdata/fuzz/FuzzEngine; `go test -fuzz=FuzzEngine
// ./runtime` explores from them.
func FuzzEngine(f *testing.F) {
	for _, s := range engineSeeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		checkEngineRun(t, data)
	})
}

// engineSeeds are hand-written programs (in the byte code of decodeProgram)
// that reach every operation.
var engineSeeds = [][]byte{
	{},
	{0, 1, 0, 0, 0, 2, 1, 1, 1, 3},
	{3, 42, 0, 0x12, 3, 1, 4, 5, 1, 6, 1, 5, 1, 6, 1, 8, 1, 2, 3, 4, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16},
	{1, 7, 1, 0, 2, 2, 6, 0, 6, 0, 5, 0, 5, 0, 7, 0, 8, 3, 1, 9, 9, 10, 10, 11, 12},
	{2, 9, 0, 0, 4, 8, 0, 0, 11, 12, 11, 12, 13, 3, 13, 1, 14, 5, 15, 2, 3, 4, 0, 1, 2},
	{3, 1, 2, 0x30, 3, 12, 0, 1, 0, 2, 0, 3, 9, 9, 10, 10, 15, 5, 0, 6, 0, 7, 0, 8, 2, 1, 1, 1, 1, 1},
	{0, 200, 4, 0, 4, 16, 2, 50, 2, 60, 3, 70, 4, 80, 1, 1, 13, 4, 13, 1, 14, 9, 2, 30, 5, 1, 6, 1},

	// An engine bug, found by FuzzEngine after 43d4bc7 (the netpoll M runs a
	// P's due timers in schedule): 2 Ps, every goroutine does preempt,
	// spawn, after(48µs) and receive, GOMAXPROCS(3), spawn x4. At 48µs,
	// after the resize, M1 is started spinning for P0 (MStart arg=1); in
	// schedule it runs P0's due after-timers (mp.timerp), which ready G17
	// and G18 onto P0, and then throws "schedule: spinning with local
	// work" (proc.go). Fixed in b8ebf99; kept as a regression seed.
	[]byte("10\x800007800090007000#00"),
}

// A byteReader hands out the fuzz input one byte at a time, then zeros.
type byteReader struct {
	data []byte
	i    int
}

func (r *byteReader) next() byte {
	if r.i >= len(r.data) {
		return 0
	}
	b := r.data[r.i]
	r.i++
	return b
}

func (r *byteReader) intn(n int) int { return int(r.next()) % n }

// Operations of a goroutine body.
const (
	opSpawn = iota
	opGosched
	opWork
	opSyscall
	opSleep
	opSend
	opRecv
	opClose
	opSelect
	opLock
	opUnlock
	opAdd
	opDone
	opWait
	opPark
	opReady
	opGOMAXPROCS
	opAfter
	opPreempt
	opSteps
	opCount
)

// An op is one operation with its arguments.
type op struct {
	kind int
	a, b int   // a channel, a body, a count, a select mask
	d    int64 // a duration
}

// A program is what a fuzz input decodes to.
type program struct {
	cfg    Config
	chans  []int // buffer sizes
	bodies [][]op
}

// decodeProgram decodes a fuzz input: procs, seed, flags, the number of
// channels and bodies, then the channels' sizes and each body's ops.
func decodeProgram(data []byte) program {
	r := &byteReader{data: data}
	p := program{}
	p.cfg.Procs = 1 + r.intn(4)
	p.cfg.Seed = uint64(r.next())
	flags := r.next()
	p.cfg.NoPreempt = flags&1 != 0
	if flags&2 != 0 {
		p.cfg.Perturb.Jitter = 0.5
	}
	if flags&4 != 0 {
		p.cfg.Perturb.PreemptProb = 0.2
	}
	if flags&8 != 0 {
		p.cfg.Perturb.RunnextFlip = true
	}
	if flags&16 != 0 {
		p.cfg.Perturb.PCTDepth, p.cfg.Perturb.PCTSteps = 3, 200
	}
	if flags&32 != 0 {
		p.cfg.Perturb.WakeupJitter = 5000
	}
	if flags&64 != 0 {
		p.cfg.Costs = DefaultCosts()
		p.cfg.Perturb.SampleCosts = flags&128 != 0
		p.cfg.Perturb.QuantumJitter = flags&128 != 0
	}
	p.cfg.MaxGoroutines = 64
	p.cfg.MaxTime = 1e9 // 1s of virtual time
	nchans := 1 + r.intn(4)
	nbodies := 1 + r.intn(6)
	for range nchans {
		p.chans = append(p.chans, r.intn(3))
	}
	for range nbodies {
		var body []op
		for range 1 + r.intn(16) {
			o := op{kind: r.intn(opCount), a: int(r.next()), b: int(r.next())}
			o.d = int64(r.next()) * 1000 // up to 255µs
			body = append(body, o)
		}
		p.bodies = append(p.bodies, body)
	}
	return p
}

// engineWorld is the shared state of a fuzzed run.
type engineWorld struct {
	p       program
	chans   []*Chan
	mus     [2]*Mutex
	wg      *WaitGroup
	parked  []*G // goroutines that called Park, in order
	nextVal int
	sent    map[int]bool // values whose send completed
	tried   map[int]bool // values a send was attempted with
	got     map[int]int  // how many times each value was received
	err     error        // the first broken rule of channels
}

func (w *engineWorld) noteRecv(v any, ok bool) {
	if !ok || v == nil {
		return
	}
	n, isInt := v.(int)
	if !isInt {
		return // the time from an after channel
	}
	if !w.tried[n] && w.err == nil {
		w.err = fmt.Errorf("received %d, which was never sent", n)
	}
	w.got[n]++
	if w.got[n] > 1 && w.err == nil {
		w.err = fmt.Errorf("received %d twice", n)
	}
}

// body returns the Func of body i; depth bounds nested spawns.
func (w *engineWorld) body(i, depth int) Func {
	return func(g *G) error {
		var held [2]bool
		for _, o := range w.p.bodies[i] {
			w.do(g, o, depth, &held)
		}
		for j, h := range held {
			if h {
				g.Unlock(w.mus[j])
			}
		}
		return nil
	}
}

// do performs one operation. Errors a Go program would panic with (send
// on closed, unlock of unlocked) are ignored: the goroutine goes on.
func (w *engineWorld) do(g *G, o op, depth int, held *[2]bool) {
	m := g.Machine()
	c := w.chans[o.a%len(w.chans)]
	switch o.kind {
	case opSpawn:
		if depth < 3 {
			g.Go(w.body(o.b%len(w.p.bodies), depth+1), fmt.Sprint("body", o.b%len(w.p.bodies)))
		}
	case opGosched:
		g.Gosched()
	case opWork:
		g.Work(o.d)
	case opSyscall:
		g.Syscall(o.d)
	case opSleep:
		g.Sleep(o.d)
	case opSend:
		v := w.value()
		if g.Send(c, v) == nil {
			w.sent[v] = true
		}
	case opRecv:
		v, ok := g.Recv(c)
		w.noteRecv(v, ok)
	case opClose:
		if o.b%4 == 0 {
			g.Close(c)
		}
	case opSelect:
		var cases []SelectCase
		var vals []int
		for j := range w.chans {
			switch (o.b >> (2 * j)) & 3 {
			case 1:
				cases = append(cases, SelectCase{Dir: SelectRecv, Chan: w.chans[j]})
				vals = append(vals, 0)
			case 2:
				v := w.value()
				cases = append(cases, SelectCase{Dir: SelectSend, Chan: w.chans[j], Send: v})
				vals = append(vals, v)
			}
		}
		block := o.a%2 == 0 && len(cases) > 0
		i, v, ok, err := g.Select(cases, block)
		if i >= 0 && err == nil {
			if cases[i].Dir == SelectSend {
				w.sent[vals[i]] = true
			} else {
				w.noteRecv(v, ok)
			}
		}
	case opLock:
		j := o.b % 2
		if !held[j] {
			g.Lock(w.mus[j])
			held[j] = true
		}
	case opUnlock:
		j := o.b % 2
		if held[j] {
			g.Unlock(w.mus[j])
			held[j] = false
		} else if o.a%8 == 0 {
			g.Unlock(w.mus[j]) // of an unlocked or another's mutex: an error, or a handoff
		}
	case opAdd:
		g.Add(w.wg, int64(1+o.b%2))
	case opDone:
		g.Add(w.wg, -1)
	case opWait:
		g.Wait(w.wg)
	case opPark:
		w.parked = append(w.parked, g)
		g.Park("fuzz park")
	case opReady:
		if len(w.parked) > 0 {
			gp := w.parked[o.b%len(w.parked)]
			if g.Ready(gp, nil) == nil {
				w.parked = slices.DeleteFunc(w.parked, func(x *G) bool { return x == gp })
			}
		}
	case opGOMAXPROCS:
		g.GOMAXPROCS(o.b%5 - 0) // 0 only asks
	case opAfter:
		a := g.After(o.d)
		if o.b%2 == 0 {
			v, ok := g.Recv(a)
			w.noteRecv(v, ok)
		}
	case opPreempt:
		if o.b%2 == 0 {
			g.Preempt()
		} else {
			g.SafePoint()
		}
	case opSteps:
		g.RanSteps(uint64(1 + o.b*int(g.StepBudget()%64)))
	}
	_ = m
}

func (w *engineWorld) value() int {
	w.nextVal++
	w.tried[w.nextVal] = true
	return w.nextVal
}

// maxEngineSteps bounds a fuzzed run: its bodies are finite and nested
// spawns bounded, so a run that takes more Steps than this does not end.
const maxEngineSteps = 1_000_000

// checkEngineRun runs the program data decodes to and checks it.
func checkEngineRun(t *testing.T, data []byte) {
	p := decodeProgram(data)
	m := NewMachine(p.cfg)
	defer m.Close()
	w := &engineWorld{p: p, sent: map[int]bool{}, tried: map[int]bool{}, got: map[int]int{}}
	for _, size := range p.chans {
		c, err := m.NewChan(size)
		if err != nil {
			t.Fatal(err)
		}
		w.chans = append(w.chans, c)
	}
	w.mus = [2]*Mutex{m.NewMutex(), m.NewMutex()}
	w.wg = m.NewWaitGroup()

	steps := 0
	func() {
		defer func() {
			if v := recover(); v != nil {
				t.Fatalf("program %+v: the engine panicked after %d steps: %v\n%s", p, steps, v, debug.Stack())
			}
		}()
		m.Start(w.body(0, 0))
		for m.Step() {
			steps++
			if err := m.CheckInvariants(); err != nil {
				t.Fatalf("program %+v: after step %d at %dns: %v", p, steps, m.Now(), err)
			}
			if steps > maxEngineSteps {
				t.Fatalf("program %+v: still running after %d steps", p, steps)
			}
		}
	}()
	res := m.Result()
	switch res.Outcome {
	case Exited, Panicked, Deadlock, Limit:
	default:
		t.Fatalf("program %+v: the run ended %v: %v", p, res.Outcome, res.Err)
	}
	if res.Outcome == Panicked {
		if _, ok := res.Err.(*TaskPanic); ok {
			t.Fatalf("program %+v: a goroutine's Go code panicked: %v", p, res.Err)
		}
	}
	if w.err != nil {
		t.Fatalf("program %+v: %v", p, w.err)
	}
	// Every completed send was received, or sits in a buffer. When the run
	// ends another way than a deadlock, a value handed straight to a
	// receiver that was readied but has not run yet is in neither place:
	// check only deadlocks, where nothing is runnable.
	buffered := map[int]bool{}
	for _, c := range w.chans {
		for _, v := range c.Buffered() {
			if n, ok := v.(int); ok {
				if buffered[n] || w.got[n] > 0 {
					t.Fatalf("program %+v: %d is in a buffer twice, or both buffered and received", p, n)
				}
				buffered[n] = true
			}
		}
	}
	for v := range w.sent {
		if res.Outcome == Deadlock && w.got[v] == 0 && !buffered[v] {
			t.Fatalf("program %+v: %d was sent but is neither received nor buffered", p, v)
		}
	}
	// The leak check's marking keeps the invariants.
	for _, gp := range m.Goroutines() {
		if gp.Status() == Gwaiting {
			if err := m.MarkLeaked(gp); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := m.CheckInvariants(); err != nil {
		t.Fatalf("program %+v: after marking leaks: %v", p, err)
	}
}
