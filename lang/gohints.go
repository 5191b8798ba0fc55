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
//
// Some Go habits load and fail only when they run: counter += 1 on a
// global inside a function, for v in range(ch), spawn(worker(1)), Go's
// verbs with a width after %. Their panics keep Go's text and gain a hint
// line (runtimeHint). And a bare small int given to sleep, work or a
// timer, which is that many nanoseconds, is said once a run (smallDuration).

package lang

import (
	"fmt"
	"regexp"
	"strings"

	"go.starlark.net/starlark"
	"go.starlark.net/syntax"
)

// A hintError is a syntax error with the line of source it is on, shown
// with a caret under its column, and hints for the Go it found there.
type hintError struct {
	err   syntax.Error
	line  string // the source line of err.Pos, "" if unknown
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
	{regexp.MustCompile(`^\s*(global|nonlocal)\s+\w`), sharedStateHint},
}

// sharedStateHint answers global x and x += 1 on a global in a function.
const sharedStateHint = "hint: Starlark has no global statement: a function may read a global but not assign it; " +
	"share a mutable value instead, counter = [0] and counter[0] += 1 (which races as Go's counter++ does), or counter = atomic_int() and counter.add(1)"

// maxStatementLines is how many lines above a syntax error withGoHints
// looks for the start of its statement.
const maxStatementLines = 20

// SyntaxHints returns err, an error from parsing src, as RunFile reports
// it: a syntax error with its source line and a caret, and the hints for
// the Go in its statement. The REPL gives it what it parsed itself.
func SyntaxHints(src []byte, err error) error { return withGoHints(src, err) }

// withGoHints returns err, a compile error of src: a syntax error with
// its source line and the hints for the Go in its statement (the lines
// from where the statement starts to the error's: a for { on one line
// fails on the next), any other error as it is.
func withGoHints(src []byte, err error) error {
	se, ok := err.(syntax.Error)
	if !ok {
		return err
	}
	he := &hintError{err: se, line: lineOf(src, se.Pos.Line)}
	if atYield(src, se.Pos) || yieldWord.MatchString(se.Msg) {
		he.hints = append(he.hints, yieldHint)
		return he
	}
	first := statementStart(src, se.Pos.Line)
	for _, h := range goHints {
		for n := first; n <= se.Pos.Line; n++ {
			if h.re.MatchString(lineOf(src, n)) {
				he.hints = append(he.hints, h.hint)
				break
			}
		}
	}
	return he
}

// statementStart returns the line on which the statement that holds line
// n of src starts: the last line at most n, and at most maxStatementLines
// above it, that begins outside any bracket. Strings and comments are
// skipped roughly (no triple quotes), which is enough for a hint.
func statementStart(src []byte, n int32) int32 {
	lines := strings.Split(string(src), "\n")
	depth, start := 0, int32(1)
	for l := int32(1); l < n && int(l) <= len(lines); l++ {
		line := lines[l-1]
		var quote byte
	scan:
		for i := 0; i < len(line); i++ {
			c := line[i]
			switch {
			case quote != 0:
				if c == '\\' {
					i++
				} else if c == quote {
					quote = 0
				}
			case c == '"' || c == '\'':
				quote = c
			case c == '#':
				break scan
			case c == '(' || c == '[' || c == '{':
				depth++
			case (c == ')' || c == ']' || c == '}') && depth > 0:
				depth--
			}
		}
		if depth == 0 {
			start = l + 1
		}
	}
	return max(start, n-maxStatementLines, 1)
}

// lineOf returns line n (from 1) of src.
func lineOf(src []byte, n int32) string {
	lines := strings.Split(string(src), "\n")
	if n < 1 || int(n) > len(lines) {
		return ""
	}
	return strings.TrimSuffix(lines[n-1], "\r")
}

// maxCaretLine is the longest source line shown under a syntax error.
const maxCaretLine = 200

// caret returns line, the source line of an error at column col, as
// Python shows it: indented four spaces, without its own indentation,
// and a caret under the column on the next line; "" when the line is
// empty or too long to show.
func caret(line string, col int32) string {
	trimmed := strings.TrimLeft(line, " \t")
	if trimmed == "" || len(line) > maxCaretLine {
		return ""
	}
	runes := []rune(line)
	pad := len(runes) - len([]rune(trimmed))
	var b strings.Builder
	b.WriteString("    " + trimmed + "\n    ")
	for i := pad; i < int(col)-1 && i < len(runes); i++ {
		if runes[i] == '\t' {
			b.WriteByte('\t')
		} else {
			b.WriteByte(' ')
		}
	}
	b.WriteString("^\n")
	return b.String()
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
// a < with a unary - right after it, nothing between them. The - is that
// of the leftmost operand of the right-hand side, whatever follows it
// (ch <- x + 1 is ch < (-x + 1)). src is f's source, for the text of v.
func checkGoArrow(f *syntax.File, src []byte) error {
	var found *syntax.BinaryExpr
	var minus *syntax.UnaryExpr
	syntax.Walk(f, func(n syntax.Node) bool {
		if found != nil {
			return false
		}
		if b, ok := n.(*syntax.BinaryExpr); ok && b.Op == syntax.LT {
			if u := leftmostMinus(b.Y); u != nil &&
				u.OpPos.Line == b.OpPos.Line && u.OpPos.Col == b.OpPos.Col+1 {
				found, minus = b, u
				return false
			}
		}
		return true
	})
	if found == nil {
		return nil
	}
	ch := shortText(found.X)
	if ch == "" {
		ch = "ch"
	}
	start, _ := minus.X.Span()
	_, end := found.Y.Span()
	v := spanText(src, start, end)
	if v == "" {
		v = "v"
	}
	return &hintError{
		err:   syntax.Error{Pos: found.OpPos, Msg: fmt.Sprintf("Go's send statement is not Starlark: this is the comparison %s < -%s", ch, v)},
		line:  lineOf(src, found.OpPos.Line),
		hints: []string{fmt.Sprintf("hint: Go's %s <- %s is %s.send(%s), and <-ch is ch.recv(); write a < -1 with a space for the comparison", ch, v, ch, v)},
	}
}

// leftmostMinus returns the unary minus that starts e, the right operand
// of a <, if one does: e itself, or the left operand of a binary
// operator that binds tighter than < (ch < -x * 2 + 1), or nil.
func leftmostMinus(e syntax.Expr) *syntax.UnaryExpr {
	for {
		switch x := e.(type) {
		case *syntax.UnaryExpr:
			if x.Op == syntax.MINUS {
				return x
			}
			return nil
		case *syntax.BinaryExpr:
			e = x.X
		default:
			return nil
		}
	}
}

// maxSpanText is the longest expression spanText spells.
const maxSpanText = 40

// spanText returns the text of src from start to end when both are on one
// line and it is short, "" otherwise.
func spanText(src []byte, start, end syntax.Position) string {
	if start.Line != end.Line || end.Col <= start.Col {
		return ""
	}
	runes := []rune(lineOf(src, start.Line))
	if int(end.Col)-1 > len(runes) || int(end.Col-start.Col) > maxSpanText {
		return ""
	}
	return string(runes[start.Col-1 : end.Col-1])
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

// runtimeHints are the panics of Go habits that load and fail only when
// they run, each with its hint ($1 is the regexp's first group).
var runtimeHints = []struct {
	re   *regexp.Regexp
	hint string
}{
	{regexp.MustCompile(`^local variable (\w+) referenced before assignment$`),
		"hint: $1 is assigned in this function (x += 1 assigns too), so it is a local variable here; Starlark has no global statement: " +
			"share a mutable value instead, $1 = [0] and $1[0] += 1 (which races as Go's $1++ does), or $1 = atomic_int() and $1.add(1)"},
	{regexp.MustCompile(`^range: for parameter 1: got chan, want int$`),
		"hint: Go's for v := range ch is for v in ch: (it receives until ch is closed)"},
	{regexp.MustCompile(`^([\w.]+): for parameter fn: got NoneType, want callable$`),
		"hint: Go's go f(x) is spawn(f, x): $1(f(x)) calls f first, here, and passes on what it returned, None"},
	{regexp.MustCompile(`^unknown conversion %`),
		`hint: Starlark's % takes no flags, width or precision (%d %s %r %x %e %f %g %c %%); sprintf("%5.2f", x) takes Go's verbs`},
}

// runtimeHint returns the hint line for the panic msg, or "".
func runtimeHint(msg string) string {
	for _, h := range runtimeHints {
		if m := h.re.FindStringSubmatchIndex(msg); m != nil {
			return string(h.re.ExpandString(nil, h.hint, msg, m))
		}
	}
	return ""
}

// durationBuiltins are the builtins whose first argument (d=) is a
// duration that smallDuration checks.
var durationBuiltins = map[string]bool{"sleep": true, "work": true, "syscall": true, "after": true, "timer": true, "ticker": true, "tick": true, "after_func": true}

// A posKey is a position in a file, comparable across the syntax tree and
// the compiled program (whose positions hold the file name elsewhere).
type posKey struct {
	file      string
	line, col int32
}

// findSmallDurations notes the calls of f to a duration builtin whose
// duration is an int literal from 1 to 999, by the position of their
// opening parenthesis, which is where a running call says it is.
func (r *run) findSmallDurations(f *syntax.File) {
	syntax.Walk(f, func(n syntax.Node) bool {
		call, ok := n.(*syntax.CallExpr)
		if !ok {
			return true
		}
		id, ok := call.Fn.(*syntax.Ident)
		if !ok || !durationBuiltins[id.Name] {
			return true
		}
		for i, arg := range call.Args {
			if bin, ok := arg.(*syntax.BinaryExpr); ok && bin.Op == syntax.EQ {
				if k, ok := bin.X.(*syntax.Ident); !ok || k.Name != "d" {
					continue
				}
				arg = bin.Y
			} else if i > 0 {
				continue
			}
			if lit, ok := arg.(*syntax.Literal); ok && lit.Token == syntax.INT {
				if v, ok := lit.Value.(int64); ok && v >= 1 && v < 1000 {
					if r.smallNs == nil {
						r.smallNs = map[posKey]bool{}
					}
					r.smallNs[posKey{call.Lparen.Filename(), call.Lparen.Line, call.Lparen.Col}] = true
				}
			}
		}
		return true
	})
}

// smallDuration writes the run's one warning about a bare int below 1000
// given as the duration d of b (its first argument), which is that many
// nanoseconds where a Go habit (time.Sleep(1) is no better) or Python's
// time.sleep(1) means more; a duration string, "1ns" too, says what it
// means and is never warned about. The warning goes to Options.Warnings,
// with the position of the call.
func (r *run) smallDuration(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) {
	if r.warnedNs || r.opts.Warnings == nil {
		return
	}
	var v starlark.Value
	if len(args) > 0 {
		v = args[0]
	} else {
		for _, kv := range kwargs {
			if kv[0] == starlark.String("d") {
				v = kv[1]
			}
		}
	}
	i, ok := v.(starlark.Int)
	if !ok {
		return
	}
	n, ok := i.Int64()
	if !ok || n < 1 || n >= 1000 || thread.CallStackDepth() < 2 {
		return
	}
	// Only a literal: a computed duration (rand.expo("1ms"), d // 2) may
	// well be a few nanoseconds.
	at := thread.CallFrame(1).Pos
	if !r.smallNs[posKey{at.Filename(), at.Line, at.Col}] {
		return
	}
	r.warnedNs = true
	pos := at.String() + ": "
	fmt.Fprintf(r.opts.Warnings, "%swarning: %s(%d) is %dns: a bare int is nanoseconds; write %s(\"%dms\") for milliseconds, or %s(\"%dns\") to mean it (said once a run)\n",
		pos, b.Name(), n, n, b.Name(), n, b.Name(), n)
}
