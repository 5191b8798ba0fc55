package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/schedlab/schedlab/runtime"
	"github.com/schedlab/schedlab/trace/tracetest"
)

// TestViewsOnEveryExample runs every example with every view at once
// (--trace-format=json, --chrome-trace, --timeline, --schedtrace=1ms) and
// checks each against the text trace of the same run: the JSON lines
// parse and hold as many events as the text trace shows; the Chrome
// trace parses, passes the format checks and carries every event; the
// timeline page is self-contained and holds every event; and stderr has
// one schedtrace line per millisecond of the run, plus the detailed dump
// when the run dies. Each example runs as its header sets it and again
// with runtime.main's start-up (--startup=go).
func TestViewsOnEveryExample(t *testing.T) {
	examples, err := filepath.Glob("../../examples/*.star")
	if err != nil {
		t.Fatal(err)
	}
	if len(examples) == 0 {
		t.Fatal("no examples found")
	}
	for _, ex := range examples {
		for _, startup := range []string{"bare", "go"} {
			name := strings.TrimSuffix(filepath.Base(ex), ".star")
			t.Run(name+"/startup="+startup, func(t *testing.T) {
				dir := t.TempDir()
				text, _, textCode := schedlab(t, "run", "--trace", "--startup="+startup, ex)

				chromeFile := filepath.Join(dir, name+".json")
				pageFile := filepath.Join(dir, name+".html")
				jsonl, stderr, code := schedlab(t, "run", "--trace", "--startup="+startup, "--trace-format=json",
					"--chrome-trace="+chromeFile, "--timeline="+pageFile, "--schedtrace=1ms", ex)
				if code != textCode {
					t.Fatalf("exit status %d with the views, %d with --trace alone\nstderr:\n%s", code, textCode, stderr)
				}

				// JSON lines: as many events as the text trace, where
				// the text shows the program's output (Print) as itself.
				header, evs, err := tracetest.ReadJSON([]byte(jsonl))
				if err != nil {
					t.Fatalf("JSON lines: %v", err)
				}
				if header["schedlab_trace"] != 1.0 {
					t.Errorf("JSON header = %v", header)
				}
				prints := 0
				for i, ev := range evs {
					if ev.Seq != uint64(i+1) {
						t.Fatalf("JSON event %d has seq %d", i+1, ev.Seq)
					}
					if ev.Kind == runtime.EvPrint {
						prints++
					}
				}
				if n := tracetest.TextEvents([]byte(text)); len(evs)-prints != n {
					t.Errorf("JSON lines hold %d events besides %d prints, the text trace %d", len(evs)-prints, prints, n)
				}
				if len(evs) == 0 {
					t.Fatal("no events")
				}

				chrome, err := os.ReadFile(chromeFile)
				if err != nil {
					t.Fatal(err)
				}
				if _, err := tracetest.CheckChrome(chrome, evs); err != nil {
					t.Errorf("Chrome trace %s:\n%v", chromeFile, err)
				}

				page, err := os.ReadFile(pageFile)
				if err != nil {
					t.Fatal(err)
				}
				if _, err := tracetest.CheckTimeline(page, evs); err != nil {
					t.Errorf("timeline %s:\n%v", pageFile, err)
				}

				checkSchedTrace(t, stderr, evs[len(evs)-1].Time, code)
			})
		}
	}
}

// checkSchedTrace checks the schedtrace lines of a run with
// --schedtrace=1ms whose last event came at last and that exited with
// code: one summary line per millisecond boundary from 0 to last, in
// order, and the detailed dump in the report if the run died.
func checkSchedTrace(t *testing.T, stderr string, last int64, code int) {
	t.Helper()
	var summaries, dumps int
	for _, line := range strings.Split(stderr, "\n") {
		if !strings.HasPrefix(line, "SCHED ") {
			continue
		}
		switch {
		case strings.Contains(line, " schedticks=[ "):
			want := "SCHED " + strconv.Itoa(summaries) + "ms: gomaxprocs="
			if !strings.HasPrefix(line, want) {
				t.Errorf("schedtrace line %d = %q, want it to start with %q", summaries+1, line, want)
			}
			summaries++
		case strings.Contains(line, " gcwaiting=false "):
			dumps++
		default:
			t.Errorf("unexpected schedtrace line %q", line)
		}
	}
	if want := int(last/1_000_000) + 1; summaries != want {
		t.Errorf("%d schedtrace lines for a run whose last event is at %dns, want %d", summaries, last, want)
	}
	died := strings.Contains(stderr, "fatal error: ") || strings.Contains(stderr, "\npanic: ") || strings.HasPrefix(stderr, "panic: ")
	if want := map[bool]int{true: 1, false: 0}[died && code == 2]; dumps != want {
		t.Errorf("%d detailed dumps in stderr, want %d:\n%s", dumps, want, stderr)
	}
}

// schedlab runs the command with args and returns its stdout, stderr and
// exit status.
func schedlab(t *testing.T, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	var out, errb bytes.Buffer
	code = doMain(args, &out, &errb)
	return out.String(), errb.String(), code
}
