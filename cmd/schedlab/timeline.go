package main

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"

	"github.com/schedlab/schedlab/internal/cli"
	"github.com/schedlab/schedlab/internal/realtrace"
	"github.com/schedlab/schedlab/trace"
	"github.com/schedlab/schedlab/trace/realevents"
)

const timelineSynopsis = "schedlab timeline [flags] IN.trace -o OUT.html"

const timelineHelpText = `Timeline draws a Go execution trace with schedlab's own HTML timeline: a
lane per P and per M (thread), a span for every run of a goroutine and
every syscall, markers for creations, blocks, wake-ups, preemptions and
Ps taken from syscalls, and the number of runnable goroutines under the
lanes. The trace may come from a real program (go test -trace, runtime/trace,
a flight recorder) or from schedlab run --go-trace: both are read by
golang.org/x/exp/trace, the reader of go tool trace, and drawn the same
way, so a real run and its simulated twin can be looked at side by side.

--compare SIM.trace makes a page with both: IN.trace above, SIM.trace
below, on one time axis that starts at the first event of each; zooming
or panning one moves the other.

Threads are numbered M0, M1, ... in the order they first appear (a real
trace's thread ids are the operating system's). What a real trace does
not hold, schedlab does not invent: where a readied goroutine was queued
(to=unknown), the global run queue's length and spinning threads. Times
are from the first event of the trace.

Exit status: 0 when the page is written, 1 when a trace cannot be read
or the page cannot be written, 2 for a bad command line.`

// timelineCmd is `schedlab timeline`.
func timelineCmd(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("schedlab timeline", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	out := fs.String("o", "", "write the page to `FILE` (required)")
	compare := fs.String("compare", "", "also draw the Go execution trace `SIM.trace` under IN.trace, on one time axis")
	files, err := cli.ParseInterspersed(fs, args)
	if errors.Is(err, flag.ErrHelp) {
		printHelp(stdout, timelineSynopsis, timelineHelpText, fs)
		return 0
	}
	if err == nil {
		switch {
		case len(files) != 1:
			err = fmt.Errorf("want one trace, got %d arguments", len(files))
		case *out == "":
			err = errors.New("no output file: give -o OUT.html")
		}
	}
	if err != nil {
		fmt.Fprintf(stderr, "schedlab timeline: %v\nusage: %s (see 'schedlab timeline -h')\n", err, timelineSynopsis)
		return 2
	}

	in := files[0]
	page, err := timelinePage(in)
	if err != nil {
		fmt.Fprintf(stderr, "schedlab timeline: %v\n", err)
		return 1
	}
	if *compare != "" {
		sim, err := timelinePage(*compare)
		if err != nil {
			fmt.Fprintf(stderr, "schedlab timeline: %v\n", err)
			return 1
		}
		var b bytes.Buffer
		title := "schedlab timeline — " + filepath.Base(in) + " and " + filepath.Base(*compare)
		if err := trace.WriteCompare(&b, title, []trace.ComparePane{{Title: in, Page: page}, {Title: *compare, Page: sim}}); err != nil {
			fmt.Fprintf(stderr, "schedlab timeline: %v\n", err)
			return 1
		}
		page = b.Bytes()
	}
	if err := os.WriteFile(*out, page, 0o666); err != nil {
		fmt.Fprintf(stderr, "schedlab timeline: %v\n", err)
		return 1
	}
	return 0
}

// timelinePage reads the Go execution trace in file and returns its
// timeline page.
func timelinePage(file string) ([]byte, error) {
	f, err := os.Open(file)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	tr, err := realtrace.Read(f)
	if err != nil {
		return nil, fmt.Errorf("%s: %v", file, err)
	}
	evs, procs := realevents.Events(tr)
	var b bytes.Buffer
	tl := trace.NewTimeline(&b, trace.Header{Settings: []trace.KV{
		{Key: "trace", Value: filepath.Base(file)},
		{Key: "procs", Value: strconv.Itoa(procs)},
	}})
	for i := range evs {
		tl.Event(&evs[i])
	}
	if err := tl.Close(); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

func timelineHelp(w io.Writer) { timelineCmd([]string{"-h"}, w, io.Discard) }
