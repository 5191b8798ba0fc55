// Sockets: listeners, connections, and the network between hosts.
//
// This is the kernel's side of the netpoller and internal/poll's FD on top
// of it. A connection is a pair of sockets, each with its receive buffer;
// a message written on one end arrives in the other's buffer one network
// latency later, in order (TCP), and the kernel then marks the receiving
// descriptor ready (netpollNotify). A read takes the next message from the
// buffer if there is one, as read(2) on a non-blocking socket does, and
// otherwise waits in the poller (pollWait, "IO wait"): the read loop of
// internal/poll's (*FD).Read. Messages are values, not bytes: one write is
// one message, and one read returns one.
//
// Connecting takes a round trip for the client and one and a half for the
// server, as TCP's handshake does: the SYN reaches the listening host
// after one latency, the SYN-ACK comes back after another and the
// dialer's descriptor becomes writable (connect's EINPROGRESS, then
// waitWrite), and the client's ACK reaches the server after a third: only
// then does the connection join the listener's accept queue (the
// listener's descriptor becomes readable). A client's first message goes
// right behind the ACK, so a server usually accepts a connection with its
// request already in the buffer. A SYN to a port nobody listens
// on is answered by a reset: the dialer gets "connection refused". A close
// sends a FIN: once the buffer is drained the peer's read sees EOF.
//
// Everything outside the process (the network, the other hosts) happens
// in world actions (actWorld) on the Machine's one clock, so a run with a
// network is as deterministic as one without. The other end of a
// connection is either another socket of the process (dial) or a host
// outside it (traffic.go): both are netEnds.
//
// Writes never block: a socket's send buffer is not modelled, so the
// write semaphore (wg) is used only by connect.

package runtime

import (
	"fmt"
	"strconv"
	"strings"
)

// DefaultNetLatency is the one-way latency between two sockets when
// Config.NetLatency is 0: loopback's on the machine the default costs
// profile was measured on (bench/faithfulness/netpoll).
const DefaultNetLatency = 30 * 1000

// network is the world around the process: its listening ports and the
// latency of the wire.
type network struct {
	latency   int64
	listeners map[int]*Listener // by port; looked up, never iterated
	nextPort  int               // the next ephemeral port of a dial
	traffics  []*Traffic        // the traffic sources, in the order they started
}

// netw returns the network, made on first use.
func (m *Machine) netw() *network {
	if m.net == nil {
		lat := m.cfg.NetLatency
		if lat <= 0 {
			lat = DefaultNetLatency
		}
		m.net = &network{latency: lat, listeners: map[int]*Listener{}, nextPort: 50000}
	}
	return m.net
}

// A netEnd is where messages to one end of a connection arrive: a socket
// of the process, or a client outside it.
type netEnd interface {
	deliver(v any)   // a message arrives
	fin()            // the peer closed: EOF after the buffer
	arrival() *int64 // when the last message sent to it arrives (TCP keeps order)
}

// A NetError is the error of a network operation, in Go's words:
// "read tcp 127.0.0.1:8080->127.0.0.1:50000: i/o timeout". Mirrors
// net.OpError.
type NetError struct {
	Op      string // "read", "write", "accept", "dial", "listen", "close"
	Addr    string // the addresses, as net.OpError prints them
	Err     string // "i/o timeout", "use of closed network connection", ...
	Timeout bool   // a deadline passed (os.ErrDeadlineExceeded)
}

func (e *NetError) Error() string { return e.Op + " tcp " + e.Addr + ": " + e.Err }

// Closed reports whether the error is net.ErrClosed: the socket was
// closed by this end.
func (e *NetError) Closed() bool { return e.Err == errClosing }

// Refused reports whether a dial was answered by a reset (ECONNREFUSED).
func (e *NetError) Refused() bool { return e.Err == errRefused }

// Error texts of the net package and the kernel.
const (
	errClosing = "use of closed network connection" // net.ErrClosed
	errTimeout = "i/o timeout"                      // os.ErrDeadlineExceeded
	errRefused = "connect: connection refused"      // ECONNREFUSED
	errInUse   = "bind: address already in use"     // EADDRINUSE
	errReset   = "connection reset by peer"         // ECONNRESET
)

// pollError turns a poll error code into the NetError of op on addr.
func pollError(op, addr string, errcode int) error {
	if errcode == pollErrTimeout {
		return &NetError{Op: op, Addr: addr, Err: errTimeout, Timeout: true}
	}
	return &NetError{Op: op, Addr: addr, Err: errClosing}
}

// A Listener is a listening socket. Mirrors net.TCPListener.
type Listener struct {
	m       *Machine
	pd      *pollDesc
	addr    string // as given to Listen
	port    int
	backlog []*Conn // connections the kernel accepted, not yet taken by Accept
	closed  bool
}

// A Conn is one end of a connection. Mirrors net.TCPConn.
type Conn struct {
	m          *Machine
	pd         *pollDesc // nil until accepted (the kernel's socket has none yet)
	laddr      string
	raddr      string
	peer       netEnd // where what it writes arrives
	rbuf       []any  // the receive buffer
	eof        bool   // the peer's FIN arrived
	closed     bool   // closed by this end
	connected  bool   // the handshake finished (a dialer's SYN-ACK came back)
	refused    bool   // a dialer's SYN was answered by a reset
	lastArrive int64  // when the last message sent to it arrives (TCP keeps order)
}

// Addr returns the listener's address, as given.
func (l *Listener) Addr() string { return l.addr }

// FD returns the listener's descriptor number.
func (l *Listener) FD() int64 { return l.pd.fd }

// LocalAddr returns the address of this end.
func (c *Conn) LocalAddr() string { return c.laddr }

// RemoteAddr returns the address of the other end.
func (c *Conn) RemoteAddr() string { return c.raddr }

// FD returns the descriptor number, 0 for a connection not accepted yet.
func (c *Conn) FD() int64 {
	if c.pd == nil {
		return 0
	}
	return c.pd.fd
}

// parsePort returns the port of a host:port address ("[::1]:80" for an
// IPv6 host), with net.SplitHostPort's errors. The net package itself is
// not imported: nothing of the host's network is reachable from a run.
func parsePort(addr string) (int, error) {
	i := strings.LastIndexByte(addr, ':')
	if i < 0 {
		return 0, fmt.Errorf("address %s: missing port in address", addr)
	}
	host, p := addr[:i], addr[i+1:]
	if strings.HasPrefix(host, "[") != strings.HasSuffix(host, "]") || strings.Contains(strings.Trim(host, "[]"), ":") && !strings.HasPrefix(host, "[") {
		return 0, fmt.Errorf("address %s: too many colons in address", addr)
	}
	port, err := strconv.Atoi(p)
	if err != nil || port < 0 || port > 65535 {
		return 0, fmt.Errorf("address %s: invalid port", addr)
	}
	return port, nil
}

// netSend sends v from now to end, arriving one latency later and after
// everything sent to it before.
func (m *Machine) netSend(to netEnd, v any) {
	last := to.arrival()
	at := max(addWhen(m.now, m.netw().latency), *last)
	*last = at
	m.after(at-m.now, action{kind: actWorld, fn: func() { to.deliver(v) }})
}

// netFin sends a FIN to end, after everything sent to it before.
func (m *Machine) netFin(to netEnd) {
	last := to.arrival()
	at := max(addWhen(m.now, m.netw().latency), *last)
	*last = at
	m.after(at-m.now, action{kind: actWorld, fn: to.fin})
}

// deliver is a message arriving in c's receive buffer.
func (c *Conn) deliver(v any) {
	if c.closed {
		return // a closed socket drops what arrives (and would reset)
	}
	c.rbuf = append(c.rbuf, v)
	if c.pd != nil {
		c.m.netpollNotify(c.pd, evRead)
	}
}

// fin is the peer's close arriving.
func (c *Conn) fin() {
	c.eof = true
	if c.pd != nil && !c.closed {
		c.m.netpollNotify(c.pd, evRead)
	}
}

// Listen opens a listening socket on addr (host:port; the host is the
// process's own, whatever it says). Two listeners on one port give Go's
// "address already in use". Mirrors net.Listen("tcp", addr).
func (g *G) Listen(addr string) (*Listener, error) {
	g.check()
	m := g.m
	port, err := parsePort(addr)
	if err != nil {
		return nil, &NetError{Op: "listen", Addr: addr, Err: err.Error()}
	}
	nw := m.netw()
	if _, ok := nw.listeners[port]; ok {
		return nil, &NetError{Op: "listen", Addr: addr, Err: errInUse}
	}
	l := &Listener{m: m, addr: addr, port: port, pd: m.netpollopen("listener")}
	nw.listeners[port] = l
	return l, nil
}

// synArrives is a client's SYN arriving at port: with a listener, the
// kernel makes the server's socket (a request socket, answered with a
// SYN-ACK) and returns it with its listener; with none, nil (the kernel
// answers with a reset). The socket is not accepted yet: see ackArrives.
func (m *Machine) synArrives(port int, raddr string, client netEnd) (*Conn, *Listener) {
	l := m.netw().listeners[port]
	if l == nil || l.closed {
		return nil, nil
	}
	return &Conn{m: m, laddr: l.addr, raddr: raddr, peer: client, connected: true}, l
}

// ackArrives is the client's ACK, the handshake's last step, arriving one
// latency after the SYN-ACK left: the server's socket joins l's accept
// queue and the listener becomes readable. A client sends its first data
// right behind the ACK, so accept() usually finds it already there, as on
// Linux. If l was closed meanwhile, the connection is reset (a FIN here).
func (m *Machine) ackArrives(l *Listener, s *Conn) {
	if l.closed {
		s.closed = true
		m.netFin(s.peer)
		return
	}
	l.backlog = append(l.backlog, s)
	m.netpollNotify(l.pd, evRead)
}

// Accept takes the next connection from l's accept queue, waiting in the
// poller while it is empty. Mirrors (*FD).Accept.
func (g *G) Accept(l *Listener) (*Conn, error) {
	g.check()
	if errcode := pollReset(l.pd, 'r'); errcode != pollNoError {
		return nil, pollError("accept", l.addr, errcode)
	}
	for {
		if len(l.backlog) > 0 {
			c := l.backlog[0]
			l.backlog[0] = nil
			l.backlog = l.backlog[1:]
			c.pd = g.m.netpollopen("conn")
			if len(c.rbuf) > 0 || c.eof {
				// Data or a FIN came before accept: edge-triggered
				// epoll reports it when the descriptor is added.
				g.m.netpollNotify(c.pd, evRead)
			}
			return c, nil
		}
		if errcode := g.pollWait(l.pd, 'r'); errcode != pollNoError {
			return nil, pollError("accept", l.addr, errcode)
		}
	}
}

// CloseListener closes l: a blocked Accept returns the closed-connection
// error, and connections still in the accept queue are reset.
func (g *G) CloseListener(l *Listener) error {
	g.check()
	if l.closed {
		return &NetError{Op: "close", Addr: l.addr, Err: errClosing}
	}
	l.closed = true
	delete(g.m.netw().listeners, l.port)
	g.m.netpollUnblock(l.pd, g.mp.p)
	g.m.netpollclose(l.pd)
	for _, c := range l.backlog {
		c.closed = true
		if c.peer != nil {
			g.m.netFin(c.peer)
		}
	}
	l.backlog = nil
	return nil
}

// arrival returns when the last message sent to c arrives.
func (c *Conn) arrival() *int64 { return &c.lastArrive }

// Dial connects to addr from inside the process: the SYN takes one
// latency to reach the listener, the SYN-ACK another to come back, and
// the calling G waits in the poller for it (connect's EINPROGRESS). A port
// with no listener answers with a reset: "connection refused". Mirrors
// net.Dial("tcp", addr).
func (g *G) Dial(addr string) (*Conn, error) {
	g.check()
	m := g.m
	port, err := parsePort(addr)
	if err != nil {
		return nil, &NetError{Op: "dial", Addr: addr, Err: err.Error()}
	}
	nw := m.netw()
	laddr := "127.0.0.1:" + strconv.Itoa(nw.nextPort)
	nw.nextPort++
	c := &Conn{m: m, laddr: laddr, raddr: addr, pd: m.netpollopen("conn")}
	lat := nw.latency
	m.after(lat, action{kind: actWorld, fn: func() {
		s, l := m.synArrives(port, laddr, c)
		if s != nil {
			c.peer = s
		}
		m.after(lat, action{kind: actWorld, fn: func() {
			if s == nil {
				c.refused = true
			} else {
				// The SYN-ACK is here: connect returns, and the ACK
				// leaves for the server, ahead of anything written.
				c.connected = true
				s.lastArrive = max(s.lastArrive, addWhen(m.now, lat))
				m.after(lat, action{kind: actWorld, fn: func() { m.ackArrives(l, s) }})
			}
			m.netpollNotify(c.pd, evWrite)
		}})
	}})
	for !c.connected {
		if c.refused {
			g.m.netpollUnblock(c.pd, g.mp.p)
			g.m.netpollclose(c.pd)
			return nil, &NetError{Op: "dial", Addr: addr, Err: errRefused}
		}
		if errcode := g.pollWait(c.pd, 'w'); errcode != pollNoError {
			return nil, pollError("dial", addr, errcode)
		}
	}
	return c, nil
}

// connAddr is how net.OpError prints a connection's addresses.
func (c *Conn) connAddr() string { return c.laddr + "->" + c.raddr }

// Read returns the next message on c, waiting in the poller while the
// buffer is empty; nil and io.EOF's ok=false once the peer closed and the
// buffer is drained. Mirrors (*FD).Read.
func (g *G) Read(c *Conn) (v any, ok bool, err error) {
	g.check()
	if c.closed {
		return nil, false, &NetError{Op: "read", Addr: c.connAddr(), Err: errClosing}
	}
	if errcode := pollReset(c.pd, 'r'); errcode != pollNoError {
		return nil, false, pollError("read", c.connAddr(), errcode)
	}
	for {
		if len(c.rbuf) > 0 {
			v = c.rbuf[0]
			c.rbuf[0] = nil
			c.rbuf = c.rbuf[1:]
			return v, true, nil
		}
		if c.eof {
			return nil, false, nil
		}
		if errcode := g.pollWait(c.pd, 'r'); errcode != pollNoError {
			return nil, false, pollError("read", c.connAddr(), errcode)
		}
	}
}

// Write sends v to the other end, where it arrives one latency later.
// Writes never block (see the file comment). Mirrors (*FD).Write.
func (g *G) Write(c *Conn, v any) error {
	g.check()
	if c.closed {
		return &NetError{Op: "write", Addr: c.connAddr(), Err: errClosing}
	}
	if c.peer == nil {
		return &NetError{Op: "write", Addr: c.connAddr(), Err: errReset}
	}
	g.m.netSend(c.peer, v)
	return nil
}

// CloseConn closes c: its own blocked reads fail with the closed-connection
// error, and the peer sees EOF after what was sent before. Mirrors
// (*FD).Close.
func (g *G) CloseConn(c *Conn) error {
	g.check()
	if c.closed {
		return &NetError{Op: "close", Addr: c.connAddr(), Err: errClosing}
	}
	c.closed = true
	if c.pd != nil {
		g.m.netpollUnblock(c.pd, g.mp.p)
		g.m.netpollclose(c.pd)
	}
	if c.peer != nil {
		g.m.netFin(c.peer)
	}
	return nil
}

// SetReadDeadline sets the time (virtual ns) after which a read fails with
// "i/o timeout"; 0 clears it. Mirrors (*FD).SetReadDeadline.
func (g *G) SetReadDeadline(c *Conn, when int64) error {
	g.check()
	if c.closed {
		return &NetError{Op: "set", Addr: c.connAddr(), Err: errClosing}
	}
	g.m.netpollSetDeadline(c.pd, g.mp.p, 'r', when)
	return nil
}

// SetAcceptDeadline sets the listener's deadline, as SetDeadline on a
// net.TCPListener does.
func (g *G) SetAcceptDeadline(l *Listener, when int64) error {
	g.check()
	if l.closed {
		return &NetError{Op: "set", Addr: l.addr, Err: errClosing}
	}
	g.m.netpollSetDeadline(l.pd, g.mp.p, 'r', when)
	return nil
}
