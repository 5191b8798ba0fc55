package runtime

import (
	"errors"
	"strings"
	"testing"
)

// netCfg is the configuration of the netpoller tests: zero costs (a thread
// wakes at once), a 100µs network.
func netCfg(procs int) Config {
	return Config{Procs: procs, Seed: 1, NetLatency: 100 * 1000}
}

// recordNet runs main on a Machine of cfg and returns the events of the
// run, formatted one a line as "time kind G G2 arg reason", only those of
// the netpoller and the Gs it readies, and the result.
func recordNet(t *testing.T, cfg Config, main func(g *G, log func(string, ...any)) error) (string, string, *Result) {
	t.Helper()
	var b strings.Builder
	cfg.Tracer = TracerFunc(func(ev *Event) {
		switch ev.Kind {
		case EvNetReady, EvNetpoll, EvMNetpoll:
		case EvGoUnblock:
			if ev.G != 0 {
				return
			}
		case EvGoBlock:
			if ev.Reason != WaitReasonIOWait {
				return
			}
		default:
			return
		}
		b.WriteString(FormatDuration(ev.Time) + " " + ev.Kind.String())
		if ev.G != 0 {
			b.WriteString(" G" + itoa(ev.G))
		}
		if ev.G2 != 0 {
			b.WriteString(" g=G" + itoa(ev.G2))
		}
		if ev.Kind != EvGoBlock && ev.Kind != EvMNetpoll {
			b.WriteString(" " + itoa(ev.Arg))
		}
		if ev.Reason != "" {
			b.WriteString(" " + ev.Reason)
		}
		b.WriteByte('\n')
	})
	out, res := run(t, cfg, main)
	return out, b.String(), res
}

func itoa(n int64) string {
	if n < 0 {
		return "-" + itoa(-n)
	}
	if n < 10 {
		return string(rune('0' + n))
	}
	return itoa(n/10) + string(rune('0'+n%10))
}

// server starts a goroutine that listens on :80, accepts one connection
// and logs what it reads, with the time, until EOF.
func server(t *testing.T, g *G, log func(string, ...any)) *Listener {
	t.Helper()
	l, err := g.Listen(":80")
	if err != nil {
		t.Fatal(err)
	}
	g.Go(func(g *G) error {
		c, err := g.Accept(l)
		if err != nil {
			return err
		}
		for {
			v, ok, err := g.Read(c)
			if err != nil {
				log("%s read: %v", FormatDuration(g.Now()), err)
				return nil
			}
			if !ok {
				log("%s EOF", FormatDuration(g.Now()))
				return nil
			}
			log("%s got %v", FormatDuration(g.Now()), v)
		}
	}, "server")
	return l
}

// An M with nothing to do blocks in netpoll, and an arrival wakes it at
// once (zero costs): the reader runs on the idle P as soon as its data
// arrives, and the polling M runs it itself (to=run). Breaking the
// blocking poll (netpollBlockM returning false) leaves the reader to
// sysmon, 10ms later.
func TestNetpollBlockingPollWakesOnArrival(t *testing.T) {
	out, evs, res := recordNet(t, netCfg(2), func(g *G, log func(string, ...any)) error {
		server(t, g, log)
		g.Sleep(1000 * 1000) // the server parks in accept, then every P is idle
		c, err := g.Dial("127.0.0.1:80")
		if err != nil {
			return err
		}
		log("%s dialed", FormatDuration(g.Now()))
		g.Write(c, "hi")
		g.Sleep(1000 * 1000)
		g.CloseConn(c)
		g.Sleep(1000 * 1000)
		return nil
	})
	if res.Outcome != Exited {
		t.Fatal(res.Outcome, res.Err)
	}
	want := "1.2ms dialed\n1.3ms got hi\n2.3ms EOF\n"
	if out != want {
		t.Errorf("got\n%s\nwant\n%s\nevents:\n%s", out, want, evs)
	}
	if !strings.Contains(evs, "MNetpoll") || !strings.Contains(evs, "Netpoll 1 block") || !strings.Contains(evs, "GoUnblock g=G2 3") {
		t.Errorf("no blocking poll picking up the server:\n%s", evs)
	}
}

// netpollWakeLate: the M blocked in netpoll wakes for an arrival after
// the profile's wakeup when it has slept less than a millisecond, and
// after timer_late (an idle CPU's wake-up) when it has slept longer. An
// echo server's round trip is two network trips (200µs) plus that
// wake-up: 500µs for requests 5ms apart, 220µs for requests 600µs apart.
// Always charging wakeup, or always timer_late, fails.
func TestNetpollWakeDependsOnSleep(t *testing.T) {
	for _, tc := range []struct {
		every, want int64
	}{
		{5_000_000, 500_000},
		{600_000, 220_000},
	} {
		cfg := netCfg(1)
		cfg.Costs = costsOf(CostWakeup, 20_000, CostTimerLate, 300_000)
		var lat []int64
		_, evs, res := recordNet(t, cfg, func(g *G, log func(string, ...any)) error {
			l, err := g.Listen(":80")
			if err != nil {
				return err
			}
			g.Go(func(g *G) error {
				c, err := g.Accept(l)
				if err != nil {
					return err
				}
				for {
					v, ok, err := g.Read(c)
					if err != nil || !ok {
						return err
					}
					g.Write(c, v)
				}
			}, "echo")
			tr, err := g.StartTraffic(TrafficConfig{Addr: ":80", Every: tc.every, Arrival: "const", N: 4, Conns: 1, Think: -1})
			if err != nil {
				return err
			}
			g.Recv(tr.Done())
			lat = tr.Latencies()
			return nil
		})
		if res.Outcome != Exited {
			t.Fatal(res.Outcome, res.Err)
		}
		// The first request waits for the connection; the others show
		// the wake-up alone.
		for i, d := range lat[1:] {
			if d != tc.want {
				t.Errorf("requests %s apart: request %d took %s, want %s\nlatencies %v\nevents:\n%s", FormatDuration(tc.every), i+2, FormatDuration(d), FormatDuration(tc.want), lat, evs)
				break
			}
		}
	}
}

// With every P running code and no M blocked in netpoll, only sysmon
// polls, once the last poll is 10ms old; the reader then waits on the
// global queue until its P looks there (at the preemption of the working
// G). Breaking sysmon's poll leaves the reader until main's work is done.
func TestNetpollSysmonPicksUpWhenEveryPIsBusy(t *testing.T) {
	out, evs, res := recordNet(t, netCfg(1), func(g *G, log func(string, ...any)) error {
		server(t, g, log)
		c, err := g.Dial("127.0.0.1:80")
		if err != nil {
			return err
		}
		g.Gosched() // let the server block in read
		g.Write(c, "hi")
		g.Work(50 * 1000 * 1000) // the one P is busy for 50ms
		log("%s worked", FormatDuration(g.Now()))
		return nil
	})
	if res.Outcome != Exited {
		t.Fatal(res.Outcome, res.Err)
	}
	if !strings.Contains(evs, "Netpoll 1 sysmon") {
		t.Errorf("sysmon did not poll:\n%s", evs)
	}
	if !strings.HasPrefix(out, "10.") && !strings.HasPrefix(out, "11.") {
		t.Errorf("the reader did not run at sysmon's pickup, 10ms after the last poll (at 200µs) and a sysmon sleep:\n%s\nevents:\n%s", out, evs)
	}
	if !strings.Contains(out, "got hi") || !strings.HasSuffix(out, "worked\n") {
		t.Errorf("output:\n%s", out)
	}
}

// findRunnable polls before stealing: when main blocks, its own M finds
// the reader's data already there, with no thread blocked in netpoll and
// before sysmon's 10ms. Breaking that poll (findRunnableNetpoll returning
// nil) makes the M block in netpoll instead: the event says "block".
func TestNetpollFindRunnablePollsBeforeStealing(t *testing.T) {
	out, evs, res := recordNet(t, netCfg(1), func(g *G, log func(string, ...any)) error {
		server(t, g, log)
		c, err := g.Dial("127.0.0.1:80")
		if err != nil {
			return err
		}
		g.Gosched()
		g.Write(c, "hi")
		g.Work(2 * 1000 * 1000) // the data arrives while main works
		g.Sleep(1000 * 1000)    // main blocks: findRunnable polls
		return nil
	})
	if res.Outcome != Exited {
		t.Fatal(res.Outcome, res.Err)
	}
	if !strings.Contains(evs, "Netpoll 1 findRunnable") {
		t.Errorf("findRunnable did not poll:\n%s", evs)
	}
	if !strings.HasPrefix(out, "2.2ms got hi") {
		t.Errorf("got\n%s\nevents:\n%s", out, evs)
	}
}

// A notification that arrived while no G waited (pdReady) is consumed by
// the next netpollblock without parking; pollReset forgets it before a
// read. Mirrors netpollblock's first CAS and poll_runtime_pollReset.
func TestNetpollblockConsumesReady(t *testing.T) {
	_, res := run(t, netCfg(1), func(g *G, log func(string, ...any)) error {
		pd := g.m.netpollopen("conn")
		var delta int32
		if gp := netpollunblock(pd, 'r', true, &delta); gp != nil || pd.rg != pdReady {
			t.Errorf("netpollunblock with no waiter: got %v, rg %v", gp, pd.rg)
		}
		d := g.dispatches
		if !g.netpollblock(pd, 'r') || pd.rg != nil || g.dispatches != d {
			t.Errorf("netpollblock did not consume pdReady without parking")
		}
		netpollunblock(pd, 'r', true, &delta)
		pollReset(pd, 'r')
		if pd.rg != nil {
			t.Errorf("pollReset kept a stale notification")
		}
		if g.m.np.waiters != 0 || delta != 0 {
			t.Errorf("waiters %d, delta %d", g.m.np.waiters, delta)
		}
		return nil
	})
	if res.Outcome != Exited {
		t.Fatal(res.Outcome, res.Err)
	}
}

// A read deadline is a timer on the descriptor: the read fails with "i/o
// timeout" when it fires. Reset before it fires, the old timer is stale
// (pd.rseq) and the read times out at the new deadline; cleared, it never
// does. Mirrors netpolldeadlineimpl and poll_runtime_pollSetDeadline.
func TestReadDeadline(t *testing.T) {
	out, _, res := recordNet(t, netCfg(2), func(g *G, log func(string, ...any)) error {
		l, _ := g.Listen(":80")
		g.Go(func(g *G) error {
			c, _ := g.Accept(l)
			g.SetReadDeadline(c, g.Now()+1000*1000)
			g.SetReadDeadline(c, g.Now()+5*1000*1000) // reset: the 1ms timer is stale
			_, _, err := g.Read(c)
			var ne *NetError
			log("%s %v timeout=%v", FormatDuration(g.Now()), err, errors.As(err, &ne) && ne.Timeout)
			_, _, err = g.Read(c) // still expired
			log("again: %v", err)
			g.SetReadDeadline(c, 0)
			v, _, err := g.Read(c)
			log("%s cleared: %v %v", FormatDuration(g.Now()), v, err)
			g.SetReadDeadline(c, g.Now()-1) // in the past: expires at once
			_, _, err = g.Read(c)
			log("past: %v", err)
			return nil
		}, "server")
		c, _ := g.Dial("127.0.0.1:80")
		g.Sleep(10 * 1000 * 1000)
		g.Write(c, "late")
		g.Sleep(10 * 1000 * 1000)
		return nil
	})
	if res.Outcome != Exited {
		t.Fatal(res.Outcome, res.Err)
	}
	want := "5.3ms read tcp :80->127.0.0.1:50000: i/o timeout timeout=true\n" +
		"again: read tcp :80->127.0.0.1:50000: i/o timeout\n" +
		"10.3ms cleared: late <nil>\n" +
		"past: read tcp :80->127.0.0.1:50000: i/o timeout\n"
	if out != want {
		t.Errorf("got\n%s\nwant\n%s", out, want)
	}
}

// Closing a connection wakes its own blocked reader with the closed-
// connection error (poll_runtime_pollUnblock), and the peer reads EOF
// after what was sent before the close.
func TestCloseUnblocksReader(t *testing.T) {
	out, _, res := recordNet(t, netCfg(1), func(g *G, log func(string, ...any)) error {
		server(t, g, log)
		c, _ := g.Dial("127.0.0.1:80")
		g.Go(func(g *G) error {
			_, _, err := g.Read(c)
			log("%s client read: %v", FormatDuration(g.Now()), err)
			return nil
		}, "client reader")
		g.Write(c, "bye")
		g.Sleep(1000 * 1000)
		g.CloseConn(c)
		if err := g.CloseConn(c); err == nil {
			log("closed twice")
		}
		if err := g.Write(c, "x"); err != nil {
			log("write: %v", err) // before the reader runs: it was readied into runnext
		}
		g.Sleep(1000 * 1000)
		return nil
	})
	if res.Outcome != Exited {
		t.Fatal(res.Outcome, res.Err)
	}
	want := "300µs got bye\n" +
		"write: write tcp 127.0.0.1:50000->127.0.0.1:80: use of closed network connection\n" +
		"1.2ms client read: read tcp 127.0.0.1:50000->127.0.0.1:80: use of closed network connection\n" +
		"1.3ms EOF\n"
	if out != want {
		t.Errorf("got\n%s\nwant\n%s", out, want)
	}
}

// A dial to a port nobody listens on fails after a round trip with
// "connection refused"; two listeners on one port fail with "address
// already in use"; a closed listener's Accept fails.
func TestDialRefusedAndListenInUse(t *testing.T) {
	out, _, res := recordNet(t, netCfg(1), func(g *G, log func(string, ...any)) error {
		_, err := g.Dial("127.0.0.1:9")
		log("%s %v", FormatDuration(g.Now()), err)
		l, _ := g.Listen(":80")
		_, err = g.Listen("localhost:80")
		log("%v", err)
		g.Go(func(g *G) error {
			_, err := g.Accept(l)
			log("%s %v", FormatDuration(g.Now()), err)
			return nil
		}, "acceptor")
		g.Sleep(1000 * 1000)
		g.CloseListener(l)
		g.Sleep(1000 * 1000)
		_, err = g.Listen("bad address")
		log("%v", err)
		return nil
	})
	if res.Outcome != Exited {
		t.Fatal(res.Outcome, res.Err)
	}
	want := "200µs dial tcp 127.0.0.1:9: connect: connection refused\n" +
		"listen tcp localhost:80: bind: address already in use\n" +
		"1.2ms accept tcp :80: use of closed network connection\n" +
		"listen tcp bad address: address bad address: missing port in address\n"
	if out != want {
		t.Errorf("got\n%s\nwant\n%s", out, want)
	}
}

// A server whose every goroutine waits on the network, with nothing left
// to arrive, ends the run with ErrNetIdle, not a hang and not Go's
// deadlock text; the goroutine stays in IO wait.
func TestNetIdleEndsTheRun(t *testing.T) {
	var srv *G
	_, res := run(t, netCfg(2), func(g *G, log func(string, ...any)) error {
		l, _ := g.Listen(":80")
		srv, _ = g.Go(func(g *G) error {
			_, err := g.Accept(l)
			return err
		}, "server")
		ch, _ := g.m.NewChan(0)
		g.Recv(ch)
		return nil
	})
	if res.Outcome != Deadlock || res.Err != ErrNetIdle {
		t.Fatalf("got %v %v, want deadlock with ErrNetIdle", res.Outcome, res.Err)
	}
	if srv.WaitReason() != WaitReasonIOWait {
		t.Errorf("server waits for %q", srv.WaitReason())
	}
}

// injectglist with a P sends as many Gs to the global queue as there are
// idle Ps, starting an M for each, and queues the rest on its own P.
// Mirrors injectglist.
func TestInjectglistFeedsIdlePs(t *testing.T) {
	m, mp, gs := world(3, 4)
	var list gList
	for _, gp := range gs {
		gp.status = Gwaiting
		list.push(gp)
	}
	m.injectglist(&list, mp.p)
	if m.runq.size != 2 || len(ring(m.allp[0])) != 2 {
		t.Errorf("global %d, local %v: want 2 and 2", m.runq.size, ring(m.allp[0]))
	}
	if len(m.pidle) != 0 {
		t.Errorf("%d Ps still idle", len(m.pidle))
	}
	for _, gp := range gs {
		if gp.status != Grunnable {
			t.Errorf("G%d is %v", gp.goid, gp.status)
		}
	}
}

// A program that opens no descriptor never initialises the poller: no M
// blocks in netpoll and sysmon does not poll.
func TestNoNetworkNoPoller(t *testing.T) {
	_, evs, res := recordNet(t, netCfg(2), func(g *G, log func(string, ...any)) error {
		g.Go(func(g *G) error { g.Sleep(1000); return nil }, "sleeper")
		g.Sleep(20 * 1000 * 1000)
		return nil
	})
	if res.Outcome != Exited {
		t.Fatal(res.Outcome, res.Err)
	}
	for _, k := range []string{"NetReady", "Netpoll", "MNetpoll", "IO wait"} {
		if strings.Contains(evs, k) {
			t.Errorf("netpoller events without a network:\n%s", evs)
		}
	}
}
