// How a run ends, in Go's words.
//
// Three kinds of failure are kept apart, as proc.go keeps them: a user's
// error before the run (a syntax, resolve or load error: file:line:col, exit
// 1), a goroutine's unrecovered error (Go's panic text and that goroutine's
// backtrace, exit 2), and a fatal outcome of the run (deadlock, a limit:
// Go's fatal text or a diagnosis, then every goroutine, exit 2). A bug of
// schedlab itself is an internal error, exit 3. A user never sees a Go stack
// trace.
//
// A goroutine's backtrace is its Starlark call stack, innermost call first
// as Go prints it, one frame a line ("  x.star:7:17: in worker"), without
// the builtin it is blocked in (its wait reason says that), then where it
// was spawned ("created by <toplevel> in goroutine 1" and the position of
// the spawn call).

package lang

import (
	"bufio"
	"cmp"
	"errors"
	"fmt"
	"io"
	"maps"
	"regexp"
	"slices"
	"strings"
	"sync"

	"go.starlark.net/resolve"
	"go.starlark.net/starlark"
	"go.starlark.net/syntax"

	"github.com/schedlab/schedlab/internal/suggest"
	"github.com/schedlab/schedlab/runtime"
)

// Exit statuses.
const (
	ExitOK       = 0 // main returned
	ExitLoad     = 1 // the script could not be read, parsed, resolved or loaded
	ExitFailed   = 2 // a panic, deadlock or limit, as Go's exit status 2
	ExitInternal = 3 // a bug in schedlab
)

// yieldHint follows a syntax error about yield.
const yieldHint = "hint: yield is reserved in Starlark; call gosched() to yield the processor"

var yieldWord = regexp.MustCompile(`\byield\b`)

// FormatCompileError returns the text of an error found before the run:
// every syntax, resolve or load error as "file:line:col: msg" on its own
// line; a syntax error then shows its source line with a caret under the
// column, and the hints for the Go it found there (gohints.go). Other
// errors (a script that cannot be read) are prefixed with "schedlab: ".
func FormatCompileError(err error) string {
	var b strings.Builder
	var rl resolve.ErrorList
	var se syntax.Error
	var le *LoadError
	var he *hintError
	switch {
	case errors.As(err, &he):
		fmt.Fprintf(&b, "%s\n%s", he.err.Error(), caret(he.line, he.err.Pos.Col))
		for _, h := range he.hints {
			fmt.Fprintf(&b, "%s\n", h)
		}
	case errors.As(err, &rl):
		// The resolver reports a function's body after the module's
		// top level: by file, line and column, as Go's compiler does.
		rl = slices.Clone(rl)
		slices.SortStableFunc(rl, func(a, b resolve.Error) int {
			return cmp.Or(cmp.Compare(a.Pos.Filename(), b.Pos.Filename()),
				cmp.Compare(a.Pos.Line, b.Pos.Line), cmp.Compare(a.Pos.Col, b.Pos.Col))
		})
		for _, e := range rl {
			fmt.Fprintf(&b, "%s%s\n%s", e.Error(), spellingHint(e.Msg), resolveHint(e.Msg))
		}
	case errors.As(err, &se):
		fmt.Fprintf(&b, "%s\n", se.Error())
	case errors.As(err, &le):
		fmt.Fprintf(&b, "%s\n", le.Error())
	default:
		fmt.Fprintf(&b, "schedlab: %v\n", err)
	}
	return b.String()
}

// spellingHint returns " (did you mean spawn?)" for "undefined: spawnn"
// when a builtin or universal name is close to the undefined one.
func spellingHint(msg string) string {
	name, ok := strings.CutPrefix(msg, "undefined: ")
	if !ok {
		return ""
	}
	if g, ok := goNames[name]; ok {
		return " (Go's " + g + ")"
	}
	best, bestDist := "", 1+len(name)/4
	for _, names := range [][]string{slices.Sorted(maps.Keys(builtins)), starlark.Universe.Keys()} {
		for _, cand := range names {
			if d := suggest.Distance(name, cand); d <= bestDist && (best == "" || d < bestDist) {
				best, bestDist = cand, d
			}
		}
	}
	if best == "" {
		return ""
	}
	return fmt.Sprintf(" (did you mean %s?)", best)
}

// WriteOutcome writes to w what a Go program leaves on stderr when it ends
// as res says (a panic, Go's deadlock text and the goroutine dump, a limit's
// diagnosis and the dump, or, when main returned, the goroutines still
// alive) and returns the exit status. It must be called before the Machine
// is closed, while the goroutines' stacks are still there. The report is
// buffered: a dump of a hundred thousand goroutines is a few large
// writes, not a million small ones.
//
// When main returned, only the goroutines marked leaked are listed, as Go
// 1.26's goroutineleak profile would show them: a goroutine that is merely
// still alive (a ticker's reader, a worker between jobs) is what a Go
// program leaves behind silently. WriteOutcomeAlive lists them all.
func WriteOutcome(w io.Writer, m *runtime.Machine, res *runtime.Result) int {
	bw := outcomeWriter(w)
	defer putOutcomeWriter(bw)
	return writeOutcome(bw, m, res, false)
}

// WriteOutcomeAlive is WriteOutcome, but when main returned it lists every
// goroutine still alive, leaked or not (schedlab run --alive).
func WriteOutcomeAlive(w io.Writer, m *runtime.Machine, res *runtime.Result) int {
	bw := outcomeWriter(w)
	defer putOutcomeWriter(bw)
	return writeOutcome(bw, m, res, true)
}

// outcomeWriters keeps the reports' buffers from run to run. A sweep or a
// check walk reports every run, most of them with nothing to say, and a
// fresh 64 KB buffer a run was a large allocation to clear and, on
// several workers, memory for the host's scavenger to give back:
// a fifth of check --jobs 2's CPU on a kernel's short runs.
var outcomeWriters = sync.Pool{New: func() any { return bufio.NewWriterSize(nil, 64<<10) }}

// outcomeWriter returns a buffer from outcomeWriters that writes to w.
func outcomeWriter(w io.Writer) *bufio.Writer {
	bw := outcomeWriters.Get().(*bufio.Writer)
	bw.Reset(w)
	return bw
}

// putOutcomeWriter flushes bw and gives it back to outcomeWriters.
func putOutcomeWriter(bw *bufio.Writer) {
	bw.Flush()
	bw.Reset(nil)
	outcomeWriters.Put(bw)
}

func writeOutcome(w io.Writer, m *runtime.Machine, res *runtime.Result, alive bool) int {
	switch res.Outcome {
	case runtime.Exited:
		gs := m.Goroutines()
		n := countLeaked(gs)
		switch {
		case len(gs) == 0 || !alive && n == 0:
		case alive:
			leaked := ""
			if n > 0 {
				leaked = fmt.Sprintf(" (%d leaked)", n)
			}
			fmt.Fprintf(w, "schedlab: main returned with %d %s still alive%s:\n\n", len(gs), plural(len(gs), "goroutine"), leaked)
			writeGoroutines(w, gs)
		default:
			var leaked []*runtime.G
			for _, g := range gs {
				if g.Status() == runtime.Gleaked {
					leaked = append(leaked, g)
				}
			}
			fmt.Fprintf(w, "schedlab: main returned with %d leaked %s (of %d still alive; --alive lists them all):\n\n", n, plural(n, "goroutine"), len(gs))
			writeGoroutines(w, leaked)
		}
		return ExitOK
	case runtime.Panicked:
		var pe *PanicError
		if !errors.As(res.Err, &pe) {
			return writeInternal(w, res.Err)
		}
		io.WriteString(w, pe.header())
		if res.G != nil {
			WriteGoroutine(w, res.G)
		}
		return ExitFailed
	case runtime.Deadlock:
		if res.Err == runtime.ErrNetIdle {
			// Not Go's words: Go would wait on the network for ever.
			fmt.Fprintf(w, "schedlab: %v\n\n", res.Err)
			WriteGoroutineDump(w, m)
			return ExitFailed
		}
		fmt.Fprintf(w, "fatal error: %v\n\n", res.Err)
		WriteGoroutineDump(w, m)
		return ExitFailed
	case runtime.Limit, runtime.Canceled:
		fmt.Fprintf(w, "schedlab: %v\n\n", res.Err)
		WriteGoroutineDump(w, m)
		return ExitFailed
	case runtime.Internal:
		return writeInternal(w, res.Err)
	}
	return writeInternal(w, fmt.Errorf("the run ended with outcome %v", res.Outcome))
}

// writeInternal reports a bug of schedlab.
func writeInternal(w io.Writer, err error) int {
	var ie *runtime.InternalError
	var tp *runtime.TaskPanic
	switch {
	case errors.As(err, &ie):
		fmt.Fprintf(w, "schedlab: internal error: %s\n", ie.Msg)
	case errors.As(err, &tp):
		fmt.Fprintf(w, "schedlab: internal error: %v\n\n%s", tp.Value, tp.Stack)
	default:
		fmt.Fprintf(w, "schedlab: internal error: %v\n", err)
	}
	return ExitInternal
}

// WriteGoroutineDump writes every goroutine that is not dead, in id order,
// as Go's goroutine dump does, separated by blank lines.
func WriteGoroutineDump(w io.Writer, m *runtime.Machine) {
	writeGoroutines(w, m.Goroutines())
}

func writeGoroutines(w io.Writer, gs []*runtime.G) {
	for i, g := range gs {
		if i > 0 {
			io.WriteString(w, "\n")
		}
		WriteGoroutine(w, g)
	}
}

// WriteLeakDump writes the goroutine dump as WriteGoroutineDump does,
// with " (leaked)" after the wait reason of every goroutine that
// FindLeaks(m, roots...) finds, without marking them: for a dump in the
// middle of a run that goes on (the REPL's :dump, whose session globals
// are the roots).
func WriteLeakDump(w io.Writer, m *runtime.Machine, roots ...starlark.StringDict) {
	leaked := make(map[*runtime.G]bool)
	for _, g := range FindLeaks(m, roots...) {
		leaked[g] = true
	}
	for i, g := range m.Goroutines() {
		if i > 0 {
			io.WriteString(w, "\n")
		}
		writeGoroutine(w, g, leaked[g])
	}
}

// WriteGoroutine writes one goroutine of a dump: "goroutine 5 [chan
// receive]:", its Starlark backtrace, innermost call first, and where it
// was created.
func WriteGoroutine(w io.Writer, g *runtime.G) {
	writeGoroutine(w, g, false)
}

// writeGoroutine is WriteGoroutine; leaked adds " (leaked)" to the status
// of a goroutine found leaked but not marked.
func writeGoroutine(w io.Writer, g *runtime.G, leaked bool) {
	status := goroutineStatus(g)
	if leaked && g.Status() != runtime.Gleaked {
		status += " (leaked)"
	}
	fmt.Fprintf(w, "goroutine %d [%s]:\n", g.ID(), status)
	if g.InStartup() {
		// Go's traceback shows runtime.main's own frames here
		// (gcenable, doInit); the program has none yet.
		io.WriteString(w, "  runtime.main: the start-up, before main.main\n")
		return
	}
	gr := goroutineOfG(g)
	if gr == nil {
		return
	}
	writeFrames(w, gr.backtrace())
	if gr.parent != 0 {
		fmt.Fprintf(w, "created by %s in goroutine %d\n", gr.site.Name, gr.parent)
		if gr.site.Pos.IsValid() {
			fmt.Fprintf(w, "  %s\n", gr.site.Pos)
		}
	}
}

// writeFrames writes a backtrace, innermost call first, a frame a line,
// the middle of a deep one elided as Go's traceback elides it.
func writeFrames(w io.Writer, frames []starlark.CallFrame) {
	for i, fr := range frames {
		if n := len(frames); n > tracebackInnerFrames+tracebackOuterFrames {
			// As Go's traceback: the innermost and outermost frames
			// only, of a deep recursion.
			if i == tracebackInnerFrames {
				fmt.Fprintf(w, "  ...%d frames elided...\n", n-tracebackInnerFrames-tracebackOuterFrames)
			}
			if i >= tracebackInnerFrames && i < n-tracebackOuterFrames {
				continue
			}
		}
		fmt.Fprintf(w, "  %s: in %s\n", fr.Pos, fr.Name)
	}
}

// FormatPanic returns the text of err, the Starlark error a statement of
// the main goroutine failed with (a REPL statement's), as a run reports
// a panic: "panic: msg" (or "fatal error: msg"), the hint for a Go habit,
// and goroutine 1 with its backtrace, innermost call first; a statement
// cancelled (Ctrl-C, the memory limit) is "schedlab: interrupted", as a
// run stopped by a limit says. ok is false when err is no Starlark error.
func FormatPanic(err error) (text string, ok bool) {
	var ee *starlark.EvalError
	if !errors.As(err, &ee) {
		return "", false
	}
	var b strings.Builder
	if reason, ok := strings.CutPrefix(ee.Msg, starlarkCancelled); ok {
		b.WriteString("schedlab: " + reason + "\n\n")
	} else {
		pe := &PanicError{Goroutine: 1, Msg: ee.Msg, Fatal: isFatal(err), Hint: runtimeHint(ee.Msg)}
		if pe.Msg == starlarkStackOverflow {
			pe.Msg, pe.Fatal = stackOverflowMsg, true
		}
		b.WriteString(pe.header())
	}
	b.WriteString("goroutine 1 [running]:\n")
	writeFrames(&b, innermostFirst(errorStack(err)))
	return b.String(), true
}

// The frames a goroutine's backtrace shows at most, innermost and
// outermost, as traceback.go's tracebackInnerFrames and
// tracebackOuterFrames.
const (
	tracebackInnerFrames = 50
	tracebackOuterFrames = 50
)

// goroutineStatus is what Go's dump shows in brackets: the wait reason of
// a waiting goroutine, else its state, and " (leaked)" after the wait
// reason of a leaked one (traceback.go goroutineheader).
func goroutineStatus(g *runtime.G) string {
	s := g.WaitReason()
	if s == "" {
		s = g.Status().String()
	}
	if g.Status() == runtime.Gleaked && s != runtime.Gleaked.String() {
		s += " (leaked)"
	}
	return s
}

// plural returns noun, with an s unless n is 1.
func plural(n int, noun string) string {
	if n == 1 {
		return noun
	}
	return noun + "s"
}

// countLeaked returns how many of gs are marked leaked.
func countLeaked(gs []*runtime.G) int {
	n := 0
	for _, g := range gs {
		if g.Status() == runtime.Gleaked {
			n++
		}
	}
	return n
}

// backtrace returns the goroutine's Starlark frames, innermost first,
// without builtins: the stack it failed with, or the one it is suspended
// in, or, for a goroutine that has not started, its function.
func (gr *goroutine) backtrace() []starlark.CallFrame {
	stack := gr.stack
	if stack == nil {
		stack = gr.thread.CallStack()
	}
	frames := innermostFirst(stack)
	if len(frames) == 0 && gr.fn != nil {
		fr := starlark.CallFrame{Name: gr.fn.Name()}
		if fn, ok := gr.fn.(*starlark.Function); ok {
			fr.Pos = fn.Position()
		} else {
			fr.Pos = syntax.MakePosition(&builtinFile, 0, 0)
		}
		frames = append(frames, fr)
	}
	return frames
}

var builtinFile = "<builtin>"

// starlarkCancelled opens the error of a thread that Cancel stopped
// (go.starlark.net's text), before the reason.
const starlarkCancelled = "Starlark computation cancelled: "

// innermostFirst returns the frames of stack (outermost first, as
// Starlark keeps it) innermost first, without builtins.
func innermostFirst(stack starlark.CallStack) []starlark.CallFrame {
	var frames []starlark.CallFrame
	for i := len(stack) - 1; i >= 0; i-- {
		if stack[i].Pos.Filename() != builtinFile {
			frames = append(frames, stack[i])
		}
	}
	return frames
}
