// Step kinds: which kind of statement a goroutine's steps belong to, for a
// costs profile that charges a step by its kind (runtime.StepKind).
//
// calibrate times a Starlark step against compiled Go for six kinds of
// statement, and they differ a hundredfold: a step of `x = x + 1` costs
// about 30ps of Go's time, one of `t = "n%d" % i` 5-7ns
// (internal/calibrate, step.go). A profile that gives each kind its own
// cost (step_ps_plain, ...) has each quantum of a goroutine's steps
// charged at the kind of the statement the goroutine is at when the
// steps are counted (account): the innermost Starlark frame's line. The
// kinds are read off the syntax once, when a file is loaded, by what the
// statement on a line does, the dearest first:
//
//   - format: a `%` whose left side is a string literal, or a call of
//     str, repr or a string's format or join;
//   - map: an index by a string literal, or a dict literal;
//   - call: a call of a function the program defines (not a builtin);
//   - append: a list's append or extend;
//   - index: any other index;
//   - cell: an index by an integer literal, c[0]: a one-element list
//     that stands for a variable of the Go program (Starlark cannot
//     assign a global from a function, so a twin keeps Go's shared
//     variable in a cell), calibrated against Go's x = x + 1;
//   - plain: none of these (arithmetic, comparisons, names, the
//     builtins of the engine, whose own work the engine charges).
//
// A line with no statement of its own (a comment, a def's header) has no
// kind, and its steps are charged at step_ps. Without such a profile
// nothing here runs: the engine charges every step step_ps.

package lang

import (
	"github.com/schedlab/schedlab/runtime"
	"go.starlark.net/syntax"
)

// findStepKinds notes the kind of the statement on each line of f, in
// r.stepKinds[f's file name] indexed by line (StepAny, the zero kind, for
// a line of no statement).
func (r *run) findStepKinds(f *syntax.File) {
	if r.stepKinds == nil {
		r.stepKinds = map[string][]runtime.StepKind{}
	}
	r.kindFile, r.kindLines = "", nil // stepKindAt looks the file up again
	defined := map[string]bool{}
	syntax.Walk(f, func(n syntax.Node) bool {
		if d, ok := n.(*syntax.DefStmt); ok {
			defined[d.Name.Name] = true
		}
		if a, ok := n.(*syntax.AssignStmt); ok {
			if id, ok := a.LHS.(*syntax.Ident); ok {
				if _, ok := a.RHS.(*syntax.LambdaExpr); ok {
					defined[id.Name] = true
				}
			}
		}
		return true
	})
	file := f.Path
	lines := r.stepKinds[file]
	note := func(n syntax.Node, k runtime.StepKind) {
		start, end := n.Span()
		if int(end.Line) >= len(lines) {
			lines = append(lines, make([]runtime.StepKind, int(end.Line)+1-len(lines))...)
		}
		for l := start.Line; l <= end.Line; l++ {
			if stepRank[k] > stepRank[lines[l]] {
				lines[l] = k
			}
		}
	}
	var stmts func(body []syntax.Stmt)
	stmts = func(body []syntax.Stmt) {
		for _, st := range body {
			switch st := st.(type) {
			case *syntax.DefStmt:
				stmts(st.Body)
			case *syntax.IfStmt:
				note(st.Cond, exprKind(st.Cond, defined))
				stmts(st.True)
				stmts(st.False)
			case *syntax.ForStmt:
				note(st.X, exprKind(st.X, defined))
				stmts(st.Body)
			case *syntax.WhileStmt:
				note(st.Cond, exprKind(st.Cond, defined))
				stmts(st.Body)
			default:
				note(st, exprKind(st, defined))
			}
		}
	}
	stmts(f.Stmts)
	r.stepKinds[file] = lines
}

// exprKind is the kind of the dearest thing n does; defined are the names
// the program binds to its own functions.
func exprKind(n syntax.Node, defined map[string]bool) runtime.StepKind {
	k := runtime.StepPlain
	up := func(to runtime.StepKind) {
		if stepRank[to] > stepRank[k] {
			k = to
		}
	}
	syntax.Walk(n, func(n syntax.Node) bool {
		switch n := n.(type) {
		case *syntax.LambdaExpr:
			return false // its body runs when called, on its own lines
		case *syntax.BinaryExpr:
			if lit, ok := n.X.(*syntax.Literal); ok && n.Op == syntax.PERCENT && lit.Token == syntax.STRING {
				up(runtime.StepFormat)
			}
		case *syntax.DictExpr:
			up(runtime.StepMap)
		case *syntax.IndexExpr:
			lit, _ := n.Y.(*syntax.Literal)
			switch {
			case lit != nil && lit.Token == syntax.STRING:
				up(runtime.StepMap)
			case lit != nil && lit.Token == syntax.INT:
				up(runtime.StepCell)
			default:
				up(runtime.StepIndex)
			}
		case *syntax.CallExpr:
			switch fn := n.Fn.(type) {
			case *syntax.Ident:
				switch {
				case fn.Name == "str" || fn.Name == "repr":
					up(runtime.StepFormat)
				case defined[fn.Name]:
					up(runtime.StepCall)
				}
			case *syntax.DotExpr:
				switch fn.Name.Name {
				case "format", "join":
					up(runtime.StepFormat)
				case "append", "extend":
					up(runtime.StepAppend)
				}
			}
		}
		return true
	})
	return k
}

// stepRank orders the kinds from the cheapest to the dearest, as
// calibrate measures them: a line with several is charged its dearest.
var stepRank = [...]int{
	runtime.StepAny:    0,
	runtime.StepPlain:  1,
	runtime.StepCell:   2,
	runtime.StepIndex:  3,
	runtime.StepAppend: 4,
	runtime.StepCall:   5,
	runtime.StepMap:    6,
	runtime.StepFormat: 7,
}

// noteStepKind tells gr's G the kind of the statement its goroutine is at:
// its innermost Starlark frame's line (a builtin's frame has none).
func (gr *goroutine) noteStepKind() {
	th := gr.thread
	for d := range th.CallStackDepth() {
		pos := th.CallFrame(d).Pos
		if pos.Line == 0 {
			continue // a builtin: its caller's line is the one
		}
		gr.g.SetStepKind(gr.run.stepKindAt(pos.Filename(), pos.Line))
		return
	}
	gr.g.SetStepKind(runtime.StepAny)
}

// stepKindAt returns the kind of line line of file. It runs at every
// account, so it hashes no string there: the file looked up last is kept
// with its kinds, which a string comparison of the same file name (the
// same bytes, the position's own) finds at once.
func (r *run) stepKindAt(file string, line int32) runtime.StepKind {
	if file != r.kindFile || r.kindLines == nil {
		r.kindFile, r.kindLines = file, r.stepKinds[file]
	}
	if line < 0 || int(line) >= len(r.kindLines) {
		return runtime.StepAny
	}
	return r.kindLines[line]
}
