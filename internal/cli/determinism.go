package cli

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/schedlab/schedlab/lang"
	"github.com/schedlab/schedlab/runtime"
	"github.com/schedlab/schedlab/trace"
)

// checkDeterminism is `schedlab run --check-determinism`: it runs the
// script twice in this process with the settings s and a tracer recording
// every event (the program's prints among them), and compares the two
// runs event by event, then what they left on stderr and their exit
// statuses. It prints "deterministic: N events, identical" and returns 0,
// or prints the first difference and returns 1. The program's own output
// and the trace on stdout are not printed; the files of --chrome-trace,
// --timeline and --go-trace are written, of the first run, under the rule
// of every output file (output.go).
func checkDeterminism(host Host, prog *lang.Program, s *Settings, stdout, stderr io.Writer) int {
	h := s.Header()
	outs, sinks, goTrace, err := s.openOutputs(prog, h)
	if err != nil {
		fmt.Fprintf(stderr, "schedlab run: %v\n", err)
		return 1
	}
	files := make([]runtime.Tracer, len(sinks))
	for i, w := range sinks {
		files[i] = w
	}
	var onStart func(*runtime.Machine)
	if goTrace != nil {
		onStart = func(m *runtime.Machine) { goTrace.SetStacks(lang.GoTraceStacks(m)) }
	}
	first := &recorder{}
	r1, err1 := checkRun(host, prog, s, first, runtime.MultiTracer(files...), onStart)
	if code := finishOutputs(outs, sinks, 0, stderr); code != 0 {
		return code
	}
	if r1 == nil {
		io.WriteString(stderr, err1)
		return 1
	}
	second := &recorder{want: first.events, diff: -1}
	r2, err2 := checkRun(host, prog, s, second, nil, nil)

	d := second.diff
	if d < 0 && len(second.events) < len(first.events) {
		d = len(second.events)
	}
	switch {
	case d >= 0:
		fmt.Fprintf(stdout, "not deterministic: event %d of %d differs\n", d+1, max(len(first.events), len(second.events)))
		fmt.Fprintf(stdout, "  run 1: %s\n", eventText(h, first.events, d))
		fmt.Fprintf(stdout, "  run 2: %s\n", eventText(h, second.events, d))
	case err1 != err2:
		fmt.Fprintf(stdout, "not deterministic: the %d events agree, what the runs wrote on stderr differs\n", len(first.events))
		l1, l2 := firstDiffLine(err1, err2)
		fmt.Fprintf(stdout, "  run 1: %s\n  run 2: %s\n", l1, l2)
	case r1.ExitCode != r2.ExitCode:
		fmt.Fprintf(stdout, "not deterministic: the %d events agree, the exit status was %d then %d\n", len(first.events), r1.ExitCode, r2.ExitCode)
	default:
		fmt.Fprintf(stdout, "deterministic: %d events, identical\n", len(first.events))
		return 0
	}
	if hostLimit(r1, "wall time") || hostLimit(r2, "wall time") {
		fmt.Fprintf(stdout, "  (a run hit the wall-clock --timeout, a limit that depends on the host: raise it, or set --max-steps or --max-time instead)\n")
	}
	if hostLimit(r1, "memory") || hostLimit(r2, "memory") {
		fmt.Fprintf(stdout, "  (a run hit --max-memory, a limit that depends on the host: raise it)\n")
	}
	return 1
}

// checkRun runs the program once in host with rec as its tracer, and
// files too when it is not nil (with onStart for their view of the
// Machine), and returns its result and what it wrote on stderr. The
// result is nil, and the text the error, if the run did not start. Tests
// replace it.
var checkRun = runForCheck

func runForCheck(host Host, prog *lang.Program, s *Settings, rec *recorder, files runtime.Tracer, onStart func(*runtime.Machine)) (*lang.Result, string) {
	var errOut bytes.Buffer
	opts := host.Options(s, prog.Files()[0], io.Discard, &errOut)
	opts.Tracer, opts.PrintsInTrace = rec, true
	if files != nil {
		opts.Tracer = runtime.MultiTracer(rec, files)
	}
	opts.OnStart = onStart
	res := prog.Run(opts)
	if res == nil || res.Run == nil {
		return nil, errOut.String()
	}
	return res, errOut.String()
}

// hostLimit reports whether the run was stopped by the host limit what
// ("wall time", "memory"): the limits whose outcome depends on the host.
func hostLimit(r *lang.Result, what string) bool {
	var le *runtime.LimitError
	return r != nil && r.Run != nil && errors.As(r.Run.Err, &le) && le.What == what
}

// A recorder keeps a copy of every event of a run. With want set (the
// events of the first run), it also notes the index of the first event
// that differs from want's.
type recorder struct {
	events []runtime.Event
	want   []runtime.Event
	diff   int
}

func (r *recorder) Event(ev *runtime.Event) {
	i := len(r.events)
	r.events = append(r.events, *ev)
	if r.want != nil && r.diff < 0 && (i >= len(r.want) || r.want[i] != *ev) {
		r.diff = i
	}
}

// eventText returns event i of evs as the text trace writes it, or a note
// that the run had ended.
func eventText(h trace.Header, evs []runtime.Event, i int) string {
	if i >= len(evs) {
		return fmt.Sprintf("(the run had ended after %d events)", len(evs))
	}
	var b bytes.Buffer
	w := trace.NewText(&b, h)
	ev := evs[i]
	w.Event(&ev)
	w.Flush()
	_, line, _ := strings.Cut(b.String(), "\n") // after the header
	line = strings.TrimSuffix(line, "\n")
	if ev.Kind == runtime.EvPrint {
		line = fmt.Sprintf("print %q by G%d", ev.Reason, ev.G)
	}
	return strings.TrimSpace(line)
}

// firstDiffLine returns the first line where a and b differ.
func firstDiffLine(a, b string) (string, string) {
	la, lb := strings.Split(a, "\n"), strings.Split(b, "\n")
	for i := range max(len(la), len(lb)) {
		var x, y string
		if i < len(la) {
			x = la[i]
		}
		if i < len(lb) {
			y = lb[i]
		}
		if x != y {
			return fmt.Sprintf("%q", x), fmt.Sprintf("%q", y)
		}
	}
	return "", ""
}
