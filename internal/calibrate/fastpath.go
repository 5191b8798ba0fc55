package calibrate

import (
	"sync"
	"sync/atomic"

	"github.com/schedlab/schedlab/runtime"
)

// The fast paths: what an operation that does not park costs the
// goroutine that makes it.
//
// A channel operation or a lock that finds what it needs is a few dozen
// instructions of the goroutine's own, no switch: an uncontended Lock is a
// compare-and-swap, a buffered send takes the channel's lock, copies the
// value and lets the lock go. The engine charges such an operation with
// the goroutine's next steps (runtime's G.fastPath): chan_op for one that
// takes a channel's lock (chansend, chanrecv, selectgo's first pass) and
// sync_op for an atomic fast path (sync.Mutex, RWMutex, WaitGroup, Cond's
// notify list, sync/atomic, and a poll of a channel that finds nothing,
// which chansend and chanrecv answer without the lock). Each is measured
// here as a Go loop of the operation alone, on one goroutine, timed on the
// monotonic clock: the distribution is over the operations of the kind and
// the rounds, so its median is a typical operation's. A select of several
// cases locks each case's channel, and costs about a channel operation a
// case: it is timed per case, and charged so.

// A fastPathOp is one operation, in Go.
type fastPathOp struct {
	name string
	cost runtime.CostKind // chan_op or sync_op
	ops  int              // operations a turn of loop makes
	loop func(n int)      // n turns
}

// The operations' state lives in package variables; a channel operation
// is never left out by the compiler, used or not.
var (
	fastMu   sync.Mutex
	fastRW   sync.RWMutex
	fastWG   sync.WaitGroup
	fastCond = sync.NewCond(&fastMu)
	fastBuf  = make(chan int, 1)
	fastNone = make(chan int)
	fastTwo  = make(chan int)
	fastInt  atomic.Int64
)

var fastPathOps = []fastPathOp{
	{"buffered send, receive", runtime.CostChanOp, 2, func(n int) {
		for i := range n {
			fastBuf <- i
			<-fastBuf
		}
	}},
	{"select of two cases with a default, a case", runtime.CostChanOp, 2, func(n int) {
		for range n {
			select {
			case <-fastNone:
			case <-fastTwo:
			default:
			}
		}
	}},
	{"Lock, Unlock", runtime.CostSyncOp, 2, func(n int) {
		for range n {
			fastMu.Lock()
			//lint:ignore SA2001 the empty section is what is timed
			fastMu.Unlock()
		}
	}},
	{"RLock, RUnlock", runtime.CostSyncOp, 2, func(n int) {
		for range n {
			fastRW.RLock()
			//lint:ignore SA2001 the empty section is what is timed
			fastRW.RUnlock()
		}
	}},
	{"WaitGroup Add, Done", runtime.CostSyncOp, 2, func(n int) {
		for range n {
			fastWG.Add(1)
			fastWG.Done()
		}
	}},
	{"Signal with no waiter", runtime.CostSyncOp, 1, func(n int) {
		for range n {
			fastCond.Signal()
		}
	}},
	{"atomic Add", runtime.CostSyncOp, 1, func(n int) {
		for range n {
			fastInt.Add(1)
		}
	}},
	{"poll of an empty channel", runtime.CostSyncOp, 1, func(n int) {
		for range n {
			select {
			case <-fastNone:
			default:
			}
		}
	}},
}

// fastPathIters is the number of turns of one timing.
const fastPathIters = 20_000

// measureFastPaths returns rounds samples of each operation's ns, by the
// cost it is charged as.
func measureFastPaths(rounds int) map[runtime.CostKind][]float64 {
	out := map[runtime.CostKind][]float64{}
	for r := range rounds + 1 {
		for _, op := range fastPathOps {
			t0 := now()
			op.loop(fastPathIters)
			ns := float64(now()-t0) / float64(fastPathIters*op.ops)
			if r > 0 { // the first round warms the caches up
				out[op.cost] = append(out[op.cost], ns)
			}
		}
	}
	return out
}
