// The network, as a script sees it: listen, dial, listeners, connections
// and their error values.
//
// A script serves and dials as a Go program does with package net, and
// every call that would block in Go blocks in the engine's netpoller
// (runtime/netpoll.go): accept, read and dial wait in "IO wait", and the
// scheduler decides when they run again. Messages are Starlark values, not
// bytes: one write is one message, one read returns one.
//
// Go returns errors as values, and a server handles them as values: a
// read past its deadline, a dial nobody answers, a write on a closed
// connection. So do these builtins: such a failure is returned as a value
// of type "error" (its str is Go's message, its attributes say which kind
// it is; is_error(v) tells it from a message). Misuse that Go reports at
// once (an address without a port, two listeners on one port) is a
// Starlark error with file:line:col, as a bad argument always is.

package lang

import (
	"errors"
	"fmt"

	"go.starlark.net/starlark"

	"github.com/schedlab/schedlab/runtime"
)

// A NetError is a network error as a value: what a Go program gets as err
// from net.Conn.Read, net.Dial and the like. Its str is Go's message.
type NetError struct{ err *runtime.NetError }

var _ starlark.HasAttrs = (*NetError)(nil)

var netErrorAttrNames = []string{"closed", "op", "refused", "timeout"} // sorted

func (e *NetError) String() string        { return e.err.Error() }
func (e *NetError) Type() string          { return "error" }
func (e *NetError) Freeze()               {}
func (e *NetError) Truth() starlark.Bool  { return starlark.True }
func (e *NetError) Hash() (uint32, error) { return starlark.String(e.err.Error()).Hash() }
func (e *NetError) AttrNames() []string   { return netErrorAttrNames }
func (e *NetError) Attr(name string) (starlark.Value, error) {
	switch name {
	case "op":
		return starlark.String(e.err.Op), nil
	case "timeout":
		return starlark.Bool(e.err.Timeout), nil
	case "closed":
		return starlark.Bool(e.err.Closed()), nil
	case "refused":
		return starlark.Bool(e.err.Refused()), nil
	}
	// A method of a connection or listener called on the error that came
	// back instead of one: say so, as Go's err != nil check would.
	return nil, fmt.Errorf("error has no .%s: the value is the error %q, not a connection (check is_error(v) first)", name, e.err.Error())
}

// netResult turns an engine error into the script's error value, or a
// Starlark error for one that is not a network error.
func netResult(v starlark.Value, err error) (starlark.Value, error) {
	if err == nil {
		return v, nil
	}
	var ne *runtime.NetError
	if errors.As(err, &ne) {
		return &NetError{err: ne}, nil
	}
	return nil, err
}

// is_error(v) → bool: whether v is an error value (a failed read, dial,
// accept or write), as err != nil in Go.
func isError(r *run, thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var v starlark.Value
	if err := starlark.UnpackArgs(b.Name(), args, kwargs, "v", &v); err != nil {
		return nil, err
	}
	_, ok := v.(*NetError)
	return starlark.Bool(ok), nil
}

// listen(addr) → listener: net.Listen("tcp", addr). The address is
// host:port; the host is the process's own whatever it says.
func listen(r *run, thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var addr string
	if err := starlark.UnpackArgs(b.Name(), args, kwargs, "addr", &addr); err != nil {
		return nil, err
	}
	gr, err := r.goroutineOf(thread, b)
	if err != nil {
		return nil, err
	}
	l, err := gr.g.Listen(addr)
	if err != nil {
		return nil, fmt.Errorf("%s: %v", b.Name(), err)
	}
	return &Listener{l: l, m: r.m}, nil
}

// dial(addr) → conn or error: net.Dial("tcp", addr), from inside the
// process. It takes a round trip, waiting in IO wait; nobody listening is
// the error value "connection refused".
func dial(r *run, thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var addr string
	if err := starlark.UnpackArgs(b.Name(), args, kwargs, "addr", &addr); err != nil {
		return nil, err
	}
	gr, err := r.goroutineOf(thread, b)
	if err != nil {
		return nil, err
	}
	var c *runtime.Conn
	gr.blocking(func(g *runtime.G) { c, err = g.Dial(addr) })
	if err != nil {
		var ne *runtime.NetError
		if errors.As(err, &ne) && ne.Refused() {
			return &NetError{err: ne}, nil
		}
		return nil, fmt.Errorf("%s: %v", b.Name(), err)
	}
	return &Conn{c: c, m: r.m}, nil
}

// ---- listener ----

// A Listener is a listening socket: what listen returns.
type Listener struct {
	l     *runtime.Listener
	m     *runtime.Machine
	bound [len(listenerMethods)]*starlark.Builtin
}

var _ starlark.HasAttrs = (*Listener)(nil)

var listenerMethods = [...]method{
	{"accept", starlark.NewBuiltin("accept", listener_accept)},
	{"close", starlark.NewBuiltin("close", listener_close)},
	{"set_deadline", starlark.NewBuiltin("set_deadline", listener_set_deadline)},
}

var listenerAttrNames = []string{"accept", "addr", "close", "fd", "set_deadline"} // sorted

func (l *Listener) String() string        { return fmt.Sprintf("<listener %s fd=%d>", l.l.Addr(), l.l.FD()) }
func (l *Listener) Type() string          { return "listener" }
func (l *Listener) Freeze()               {}
func (l *Listener) Truth() starlark.Bool  { return starlark.True }
func (l *Listener) Hash() (uint32, error) { return uint32(l.l.FD()), nil }
func (l *Listener) AttrNames() []string   { return listenerAttrNames }
func (l *Listener) Attr(name string) (starlark.Value, error) {
	switch name {
	case "addr":
		return starlark.String(l.l.Addr()), nil
	case "fd":
		return starlark.MakeInt64(l.l.FD()), nil
	}
	return builtinAttr(l, name, listenerMethods[:], l.bound[:])
}

// l.accept() → conn or error: the next connection, waiting in IO wait
// while there is none; a closed listener's error value.
func listener_accept(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	if err := starlark.UnpackArgs(b.Name(), args, kwargs); err != nil {
		return nil, err
	}
	l := b.Receiver().(*Listener)
	gr, err := caller(l.m, thread, b)
	if err != nil {
		return nil, err
	}
	var c *runtime.Conn
	gr.blocking(func(g *runtime.G) { c, err = g.Accept(l.l) })
	if err != nil {
		return netResult(nil, err)
	}
	return &Conn{c: c, m: l.m}, nil
}

// l.close(): a blocked accept returns the closed-connection error value.
func listener_close(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	if err := starlark.UnpackArgs(b.Name(), args, kwargs); err != nil {
		return nil, err
	}
	l := b.Receiver().(*Listener)
	gr, err := caller(l.m, thread, b)
	if err != nil {
		return nil, err
	}
	return netResult(starlark.None, gr.g.CloseListener(l.l))
}

// l.set_deadline(t): accept fails with "i/o timeout" after virtual time
// t (ns, as now() gives it); 0 or None clears it.
func listener_set_deadline(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	t, err := unpackDeadline(b, args, kwargs)
	if err != nil {
		return nil, err
	}
	l := b.Receiver().(*Listener)
	gr, err := caller(l.m, thread, b)
	if err != nil {
		return nil, err
	}
	return netResult(starlark.None, gr.g.SetAcceptDeadline(l.l, t))
}

// unpackDeadline reads a deadline argument: a virtual time in ns, or None
// (no deadline, as 0 is).
func unpackDeadline(b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (int64, error) {
	var v starlark.Value
	if err := starlark.UnpackArgs(b.Name(), args, kwargs, "t", &v); err != nil {
		return 0, err
	}
	if v == starlark.None {
		return 0, nil
	}
	i, ok := v.(starlark.Int)
	if !ok {
		return 0, fmt.Errorf("%s: got %s, want a time in ns (now() + d) or None", b.Name(), v.Type())
	}
	t, ok := i.Int64()
	if !ok {
		return 0, fmt.Errorf("%s: time %v out of range", b.Name(), i)
	}
	return t, nil
}

// ---- conn ----

// A Conn is one end of a connection: what dial and accept return.
type Conn struct {
	c     *runtime.Conn
	m     *runtime.Machine
	bound [len(connMethods)]*starlark.Builtin
}

var _ starlark.HasAttrs = (*Conn)(nil)

var connMethods = [...]method{
	{"close", starlark.NewBuiltin("close", conn_close)},
	{"read", starlark.NewBuiltin("read", conn_read)},
	{"set_read_deadline", starlark.NewBuiltin("set_read_deadline", conn_set_read_deadline)},
	{"write", starlark.NewBuiltin("write", conn_write)},
}

var connAttrNames = []string{"close", "fd", "local_addr", "read", "remote_addr", "set_read_deadline", "write"} // sorted

func (c *Conn) String() string {
	return fmt.Sprintf("<conn %s->%s fd=%d>", c.c.LocalAddr(), c.c.RemoteAddr(), c.c.FD())
}
func (c *Conn) Type() string          { return "conn" }
func (c *Conn) Freeze()               {}
func (c *Conn) Truth() starlark.Bool  { return starlark.True }
func (c *Conn) Hash() (uint32, error) { return uint32(c.c.FD()), nil }
func (c *Conn) AttrNames() []string   { return connAttrNames }
func (c *Conn) Attr(name string) (starlark.Value, error) {
	switch name {
	case "fd":
		return starlark.MakeInt64(c.c.FD()), nil
	case "local_addr":
		return starlark.String(c.c.LocalAddr()), nil
	case "remote_addr":
		return starlark.String(c.c.RemoteAddr()), nil
	}
	return builtinAttr(c, name, connMethods[:], c.bound[:])
}

// c.read() → the next message, None at EOF, or an error value (a deadline
// passed: "i/o timeout"; the connection closed).
func conn_read(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	if err := starlark.UnpackArgs(b.Name(), args, kwargs); err != nil {
		return nil, err
	}
	c := b.Receiver().(*Conn)
	gr, err := caller(c.m, thread, b)
	if err != nil {
		return nil, err
	}
	var v any
	var ok bool
	gr.blocking(func(g *runtime.G) { v, ok, err = g.Read(c.c) })
	if err != nil || !ok {
		return netResult(starlark.None, err)
	}
	return toValue(v), nil
}

// c.write(v) → None or an error value: v arrives at the other end one
// network latency later. It never blocks.
func conn_write(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	v, err := unpackValue(b, args, kwargs)
	if err != nil {
		return nil, err
	}
	c := b.Receiver().(*Conn)
	gr, err := caller(c.m, thread, b)
	if err != nil {
		return nil, err
	}
	return netResult(starlark.None, gr.g.Write(c.c, v))
}

// c.close() → None or an error value: the peer reads EOF after what was
// sent; this end's blocked read returns the closed-connection error.
func conn_close(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	if err := starlark.UnpackArgs(b.Name(), args, kwargs); err != nil {
		return nil, err
	}
	c := b.Receiver().(*Conn)
	gr, err := caller(c.m, thread, b)
	if err != nil {
		return nil, err
	}
	return netResult(starlark.None, gr.g.CloseConn(c.c))
}

// c.set_read_deadline(t): a read fails with the "i/o timeout" error value
// after virtual time t (ns, as now() gives it: now() + d); 0 or None
// clears it. Mirrors SetReadDeadline.
func conn_set_read_deadline(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	t, err := unpackDeadline(b, args, kwargs)
	if err != nil {
		return nil, err
	}
	c := b.Receiver().(*Conn)
	gr, err := caller(c.m, thread, b)
	if err != nil {
		return nil, err
	}
	return netResult(starlark.None, gr.g.SetReadDeadline(c.c, t))
}
