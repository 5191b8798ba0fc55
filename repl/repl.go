// Package repl is schedlab's interactive shell: a read/eval/print loop in
// which each statement runs as the main goroutine G1 of a simulated Go
// program, and commands step the scheduler and look into its run queues.
//
// It is shaped like go.starlark.net's repl package: one item (a compound
// statement, or a command) per turn, ">>> " then "... " prompts, an
// expression's value printed unless it is None, errors on stderr with
// their backtrace, and Ctrl-C cancelling the item, not the session. The
// world itself — the Machine, the globals, G1's loop — is lang.Session;
// this package reads lines, runs commands and prints.
//
// Only this package and cmd/schedlab touch readline and colour. Without a
// terminal (Options.Interactive false) the loop reads plain lines and
// prints the same output without prompts or colour, so a session can be
// scripted and golden-tested.
//
// Start from Run and its Options. The files: repl.go, the loop and the
// statements; commands.go, the :commands (:step, :runq, :ps, ...);
// input.go, reading lines with readline or plainly; complete.go, tab
// completion; color.go, the colours of states and events.
package repl

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"sync/atomic"
	"time"

	"github.com/chzyer/readline"
	"go.starlark.net/starlark"
	"go.starlark.net/syntax"

	"github.com/schedlab/schedlab/internal/cli"
	"github.com/schedlab/schedlab/lang"
	"github.com/schedlab/schedlab/runtime"
	"github.com/schedlab/schedlab/trace"
)

// Options configure a REPL.
type Options struct {
	// Run holds the options of the world's run, as the command's
	// settings make them (cli.Settings.Options): Procs (GOMAXPROCS at
	// start), Seed (of the first world; :seed and :reset start others),
	// Preempt, and the memory limit. MaxMemory bounds the memory the
	// process holds (the Go heap and goroutine stacks), in bytes; zero
	// means no limit. A statement, :step or :run that takes it above the
	// limit is interrupted as Ctrl-C interrupts it, and the world stays.
	// If one call goes on allocating to half as much again,
	// OnMemoryOverrun is called if not nil (the command ends its process
	// there). See lang.WatchMemory. The other options a session does not
	// use (lang.SessionOptions); the REPL's Stdout and Stderr are below.
	Run lang.Options

	Script string // a script to run first, keeping its globals; "" for none

	Stdin  io.Reader // lines, when not Interactive
	Stdout io.Writer // prints, values, views, events
	Stderr io.Writer // errors and reports

	// Interactive reads the terminal with line editing, prompts, tab
	// completion and history, and turns Ctrl-C into an interrupt of the
	// statement, :step or :run in progress. It uses os.Stdin and
	// os.Stdout, which must be terminals.
	Interactive bool

	// Echo, without Interactive, prints each prompt and input line as a
	// terminal would show them, to record a session as a transcript.
	Echo bool

	Color       bool   // colour states and events (a terminal without NO_COLOR)
	HistoryFile string // where Interactive keeps its history; "" for none
}

// Run runs a REPL until :quit or the end of input (Ctrl-D) and returns the
// exit status: 0, or 1 if the terminal could not be set up.
func Run(opts Options) (code int) {
	if opts.Stdout == nil {
		opts.Stdout = io.Discard
	}
	if opts.Stderr == nil {
		opts.Stderr = io.Discard
	}
	defer func() {
		// A bug of schedlab found outside the world's driver: report it
		// in schedlab's words, never with a Go stack trace.
		if v := recover(); v != nil {
			ie, ok := v.(*runtime.InternalError)
			if !ok {
				panic(v)
			}
			fmt.Fprintf(opts.Stderr, "schedlab: internal error: %s\n", ie.Msg)
			code = lang.ExitInternal
		}
	}()
	r := &repl{opts: opts, out: opts.Stdout, errw: opts.Stderr, pal: newPalette(opts.Color)}
	if opts.Interactive {
		fmt.Fprintf(r.out, "schedlab repl: %d %s, seed %d, preemption %s. :help lists the commands, Ctrl-D leaves.\n",
			opts.Run.Procs, plural(opts.Run.Procs, "P"), opts.Run.Seed, cli.OnOff(opts.Run.Preempt))
		sig := make(chan os.Signal, 1)
		signal.Notify(sig, os.Interrupt)
		defer func() { signal.Stop(sig); close(sig) }()
		go func() {
			for range sig {
				r.sigint.Store(true)
				if s := r.session(); s != nil {
					s.Interrupt()
				}
			}
		}()
	}
	r.newSession(opts.Run.Seed)
	defer func() { r.session().Close() }()
	if limit := opts.Run.MaxMemory; limit > 0 {
		var overrun func()
		if f := opts.Run.OnMemoryOverrun; f != nil {
			le := &runtime.LimitError{What: "memory", Msg: lang.MemoryLimitMessage(limit)}
			overrun = func() { f(le) }
		}
		done := make(chan struct{})
		defer close(done)
		go lang.WatchMemory(limit, 10*time.Millisecond, func() {
			r.memhit.Store(true)
			if s := r.session(); s != nil {
				s.Interrupt()
			}
		}, overrun, done)
	}
	if opts.Interactive {
		in, err := newTermReader(r)
		if err != nil {
			fmt.Fprintf(opts.Stderr, "schedlab repl: %v\n", err)
			return 1
		}
		defer in.Close()
		r.in = in
	} else {
		r.in = &plainReader{in: bufio.NewReader(opts.Stdin), echo: opts.Echo, out: opts.Stdout}
	}
	r.loop()
	return 0
}

// A repl is one running REPL.
type repl struct {
	opts Options
	in   lineReader
	out  io.Writer
	errw io.Writer
	pal  *palette

	sess     atomic.Pointer[lang.Session] // the signal goroutine reads it
	tracing  bool                         // :trace on: print every event
	stepping bool                         // a :step is printing its events
	events   int                          // events seen by the current operation
	sigint   atomic.Bool                  // Ctrl-C during the current operation
	memhit   atomic.Bool                  // --max-memory reached during the current operation
}

// begin starts an operation that runs the world.
func (r *repl) begin() {
	r.events = 0
	r.sigint.Store(false)
	r.memhit.Store(false)
}

// memoryNote reports, once, that the operation was interrupted because
// the process reached --max-memory.
func (r *repl) memoryNote() {
	if r.memhit.Swap(false) {
		fmt.Fprintf(r.errw, "schedlab: %s: interrupted; what the globals hold stays (assign None to free it, or :reset)\n", lang.MemoryLimitMessage(r.opts.Run.MaxMemory))
	}
}

// end ends it. After Ctrl-C, whose "^C" the terminal echoed where the
// cursor was, it starts a new line.
func (r *repl) end() {
	if r.sigint.Load() && r.opts.Interactive {
		fmt.Fprintln(r.out)
	}
}

func (r *repl) session() *lang.Session { return r.sess.Load() }

// newSession starts a world with the given seed and runs the script, if
// any.
func (r *repl) newSession(seed uint64) {
	root := ""
	if r.opts.Script != "" {
		root = filepath.Dir(r.opts.Script)
	}
	opts := r.opts.Run
	opts.Seed = seed
	opts.Stdout, opts.Stderr = r.out, r.errw
	s := lang.NewSession(lang.SessionOptions{Options: opts, Root: root, OnEvent: r.event})
	r.sess.Store(s)
	if r.opts.Script != "" {
		r.loadFile(r.opts.Script)
	}
}

// loop reads and runs items until the end of input or :quit.
func (r *repl) loop() {
	for {
		line, err := r.in.ReadLine(r.prompt())
		switch {
		case err == io.EOF:
			if r.opts.Interactive {
				fmt.Fprintln(r.out)
			}
			return
		case errors.Is(err, readline.ErrInterrupt):
			continue // Ctrl-C at the prompt drops the line
		case err != nil:
			fmt.Fprintf(r.errw, "schedlab repl: %v\n", err)
			return
		}
		if cmd := strings.TrimSpace(line); strings.HasPrefix(cmd, ":") {
			if quit := r.command(cmd); quit {
				return
			}
			continue
		}
		r.statement(line)
	}
}

// statement reads the rest of the compound statement that starts with
// line and runs it as G1.
func (r *repl) statement(first string) {
	var src bytes.Buffer
	started, interrupted, sawEOF := false, false, false
	readLine := func() ([]byte, error) {
		line := first
		if started {
			l, err := r.in.ReadLine(r.contPrompt())
			if errors.Is(err, readline.ErrInterrupt) {
				interrupted = true
			}
			if err == io.EOF {
				// The end of input ends the block, as a blank line does.
				if sawEOF {
					return nil, err
				}
				sawEOF = true
				l, err = "", nil
			}
			if err != nil {
				return nil, err
			}
			line = l
		}
		started = true
		src.WriteString(line)
		src.WriteByte('\n')
		return []byte(line + "\n"), nil
	}
	f, err := replFileOptions.ParseCompoundStmt("<stdin>", readLine)
	if interrupted {
		return
	}
	if err != nil {
		r.printError(lang.SyntaxHints(src.Bytes(), err))
		return
	}
	if len(f.Stmts) == 0 {
		return // a blank line, or a comment
	}
	r.exec("<stdin>", src.Bytes(), false)
}

// exec runs src as G1 and prints its value or error.
func (r *repl) exec(filename string, src []byte, chunk bool) {
	r.begin()
	res := r.session().Exec(filename, src, chunk)
	r.end()
	r.memoryNote()
	if res.Err != nil {
		r.printError(res.Err)
		return
	}
	if res.Value != nil && res.Value != starlark.None {
		fmt.Fprintln(r.out, res.Value)
	}
}

// loadFile runs a file's statements in the session's globals.
func (r *repl) loadFile(name string) {
	src, err := lang.ReadScript(name)
	if err != nil {
		fmt.Fprintf(r.errw, "schedlab: %v\n", err)
		return
	}
	r.exec(name, src, true)
}

// printError prints a statement's error: a Starlark error as a run
// reports a panic of the main goroutine, a compile error as
// file:line:col: msg.
func (r *repl) printError(err error) {
	if text, ok := lang.FormatPanic(err); ok {
		io.WriteString(r.errw, text)
		return
	}
	io.WriteString(r.errw, lang.FormatCompileError(err))
}

// event prints a scheduling event when :trace is on or a :step runs. It
// is called by the session while the engine runs, with the REPL waiting.
func (r *repl) event(ev *runtime.Event) {
	r.events++
	if !r.tracing && !r.stepping {
		return
	}
	io.WriteString(r.out, r.pal.event(ev, string(trace.AppendText(nil, ev))))
}

// prompt is ">>> " after the virtual time: "[1.5ms] >>> ".
func (r *repl) prompt() string {
	return r.pal.time("["+r.now()+"]") + " >>> "
}

// contPrompt is "... ", aligned with the prompt's ">>> ".
func (r *repl) contPrompt() string {
	return strings.Repeat(" ", len("["+r.now()+"] ")) + "... "
}

func (r *repl) now() string { return runtime.FormatDuration(r.session().Machine().Now()) }

var replFileOptions = func() *syntax.FileOptions {
	opts := lang.FileOptions()
	opts.LoadBindsGlobally = true
	return opts
}()
