// Hints for Go spelled in a script.
//
// People model their Go programs here, and Go comes out of their fingers:
// ch <- v, <-ch, go f(), defer, :=, func, chan int. Most of these are
// Starlark syntax errors; the error keeps Starlark's text and position and
// gains a line naming the builtin to use, as yield's does. ch <- v is the
// exception: it parses, as the comparison ch < (-v), and would fail only
// when it runs. A script is therefore refused at load time when it writes
// < and - with nothing between them, which is how Go's arrow looks and how
// no one writes a comparison with a negative number (a < -1 is fine).
//
// A Go name used where a builtin is meant (time.Sleep, sync.WaitGroup,
// make, close, cap) gets the builtin named in its "undefined" error.

package lang

import (
	"fmt"
	"regexp"
	"strings"

	"go.starlark.net/starlark"
	"go.starlark.net/syntax"
)

// A hintError is a syntax error with hints for the Go it found.
type hintError struct {
	err   syntax.Error
	hints []string
}

func (e *hintError) Error() string { return e.err.Error() }
func (e *hintError) Unwrap() error { return e.err }

// goHints are the Go spellings looked for on the line of a syntax error,
// each with its hint, in the order they are given.
var goHints = []struct {
	re   *regexp.Regexp
	hint string
}{
	{regexp.MustCompile(`:=`), "hint: Starlark has no :=; assign with = (x = chan())"},
	{regexp.MustCompile(`<-`), "hint: Go's <-ch is ch.recv() (or v, ok = ch.recv_ok()), and ch <- v is ch.send(v)"},
	{regexp.MustCompile(`^\s*go\s+[\w.]+\s*\(`), "hint: Go's go f(x) is spawn(f, x)"},
	{regexp.MustCompile(`^\s*defer\b`), "hint: Starlark has no defer; make the call where the function returns"},
	{regexp.MustCompile(`\bfunc\b`), "hint: Go's func is def f(x): (or lambda x: ...)"},
	{regexp.MustCompile(`\bchan\s+[\w\[\]*{}]`), "hint: channels are untyped: make(chan T, n) is chan(n)"},
	{regexp.MustCompile(`^\s*select\s*\{`), "hint: select is a builtin: i, v, ok = select(ch.on_recv(), out.on_send(x), default=True)"},
	{regexp.MustCompile(`^\s*for\s*\{`), "hint: Go's for { ... } is while True:"},
	{regexp.MustCompile(`\w(\+\+|--)\s*$`), "hint: Starlark has no ++ or --; write x += 1"},
}

// withGoHints returns err, a compile error of src, with the hints for the
// Go on the line where it is, or err itself when there is none (yield's
// hint is apart, see yieldError).
func withGoHints(src []byte, err error) error {
	se, ok := err.(syntax.Error)
	if !ok {
		return err
	}
	if atYield(src, se.Pos) {
		return &yieldError{err: se}
	}
	line := lineOf(src, se.Pos.Line)
	var hints []string
	for _, h := range goHints {
		if h.re.MatchString(line) {
			hints = append(hints, h.hint)
		}
	}
	if len(hints) == 0 {
		return err
	}
	return &hintError{err: se, hints: hints}
}

// lineOf returns line n (from 1) of src.
func lineOf(src []byte, n int32) string {
	lines := strings.Split(string(src), "\n")
	if n < 1 || int(n) > len(lines) {
		return ""
	}
	return lines[n-1]
}

// starArgsHint is the hint after the resolve error of select(*cases,
// default=True): Starlark allows no keyword argument after *args.
const starArgsHint = "hint: pass the cases as a list, select(cases, default=True), or put the keyword first, select(default=True, *cases)"

// resolveHint returns the hint line that follows a resolve error, or "".
func resolveHint(msg string) string {
	if strings.Contains(msg, "keyword argument may not follow *args") {
		return starArgsHint + "\n"
	}
	return ""
}

// checkGoArrow refuses ch <- v in f, which Starlark parses as ch < -v:
// a < with a unary - right after it, nothing between them.
func checkGoArrow(f *syntax.File) error {
	var found *syntax.BinaryExpr
	syntax.Walk(f, func(n syntax.Node) bool {
		if found != nil {
			return false
		}
		if b, ok := n.(*syntax.BinaryExpr); ok && b.Op == syntax.LT {
			if u, ok := b.Y.(*syntax.UnaryExpr); ok && u.Op == syntax.MINUS &&
				u.OpPos.Line == b.OpPos.Line && u.OpPos.Col == b.OpPos.Col+1 {
				found = b
				return false
			}
		}
		return true
	})
	if found == nil {
		return nil
	}
	ch, v := shortText(found.X), shortText(found.Y.(*syntax.UnaryExpr).X)
	if ch == "" {
		ch = "ch"
	}
	if v == "" {
		v = "v"
	}
	return &hintError{
		err:   syntax.Error{Pos: found.OpPos, Msg: fmt.Sprintf("Go's send statement is not Starlark: this is the comparison %s < -%s", ch, v)},
		hints: []string{fmt.Sprintf("hint: Go's %s <- %s is %s.send(%s), and <-ch is ch.recv(); write a < -1 with a space for the comparison", ch, v, ch, v)},
	}
}

// shortText spells e as the script did when it is a name, a literal or a
// field of a name (ch, 1, "x", s.out), and returns "" for anything longer.
func shortText(e syntax.Expr) string {
	switch e := e.(type) {
	case *syntax.Ident:
		return e.Name
	case *syntax.Literal:
		if len(e.Raw) <= 20 {
			return e.Raw
		}
	case *syntax.DotExpr:
		if x := shortText(e.X); x != "" {
			return x + "." + e.Name.Name
		}
	}
	return ""
}

// goNames are Go identifiers that scripts use where a builtin is meant,
// with what to write instead.
var goNames = map[string]string{
	"time":      "time.Sleep(d) is sleep(d); time.After, NewTimer, NewTicker, Tick, AfterFunc, Now are after, timer, ticker, tick, after_func, now",
	"sync":      "sync.Mutex, RWMutex, WaitGroup, Once, NewCond are mutex(), rwmutex(), waitgroup(), once(), cond(mu)",
	"atomic":    "atomic.Int64 is atomic_int()",
	"context":   "context.Background, WithCancel, WithTimeout, WithDeadline are background(), with_cancel(ctx), with_timeout(ctx, d), with_deadline(ctx, t)",
	"fmt":       "fmt.Println, Printf, Sprintf are println, printf, sprintf",
	"runtime":   "runtime.Gosched, GOMAXPROCS are gosched(), gomaxprocs(n)",
	"make":      "make(chan T, n) is chan(n)",
	"close":     "close(ch) is ch.close()",
	"go":        "go f(x) is spawn(f, x)",
	"nil":       "nil is None; a nil channel is nil_chan()",
	"panic":     "panic(msg) is fail(msg)",
	"semaphore": "semaphore.NewWeighted(n) is semaphore(n)",
}

// cap(ch) → int: Go's cap, for a channel (ch.cap); a timer's channel and
// the nil channel have cap 0.
func cap_(r *run, thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var v starlark.Value
	if err := starlark.UnpackArgs(b.Name(), args, kwargs, "ch", &v); err != nil {
		return nil, err
	}
	c, ok := v.(*Channel)
	if !ok {
		return nil, fmt.Errorf("%s: for parameter ch: got %s, want chan (Starlark's lists have no capacity)", b.Name(), v.Type())
	}
	return starlark.MakeInt(c.ch.Cap()), nil
}
