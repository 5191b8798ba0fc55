// Command client is the client side of the netpoll recordings (issue 27,
// item 6). It runs as its own process, apart from ../server, and talks to
// it over TCP on 127.0.0.1 only. Every message is 16 bytes: two
// little-endian 64-bit integers.
//
//	client -mode wake     -addr A -n N -warmup W [-min 5ms -max 20ms]
//	client -mode poisson  -addr A -rate R -n N -warmup W -conns C -service 1ms -out F [-out-sent F2 -out-late F3]
//	client -mode pingpong -addr A -n N -warmup W [-min 1ms -max 5ms] -out F
//
// The modes:
//
//   - wake: sends N+W messages (seq, time.Now().UnixNano() taken just
//     before the Write) on one connection, each after a pause drawn
//     uniformly from [min, max), so that the sends do not phase-lock with
//     sysmon's 10ms ticks. The server records the delays.
//   - poisson: an open-loop load generator, as wrk2 does it. The send
//     times are drawn in advance (exponential gaps of mean 1/R from a
//     start 50ms after the connections are up) and so are the service
//     times (exponential of mean -service), which travel in the request.
//     C connections are opened first and kept; a sender goroutine sleeps
//     until each request's scheduled time, takes a connection that has no
//     request outstanding (waiting for one if all are busy) and writes
//     (id, service ns); a reader goroutine per connection reads the
//     replies. The latency of a request is measured from its scheduled send
//     time to the moment its reply is read, so a late sender (or a server
//     that holds every connection) is counted against the server, not
//     hidden (coordinated omission). The first W requests are sent but not
//     recorded. F gets the latencies from the scheduled times; F2, if
//     given, the latencies from the moment each request was actually
//     written; F3 the sender's lateness (actual − scheduled).
//   - pingpong: N+W round trips, each after a pause drawn from [min, max)
//     (0 and 0 for back-to-back), against ../server -mode echo; F gets
//     RTT/2 of each recorded trip.
//
// Values are in ns, one per line. A watchdog (-timeout, 2 minutes by
// default) ends the process with exit status 3.
package main

import (
	"bufio"
	"encoding/binary"
	"flag"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"os"
	"strconv"
	"sync"
	"sync/atomic"
	"time"
)

// msgSize is the size of every message, both ways.
const msgSize = 16

func main() {
	mode := flag.String("mode", "wake", "wake, poisson or pingpong")
	addr := flag.String("addr", "", "the server's `address`, 127.0.0.1:PORT")
	n := flag.Int("n", 2000, "how many messages, requests or round trips to record")
	warmup := flag.Int("warmup", 20, "how many to send first without recording")
	minGap := flag.Duration("min", 5*time.Millisecond, "wake, pingpong: the shortest pause between sends")
	maxGap := flag.Duration("max", 20*time.Millisecond, "wake, pingpong: the longest pause between sends")
	rate := flag.Float64("rate", 500, "poisson: requests per second")
	conns := flag.Int("conns", 64, "poisson: connections, opened first and reused")
	service := flag.Duration("service", time.Millisecond, "poisson: mean service time (exponential)")
	seed := flag.Uint64("seed", 1, "the PRNG's seed")
	out := flag.String("out", "", "poisson, pingpong: the `file` for the recorded values")
	outSent := flag.String("out-sent", "", "poisson: the `file` for latencies from the actual send")
	outLate := flag.String("out-late", "", "poisson: the `file` for the sender's lateness")
	timeout := flag.Duration("timeout", 2*time.Minute, "watchdog: exit with status 3 after this long")
	flag.Parse()

	time.AfterFunc(*timeout, func() {
		fmt.Fprintf(os.Stderr, "client: watchdog: still running after %v\n", *timeout)
		os.Exit(3)
	})
	host, _, err := net.SplitHostPort(*addr)
	if err != nil || host != "127.0.0.1" {
		fatalf("-addr must be 127.0.0.1:PORT, got %q", *addr)
	}
	if *n <= 0 || *warmup < 0 || *minGap < 0 || *maxGap < *minGap {
		fatalf("want -n > 0, -warmup ≥ 0, 0 ≤ -min ≤ -max")
	}
	rng := rand.New(rand.NewPCG(*seed, 0x6e6574706f6c6c))

	switch *mode {
	case "wake":
		err = wake(*addr, *n+*warmup, *minGap, *maxGap, rng)
	case "poisson":
		if *out == "" || *rate <= 0 || *conns <= 0 || *service <= 0 {
			fatalf("poisson wants -out FILE, -rate > 0, -conns > 0, -service > 0")
		}
		err = poisson(*addr, *n, *warmup, *rate, *conns, *service, rng, *out, *outSent, *outLate)
	case "pingpong":
		if *out == "" {
			fatalf("pingpong wants -out FILE")
		}
		err = pingpong(*addr, *n, *warmup, *minGap, *maxGap, rng, *out)
	default:
		fatalf("unknown -mode %q", *mode)
	}
	if err != nil {
		fatalf("%v", err)
	}
}

func fatalf(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "client: "+format+"\n", args...)
	os.Exit(1)
}

// gap draws a pause from [lo, hi).
func gap(rng *rand.Rand, lo, hi time.Duration) time.Duration {
	if hi <= lo {
		return lo
	}
	return lo + time.Duration(rng.Int64N(int64(hi-lo)))
}

// wake sends total messages that carry their send time.
func wake(addr string, total int, lo, hi time.Duration, rng *rand.Rand) error {
	c, err := net.Dial("tcp", addr)
	if err != nil {
		return err
	}
	defer c.Close()
	var buf [msgSize]byte
	for i := 0; i < total; i++ {
		time.Sleep(gap(rng, lo, hi))
		binary.LittleEndian.PutUint64(buf[:8], uint64(i))
		binary.LittleEndian.PutUint64(buf[8:], uint64(time.Now().UnixNano()))
		if _, err := c.Write(buf[:]); err != nil {
			return err
		}
	}
	return nil
}

// poisson is the open-loop load generator.
func poisson(addr string, n, warmup int, rate float64, nconns int, service time.Duration,
	rng *rand.Rand, out, outSent, outLate string) error {
	total := n + warmup
	cs := make([]net.Conn, nconns)
	for i := range cs {
		c, err := net.Dial("tcp", addr)
		if err != nil {
			return err
		}
		defer c.Close()
		cs[i] = c
	}

	// The schedule and the service times, drawn before anything is sent.
	offsets := make([]time.Duration, total) // scheduled send time, from start
	asks := make([]int64, total)            // service time, ns
	t := 0.0
	for i := range offsets {
		t += rng.ExpFloat64() / rate
		offsets[i] = time.Duration(t * 1e9)
		asks[i] = int64(rng.ExpFloat64() * float64(service))
	}

	sched := make([]int64, total) // scheduled send times, Unix ns
	sent := make([]atomic.Int64, total)
	done := make([]atomic.Int64, total)
	free := make(chan int, nconns)
	for i := range cs {
		free <- i
	}
	var replies sync.WaitGroup
	replies.Add(total)
	readErr := make(chan error, nconns)
	for k, c := range cs {
		go func() {
			var buf [msgSize]byte
			for {
				if _, err := io.ReadFull(c, buf[:]); err != nil {
					if err != io.EOF {
						readErr <- err
					}
					return
				}
				now := time.Now().UnixNano()
				id := int(binary.LittleEndian.Uint64(buf[:8]))
				if id < 0 || id >= total || done[id].Load() != 0 {
					readErr <- fmt.Errorf("reply to an unknown request %d", id)
					return
				}
				done[id].Store(now)
				free <- k
				replies.Done()
			}
		}()
	}

	start := time.Now().Add(50 * time.Millisecond)
	for i := range sched {
		sched[i] = start.Add(offsets[i]).UnixNano()
	}
	var buf [msgSize]byte
	for i := 0; i < total; i++ {
		if d := time.Until(start.Add(offsets[i])); d > 0 {
			time.Sleep(d)
		}
		var k int
		select {
		case k = <-free:
		case err := <-readErr:
			return err
		}
		binary.LittleEndian.PutUint64(buf[:8], uint64(i))
		binary.LittleEndian.PutUint64(buf[8:], uint64(asks[i]))
		sent[i].Store(time.Now().UnixNano())
		if _, err := cs[k].Write(buf[:]); err != nil {
			return err
		}
	}
	finished := make(chan struct{})
	go func() { replies.Wait(); close(finished) }()
	select {
	case <-finished:
	case err := <-readErr:
		return err
	}

	lat := make([]int64, 0, n)
	latSent := make([]int64, 0, n)
	late := make([]int64, 0, n)
	for i := warmup; i < total; i++ {
		lat = append(lat, done[i].Load()-sched[i])
		latSent = append(latSent, done[i].Load()-sent[i].Load())
		late = append(late, sent[i].Load()-sched[i])
	}
	elapsed := time.Duration(done[total-1].Load() - sched[0])
	fmt.Fprintf(os.Stderr, "client: %d requests in %v (%.0f/s asked, %.0f/s done)\n",
		total, elapsed.Round(time.Millisecond), rate, float64(total)/elapsed.Seconds())
	if err := writeValues(out, lat); err != nil {
		return err
	}
	if outSent != "" {
		if err := writeValues(outSent, latSent); err != nil {
			return err
		}
	}
	if outLate != "" {
		if err := writeValues(outLate, late); err != nil {
			return err
		}
	}
	return nil
}

// pingpong measures round trips to an echo server and records RTT/2.
func pingpong(addr string, n, warmup int, lo, hi time.Duration, rng *rand.Rand, out string) error {
	c, err := net.Dial("tcp", addr)
	if err != nil {
		return err
	}
	defer c.Close()
	half := make([]int64, 0, n)
	var buf [msgSize]byte
	for i := 0; i < n+warmup; i++ {
		if d := gap(rng, lo, hi); d > 0 {
			time.Sleep(d)
		}
		t0 := time.Now()
		binary.LittleEndian.PutUint64(buf[:8], uint64(i))
		binary.LittleEndian.PutUint64(buf[8:], uint64(t0.UnixNano()))
		if _, err := c.Write(buf[:]); err != nil {
			return err
		}
		if _, err := io.ReadFull(c, buf[:]); err != nil {
			return err
		}
		rtt := time.Since(t0)
		if binary.LittleEndian.Uint64(buf[:8]) != uint64(i) {
			return fmt.Errorf("echo of %d came back as %d", i, binary.LittleEndian.Uint64(buf[:8]))
		}
		if i >= warmup {
			half = append(half, int64(rtt)/2)
		}
	}
	return writeValues(out, half)
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
