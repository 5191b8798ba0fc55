// Stacks for the Go execution trace (--go-trace): the Starlark backtraces
// of the run's goroutines, in the form trace/exectrace writes into its
// stack table, so that functions and script.star:line show up in `go tool
// trace` and in its pprof profiles.

package lang

import (
	"go.starlark.net/starlark"

	"github.com/schedlab/schedlab/runtime"
	"github.com/schedlab/schedlab/trace/exectrace"
)

// GoTraceStacks returns the stacks of the goroutines of the run of
// Machine m, for an exectrace.Writer: give it to SetStacks from
// Options.OnStart. A goroutine's stack is its Starlark backtrace without
// builtins, innermost first; its entry is the function it was spawned
// with, at the line of its def (the top level of the script, line 1, for
// G1).
func GoTraceStacks(m *runtime.Machine) exectrace.Stacks { return goStacks{m} }

// goStacks implements exectrace.Stacks for a Machine of lang's.
type goStacks struct{ m *runtime.Machine }

// find returns the goroutine of G id, or nil: the running G is the common
// case; any other (a G that sysmon preempts) is looked for among all.
func (s goStacks) find(id int64) *goroutine {
	if g := s.m.Current(); g != nil && g.ID() == id {
		return goroutineOfG(g)
	}
	for _, g := range s.m.Goroutines() {
		if g.ID() == id {
			return goroutineOfG(g)
		}
	}
	return nil
}

// Stack appends the backtrace of goroutine g, innermost first.
func (s goStacks) Stack(dst []exectrace.Frame, g int64) []exectrace.Frame {
	gr := s.find(g)
	if gr == nil {
		return dst
	}
	for _, fr := range gr.backtrace() {
		dst = append(dst, exectrace.Frame{Func: frameName(fr.Name), File: fr.Pos.Filename(), Line: int(fr.Pos.Line)})
	}
	return dst
}

// Entry appends the entry frame of goroutine g: while its creator is in
// spawn, the G is not yet bound to its goroutine, which the creator holds.
func (s goStacks) Entry(dst []exectrace.Frame, g int64) []exectrace.Frame {
	var gr *goroutine
	if cur := goroutineOfG(s.m.Current()); cur != nil && cur.spawning != nil && (cur.spawning.g == nil || cur.spawning.id == g) {
		gr = cur.spawning
	} else {
		gr = s.find(g)
	}
	if gr == nil {
		return dst
	}
	if gr.fn == nil {
		return append(dst, exectrace.Frame{Func: frameName("<toplevel>"), File: gr.run.mainPath, Line: 1})
	}
	fr := exectrace.Frame{Func: frameName(gr.fn.Name()), File: builtinFile}
	if fn, ok := gr.fn.(*starlark.Function); ok {
		pos := fn.Position()
		fr.File, fr.Line = pos.Filename(), int(pos.Line)
	}
	return append(dst, fr)
}

// frameName is a Starlark function's name as the Go trace gives it: the
// top level is main, and other names in angle brackets lose them.
func frameName(name string) string {
	if name == "<toplevel>" {
		return "main"
	}
	if len(name) > 2 && name[0] == '<' && name[len(name)-1] == '>' {
		return name[1 : len(name)-1]
	}
	return name
}
