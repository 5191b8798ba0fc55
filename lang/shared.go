// Shared plain values: whether goroutines of a script can see each other's
// changes to plain Starlark values, which the engine does not track.
//
// schedlab check's partial-order reduction (internal/check) compares what
// each stretch of a goroutine touches. The engine reports its own objects
// (channels, mutexes, wait groups, ...); plain values (a list in a
// global, a dict passed to two goroutines, a variable a closure captures
// and its function reassigns) it cannot see, because the interpreter has
// no hook for a value's reads and writes. sharedPlainState answers for a
// whole file, from its syntax, conservatively: it names the first thing
// that could make a plain value change while another goroutine can read
// it, or says there is none. A script with such a thing is checked as if
// every stretch of code touched one shared object.

package lang

import (
	"fmt"

	"go.starlark.net/resolve"
	"go.starlark.net/syntax"
)

// mutatingMethods are the methods of Starlark's list, dict and set that
// change the value they are called on. add is set.add, and counts only in
// a file that names set (it is also waitgroup.add).
var mutatingMethods = map[string]bool{
	"append": true, "extend": true, "insert": true, "pop": true, "remove": true,
	"clear": true, "update": true, "setdefault": true, "popitem": true, "discard": true,
}

// stateAttrs are attributes of the language's values that read an engine
// object's or a goroutine's state without a builtin call.
var stateAttrs = map[string]bool{
	"state": true, "wait_reason": true, "readers": true, "writer": true, "held": true,
	"active": true, "closed": true, "sent": true, "answered": true, "failed": true, "done": true,
}

// untrackedBuiltins make values whose state plain code reads (once's done,
// an atomic's value, a timer's channel, the network's and the traffic's
// counters, a context's).
var untrackedBuiltins = map[string]bool{
	"once": true, "atomic_int": true, "timer": true, "ticker": true, "traffic": true,
	"listen": true, "dial": true, "background": true, "with_cancel": true,
	"with_deadline": true, "with_timeout": true,
}

// quietMethods are methods that cannot start another goroutine, run the
// script's functions or hand a value to another goroutine: a top-level
// call of one does not end the part of the file that runs alone.
var quietMethods = map[string]bool{
	"add": true, "done": true, "wait": true, "recv": true, "recv_ok": true,
	"close": true, "lock": true, "unlock": true, "rlock": true, "runlock": true,
	"signal": true, "broadcast": true, "on_recv": true,
	"acquire": true, "release": true, "try_acquire": true,
}

// spawningBuiltins start goroutines or run the script's functions later.
var spawningBuiltins = map[string]bool{"spawn": true, "after_func": true}

// A site is where a global or captured variable is bound.
type site struct {
	pos    syntax.Position
	end    syntax.Position // the end of its statement
	inLoop bool
}

// sharedScan is the state of one file's scan.
type sharedScan struct {
	why      string
	namesSet bool
	sites    map[*syntax.Ident][]site            // by the variable's first binding
	readers  map[*syntax.Ident][]syntax.Position // starts of the functions that read it
	quietEnd map[*syntax.Ident]syntax.Position   // for a Cell: where its body stops running alone
	calls    map[*syntax.DotExpr]bool            // dot expressions that are called
	fileEnd  syntax.Position                     // where the top level stops running alone
}

// sharedPlainState returns why goroutines of f may share a plain value
// that one of them changes, or "" when they cannot. f must be resolved
// (starlark.FileProgram resolves it).
func sharedPlainState(f *syntax.File) string {
	s := &sharedScan{
		sites:    map[*syntax.Ident][]site{},
		readers:  map[*syntax.Ident][]syntax.Position{},
		quietEnd: map[*syntax.Ident]syntax.Position{},
		calls:    map[*syntax.DotExpr]bool{},
	}
	syntax.Walk(f, func(n syntax.Node) bool {
		switch n := n.(type) {
		case *syntax.Ident:
			if b, ok := n.Binding.(*resolve.Binding); ok && (b.Scope == resolve.Predeclared || b.Scope == resolve.Universal) && n.Name == "set" {
				s.namesSet = true
			}
		case *syntax.CallExpr:
			if d, ok := n.Fn.(*syntax.DotExpr); ok {
				s.calls[d] = true
			}
		}
		return true
	})
	s.fileEnd = aloneUntil(f.Stmts)
	s.stmts(f.Stmts, nil, false)
	if s.why != "" {
		return s.why
	}
	for first, sites := range s.sites {
		readers := s.readers[first]
		if len(readers) == 0 {
			continue
		}
		if len(sites) > 1 || sites[0].inLoop {
			return fmt.Sprintf("%s: %s is bound more than once and read by a function", first.NamePos, first.Name)
		}
		alone := s.fileEnd
		if end, ok := s.quietEnd[first]; ok {
			alone = end
		}
		if before(sites[0].end, alone) {
			continue // bound before anything else can run
		}
		for _, r := range readers {
			if !before(sites[0].end, r) {
				return fmt.Sprintf("%s: %s is read by a function that may run before it is bound", first.NamePos, first.Name)
			}
		}
	}
	return ""
}

// before reports whether p comes before q in the file.
func before(p, q syntax.Position) bool {
	return p.Line < q.Line || p.Line == q.Line && p.Col < q.Col
}

// aloneUntil returns the start of the first statement of body that may
// let another goroutine run: one with a call of the script's own
// functions, of spawn or after_func, or of a method not in quietMethods.
func aloneUntil(body []syntax.Stmt) syntax.Position {
	for _, st := range body {
		if _, ok := st.(*syntax.DefStmt); ok {
			continue
		}
		spawns := false
		syntax.Walk(st, func(n syntax.Node) bool {
			if _, ok := n.(*syntax.LambdaExpr); ok {
				return false // runs only when called
			}
			c, ok := n.(*syntax.CallExpr)
			if !ok {
				return true
			}
			switch fn := c.Fn.(type) {
			case *syntax.Ident:
				b, _ := fn.Binding.(*resolve.Binding)
				if b == nil || (b.Scope != resolve.Predeclared && b.Scope != resolve.Universal) || spawningBuiltins[fn.Name] {
					spawns = true
				}
			case *syntax.DotExpr:
				if !quietMethods[fn.Name.Name] {
					spawns = true
				}
			default:
				spawns = true
			}
			return !spawns
		})
		if spawns {
			start, _ := st.Span()
			return start
		}
	}
	return syntax.Position{Line: 1 << 30}
}

// flag records the first reason.
func (s *sharedScan) flag(pos syntax.Position, format string, args ...any) {
	if s.why == "" {
		s.why = fmt.Sprintf("%s: %s", pos, fmt.Sprintf(format, args...))
	}
}

// stmts scans a body; fn is the function it belongs to (nil: the top
// level), loop whether it runs in a loop of that function.
func (s *sharedScan) stmts(body []syntax.Stmt, fn *resolve.Function, loop bool) {
	for _, st := range body {
		_, end := st.Span()
		switch st := st.(type) {
		case *syntax.AssignStmt:
			s.target(st.LHS, end, loop)
			if st.Op != syntax.EQ {
				if _, ok := st.LHS.(*syntax.Ident); !ok {
					s.flag(st.OpPos, "an augmented assignment to an element")
				} else if lit, ok := st.RHS.(*syntax.Literal); !ok || lit.Token == syntax.BYTES {
					s.flag(st.OpPos, "an augmented assignment (%s) may change a list in place", st.Op)
				}
			}
			s.expr(st.LHS, fn)
			s.expr(st.RHS, fn)
		case *syntax.DefStmt:
			s.bind(st.Name, end, loop)
			f := st.Function.(*resolve.Function)
			for _, p := range f.Params {
				s.param(p, fn)
			}
			start, _ := st.Span()
			s.function(f, start)
		case *syntax.ForStmt:
			s.expr(st.X, fn)
			s.target(st.Vars, end, true)
			s.stmts(st.Body, fn, true)
		case *syntax.WhileStmt:
			s.expr(st.Cond, fn)
			s.stmts(st.Body, fn, true)
		case *syntax.IfStmt:
			s.expr(st.Cond, fn)
			s.stmts(st.True, fn, loop)
			s.stmts(st.False, fn, loop)
		case *syntax.ExprStmt:
			s.expr(st.X, fn)
		case *syntax.ReturnStmt:
			if st.Result != nil {
				s.expr(st.Result, fn)
			}
		case *syntax.LoadStmt:
			for _, id := range st.To {
				s.bind(id, end, loop)
			}
		}
	}
}

// function scans the body of a def or lambda that starts at start.
func (s *sharedScan) function(f *resolve.Function, start syntax.Position) {
	alone := aloneUntil(f.Body)
	for _, b := range f.Locals {
		if b.Scope == resolve.Cell && b.First != nil {
			s.quietEnd[b.First] = alone
			if isParam(f, b.First) {
				s.sites[b.First] = append(s.sites[b.First], site{pos: start, end: start})
			}
		}
	}
	s.stmts(f.Body, f, false)
}

// isParam reports whether id is one of f's parameters.
func isParam(f *resolve.Function, id *syntax.Ident) bool {
	for _, p := range f.Params {
		switch p := p.(type) {
		case *syntax.Ident:
			if p == id {
				return true
			}
		case *syntax.BinaryExpr: // name=default
			if p.X == id {
				return true
			}
		case *syntax.UnaryExpr: // *args, **kwargs
			if p.X == id {
				return true
			}
		}
	}
	return false
}

// param scans a parameter's default value, which the enclosing function
// evaluates.
func (s *sharedScan) param(p syntax.Expr, fn *resolve.Function) {
	if b, ok := p.(*syntax.BinaryExpr); ok {
		s.expr(b.Y, fn)
	}
}

// target records the variables an assignment binds and flags one that
// changes an element or a field.
func (s *sharedScan) target(lhs syntax.Expr, end syntax.Position, loop bool) {
	switch lhs := lhs.(type) {
	case *syntax.Ident:
		s.bind(lhs, end, loop)
	case *syntax.TupleExpr:
		for _, x := range lhs.List {
			s.target(x, end, loop)
		}
	case *syntax.ListExpr:
		for _, x := range lhs.List {
			s.target(x, end, loop)
		}
	case *syntax.ParenExpr:
		s.target(lhs.X, end, loop)
	case *syntax.IndexExpr:
		s.flag(lhs.Lbrack, "an assignment to an element")
	case *syntax.DotExpr:
		s.flag(lhs.Dot, "an assignment to a field")
	default:
		start, _ := lhs.Span()
		s.flag(start, "an assignment to %T", lhs)
	}
}

// bind records a binding of id, if it is a global or a captured variable.
func (s *sharedScan) bind(id *syntax.Ident, end syntax.Position, loop bool) {
	b, ok := id.Binding.(*resolve.Binding)
	if !ok || b.First == nil || (b.Scope != resolve.Global && b.Scope != resolve.Cell) {
		return
	}
	s.sites[b.First] = append(s.sites[b.First], site{pos: id.NamePos, end: end, inLoop: loop})
}

// expr scans an expression of function fn (nil: the top level).
func (s *sharedScan) expr(e syntax.Expr, fn *resolve.Function) {
	syntax.Walk(e, func(n syntax.Node) bool {
		switch n := n.(type) {
		case *syntax.LambdaExpr:
			f := n.Function.(*resolve.Function)
			for _, p := range f.Params {
				s.param(p, fn)
			}
			start, _ := n.Span()
			s.function(f, start)
			return false
		case *syntax.Comprehension:
			// Its variables are local to it; a lambda in it that
			// captures one sees it change: count its bindings as in a
			// loop.
			for _, cl := range n.Clauses {
				switch cl := cl.(type) {
				case *syntax.ForClause:
					s.expr(cl.X, fn)
					_, end := cl.Span()
					s.target(cl.Vars, end, true)
				case *syntax.IfClause:
					s.expr(cl.Cond, fn)
				}
			}
			s.expr(n.Body, fn)
			return false
		case *syntax.Ident:
			s.use(n, fn)
		case *syntax.DotExpr:
			name := n.Name.Name
			if s.calls[n] && (mutatingMethods[name] || name == "add" && s.namesSet) {
				s.flag(n.Dot, "a call of .%s, which may change a shared value", name)
			}
			if !s.calls[n] && stateAttrs[name] {
				s.flag(n.Dot, "a read of .%s, an engine state that plain code reads", name)
			}
		}
		return true
	})
}

// use records a read of id inside function fn.
func (s *sharedScan) use(id *syntax.Ident, fn *resolve.Function) {
	b, ok := id.Binding.(*resolve.Binding)
	if !ok {
		return
	}
	switch b.Scope {
	case resolve.Predeclared, resolve.Universal:
		if untrackedBuiltins[id.Name] {
			s.flag(id.NamePos, "%s() makes a value whose state plain code reads", id.Name)
		}
	case resolve.Global, resolve.Free:
		if fn != nil && b.First != nil {
			s.readers[b.First] = append(s.readers[b.First], fn.Pos)
		}
	}
}
