// The rest of package sync, and x/sync/semaphore: RWMutex, Cond and
// Weighted, on the same semaphore queues as Mutex and WaitGroup (sema.go).
//
// RWMutex follows sync/rwmutex.go field by field: readerCount counts the
// readers, and a writer makes it negative (minus rwmutexMaxReaders) so that
// new readers queue behind it on readerSem: writers are preferred, and a
// steady stream of readers cannot starve one. The writer first takes w, a
// Mutex (so a second writer waits in sync.Mutex.Lock), then waits on
// writerSem for the readers that were in (readerWait) to leave; the last of
// them releases it. Unlock releases every reader that queued meanwhile, in
// the order they came, then w.
//
// Cond follows sync.Cond over the runtime's notifyList (sema.go
// notifyListAdd, notifyListWait, notifyListNotifyOne/All): Wait takes a
// ticket before it unlocks L, so a Signal between the Unlock and the park
// is not lost; Signal wakes the waiter holding the oldest unserved ticket,
// Broadcast every waiter, in the order they queued.
//
// Weighted follows golang.org/x/sync/semaphore: a FIFO of waiters, each
// for n units; Release serves waiters from the front while the front one
// fits, so a large request at the head is not overtaken by small ones.
// An Acquire that cannot be served parks in a select (on its ready channel
// and the context's Done), which is the wait reason Go shows.

package runtime

import "errors"

// The fatal errors and panics of these types, in Go's words.
var (
	ErrRUnlockOfUnlocked  = errors.New("sync: RUnlock of unlocked RWMutex")
	ErrUnlockOfUnlockedRW = errors.New("sync: Unlock of unlocked RWMutex")
	ErrReleasedMore       = errors.New("semaphore: released more than held")
)

// Wait reasons of these types (runtime2.go's waitReasonStrings).
const (
	WaitReasonSyncRWMutexRLock = "sync.RWMutex.RLock"
	WaitReasonSyncRWMutexLock  = "sync.RWMutex.Lock"
	WaitReasonSyncCondWait     = "sync.Cond.Wait"
)

const rwmutexMaxReaders = 1 << 30 // sync's rwmutexMaxReaders

// A sema is a runtime semaphore: a count and a FIFO of the Gs waiting for
// it. Mirrors semacquire1/semrelease1 for one address, without handoff.
type sema struct {
	count uint32
	q     semaQueue
}

// semacquire takes one unit of s, parking g with reason until there is
// one. A woken G checks the count again (cansemacquire), as semacquire1
// does; with handoff off, semrelease leaves the unit in the count.
func (g *G) semacquire(s *sema, reason string, obj any) {
	first := true
	for {
		if s.count > 0 {
			s.count--
			return
		}
		if first {
			first = false
			if g.semtableFirst() {
				continue // look at the count again
			}
		}
		s.q.push(g, false)
		g.waitingOn = append(g.waitingOn[:0], obj)
		g.m.gopark(g, reason)
		g.co.yield()
		g.m.touch(obj, AccessWrite)
	}
}

// semrelease adds a unit to s and readies its first waiter, if any, into
// runnext of g's P.
func (g *G) semrelease(s *sema) {
	s.count++
	if gp := s.q.pop(); gp != nil {
		g.goready(gp)
	}
}

// An RWMutex is sync.RWMutex.
type RWMutex struct {
	w           Mutex // held if there are pending writers
	writerSem   sema  // for writers to wait for completing readers
	readerSem   sema  // for readers to wait for completing writers
	readerCount int32 // number of pending readers
	readerWait  int32 // number of departing readers
}

// NewRWMutex returns an unlocked RWMutex.
func (m *Machine) NewRWMutex() *RWMutex { return &RWMutex{} }

// Readers returns the number of readers holding rw: with a writer pending,
// those that were in when it came and have not left (readerWait); the
// readers queued behind it count in readerCount but hold nothing.
func (rw *RWMutex) Readers() int {
	if rw.readerCount < 0 {
		return int(rw.readerWait)
	}
	return int(rw.readerCount)
}

// WriterMutex returns the Mutex writers take first, which a second writer
// waits on (for the leak check, which must reach it).
func (rw *RWMutex) WriterMutex() *Mutex { return &rw.w }

// Writer reports whether a writer holds or waits for rw.
func (rw *RWMutex) Writer() bool { return rw.readerCount < 0 }

// Waiting returns the goroutines blocked on rw, readers first, then the
// writer, then the writers queued on its inner mutex.
func (rw *RWMutex) Waiting() []*G {
	var gs []*G
	gs = append(gs, rw.readerSem.q.gs...)
	gs = append(gs, rw.writerSem.q.gs...)
	return append(gs, rw.w.sema.gs...)
}

// RLock locks rw for reading, waiting while a writer holds or wants it.
// Mirrors RWMutex.RLock.
func (g *G) RLock(rw *RWMutex) {
	g.check()
	g.m.touch(rw, AccessWrite)
	g.fastPath(syncOp) // readerCount's atomic add
	rw.readerCount++
	if rw.readerCount < 0 {
		// A writer holds or waits for it: queue behind the writer.
		g.semacquire(&rw.readerSem, WaitReasonSyncRWMutexRLock, rw)
	}
}

// RUnlock undoes one RLock; the last reader to leave lets a waiting writer
// in. Mirrors RWMutex.RUnlock/rUnlockSlow.
func (g *G) RUnlock(rw *RWMutex) error {
	g.check()
	g.m.touch(rw, AccessWrite)
	g.fastPath(syncOp)
	rw.readerCount--
	r := rw.readerCount
	if r >= 0 {
		return nil
	}
	if r+1 == 0 || r+1 == -rwmutexMaxReaders {
		rw.readerCount++
		return ErrRUnlockOfUnlocked
	}
	// A writer waits for the readers that were in when it came.
	rw.readerWait--
	if rw.readerWait == 0 {
		g.semrelease(&rw.writerSem)
	}
	return nil
}

// Lock locks rw for writing: it takes w, announces itself to new readers,
// and waits for the readers inside to leave. Mirrors RWMutex.Lock.
func (g *G) LockRW(rw *RWMutex) {
	g.check()
	g.m.touch(rw, AccessWrite)
	g.Lock(&rw.w) // one writer at a time
	// New readers now see a negative count and queue.
	rw.readerCount -= rwmutexMaxReaders
	r := rw.readerCount + rwmutexMaxReaders
	if r != 0 {
		rw.readerWait += r
		if rw.readerWait != 0 {
			g.semacquire(&rw.writerSem, WaitReasonSyncRWMutexLock, rw)
		}
	}
}

// UnlockRW unlocks rw for writing, releasing the readers that queued
// while it was held, then w. Mirrors RWMutex.Unlock.
func (g *G) UnlockRW(rw *RWMutex) error {
	g.check()
	g.m.touch(rw, AccessWrite)
	rw.readerCount += rwmutexMaxReaders
	r := rw.readerCount
	if r >= rwmutexMaxReaders {
		rw.readerCount -= rwmutexMaxReaders
		return ErrUnlockOfUnlockedRW
	}
	// Let in the readers that queued behind the writer.
	for range r {
		g.semrelease(&rw.readerSem)
	}
	return g.Unlock(&rw.w)
}

// A Cond is sync.Cond's notifyList: tickets taken by waiters, and the
// waiters not yet notified, in the order they queued.
type Cond struct {
	wait   uint32 // the next ticket
	notify uint32 // the next ticket to notify
	list   []condWaiter
}

type condWaiter struct {
	ticket uint32
	g      *G
}

// NewCond returns a Cond with no waiters.
func (m *Machine) NewCond() *Cond { return &Cond{} }

// Waiting returns the goroutines blocked in Wait, in queue order.
func (c *Cond) Waiting() []*G {
	var gs []*G
	for _, w := range c.list {
		gs = append(gs, w.g)
	}
	return gs
}

// CondAdd takes a ticket for a Wait to come (notifyListAdd).
func (g *G) CondAdd(c *Cond) uint32 {
	g.check()
	g.m.touch(c, AccessWrite)
	g.fastPath(syncOp)
	t := c.wait
	c.wait++
	return t
}

// CondWait parks g until its ticket is notified, unless it was already
// (notifyListWait).
func (g *G) CondWait(c *Cond, ticket uint32) {
	g.check()
	g.m.touch(c, AccessWrite)
	if int32(ticket-c.notify) < 0 {
		return // notified between the Add and now
	}
	c.list = append(c.list, condWaiter{ticket: ticket, g: g})
	g.waitingOn = append(g.waitingOn[:0], c)
	g.m.gopark(g, WaitReasonSyncCondWait)
	g.co.yield()
}

// Signal wakes the waiter with the oldest unnotified ticket, if any
// (notifyListNotifyOne).
func (g *G) Signal(c *Cond) {
	g.check()
	g.m.touch(c, AccessWrite)
	g.fastPath(syncOp) // notifyListNotifyOne's atomic check
	if c.wait == c.notify {
		return
	}
	t := c.notify
	c.notify++
	for i, w := range c.list {
		if w.ticket == t {
			c.list = append(c.list[:i], c.list[i+1:]...)
			g.goready(w.g)
			return
		}
	}
	// The holder of t has not parked yet: CondWait will see it notified.
}

// Broadcast wakes every waiter, in the order they queued
// (notifyListNotifyAll); each goready pushes the one before out of runnext.
func (g *G) Broadcast(c *Cond) {
	g.check()
	g.m.touch(c, AccessWrite)
	g.fastPath(syncOp)
	if c.wait == c.notify {
		return
	}
	c.notify = c.wait
	list := c.list
	c.list = nil
	for _, w := range list {
		g.goready(w.g)
	}
}

// A Weighted is golang.org/x/sync/semaphore.Weighted.
type Weighted struct {
	size    int64
	cur     int64
	waiters []*weightedWaiter
}

type weightedWaiter struct {
	n     int64
	g     *G
	ready bool
}

// NewWeighted returns a semaphore of the given size (semaphore.NewWeighted).
func (m *Machine) NewWeighted(n int64) *Weighted { return &Weighted{size: n} }

// Size returns the semaphore's size, and Held how much of it is held.
func (s *Weighted) Size() int64 { return s.size }

// Held returns the units acquired and not released.
func (s *Weighted) Held() int64 { return s.cur }

// Waiting returns the goroutines blocked in Acquire, in FIFO order.
func (s *Weighted) Waiting() []*G {
	var gs []*G
	for _, w := range s.waiters {
		gs = append(gs, w.g)
	}
	return gs
}

// Acquire acquires n units, blocking until they are free and every earlier
// waiter is served. A request larger than the semaphore blocks forever, as
// it does with a context that is never done. Mirrors Weighted.Acquire.
func (g *G) Acquire(s *Weighted, n int64) {
	g.check()
	g.m.touch(s, AccessWrite)
	if s.size-s.cur >= n && len(s.waiters) == 0 {
		g.fastPath(syncOp)
		s.cur += n
		return
	}
	if n > s.size {
		// It can never be served, and queueing it would block every
		// later Acquire: it waits for its context only, whose Done is
		// nil here.
		g.waitingOn = g.waitingOn[:0]
		g.m.gopark(g, WaitReasonChanReceiveNilChan)
		g.co.yield()
		throw("unreachable: woke from an Acquire larger than its semaphore")
	}
	w := &weightedWaiter{n: n, g: g}
	s.waiters = append(s.waiters, w)
	g.waitingOn = append(g.waitingOn[:0], s)
	g.m.gopark(g, WaitReasonSelect)
	g.co.yield()
	if !w.ready {
		throw("Acquire woken without its units")
	}
}

// TryAcquire acquires n units without blocking and reports whether it did.
// Mirrors Weighted.TryAcquire.
func (g *G) TryAcquire(s *Weighted, n int64) bool {
	g.check()
	g.m.touch(s, AccessWrite)
	g.fastPath(syncOp)
	if s.size-s.cur >= n && len(s.waiters) == 0 {
		s.cur += n
		return true
	}
	return false
}

// Release releases n units and serves the waiters at the front that now
// fit. Mirrors Weighted.Release and notifyWaiters.
func (g *G) Release(s *Weighted, n int64) error {
	g.check()
	g.m.touch(s, AccessWrite)
	g.fastPath(syncOp)
	s.cur -= n
	if s.cur < 0 {
		s.cur += n
		return ErrReleasedMore
	}
	for len(s.waiters) > 0 {
		w := s.waiters[0]
		if s.size-s.cur < w.n {
			// The head does not fit: everyone behind it waits too,
			// so that small requests never starve a large one.
			break
		}
		s.cur += w.n
		s.waiters = s.waiters[1:]
		w.ready = true
		g.goready(w.g) // close(w.ready)
	}
	return nil
}

// Atomic charges g one atomic operation on a value of the program's own
// (sync/atomic: the language's atomic_int), which the engine does not
// otherwise see: sync_op, with g's next steps (fastPath).
func (g *G) Atomic() { g.fastPath(syncOp) }
