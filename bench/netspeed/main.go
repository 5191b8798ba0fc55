// Command netspeed is the real-Go twin of bench/netspeed/server.star: a
// goroutine-per-connection echo server on loopback handles n requests
// from c clients in a closed loop, each client with its own connection,
// sending a request and waiting for its reply before the next. The client
// runs in a separate process, as the script's traffic runs on another
// host: `netspeed` starts `netspeed -serve` as a child, drives it, and
// stops it, so that timing the whole command times both.
//
//	go build -o /tmp/netspeed ./bench/netspeed
//	/usr/bin/time -v /tmp/netspeed -n 100000 -c 64
//
// docs/performance.md compares it with schedlab running the script.
package main

import (
	"bufio"
	"encoding/binary"
	"flag"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"strings"
	"sync"
	"time"
)

func main() {
	serve := flag.Bool("serve", false, "be the server: listen on 127.0.0.1:0, print the address, serve until stdin closes")
	n := flag.Int("n", 100000, "requests in all")
	c := flag.Int("c", 64, "clients, each with one connection")
	flag.Parse()
	if *serve {
		server()
		return
	}
	if err := drive(*n, *c); err != nil {
		fmt.Fprintln(os.Stderr, "netspeed:", err)
		os.Exit(1)
	}
}

// server echoes 8-byte requests on every connection it accepts, a
// goroutine per connection, until its stdin is closed.
func server() {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		fmt.Fprintln(os.Stderr, "netspeed -serve:", err)
		os.Exit(1)
	}
	fmt.Println(l.Addr())
	go func() {
		io.Copy(io.Discard, os.Stdin)
		os.Exit(0)
	}()
	for {
		conn, err := l.Accept()
		if err != nil {
			return
		}
		go func() {
			defer conn.Close()
			var b [8]byte
			for {
				if _, err := io.ReadFull(conn, b[:]); err != nil {
					return
				}
				if _, err := conn.Write(b[:]); err != nil {
					return
				}
			}
		}()
	}
}

// drive starts the server process and sends n requests from c clients.
func drive(n, c int) error {
	self, err := os.Executable()
	if err != nil {
		return err
	}
	cmd := exec.Command(self, "-serve")
	cmd.Stderr = os.Stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return err
	}
	if err := cmd.Start(); err != nil {
		return err
	}
	defer cmd.Wait()
	defer stdin.Close()
	addr, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil {
		return err
	}
	addr = strings.TrimSpace(addr)
	start := time.Now()
	var wg sync.WaitGroup
	errs := make(chan error, c)
	for i := range c {
		share := n / c
		if i < n%c {
			share++
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs <- client(addr, share)
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			return err
		}
	}
	fmt.Printf("%d answered in %v\n", n, time.Since(start).Round(time.Millisecond))
	return nil
}

// client sends k requests on one connection, one at a time.
func client(addr string, k int) error {
	conn, err := net.DialTimeout("tcp", addr, 10*time.Second)
	if err != nil {
		return err
	}
	defer conn.Close()
	conn.SetDeadline(time.Now().Add(5 * time.Minute))
	var b [8]byte
	for i := range k {
		binary.LittleEndian.PutUint64(b[:], uint64(i))
		if _, err := conn.Write(b[:]); err != nil {
			return err
		}
		if _, err := io.ReadFull(conn, b[:]); err != nil {
			return err
		}
	}
	return nil
}
