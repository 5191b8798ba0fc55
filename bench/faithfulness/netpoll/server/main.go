// Command server is the server side of the netpoll recordings (issue 27,
// item 6): a real Go process that serves on loopback to the client of
// ../client, which runs as a separate process. record.sh runs both.
//
//	server -mode wake  [-spinners K] -n N -warmup W -out FILE
//	server -mode serve -conns C
//	server -mode echo
//
// It listens on 127.0.0.1 (port -addr, 0 by default: any free one) and
// prints "addr HOST:PORT" on its standard output once it listens, so that
// the driver can start the client. Every message, either way, is 16 bytes:
// two little-endian 64-bit integers.
//
//   - wake: accepts one connection. One goroutine (main) reads messages
//     (seq, send time as time.Now().UnixNano() in the client) in a loop of
//     conn.Read; right after each read returns it records now − send time.
//     The first W messages are a warm-up and not recorded; after N recorded
//     messages (or at EOF) it writes the values, in ns, one per line, to
//     FILE and exits. With -spinners K it also starts K goroutines that run
//     a pure CPU loop (an LCG, no allocation, no blocking) until the end,
//     so that every P is busy when K = GOMAXPROCS.
//   - serve: a goroutine-per-connection server. The accept loop starts a
//     goroutine per connection; that goroutine reads requests (id, service
//     time in ns), burns the service time as CPU with spin (iterations
//     calibrated against time.Now at start-up, so it is CPU work that takes
//     longer when the thread is descheduled, not a wall-clock wait) and
//     writes the reply (id, one bit of the loop's result). It exits when C connections have been
//     accepted and all of them are closed. The client records the latency.
//   - echo: accepts one connection and writes back every message as it
//     arrives, until EOF (the ping-pong of ../client -mode pingpong).
//
// A watchdog (-timeout, 2 minutes by default) ends the process with exit
// status 3 if it has not finished by then. Network traffic goes to
// 127.0.0.1 only.
package main

import (
	"bufio"
	"encoding/binary"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"os"
	"runtime"
	"strconv"
	"sync"
	"sync/atomic"
	"time"
)

// msgSize is the size of every message, both ways.
const msgSize = 16

func main() {
	mode := flag.String("mode", "wake", "wake, serve or echo")
	addr := flag.String("addr", "127.0.0.1:0", "the `address` to listen on (loopback only)")
	n := flag.Int("n", 2000, "wake: how many messages to record")
	warmup := flag.Int("warmup", 20, "wake: how many first messages to drop")
	spinners := flag.Int("spinners", 0, "wake: how many goroutines run CPU loops meanwhile")
	conns := flag.Int("conns", 64, "serve: exit once this many connections were accepted and closed")
	out := flag.String("out", "", "wake: the `file` for the recorded values (ns, one per line)")
	timeout := flag.Duration("timeout", 2*time.Minute, "watchdog: exit with status 3 after this long")
	flag.Parse()

	time.AfterFunc(*timeout, func() {
		fmt.Fprintf(os.Stderr, "server: watchdog: still running after %v\n", *timeout)
		os.Exit(3)
	})

	host, _, err := net.SplitHostPort(*addr)
	if err != nil || host != "127.0.0.1" {
		fatalf("-addr must be 127.0.0.1:PORT, got %q", *addr)
	}
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		fatalf("%v", err)
	}
	defer ln.Close()

	switch *mode {
	case "wake":
		if *out == "" || *n <= 0 || *warmup < 0 || *spinners < 0 {
			fatalf("wake wants -out FILE, -n > 0, -warmup ≥ 0, -spinners ≥ 0")
		}
		announce(ln)
		err = wake(ln, *n, *warmup, *spinners, *out)
	case "serve":
		if *conns <= 0 {
			fatalf("serve wants -conns > 0")
		}
		nsPerIter := calibrate()
		fmt.Fprintf(os.Stderr, "server: spin calibrated at %.4f ns per iteration (GOMAXPROCS=%d)\n", nsPerIter, runtime.GOMAXPROCS(0))
		announce(ln)
		err = serve(ln, *conns, nsPerIter)
	case "echo":
		announce(ln)
		err = echo(ln)
	default:
		fatalf("unknown -mode %q", *mode)
	}
	if err != nil {
		fatalf("%v", err)
	}
}

// announce prints the listener's address for the driver.
func announce(ln net.Listener) {
	fmt.Printf("addr %s\n", ln.Addr())
	os.Stdout.Sync()
}

func fatalf(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "server: "+format+"\n", args...)
	os.Exit(1)
}

// sink keeps the results of the CPU loops alive, so that the compiler
// cannot drop them.
var sink atomic.Uint64

// spin runs iters steps of a linear congruential generator from x and
// returns where it ends: pure CPU, no memory traffic, no calls.
//
//go:noinline
func spin(x uint64, iters int) uint64 {
	for i := 0; i < iters; i++ {
		x = x*6364136223846793005 + 1442695040888963407
	}
	return x
}

// spinner runs CPU loops until stop is set: the busy Ps of the wake test.
// It never blocks; it only reads an atomic flag between loops of about
// 50µs (and the runtime may preempt it anywhere, asynchronously).
func spinner(id int, stop *atomic.Bool, wg *sync.WaitGroup) {
	defer wg.Done()
	x := uint64(id)
	for !stop.Load() {
		x = spin(x, 1<<16)
	}
	sink.Add(x)
}

// wake records, for each message, the delay from the client's send time
// to the moment conn.Read returns in the server.
func wake(ln net.Listener, n, warmup, spinners int, out string) error {
	c, err := ln.Accept()
	if err != nil {
		return err
	}
	defer c.Close()

	var stop atomic.Bool
	var wg sync.WaitGroup
	for i := 0; i < spinners; i++ {
		wg.Add(1)
		go spinner(i, &stop, &wg)
	}

	delays := make([]int64, 0, n)
	var buf [msgSize]byte
	seen := 0
	for len(delays) < n {
		// One Read is the blocking one; ReadFull only loops if TCP
		// delivered a message in pieces, which 16-byte messages
		// spaced milliseconds apart do not do on loopback.
		_, err := io.ReadFull(c, buf[:])
		now := time.Now().UnixNano()
		if err == io.EOF {
			break
		}
		if err != nil {
			stop.Store(true)
			wg.Wait()
			return err
		}
		seen++
		if seen <= warmup {
			continue
		}
		sent := int64(binary.LittleEndian.Uint64(buf[8:]))
		delays = append(delays, now-sent)
	}
	stop.Store(true)
	wg.Wait()
	if len(delays) < n {
		fmt.Fprintf(os.Stderr, "server: wake: EOF after %d of %d messages\n", len(delays), n)
	}
	return writeValues(out, delays)
}

// writeValues writes one value per line.
func writeValues(path string, vs []int64) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	w := bufio.NewWriter(f)
	for _, v := range vs {
		w.WriteString(strconv.FormatInt(v, 10))
		w.WriteByte('\n')
	}
	if err := w.Flush(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// calibrate measures how long one iteration of spin takes on this
// machine: the fastest of several timed runs of about 20ms each, the
// fastest because a slower one was interrupted.
func calibrate() float64 {
	const iters = 1 << 24
	best := time.Duration(1 << 62)
	x := uint64(1)
	for r := 0; r < 7; r++ {
		t0 := time.Now()
		x = spin(x, iters)
		if d := time.Since(t0); d < best {
			best = d
		}
	}
	sink.Add(x)
	return float64(best.Nanoseconds()) / iters
}

// serveStats adds up what the connection goroutines did, for the log.
type serveStats struct {
	requests atomic.Int64
	askedNs  atomic.Int64 // service time asked for
	burntNs  atomic.Int64 // wall time the spins took
}

// serve is the goroutine-per-connection server.
func serve(ln net.Listener, conns int, nsPerIter float64) error {
	var st serveStats
	var wg sync.WaitGroup
	for i := 0; i < conns; i++ {
		c, err := ln.Accept()
		if err != nil {
			return err
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer c.Close()
			if err := handle(c, nsPerIter, &st); !errors.Is(err, io.EOF) {
				fmt.Fprintf(os.Stderr, "server: conn: %v\n", err)
			}
		}()
	}
	wg.Wait()
	r := st.requests.Load()
	if r > 0 {
		fmt.Fprintf(os.Stderr, "server: %d requests, mean service asked %.1fµs, mean spin wall time %.1fµs\n",
			r, float64(st.askedNs.Load())/float64(r)/1e3, float64(st.burntNs.Load())/float64(r)/1e3)
	}
	return nil
}

// handle serves one connection: read a request, burn its service time,
// reply, until EOF.
func handle(c net.Conn, nsPerIter float64, st *serveStats) error {
	var buf [msgSize]byte
	x := uint64(1)
	for {
		if _, err := io.ReadFull(c, buf[:]); err != nil {
			return err
		}
		ask := int64(binary.LittleEndian.Uint64(buf[8:]))
		t0 := time.Now()
		x = spin(x, int(float64(ask)/nsPerIter))
		st.burntNs.Add(int64(time.Since(t0)))
		st.askedNs.Add(ask)
		st.requests.Add(1)
		binary.LittleEndian.PutUint64(buf[8:], x&1) // the reply: id, and a bit of the result
		if _, err := c.Write(buf[:]); err != nil {
			return err
		}
	}
}

// echo writes back every message until EOF.
func echo(ln net.Listener) error {
	c, err := ln.Accept()
	if err != nil {
		return err
	}
	defer c.Close()
	var buf [msgSize]byte
	for {
		if _, err := io.ReadFull(c, buf[:]); err != nil {
			if err == io.EOF {
				return nil
			}
			return err
		}
		if _, err := c.Write(buf[:]); err != nil {
			return err
		}
	}
}
