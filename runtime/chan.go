// Channels.
//
// A Chan mirrors hchan in chan.go: a ring buffer of dataqsiz slots, and two
// FIFO wait queues of sudogs, recvq and sendq, for goroutines blocked on it.
//
// Invariants (from chan.go):
//
//	At least one of c.sendq and c.recvq is empty, except for an unbuffered
//	channel with a single goroutine blocked on it in both directions through
//	select.
//	For buffered channels, also:
//	  c.qcount > 0 implies that c.recvq is empty.
//	  c.qcount < c.dataqsiz implies that c.sendq is empty.
//
// A value sent to a waiting receiver is handed over directly (no trip
// through the buffer) and the receiver is readied into runnext of the
// sender's P, so it runs next, inheriting the sender's time slice. A
// receiver that finds a sender blocked on a full buffer takes the head of
// the buffer and moves the sender's value to its tail.

package runtime

import (
	"errors"
	"fmt"
)

// Go's panic texts for misuse of channels.
var (
	ErrSendOnClosed  = errors.New("send on closed channel")
	ErrCloseOfClosed = errors.New("close of closed channel")
	ErrCloseOfNil    = errors.New("close of nil channel")
)

// A Chan is a channel of untyped values. A nil *Chan is Go's nil channel:
// sends and receives block forever.
type Chan struct {
	id       int64
	qcount   int   // values in the buffer
	dataqsiz int   // size of the buffer
	buf      []any // the ring
	sendx    int
	recvx    int
	recvq    waitq
	sendq    waitq
	closed   bool
	tmr      *timer // the timer of a timer channel: len and cap read as 0 (c.timer)
}

// A sudog is a G waiting on a channel, in a channel's wait queue.
// Mirrors sudog in runtime2.go.
type sudog struct {
	g        *G
	c        *Chan
	elem     any  // the value to send, or the value received
	isSelect bool // part of a select
	success  bool // woken by a value, not by close
	caseIdx  int  // the select case it stands for
	next     *sudog
	prev     *sudog
	waitlink *sudog // the G's next sudog (select)
}

// waitq is a FIFO of sudogs.
type waitq struct {
	first, last *sudog
}

func (q *waitq) enqueue(sg *sudog) {
	sg.next = nil
	sg.prev = q.last
	if q.last == nil {
		q.first = sg
	} else {
		q.last.next = sg
	}
	q.last = sg
}

// dequeue takes the first sudog whose G can still be woken: a sudog of a
// select that another case already won is dropped. Mirrors waitq.dequeue.
func (q *waitq) dequeue() *sudog {
	for {
		sg := q.first
		if sg == nil {
			return nil
		}
		q.first = sg.next
		if q.first == nil {
			q.last = nil
		} else {
			q.first.prev = nil
		}
		sg.next, sg.prev = nil, nil
		if sg.isSelect {
			if sg.g.selectDone {
				continue
			}
			sg.g.selectDone = true
		}
		return sg
	}
}

// waiting reports whether dequeue would return a sudog: one that is not
// of a select that another case has won already.
func (q *waitq) waiting() bool {
	for sg := q.first; sg != nil; sg = sg.next {
		if !sg.isSelect || !sg.g.selectDone {
			return true
		}
	}
	return false
}

// remove unlinks sg from the queue, if it is there. Mirrors dequeueSudoG.
func (q *waitq) remove(sg *sudog) {
	if sg.prev == nil && q.first != sg {
		return // not on the queue
	}
	if sg.prev != nil {
		sg.prev.next = sg.next
	} else {
		q.first = sg.next
	}
	if sg.next != nil {
		sg.next.prev = sg.prev
	} else {
		q.last = sg.prev
	}
	sg.next, sg.prev = nil, nil
}

// gs returns the goroutines waiting on the queue, in order.
func (q *waitq) gs() []*G {
	var gs []*G
	for sg := q.first; sg != nil; sg = sg.next {
		if !sg.isSelect || !sg.g.selectDone {
			gs = append(gs, sg.g)
		}
	}
	return gs
}

// NewChan makes a channel with a buffer of size size (make(chan T, size)).
func (m *Machine) NewChan(size int) (*Chan, error) {
	if size < 0 || size > 1<<24 {
		return nil, fmt.Errorf("makechan: size out of range")
	}
	return m.newChan(size), nil
}

func (m *Machine) newChan(size int) *Chan {
	m.nchan++
	c := &Chan{id: m.nchan, dataqsiz: size}
	if size > 0 {
		c.buf = make([]any, size)
	}
	return c
}

// ID returns the channel's number, in order of creation from 1; 0 for the
// nil channel.
func (c *Chan) ID() int64 {
	if c == nil {
		return 0
	}
	return c.id
}

// IsTimer reports whether c is the channel of a timer or ticker (a
// receive-only <-chan Time in Go).
func (c *Chan) IsTimer() bool { return c != nil && c.tmr != nil }

// Len returns the number of values buffered (len(ch)).
func (c *Chan) Len() int {
	if c == nil || c.tmr != nil {
		return 0 // timer channels present as unbuffered (chanlen)
	}
	return c.qcount
}

// Cap returns the size of the buffer (cap(ch)).
func (c *Chan) Cap() int {
	if c == nil || c.tmr != nil {
		return 0
	}
	return c.dataqsiz
}

// Closed reports whether the channel was closed.
func (c *Chan) Closed() bool { return c != nil && c.closed }

// Buffered returns the values in the buffer, oldest first (for the leak
// check, which must walk them).
func (c *Chan) Buffered() []any {
	if c == nil {
		return nil
	}
	var vs []any
	for i := 0; i < c.qcount; i++ {
		vs = append(vs, c.buf[(c.recvx+i)%c.dataqsiz])
	}
	return vs
}

// Waiting returns the goroutines blocked receiving and sending on c.
func (c *Chan) Waiting() (recv, send []*G) { return c.recvq.gs(), c.sendq.gs() }

// bufPut appends v to the buffer, which has room.
func (c *Chan) bufPut(v any) {
	c.buf[c.sendx] = v
	c.sendx = (c.sendx + 1) % c.dataqsiz
	c.qcount++
}

// bufTake removes and returns the oldest buffered value.
func (c *Chan) bufTake() any {
	v := c.buf[c.recvx]
	c.buf[c.recvx] = nil
	c.recvx = (c.recvx + 1) % c.dataqsiz
	c.qcount--
	return v
}

func (c *Chan) full() bool {
	if c.dataqsiz == 0 {
		return c.recvq.first == nil
	}
	return c.qcount == c.dataqsiz
}

func (c *Chan) empty() bool {
	if c.dataqsiz == 0 {
		return c.sendq.first == nil
	}
	return c.qcount == 0
}

// goready readies gp, woken by g, into runnext of g's P. Mirrors goready.
func (g *G) goready(gp *G) {
	g.m.ready(gp, g.mp.p, g, true)
}

// chansend sends v on c. With block false it returns false instead of
// blocking. Mirrors chansend.
func (g *G) chansend(c *Chan, v any, block bool) (bool, error) {
	m := g.m
	if c == nil {
		if !block {
			return false, nil
		}
		m.gopark(g, WaitReasonChanSendNilChan)
		g.co.yield()
		throw("unreachable: woke from a send on a nil channel")
	}
	if !block && !c.closed && c.full() {
		m.touch(c, AccessRead)
		g.fastPath(syncOp) // the lock-free check
		return false, nil
	}
	m.touch(c, AccessWrite)
	if c.closed {
		return false, ErrSendOnClosed
	}
	if sg := c.recvq.dequeue(); sg != nil {
		// Found a waiting receiver: pass the value straight to it.
		g.fastPath(chanOp)
		g.send(c, sg, v)
		return true, nil
	}
	if c.qcount < c.dataqsiz {
		g.fastPath(chanOp)
		c.bufPut(v)
		return true, nil
	}
	if !block {
		return false, nil
	}
	// Block on the channel until a receiver takes the value.
	mysg := m.acquireSudog(g, c)
	mysg.elem = v
	c.sendq.enqueue(mysg)
	g.waitingOn = append(g.waitingOn[:0], c)
	m.gopark(g, WaitReasonChanSend)
	g.co.yield()
	g.param = nil
	ok := mysg.success
	m.releaseSudog(mysg)
	if !ok {
		return false, ErrSendOnClosed
	}
	return true, nil
}

// acquireSudog returns a sudog for g waiting on c, from the Machine's
// cache when it has one. Mirrors acquireSudog, whose cache is per P; here
// only one G runs at a time, and one cache serves them all.
func (m *Machine) acquireSudog(g *G, c *Chan) *sudog {
	var sg *sudog
	if n := len(m.sudogcache); n > 0 {
		sg = m.sudogcache[n-1]
		m.sudogcache[n-1] = nil
		m.sudogcache = m.sudogcache[:n-1]
	} else {
		sg = new(sudog)
	}
	sg.g, sg.c = g, c
	return sg
}

// releaseSudog clears sg, which must be on no wait queue any more, and
// keeps it for the next acquireSudog. Mirrors releaseSudog.
func (m *Machine) releaseSudog(sg *sudog) {
	if sg.next != nil || sg.prev != nil {
		throw("releaseSudog: sudog still on a wait queue")
	}
	*sg = sudog{}
	if len(m.sudogcache) < sudogCacheMax {
		m.sudogcache = append(m.sudogcache, sg)
	}
}

// sudogCacheMax bounds the sudogs kept for reuse (the runtime keeps up to
// 128 per P, and moves half to a central cache when one fills).
const sudogCacheMax = 128

// send hands v to the receiver sg and readies it. Mirrors send.
func (g *G) send(c *Chan, sg *sudog, v any) {
	sg.elem = v
	sg.success = true
	sg.g.param = sg
	g.goready(sg.g)
}

// chanrecv receives from c. selected is false only for a non-blocking
// receive that found nothing; received is false when c is closed and
// drained (v is then nil). Mirrors chanrecv.
func (g *G) chanrecv(c *Chan, block bool) (v any, selected, received bool) {
	m := g.m
	if c == nil {
		if !block {
			return nil, false, false
		}
		m.gopark(g, WaitReasonChanReceiveNilChan)
		g.co.yield()
		throw("unreachable: woke from a receive on a nil channel")
	}
	if c.tmr != nil {
		m.maybeRunChan(c, g.mp.p)
	}
	if !block && c.empty() && !c.closed {
		m.touch(c, AccessRead)
		g.fastPath(syncOp) // the lock-free check
		return nil, false, false
	}
	m.touch(c, AccessWrite)
	if !block && c.empty() {
		if !c.closed {
			return nil, false, false
		}
		if c.empty() {
			g.fastPath(syncOp)
			return nil, true, false
		}
	}
	if c.closed {
		if c.qcount == 0 {
			g.fastPath(chanOp)
			return nil, true, false
		}
	} else if sg := c.sendq.dequeue(); sg != nil {
		// A sender is waiting: take its value (unbuffered) or the head of
		// the full buffer, and let it go.
		g.fastPath(chanOp)
		return g.recv(c, sg), true, true
	}
	if c.qcount > 0 {
		g.fastPath(chanOp)
		v = c.bufTake()
		return v, true, true
	}
	if !block {
		return nil, false, false
	}
	mysg := m.acquireSudog(g, c)
	c.recvq.enqueue(mysg)
	if c.tmr != nil {
		m.blockTimerChan(c, g.mp.p)
	}
	g.waitingOn = append(g.waitingOn[:0], c)
	m.gopark(g, WaitReasonChanReceive)
	g.co.yield()
	if c.tmr != nil {
		m.unblockTimerChan(c)
	}
	g.param = nil
	v, received = mysg.elem, mysg.success
	m.releaseSudog(mysg)
	return v, true, received
}

// recv takes a value from the blocked sender sg and readies it.
// Mirrors recv.
func (g *G) recv(c *Chan, sg *sudog) any {
	var v any
	if c.dataqsiz == 0 {
		v = sg.elem
	} else {
		// The buffer is full: take its head, put the sender's value at
		// its tail.
		v = c.buf[c.recvx]
		c.buf[c.recvx] = sg.elem
		c.recvx = (c.recvx + 1) % c.dataqsiz
		c.sendx = c.recvx
	}
	sg.elem = nil
	sg.success = true
	sg.g.param = sg
	g.goready(sg.g)
	return v
}

// chansendTimer is the send of a firing timer: non-blocking, from no
// goroutine, readying a waiting receiver onto pp; with nobody waiting and
// the one-slot buffer full (a tick not yet read), the value is dropped.
// Mirrors sendTime.
func (m *Machine) chansendTimer(c *Chan, pp *P, now int64) {
	m.touch(c, AccessWrite)
	if sg := c.recvq.dequeue(); sg != nil {
		sg.elem = now
		sg.success = true
		sg.g.param = sg
		m.ready(sg.g, pp, nil, true)
		return
	}
	if c.qcount < c.dataqsiz {
		c.bufPut(now)
	}
}

// closechan closes c and wakes every waiter: receivers get the zero value,
// senders will panic. The Gs are collected on a gList, a stack, and readied
// from it, so the last collected runs first... then each goready pushes the
// previous one out of runnext. Mirrors closechan.
func (g *G) closechan(c *Chan) error {
	if c != nil {
		g.m.touch(c, AccessWrite)
		g.fastPath(chanOp)
	}
	glist, err := closechanList(c)
	for !glist.empty() {
		g.goready(glist.pop())
	}
	return err
}

// closechanList closes c and returns the Gs to ready, receivers first, on
// a gList (so the last receiver queued comes first), as closechan collects
// them before readying any.
func closechanList(c *Chan) (gList, error) {
	var glist gList
	if c == nil {
		return glist, ErrCloseOfNil
	}
	if c.closed {
		return glist, ErrCloseOfClosed
	}
	c.closed = true
	for {
		sg := c.recvq.dequeue()
		if sg == nil {
			break
		}
		sg.elem = nil
		sg.success = false
		sg.g.param = sg
		glist.push(sg.g)
	}
	for {
		sg := c.sendq.dequeue()
		if sg == nil {
			break
		}
		sg.elem = nil
		sg.success = false
		sg.g.param = sg
		glist.push(sg.g)
	}
	return glist, nil
}

// Send sends v on c (c <- v), blocking until a receiver or buffer slot takes
// it. A nil c blocks forever. The error is Go's panic for a closed channel.
func (g *G) Send(c *Chan, v any) error {
	g.check()
	_, err := g.chansend(c, v, true)
	return err
}

// Recv receives from c (v, ok := <-c), blocking until a value or close.
func (g *G) Recv(c *Chan) (v any, ok bool) {
	g.check()
	v, _, ok = g.chanrecv(c, true)
	return v, ok
}

// Close closes c (close(c)). The error is Go's panic for a nil or closed
// channel.
func (g *G) Close(c *Chan) error {
	g.check()
	return g.closechan(c)
}
