// traffic(): load from outside the process, as a script starts it.
//
// traffic(addr, ...) starts a load generator on another host
// (runtime/traffic.go): it takes no goroutine, thread or P of the script's
// process, and its arrivals are drawn from the run's one PRNG. Each
// request reaches the server as a message, a struct with .id, .sent (the
// virtual time it was due) and .body; the server answers by writing
// anything back on the same connection, and the generator times the
// reply. The script reads the figures from the value traffic() returns.

package lang

import (
	"fmt"
	"math"

	"go.starlark.net/starlark"
	"go.starlark.net/starlarkstruct"

	"github.com/schedlab/schedlab/internal/latency"
	"github.com/schedlab/schedlab/runtime"
)

var requestCtor = structName("request")

// traffic(addr, rate=None, every=None, arrival="poisson", n=0,
// duration=None, conns=0, body=None, think=None) → traffic.
func traffic(r *run, thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var (
		addr              string
		rate              starlark.Value = starlark.None
		every, dur, think starlark.Value = starlark.None, starlark.None, starlark.None
		arrival                          = "poisson"
		n                 int64
		conns             int
		body              starlark.Value = starlark.None
	)
	if err := starlark.UnpackArgs(b.Name(), args, kwargs, "addr", &addr, "rate?", &rate, "every?", &every,
		"arrival?", &arrival, "n?", &n, "duration?", &dur, "conns?", &conns, "body?", &body, "think?", &think); err != nil {
		return nil, err
	}
	cfg := runtime.TrafficConfig{Addr: addr, Arrival: arrival, N: n, Conns: conns, Think: -1}
	var err error
	if rate != starlark.None {
		if cfg.Rate, err = toFloat(rate); err != nil {
			return nil, fmt.Errorf("%s: rate: %v", b.Name(), err)
		}
		if cfg.Rate <= 0 {
			return nil, fmt.Errorf("%s: rate %v: want a positive number of requests per second", b.Name(), cfg.Rate)
		}
	}
	for _, d := range []struct {
		v    starlark.Value
		name string
		to   *int64
	}{{every, "every", &cfg.Every}, {dur, "duration", &cfg.Duration}, {think, "think", &cfg.Think}} {
		if d.v == starlark.None {
			continue
		}
		var x duration
		if err := x.Unpack(d.v); err != nil {
			return nil, fmt.Errorf("%s: %s: %v", b.Name(), d.name, err)
		}
		if x < 0 || x == 0 && d.name != "think" {
			return nil, fmt.Errorf("%s: %s %s: want a positive duration", b.Name(), d.name, runtime.FormatDuration(int64(x)))
		}
		*d.to = int64(x)
	}
	body.Freeze() // every request carries it: no one may change it
	cfg.Request = func(id, sent int64) any {
		return starlarkstruct.FromStringDict(requestCtor, starlark.StringDict{
			"id":   starlark.MakeInt64(id),
			"sent": starlark.MakeInt64(sent),
			"body": body,
		})
	}
	gr, err := r.goroutineOf(thread, b)
	if err != nil {
		return nil, err
	}
	tr, err := gr.g.StartTraffic(cfg)
	if err != nil {
		return nil, fmt.Errorf("%s: %v", b.Name(), err)
	}
	return &Traffic{tr: tr, m: r.m, done: &Channel{ch: tr.Done(), m: r.m}}, nil
}

// toFloat reads an int or a float.
func toFloat(v starlark.Value) (float64, error) {
	switch v := v.(type) {
	case starlark.Int:
		f, _ := starlark.AsFloat(v)
		return f, nil
	case starlark.Float:
		if math.IsNaN(float64(v)) || math.IsInf(float64(v), 0) {
			return 0, fmt.Errorf("got %v, want a finite number", v)
		}
		return float64(v), nil
	}
	return 0, fmt.Errorf("got %s, want a number", v.Type())
}

// A Traffic is a traffic source as a value: what traffic() returns.
type Traffic struct {
	tr    *runtime.Traffic
	m     *runtime.Machine
	done  *Channel
	bound [len(trafficMethods)]*starlark.Builtin
}

var _ starlark.HasAttrs = (*Traffic)(nil)

var trafficMethods = [...]method{
	{"latencies", starlark.NewBuiltin("latencies", traffic_latencies)},
	{"stats", starlark.NewBuiltin("stats", traffic_stats)},
	{"wait", starlark.NewBuiltin("wait", traffic_wait)},
}

var trafficAttrNames = []string{"addr", "answered", "done", "failed", "latencies", "sent", "stats", "wait"} // sorted

func (t *Traffic) String() string        { return fmt.Sprintf("<traffic %s>", t.tr.Addr()) }
func (t *Traffic) Type() string          { return "traffic" }
func (t *Traffic) Freeze()               {}
func (t *Traffic) Truth() starlark.Bool  { return starlark.True }
func (t *Traffic) Hash() (uint32, error) { return 0, fmt.Errorf("unhashable: traffic") }
func (t *Traffic) AttrNames() []string   { return trafficAttrNames }
func (t *Traffic) Attr(name string) (starlark.Value, error) {
	sent, answered, failed := t.tr.Counts()
	switch name {
	case "addr":
		return starlark.String(t.tr.Addr()), nil
	case "sent":
		return starlark.MakeInt64(sent), nil
	case "answered":
		return starlark.MakeInt64(answered), nil
	case "failed":
		return starlark.MakeInt64(failed), nil
	case "done":
		return t.done, nil
	}
	return builtinAttr(t, name, trafficMethods[:], t.bound[:])
}

// t.wait(): block until every request is answered or failed (a receive
// from t.done, closed from outside the process).
func traffic_wait(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	if err := starlark.UnpackArgs(b.Name(), args, kwargs); err != nil {
		return nil, err
	}
	t := b.Receiver().(*Traffic)
	gr, err := caller(t.m, thread, b)
	if err != nil {
		return nil, err
	}
	gr.blocking(func(g *runtime.G) { g.Recv(t.done.ch) })
	return starlark.None, nil
}

// t.latencies() → list: each answered request's latency in ns, in the
// order the replies came.
func traffic_latencies(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	if err := starlark.UnpackArgs(b.Name(), args, kwargs); err != nil {
		return nil, err
	}
	lat := b.Receiver().(*Traffic).tr.Latencies()
	vs := make([]starlark.Value, len(lat))
	for i, v := range lat {
		vs[i] = starlark.MakeInt64(v)
	}
	return starlark.NewList(vs), nil
}

// t.stats() → dict: count, p50, p90, p99, p99.9 and max in ns (an
// HdrHistogram's percentiles), and the requests sent and failed.
func traffic_stats(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	if err := starlark.UnpackArgs(b.Name(), args, kwargs); err != nil {
		return nil, err
	}
	tr := b.Receiver().(*Traffic).tr
	s := latency.Summarize(tr.Latencies())
	sent, _, failed := tr.Counts()
	d := starlark.NewDict(8)
	d.SetKey(starlark.String("sent"), starlark.MakeInt64(sent))
	d.SetKey(starlark.String("count"), starlark.MakeInt64(s.Count))
	d.SetKey(starlark.String("failed"), starlark.MakeInt64(failed))
	for i, name := range latency.Names() {
		d.SetKey(starlark.String(name), starlark.MakeInt64(s.P[i]))
	}
	d.SetKey(starlark.String("max"), starlark.MakeInt64(s.Max))
	return d, nil
}

// TrafficRows returns the figures of every traffic source of a run, for
// --stats.
func TrafficRows(m *runtime.Machine) []latency.Row {
	var rows []latency.Row
	for i, tr := range m.Traffics() {
		sent, _, failed := tr.Counts()
		rows = append(rows, latency.Row{Name: fmt.Sprintf("%d %s", i+1, tr.Addr()), Sent: sent, Failed: failed, Summary: latency.Summarize(tr.Latencies())})
	}
	return rows
}
