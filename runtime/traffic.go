// Traffic: load from hosts outside the process.
//
// A traffic source is a load generator on another host, as wrk2 is: it
// uses no G, M or P of the simulated process. Its clients connect to a
// listening port over the network (net.go), send requests, and time the
// replies. Everything it does is a world action on the Machine's clock,
// and every random draw (the arrival times) comes from the run's one PRNG,
// so a seed still decides everything.
//
// Open loop (the default): request i is due at its scheduled time whatever
// the server does, and its latency is counted from that time, not from
// when it could be sent: a server that stalls is charged for the requests
// that queued behind the stall. This is wrk2's answer to coordinated
// omission. The gaps between scheduled times are exponential (arrival
// "poisson"), uniform on [0, 2/rate] ("uniform") or constant ("const").
//
// Closed loop (Think >= 0): each of Conns clients sends a request, waits
// for its reply, thinks, and sends the next; latency is counted from the
// send.
//
// Connections: with Conns = 0 each request has its own connection, opened
// at the request's scheduled time (a round trip before the request can
// go) and closed by the client once the reply is in, as a client without
// keep-alive does. With Conns = k > 0, k connections are opened at the
// start and request i goes on connection i mod k; replies on a connection
// answer its requests in order, as HTTP/1.1 pipelining does.

package runtime

import (
	"fmt"
	"math"
	"strconv"
)

// A TrafficConfig describes a traffic source. Rate or Every sets the mean
// gap between requests; N or Duration (or both) bound how many are sent.
type TrafficConfig struct {
	Addr     string  // the host:port it connects to
	Rate     float64 // requests per second (open loop)
	Every    int64   // or: ns between requests (open loop)
	Arrival  string  // "poisson" (default), "uniform" or "const"
	N        int64   // requests in all; 0: as many as fit in Duration
	Duration int64   // ns from the start during which requests are due; 0: until N are sent
	Conns    int     // 0: a connection per request; k: k connections, reused
	Think    int64   // closed loop: a client's pause between a reply and its next request; -1: open loop
	// Request makes the message of request id, due (or sent) at sent; nil
	// sends the id.
	Request func(id, sent int64) any
}

// Arrivals are the arrival processes a traffic source knows.
var Arrivals = []string{"poisson", "uniform", "const"}

// check validates the configuration, in the words a script sees.
func (cfg *TrafficConfig) check() error {
	if _, err := parsePort(cfg.Addr); err != nil {
		return err
	}
	closed := cfg.Think >= 0
	switch {
	case cfg.Rate < 0 || math.IsNaN(cfg.Rate) || math.IsInf(cfg.Rate, 0):
		return fmt.Errorf("rate %v: want a positive number of requests per second", cfg.Rate)
	case cfg.Every < 0:
		return fmt.Errorf("every %s: want a positive duration", FormatDuration(cfg.Every))
	case cfg.Rate > 0 && cfg.Every > 0:
		return fmt.Errorf("give rate= or every=, not both")
	case !closed && cfg.Rate == 0 && cfg.Every == 0:
		return fmt.Errorf("give rate= (requests per second) or every= (the gap between requests), positive")
	case cfg.N < 0:
		return fmt.Errorf("n %d: want at least 0 requests", cfg.N)
	case cfg.Duration < 0:
		return fmt.Errorf("duration %s: want a positive duration", FormatDuration(cfg.Duration))
	case cfg.N == 0 && cfg.Duration == 0:
		return fmt.Errorf("give n= (how many requests) or duration= (how long), or both")
	case cfg.Conns < 0:
		return fmt.Errorf("conns %d: want 0 (a connection per request) or more", cfg.Conns)
	case closed && (cfg.Rate > 0 || cfg.Every > 0):
		return fmt.Errorf("think= makes a closed loop, paced by replies: rate= and every= do not apply")
	}
	known := false
	for _, a := range Arrivals {
		known = known || cfg.Arrival == a
	}
	if !known {
		return fmt.Errorf("unknown arrival %q: want one of poisson, uniform, const", cfg.Arrival)
	}
	return nil
}

// A Traffic is a running traffic source.
type Traffic struct {
	m      *Machine
	cfg    TrafficConfig
	port   int
	t0     int64
	gap    float64 // the mean gap in ns (open loop)
	issued int64   // requests issued (scheduled) so far
	stop   bool    // no more requests will be issued
	done   int64   // replies received
	last   int64   // when the last reply came (t0 before the first)
	failed int64   // requests that got no reply (refused, or the server closed first)
	lat    []int64 // the latencies of answered requests, in the order they came
	pool   []*trafficClient
	nextIP int
	doneC  *Chan // closed once every issued request is answered or failed
}

// A trafficClient is one connection of a traffic source: the client's
// socket, a netEnd on another host.
type trafficClient struct {
	tr         *Traffic
	laddr      string
	server     *Conn        // the server's socket, once the SYN got there
	ready      bool         // the handshake is done
	refused    bool         // the SYN was answered by a reset
	closed     bool         // closed, by the client or the server
	waiting    []trafficReq // requests sent, not yet answered, in order
	queued     []trafficReq // requests issued before the handshake was done
	lastArrive int64
}

// A trafficReq is one request: its id and when it was due, the time its
// latency counts from.
type trafficReq struct{ id, due int64 }

// StartTraffic starts a traffic source now. g is the goroutine that
// called traffic(); its P gets nothing. Mirrors no runtime function: this
// is the world outside the process.
func (g *G) StartTraffic(cfg TrafficConfig) (*Traffic, error) {
	g.check()
	if cfg.Arrival == "" {
		cfg.Arrival = "poisson"
	}
	if cfg.Request == nil {
		cfg.Request = func(id, _ int64) any { return id }
	}
	if err := cfg.check(); err != nil {
		return nil, err
	}
	m := g.m
	port, _ := parsePort(cfg.Addr)
	doneC, err := m.NewChan(0)
	if err != nil {
		return nil, err
	}
	tr := &Traffic{m: m, cfg: cfg, port: port, t0: m.now, last: m.now, doneC: doneC}
	nw := m.netw()
	nw.traffics = append(nw.traffics, tr)
	switch {
	case cfg.Every > 0:
		tr.gap = float64(cfg.Every)
	case cfg.Rate > 0:
		tr.gap = 1e9 / cfg.Rate
	}
	for range cfg.Conns {
		tr.pool = append(tr.pool, tr.connect())
	}
	if cfg.Think >= 0 {
		// Closed loop: each client (one, with conns=0) sends at once,
		// once its connection is up.
		if len(tr.pool) == 0 {
			tr.pool = append(tr.pool, tr.connect())
		}
		for _, c := range tr.pool {
			if tr.more() {
				tr.issueOn(c)
			}
		}
	} else {
		m.after(0, action{kind: actWorld, fn: tr.arrive})
	}
	return tr, nil
}

// Done returns the channel closed when the source has issued every
// request and each is answered or failed: what t.wait() receives from.
func (tr *Traffic) Done() *Chan { return tr.doneC }

// Addr returns the address the source sends to.
func (tr *Traffic) Addr() string { return tr.cfg.Addr }

// Counts returns the requests issued, answered and failed so far.
func (tr *Traffic) Counts() (issued, answered, failed int64) { return tr.issued, tr.done, tr.failed }

// Latencies returns the latency of every answered request, in ns, in the
// order the replies came. The slice is the source's own: do not change it.
func (tr *Traffic) Latencies() []int64 { return tr.lat }

// Span returns when the source started and when its last reply came, in
// virtual ns: the time over which its throughput counts. Both are the
// start while no reply has come.
func (tr *Traffic) Span() (start, end int64) { return tr.t0, tr.last }

// Traffics returns every traffic source started in the run, in order.
func (m *Machine) Traffics() []*Traffic {
	if m.net == nil {
		return nil
	}
	return m.net.traffics
}

// connect opens a new client connection: its SYN reaches the server one
// latency from now, and its SYN-ACK comes back one latency later.
func (tr *Traffic) connect() *trafficClient {
	m := tr.m
	nw := m.netw()
	tr.nextIP++
	c := &trafficClient{tr: tr, laddr: "203.0.113.1:" + strconv.Itoa(40000+tr.nextIP%20000)}
	lat := nw.latency
	m.after(lat, action{kind: actWorld, fn: func() {
		var l *Listener
		c.server, l = m.synArrives(tr.port, c.laddr, c)
		m.after(lat, action{kind: actWorld, fn: func() {
			if c.server == nil {
				c.refused = true
				tr.failed += int64(len(c.queued))
				c.queued = nil
				tr.checkDone()
				return
			}
			// The SYN-ACK is here: the ACK leaves, and the requests
			// that waited for the connection go right behind it.
			s := c.server
			s.lastArrive = max(s.lastArrive, addWhen(m.now, lat))
			m.after(lat, action{kind: actWorld, fn: func() { m.ackArrives(l, s) }})
			c.ready = true
			for _, r := range c.queued {
				c.send(r)
			}
			c.queued = nil
		}})
	}})
	return c
}

// arrive is the open loop's next scheduled request: issue it, and queue
// the one after, unless the source is done.
func (tr *Traffic) arrive() {
	if tr.stop {
		return
	}
	var c *trafficClient
	if len(tr.pool) > 0 {
		c = tr.pool[tr.issued%int64(len(tr.pool))]
	} else {
		c = tr.connect()
	}
	tr.issueOn(c)
	gap := tr.nextGap()
	next := addWhen(tr.m.now, gap)
	if tr.cfg.N > 0 && tr.issued >= tr.cfg.N || tr.cfg.Duration > 0 && next-tr.t0 >= tr.cfg.Duration {
		tr.stop = true
		tr.checkDone()
		return
	}
	tr.m.after(next-tr.m.now, action{kind: actWorld, fn: tr.arrive})
}

// nextGap draws the gap to the next scheduled request, in ns.
func (tr *Traffic) nextGap() int64 {
	m := tr.m
	var g float64
	switch tr.cfg.Arrival {
	case "poisson":
		g = m.rng.ExpFloat64() * tr.gap
	case "uniform":
		g = m.rng.Float64() * 2 * tr.gap
	default:
		g = tr.gap
	}
	if g >= math.MaxInt64 {
		return math.MaxInt64
	}
	return int64(math.Round(g))
}

// issueOn issues the next request on c: it is due now.
func (tr *Traffic) issueOn(c *trafficClient) {
	r := trafficReq{id: tr.issued, due: tr.m.now}
	tr.issued++
	switch {
	case c.refused || c.closed:
		tr.failed++
	case !c.ready:
		c.queued = append(c.queued, r)
	default:
		c.send(r)
	}
}

// send sends request r on c. In a closed loop its latency counts from now,
// the send; in the open loop, from when it was due.
func (c *trafficClient) send(r trafficReq) {
	tr := c.tr
	if tr.cfg.Think >= 0 {
		r.due = tr.m.now
	}
	c.waiting = append(c.waiting, r)
	tr.m.netSend(c.server, tr.cfg.Request(r.id, r.due))
}

// deliver is a reply arriving at the client: it answers the oldest request
// waiting on the connection. A client of its own closes the connection
// then; a closed-loop client thinks and sends the next request.
func (c *trafficClient) deliver(any) {
	tr := c.tr
	if c.closed || len(c.waiting) == 0 {
		return // a reply to nothing: not counted
	}
	r := c.waiting[0]
	c.waiting = c.waiting[1:]
	tr.lat = append(tr.lat, tr.m.now-r.due)
	tr.done++
	tr.last = tr.m.now
	switch {
	case tr.cfg.Think >= 0:
		if tr.more() {
			tr.m.after(tr.cfg.Think, action{kind: actWorld, fn: func() {
				if tr.more() {
					tr.issueOn(c)
				} else {
					tr.stop = true
					tr.checkDone()
				}
			}})
			return
		}
		tr.stop = true
	case len(tr.pool) == 0:
		c.close()
	}
	tr.checkDone()
}

// more reports whether a closed-loop client may send another request.
func (tr *Traffic) more() bool {
	if tr.cfg.N > 0 && tr.issued >= tr.cfg.N {
		return false
	}
	return tr.cfg.Duration == 0 || tr.m.now-tr.t0 < tr.cfg.Duration
}

// fin is the server closing the connection: what was sent on it and not
// answered has failed.
func (c *trafficClient) fin() {
	tr := c.tr
	if c.closed {
		return
	}
	c.closed = true
	tr.failed += int64(len(c.waiting) + len(c.queued))
	c.waiting, c.queued = nil, nil
	if tr.cfg.Think >= 0 && !tr.stop {
		// A closed-loop client whose connection is gone sends no more.
		tr.stop = true
	}
	tr.checkDone()
}

// close is the client closing its connection: the server reads EOF.
func (c *trafficClient) close() {
	if c.closed {
		return
	}
	c.closed = true
	if c.server != nil {
		c.tr.m.netFin(c.server)
	}
}

// arrival returns when the last message sent to c arrives.
func (c *trafficClient) arrival() *int64 { return &c.lastArrive }

// checkDone finishes the source once it has stopped issuing and every
// issued request is answered or failed: its connections are closed and
// its done channel too, which wakes t.wait() from outside the process, as
// the host wakes a goroutine (on the global queue).
func (tr *Traffic) checkDone() {
	if !tr.stop || tr.done+tr.failed < tr.issued || tr.doneC.closed {
		return
	}
	for _, c := range tr.pool {
		c.close()
	}
	glist, _ := closechanList(tr.doneC)
	for gp := glist.pop(); gp != nil; gp = glist.pop() {
		tr.m.ready(gp, nil, nil, false)
	}
}
