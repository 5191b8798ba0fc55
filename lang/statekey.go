// Goroutine state keys: a goroutine's Starlark state at a safe point,
// written out so that schedlab check can tell that a stretch of it came
// back to where it was (internal/check, stutter.go).
//
// The interpreter's state of a goroutine is its frames: for each, the
// function, the call it is in, its locals, and the operand stack, which
// the debugger API does not show. AppendStateKey writes out the first
// three, and answers only where the stack holds nothing more than they
// say: every frame at a call that is a whole statement (an expression
// statement, `x, y = f(...)`, `return f(...)`, an if's or a while's
// condition, a lambda's body), outside any for loop (whose iterator is on
// the stack), and the builtin's own arguments simple expressions of
// names and constants (cleanCalls). Values are written by value when
// they are numbers, strings, bools, None or tuples of those, and
// otherwise by identity, which says the value is the same only in a
// program that changes no plain value in place: schedlab check uses the
// keys only when Program.SharedPlainState is "", which rules that out,
// and rules out a global or captured variable bound twice. A goroutine at
// the top level (whose variables are globals, outside its frame) has no
// key.

package lang

import (
	"encoding/binary"
	"math"
	"reflect"
	"sync"

	"github.com/schedlab/schedlab/runtime"
	"go.starlark.net/starlark"
	"go.starlark.net/syntax"
)

// The kinds of clean call.
const (
	cleanFrame = 1 + iota // a whole statement outside any for loop
	cleanArgs             // and its arguments simple (simpleExpr)
)

// A lineCol is a position in a file, for cleanCalls.
type lineCol struct{ line, col int32 }

// A cleanCall is a clean call's file and kind; cleanCalls holds them by
// line and column, so that a lookup hashes no file name.
type cleanCall struct {
	file string
	kind uint8
}

// cleanAt returns the kind of the clean call at pos, 0 if it is none,
// where frame i of a goroutine of r is: the answer is kept by frame, as
// the frames of a loop ask again and again.
func cleanAt(r *run, i int, pos syntax.Position) uint8 {
	for len(r.cleanSeen) <= i {
		r.cleanSeen = append(r.cleanSeen, cleanSeen{})
	}
	if s := &r.cleanSeen[i]; s.pos == pos {
		return s.kind
	}
	kind := uint8(0)
	for _, c := range r.cleanCalls[lineCol{pos.Line, pos.Col}] {
		if c.file == pos.Filename() {
			kind = c.kind
			break
		}
	}
	r.cleanSeen[i] = cleanSeen{pos, kind}
	return kind
}

// A cleanSeen is the last answer of cleanAt for a frame.
type cleanSeen struct {
	pos  syntax.Position
	kind uint8
}

// pureMethods make a value from their receiver and arguments alone.
var pureMethods = map[string]bool{"on_recv": true, "on_send": true}

// findCleanCalls notes the calls of f that are whole statements outside
// any for loop, by the position of their opening parenthesis, and whether
// their arguments are simple.
func (r *run) findCleanCalls(f *syntax.File) {
	if r.cleanCalls == nil {
		r.cleanCalls = map[lineCol][]cleanCall{}
	}
	mark := func(e syntax.Expr) {
		call, ok := e.(*syntax.CallExpr)
		if !ok {
			return
		}
		k := uint8(cleanFrame)
		if simpleArgs(call) {
			k = cleanArgs
		}
		at := lineCol{call.Lparen.Line, call.Lparen.Col}
		r.cleanCalls[at] = append(r.cleanCalls[at], cleanCall{call.Lparen.Filename(), k})
	}
	var stmts func(body []syntax.Stmt, inFor bool)
	stmts = func(body []syntax.Stmt, inFor bool) {
		for _, st := range body {
			switch st := st.(type) {
			case *syntax.ExprStmt:
				if !inFor {
					mark(st.X)
				}
			case *syntax.AssignStmt:
				if !inFor && st.Op == syntax.EQ && namesOnly(st.LHS) {
					mark(st.RHS)
				}
			case *syntax.ReturnStmt:
				if !inFor && st.Result != nil {
					mark(st.Result)
				}
			case *syntax.IfStmt:
				if !inFor {
					mark(st.Cond)
				}
				stmts(st.True, inFor)
				stmts(st.False, inFor)
			case *syntax.WhileStmt:
				if !inFor {
					mark(st.Cond)
				}
				stmts(st.Body, inFor)
			case *syntax.ForStmt:
				stmts(st.Body, true)
			case *syntax.DefStmt:
				stmts(st.Body, false)
			}
		}
	}
	stmts(f.Stmts, false)
	syntax.Walk(f, func(n syntax.Node) bool {
		if l, ok := n.(*syntax.LambdaExpr); ok {
			mark(l.Body)
		}
		return true
	})
}

// namesOnly reports whether an assignment's target binds names only.
func namesOnly(e syntax.Expr) bool {
	switch e := e.(type) {
	case *syntax.Ident:
		return true
	case *syntax.ParenExpr:
		return namesOnly(e.X)
	case *syntax.TupleExpr:
		return allExprs(e.List, namesOnly)
	case *syntax.ListExpr:
		return allExprs(e.List, namesOnly)
	}
	return false
}

// allExprs reports whether ok holds for every expression of list.
func allExprs(list []syntax.Expr, ok func(syntax.Expr) bool) bool {
	for _, x := range list {
		if !ok(x) {
			return false
		}
	}
	return true
}

// simpleArgs reports whether every argument of call is simple.
func simpleArgs(call *syntax.CallExpr) bool {
	for _, a := range call.Args {
		switch a := a.(type) {
		case *syntax.BinaryExpr:
			if a.Op == syntax.EQ { // name=value
				if !simpleExpr(a.Y) {
					return false
				}
				continue
			}
		case *syntax.UnaryExpr:
			if a.Op == syntax.STAR || a.Op == syntax.STARSTAR {
				if !simpleExpr(a.X) {
					return false
				}
				continue
			}
		}
		if !simpleExpr(a) {
			return false
		}
	}
	return true
}

// simpleExpr reports whether e's value follows from the names it reads
// (and the values they hold) alone: names, constants, operators, fields,
// indexing, and calls of pureMethods.
func simpleExpr(e syntax.Expr) bool {
	switch e := e.(type) {
	case *syntax.Ident, *syntax.Literal:
		return true
	case *syntax.ParenExpr:
		return simpleExpr(e.X)
	case *syntax.DotExpr:
		return simpleExpr(e.X)
	case *syntax.UnaryExpr:
		return e.X != nil && simpleExpr(e.X)
	case *syntax.BinaryExpr:
		return simpleExpr(e.X) && simpleExpr(e.Y)
	case *syntax.IndexExpr:
		return simpleExpr(e.X) && simpleExpr(e.Y)
	case *syntax.CondExpr:
		return simpleExpr(e.Cond) && simpleExpr(e.True) && simpleExpr(e.False)
	case *syntax.TupleExpr:
		return allExprs(e.List, simpleExpr)
	case *syntax.CallExpr:
		d, ok := e.Fn.(*syntax.DotExpr)
		return ok && pureMethods[d.Name.Name] && simpleExpr(d.X) && simpleArgs(e)
	}
	return false
}

// AppendStateKey appends goroutine g's Starlark state to b, at the safe
// point of a builtin call (runtime.StateTracker.Preempting), and reports
// false when it has none that says all: g is not at a builtin's safe
// point, a frame is not at a clean call or is the top level, or a local
// is a value it does not write out (see the file comment).
func AppendStateKey(b []byte, g *runtime.G) ([]byte, bool) {
	gr := goroutineOfG(g)
	if gr == nil || gr.run.atCall == nil || gr.run.atCallG != gr || gr.thread == nil {
		return b, false
	}
	call := gr.run.atCall
	th := gr.thread
	n := th.CallStackDepth()
	if n < 2 || th.DebugFrame(0).Callable() != call {
		return b, false
	}
	b = append(b, call.Name()...)
	var ok bool
	if recv := call.Receiver(); recv != nil {
		if b, ok = appendValue(b, recv); !ok {
			return b, false
		}
	}
	for i := 1; i < n; i++ {
		fr := th.DebugFrame(i)
		fn, isFn := fr.Callable().(*starlark.Function)
		if !isFn || fn.Name() == "<toplevel>" {
			return b, false
		}
		pos := fr.Position()
		need := uint8(cleanFrame)
		if i == 1 {
			need = cleanArgs
		}
		if cleanAt(gr.run, i, pos) < need {
			return b, false
		}
		b = append(b, '|')
		b = binary.LittleEndian.AppendUint64(b, uint64(reflect.ValueOf(fn).Pointer()))
		b = binary.LittleEndian.AppendUint32(b, uint32(pos.Line))
		b = binary.LittleEndian.AppendUint32(b, uint32(pos.Col))
		for j := range fr.NumLocals() {
			_, v := fr.Local(j)
			if b, ok = appendValue(b, v); !ok {
				return b, false
			}
		}
	}
	return b, true
}

// appendValue appends v: by value for None, bools, numbers, strings and
// tuples of them, by identity for a value behind a pointer (see the file
// comment); false for any other.
func appendValue(b []byte, v starlark.Value) ([]byte, bool) {
	b = append(b, ' ')
	switch v := v.(type) {
	case nil:
		return append(b, 'u'), true
	case starlark.NoneType:
		return append(b, 'N'), true
	case starlark.Bool:
		if v {
			return append(b, 'T'), true
		}
		return append(b, 'F'), true
	case starlark.Int:
		if x, ok := v.Int64(); ok {
			b = append(b, 'i')
			return binary.LittleEndian.AppendUint64(b, uint64(x)), true
		}
		b = append(b, 'I')
		return append(b, v.String()...), true
	case starlark.Float:
		b = append(b, 'D')
		return binary.LittleEndian.AppendUint64(b, math.Float64bits(float64(v))), true
	case starlark.String:
		b = append(b, 'S')
		b = binary.LittleEndian.AppendUint64(b, uint64(len(v)))
		return append(b, v...), true
	case starlark.Tuple:
		b = append(b, '(')
		var ok bool
		for _, x := range v {
			if b, ok = appendValue(b, x); !ok {
				return b, false
			}
		}
		return append(b, ')'), true
	}
	rv := reflect.ValueOf(v)
	if rv.Kind() != reflect.Pointer || rv.IsNil() {
		return b, false
	}
	b = append(b, 'P')
	b = binary.LittleEndian.AppendUint64(b, uint64(rv.Pointer()))
	// A captured variable is a cell: bound once in a program without
	// shared plain state, so bound or not says what it holds.
	if isCell(rv.Type()) {
		if rv.Elem().Field(0).IsNil() {
			b = append(b, '-')
		} else {
			b = append(b, '+')
		}
	}
	return b, true
}

// cellTypes says of each pointer type met whether it is the
// interpreter's type of a captured variable.
var cellTypes sync.Map // reflect.Type -> bool

// isCell reports whether t is *starlark.cell.
func isCell(t reflect.Type) bool {
	if c, ok := cellTypes.Load(t); ok {
		return c.(bool)
	}
	e := t.Elem()
	c := e.Kind() == reflect.Struct && e.Name() == "cell" && e.PkgPath() == "go.starlark.net/starlark" && e.NumField() == 1 && e.Field(0).Type.Kind() == reflect.Interface
	cellTypes.Store(t, c)
	return c
}
