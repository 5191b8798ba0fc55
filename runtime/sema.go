// Semaphores, and the Mutex and WaitGroup built on them.
//
// sema.go keeps, per semaphore address, a FIFO of waiting Gs (a LIFO push
// for a G that was woken before and lost the race again). semrelease wakes
// the head of the queue with readyWithTime → goready, so the woken G lands
// in runnext of the releasing P.
//
// Mutex follows sync.Mutex's two modes. In normal mode a woken waiter does
// not own the mutex: it competes with newly arriving Gs, and on losing it
// goes back to the front of the queue. A waiter that has waited more than
// 1ms switches the mutex to starvation mode, in which Unlock hands the mutex
// directly to the head waiter and yields to it (semrelease with handoff).
// The spinning of sync.Mutex is left out: it only burns CPU on a multicore
// machine before falling back to the same queue.
//
// WaitGroup follows sync.WaitGroup: Wait blocks while the counter is above
// zero, and the Add that brings it to zero releases every waiter, each with
// its own semrelease, in the order they arrived.

package runtime

import "errors"

// sync's fatal errors.
var (
	ErrUnlockOfUnlocked = errors.New("sync: unlock of unlocked mutex")
	ErrNegativeWG       = errors.New("sync: negative WaitGroup counter")
)

const starvationThresholdNs = 1e6 // sync.Mutex's starvationThresholdNs

// semaQueue is the wait queue of one semaphore. Mirrors semaRoot's list
// for one address.
type semaQueue struct {
	gs []*G
}

func (q *semaQueue) push(gp *G, lifo bool) {
	if lifo {
		q.gs = append([]*G{gp}, q.gs...)
		return
	}
	q.gs = append(q.gs, gp)
}

func (q *semaQueue) pop() *G {
	if len(q.gs) == 0 {
		return nil
	}
	gp := q.gs[0]
	q.gs = q.gs[1:]
	return gp
}

// A Mutex is sync.Mutex.
type Mutex struct {
	locked   bool
	starving bool
	sema     semaQueue
	handoff  *G // in starvation mode, the G the mutex was handed to
}

// NewMutex returns an unlocked Mutex.
func (m *Machine) NewMutex() *Mutex { return &Mutex{} }

// Locked reports whether the mutex is held.
func (mu *Mutex) Locked() bool { return mu.locked }

// Waiting returns the goroutines blocked in Lock, in queue order.
func (mu *Mutex) Waiting() []*G { return mu.sema.gs }

// Lock locks mu, blocking while another G holds it. Mirrors
// sync.Mutex.Lock/lockSlow over semacquire1.
func (g *G) Lock(mu *Mutex) {
	g.check()
	m := g.m
	m.touch(mu, AccessWrite)
	if !mu.locked {
		g.fastPath(syncOp) // the compare-and-swap of Lock's fast path
		mu.locked = true
		return
	}
	if g.semtableFirst() && !mu.locked {
		// Unlocked while it touched the table: semacquire1's second
		// cansemacquire finds the unit the Unlock left, and lockSlow
		// takes the lock on its next iteration.
		mu.locked = true
		return
	}
	var waitStart int64 = -1
	for {
		lifo := waitStart >= 0
		if !lifo {
			waitStart = m.now
		}
		mu.sema.push(g, lifo)
		g.waitingOn = append(g.waitingOn[:0], mu)
		m.gopark(g, WaitReasonSyncMutexLock)
		g.co.yield()
		m.touch(mu, AccessWrite)
		if mu.handoff == g {
			// Starvation mode: the mutex was handed to us.
			mu.handoff = nil
			if m.now-waitStart <= starvationThresholdNs || len(mu.sema.gs) == 0 {
				mu.starving = false
			}
			return
		}
		if m.now-waitStart > starvationThresholdNs {
			mu.starving = true
		}
		if !mu.locked {
			mu.locked = true
			return
		}
	}
}

// Unlock unlocks mu, waking the first waiter. Mirrors sync.Mutex.Unlock/
// unlockSlow over semrelease1.
func (g *G) Unlock(mu *Mutex) error {
	g.check()
	g.m.touch(mu, AccessWrite)
	if !mu.locked {
		return ErrUnlockOfUnlocked
	}
	g.fastPath(syncOp)
	gp := mu.sema.pop()
	if gp == nil {
		mu.locked = false
		return nil
	}
	if mu.starving {
		// Hand the mutex to the waiter and yield to it (handoff).
		mu.handoff = gp
		g.goready(gp)
		g.goyield()
		return nil
	}
	mu.locked = false
	g.goready(gp)
	return nil
}

// semtableFirst charges the run's first semaphore wait that parks the
// profile's sema_first, as its G's own work before it queues, and reports
// whether it did: time passed, so the caller looks at its semaphore again,
// as semacquire1 calls cansemacquire once more after it has counted
// itself in root.nwait. That first wait is the first to touch semtable,
// the runtime's table of semaphore queues, and a young process pays for
// the page: on the 2-vCPU AMD EPYC hosts, 14µs at the median from a first
// WaitGroup.Wait to its goroutine's start at GOMAXPROCS=1, where a first
// channel receive's takes 1.4µs and any later park 0.2µs
// (bench/faithfulness/twotimes -rounds; docs/faithfulness.md, "The first
// Wait"). Only the first pays: the table's other pages, which other
// addresses hash to, are left out. A profile without sema_first charges
// nothing and draws nothing.
func (g *G) semtableFirst() bool {
	m := g.m
	if !m.semaFirst {
		return false
	}
	m.semaFirst = false
	g.spendCost(CostSemaFirst)
	return true
}

// goyield puts the running G on the tail of its P's local ring (not the
// global queue, unlike gosched) and reschedules. Mirrors goyield.
func (g *G) goyield() {
	m := g.m
	mp := g.mp
	pp := mp.p
	casgstatus(g, Grunning, Grunnable)
	m.dropg(g)
	m.runqput(pp, g, false)
	m.emit(EvGoSched, pp, mp, g, nil, -1, 1, "")
	m.scheduleAfter(mp, m.switchCost(mp))
	g.co.yield()
}

// A WaitGroup is sync.WaitGroup.
type WaitGroup struct {
	count int64
	sema  semaQueue
}

// NewWaitGroup returns a WaitGroup with a zero counter.
func (m *Machine) NewWaitGroup() *WaitGroup { return &WaitGroup{} }

// Count returns the counter.
func (wg *WaitGroup) Count() int64 { return wg.count }

// Waiting returns the goroutines blocked in Wait, in arrival order.
func (wg *WaitGroup) Waiting() []*G { return wg.sema.gs }

// Add adds delta to the counter; when it reaches zero every waiter is
// released. Mirrors sync.WaitGroup.Add.
func (g *G) Add(wg *WaitGroup, delta int64) error {
	g.check()
	g.m.touch(wg, AccessWrite)
	g.fastPath(syncOp)
	wg.count += delta
	if wg.count < 0 {
		return ErrNegativeWG
	}
	if wg.count > 0 {
		return nil
	}
	for {
		gp := wg.sema.pop()
		if gp == nil {
			return nil
		}
		g.goready(gp)
	}
}

// Wait blocks until the counter is zero. Mirrors sync.WaitGroup.Wait.
func (g *G) Wait(wg *WaitGroup) {
	g.check()
	g.m.touch(wg, AccessWrite)
	if wg.count == 0 {
		g.fastPath(syncOp)
		return
	}
	if g.semtableFirst() && wg.count == 0 {
		return // released meanwhile: semacquire1's second cansemacquire
	}
	wg.sema.push(g, false)
	g.waitingOn = append(g.waitingOn[:0], wg)
	g.m.gopark(g, WaitReasonSyncWaitGroupWait)
	g.co.yield()
}
