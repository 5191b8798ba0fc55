// Select.
//
// selectgo in select.go, step by step: a random poll order over the cases
// (so no case is favoured), then
//
//	pass 1 - look for a case that can go ahead now, in poll order;
//	pass 2 - if none and there is no default, enqueue a sudog on every
//	         channel and park;
//	pass 3 - when woken, dequeue from the channels that did not win.
//
// A select with one case and no default is compiled by Go into a plain send
// or receive, and one case plus default into a non-blocking one
// (selectnbsend/selectnbrecv); Select does the same, so the wait reason and
// the absence of a random draw match what Go does.

package runtime

// SelectDir is the direction of a select case.
type SelectDir uint8

// Select case directions.
const (
	SelectRecv SelectDir = iota // case v, ok := <-c
	SelectSend                  // case c <- v
)

// A SelectCase is one case of a select. A nil Chan is a case that is never
// ready, as in Go.
type SelectCase struct {
	Dir  SelectDir
	Chan *Chan
	Send any // the value to send, for SelectSend
}

// Select runs a select statement over cases. With block false the select
// has a default clause, chosen (index -1) when no case is ready. It returns
// the chosen case, the value received and whether it came from a send (ok is
// false for a receive from a closed channel). The error is Go's panic for a
// send on a closed channel. Mirrors selectgo, and for one case the
// compiler's rewrite into chansend/chanrecv or selectnbsend/selectnbrecv.
// It keeps selectgo's shape, one function in passes (gocyclo 29), so that
// it reads beside the real one.
func (g *G) Select(cases []SelectCase, block bool) (chosen int, v any, ok bool, err error) {
	g.check()
	m := g.m

	// The compiler's special cases.
	if len(cases) == 0 && !block {
		return -1, nil, false, nil
	}
	if len(cases) == 1 {
		c := cases[0]
		if c.Dir == SelectSend {
			sent, err := g.chansend(c.Chan, c.Send, block)
			if err != nil {
				return 0, nil, false, err
			}
			if !sent {
				return -1, nil, false, nil
			}
			return 0, nil, false, nil
		}
		v, selected, received := g.chanrecv(c.Chan, block)
		if !selected {
			return -1, nil, false, nil
		}
		return 0, v, received, nil
	}

	// Generate the permuted order: an inside-out Fisher-Yates shuffle of
	// the cases with non-nil channels. Mirrors selectgo.
	pollorder := make([]int, 0, len(cases))
	for i := range cases {
		if cases[i].Chan == nil {
			continue
		}
		if c := cases[i].Chan; c.tmr != nil {
			m.maybeRunChan(c, g.mp.p)
		}
		j := int(m.cheaprandn(uint32(len(pollorder) + 1)))
		pollorder = append(pollorder, 0)
		pollorder[len(pollorder)-1] = pollorder[j]
		pollorder[j] = i
	}

	if m.cfg.Chooser != nil {
		m.chooseReadyCase(g, cases, pollorder)
	}
	if m.tracker != nil {
		g.touchCases(cases, AccessRead)
	}

	// pass 1 - look for something already waiting. selectgo holds every
	// case's channel lock for it (sellock): whether a case is ready or the
	// default wins, the select costs a channel operation a case
	// (fastPath).
	for _, casi := range pollorder {
		cas := &cases[casi]
		c := cas.Chan
		if caseReady(cas) { // this case wins: each branch below returns
			g.selectFastPath(len(pollorder))
			if m.tracker != nil {
				m.touch(c, AccessWrite)
			}
		}
		if cas.Dir == SelectRecv {
			if sg := c.sendq.dequeue(); sg != nil {
				return casi, g.recv(c, sg), true, nil
			}
			if c.qcount > 0 {
				return casi, c.bufTake(), true, nil
			}
			if c.closed {
				return casi, nil, false, nil
			}
		} else {
			if c.closed {
				return casi, nil, false, ErrSendOnClosed
			}
			if sg := c.recvq.dequeue(); sg != nil {
				g.send(c, sg, cas.Send)
				return casi, nil, false, nil
			}
			if c.qcount < c.dataqsiz {
				c.bufPut(cas.Send)
				return casi, nil, false, nil
			}
		}
	}
	if !block {
		g.selectFastPath(len(pollorder))
		return -1, nil, false, nil
	}

	// pass 2 - enqueue on all chans
	if len(pollorder) == 0 {
		// select {}, or every case on a nil channel: nothing can ever
		// wake it (block, or selectgo parking on no channel).
		reason := WaitReasonSelect
		if len(cases) == 0 {
			reason = WaitReasonSelectNoCases
		}
		g.waitingOn = g.waitingOn[:0]
		m.gopark(g, reason)
		g.co.yield()
		throw("unreachable: woke from select with no cases")
	}
	g.selectDone = false
	g.param = nil
	g.waitingOn = g.waitingOn[:0]
	if m.tracker != nil {
		g.touchCases(cases, AccessWrite)
	}
	// The G's sudogs, in case order, linked through waitlink from
	// g.waiting, as selectgo links them.
	nextp := &g.waiting
	for i := range cases {
		cas := &cases[i]
		if cas.Chan == nil {
			continue
		}
		sg := m.acquireSudog(g, cas.Chan)
		sg.isSelect, sg.caseIdx = true, i
		if cas.Dir == SelectSend {
			sg.elem = cas.Send
			cas.Chan.sendq.enqueue(sg)
		} else {
			cas.Chan.recvq.enqueue(sg)
		}
		*nextp = sg
		nextp = &sg.waitlink
		g.waitingOn = append(g.waitingOn, cas.Chan)
		if cas.Chan.tmr != nil {
			m.blockTimerChan(cas.Chan, g.mp.p)
		}
	}
	m.gopark(g, WaitReasonSelect)
	g.co.yield()

	// pass 3 - dequeue from unsuccessful chans
	if m.tracker != nil {
		g.touchCases(cases, AccessWrite)
	}
	won, _ := g.param.(*sudog)
	g.param = nil
	g.selectDone = false
	if won == nil {
		throw("selectgo: woken without a winning case")
	}
	idx, elem, success := won.caseIdx, won.elem, won.success
	sg := g.waiting
	g.waiting = nil
	for sg != nil {
		if sg.c.tmr != nil {
			m.unblockTimerChan(sg.c)
		}
		if sg != won {
			if cases[sg.caseIdx].Dir == SelectSend {
				sg.c.sendq.remove(sg)
			} else {
				sg.c.recvq.remove(sg)
			}
		}
		next := sg.waitlink
		m.releaseSudog(sg)
		sg = next
	}
	if cases[idx].Dir == SelectSend {
		if !success {
			return idx, nil, false, ErrSendOnClosed
		}
		return idx, nil, false, nil
	}
	return idx, elem, success, nil
}

// selectFastPath charges g a select of n channels that does not park: a
// channel operation each, as selectgo locks and unlocks each (fastPath).
func (g *G) selectFastPath(n int) {
	for range n {
		g.fastPath(chanOp)
	}
}

// chooseReadyCase asks the Chooser which of the ready cases wins, when
// more than one is (choice.go), and moves it to the front of pollorder,
// where pass 1 takes it: the ready cases are ranked in case order, so an
// answer names the same case whatever order the PRNG drew.
func (m *Machine) chooseReadyCase(g *G, cases []SelectCase, pollorder []int) {
	var ready []int
	for i := range cases {
		if cases[i].Chan != nil && caseReady(&cases[i]) {
			ready = append(ready, i)
		}
	}
	if len(ready) < 2 {
		return
	}
	won := ready[m.choose(ChoiceSelect, g, len(ready))]
	for j, casi := range pollorder {
		if casi == won {
			copy(pollorder[1:j+1], pollorder[:j])
			pollorder[0] = won
			return
		}
	}
}

// caseReady reports whether pass 1 of a select would take cas now.
func caseReady(cas *SelectCase) bool {
	c := cas.Chan
	if cas.Dir == SelectRecv {
		return c.sendq.waiting() || c.qcount > 0 || c.closed
	}
	return c.closed || c.recvq.waiting() || c.qcount < c.dataqsiz
}

// touchCases records an access of every case's channel (Tracker).
func (g *G) touchCases(cases []SelectCase, a Access) {
	for i := range cases {
		if c := cases[i].Chan; c != nil {
			g.m.touch(c, a)
		}
	}
}
