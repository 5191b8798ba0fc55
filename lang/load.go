// Scripts and load().
//
// A script and every module it loads, directly or not, are read, parsed,
// resolved and compiled before the run starts, so that a syntax error, a
// missing module, a load that leaves the script's directory tree or a cycle
// in the load graph is reported with its position and exit status 1, before
// any goroutine exists. Load statements are static in Starlark (they come
// first in a file and name their module with a string literal), so the whole
// graph is known up front.
//
// At run time a module's top level runs once, on the thread of the
// goroutine that loads it first (G1, since only top levels load), and its
// frozen globals are cached for every later load.
//
// A module name is a slash-separated path relative to the directory of the
// file that loads it. Absolute paths are rejected, and so is any path that
// ends up outside the directory of the main script, through ".." or a
// symbolic link. Nothing else of the host is reachable from a script.

package lang

import (
	"bytes"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"unicode/utf8"

	"go.starlark.net/resolve"
	"go.starlark.net/starlark"
	"go.starlark.net/syntax"
)

// fileOptions is the dialect: while loops, top-level for/if, global
// reassignment, set, and recursion, as in Go, up to Starlark's depth limit
// (see stackOverflow).
var fileOptions = &syntax.FileOptions{
	Set:             true,
	While:           true,
	TopLevelControl: true,
	GlobalReassign:  true,
	Recursion:       true,
}

// FileOptions returns the dialect of the language.
func FileOptions() *syntax.FileOptions {
	opts := *fileOptions
	return &opts
}

// A module is one compiled file of the script.
type module struct {
	path    string // as positions name it
	prog    *starlark.Program
	globals starlark.StringDict
	err     error
	state   moduleState
}

type moduleState uint8

const (
	moduleCompiled moduleState = iota // compiled; its top level has not run
	moduleLoading                     // its top level is running
	moduleLoaded                      // done: globals and err are final
)

// A LoadError is an error of a load statement found before the run: a
// module that is missing, outside the tree, or part of a cycle.
type LoadError struct {
	Pos syntax.Position
	Msg string
}

func (e *LoadError) Error() string { return e.Pos.String() + ": " + e.Msg }

// An OpenError is a script that could not be read.
type OpenError struct{ Err error }

func (e *OpenError) Error() string { return e.Err.Error() }
func (e *OpenError) Unwrap() error { return e.Err }

// compileMain reads (unless src is given) and compiles the main script and,
// recursively, every module it loads.
func (r *run) compileMain(filename string, src []byte) (*module, error) {
	if src == nil {
		b, err := ReadScript(filename)
		if err != nil {
			return nil, &OpenError{Err: err}
		}
		src = b
	}
	r.root = filepath.Dir(filename)
	return r.compile(filepath.Clean(filename), src, nil)
}

// compile compiles the module at path and the modules it loads. chain is
// the path of loads that led to it, to detect cycles.
func (r *run) compile(path string, src []byte, chain []string) (*module, error) {
	src = stripBOM(src)
	if len(src) > MaxSourceSize {
		return nil, tooLarge(path, int64(len(src)))
	}
	if i := bytes.IndexByte(src, 0); i >= 0 {
		// Starlark's scanner would take it for the end of the file and
		// drop the rest silently: say so, as Go's compiler does.
		return nil, syntax.Error{Pos: positionOf(path, src, i), Msg: "invalid NUL character"}
	}
	f, err := fileOptions.Parse(path, src, 0)
	if err != nil {
		return nil, withGoHints(src, err)
	}
	if err := checkDepth(f); err != nil {
		return nil, err // before the resolver and the compiler recurse
	}
	prog, err := starlark.FileProgram(f, r.names.Has)
	if fields := checkModuleFields(f); len(fields) > 0 {
		// In the file's order with the resolver's own errors, if any.
		var rl resolve.ErrorList
		errors.As(err, &rl)
		return nil, append(slices.Clone(rl), fields...)
	}
	if err != nil {
		return nil, withGoHints(src, err)
	}
	if err := checkGoArrow(f, src); err != nil {
		return nil, err
	}
	if err := checkLoadOrder(f); err != nil {
		return nil, withGoHints(src, err) // with its line and a caret
	}
	r.findSmallDurations(f)
	r.findCleanCalls(f)
	if r.opts.Costs.ByKind() || r.compiling {
		r.findStepKinds(f)
	}
	if why := sharedPlainState(f); why != "" && r.sharedWhy == "" {
		r.sharedWhy = why
	}
	mod := &module{path: path, prog: prog}
	r.modules[path] = mod
	chain = append(chain, path)
	for i := range prog.NumLoads() {
		name, pos := prog.Load(i)
		p, err := r.resolveLoad(path, name)
		if err != nil {
			return nil, &LoadError{Pos: pos, Msg: fmt.Sprintf("cannot load %s: %v", name, err)}
		}
		if j := slices.Index(chain, p); j >= 0 {
			cycle := strings.Join(append(slices.Clone(chain[j:]), p), " -> ")
			return nil, &LoadError{Pos: pos, Msg: fmt.Sprintf("cannot load %s: cycle in load graph: %s", name, cycle)}
		}
		if r.modules[p] != nil {
			continue // compiled already, through another path
		}
		src, err := ReadScript(p)
		if err != nil {
			return nil, &LoadError{Pos: pos, Msg: fmt.Sprintf("cannot load %s: %v", name, err)}
		}
		if _, err := r.compile(p, src, chain); err != nil {
			return nil, err
		}
	}
	return mod, nil
}

// positionOf returns the position of byte offset i of src, a file path.
func positionOf(path string, src []byte, i int) syntax.Position {
	line := 1 + bytes.Count(src[:i], []byte("\n"))
	start := bytes.LastIndexByte(src[:i], '\n') + 1
	return syntax.MakePosition(&path, int32(line), int32(1+utf8.RuneCount(src[start:i])))
}

// atYield reports whether the syntax error at pos is at, or right after,
// the word yield.
func atYield(src []byte, pos syntax.Position) bool {
	lines := strings.Split(string(src), "\n")
	if pos.Line < 1 || int(pos.Line) > len(lines) {
		return false
	}
	line := lines[pos.Line-1]
	col := int(pos.Col) - 1
	for _, m := range yieldWord.FindAllStringIndex(line, -1) {
		if m[0] <= col && col <= m[1]+1 {
			return true
		}
	}
	return false
}

// resolveLoad returns the path of module name loaded by the file from.
func (r *run) resolveLoad(from, name string) (string, error) {
	if name == "" {
		return "", errors.New("empty module name")
	}
	if strings.HasPrefix(name, "/") || filepath.IsAbs(name) {
		return "", errors.New("absolute paths are not allowed; load() takes a path relative to the loading script")
	}
	p := filepath.Join(filepath.Dir(from), filepath.FromSlash(name))
	if !within(r.root, p) {
		return "", errors.New("the path leaves the script's directory tree")
	}
	// Through symbolic links too.
	if real, err := filepath.EvalSymlinks(p); err == nil {
		if root, err := filepath.EvalSymlinks(r.root); err == nil {
			if abs, err := filepath.Abs(real); err == nil {
				if rootAbs, err := filepath.Abs(root); err == nil && !within(rootAbs, abs) {
					return "", errors.New("the path leaves the script's directory tree through a symbolic link")
				}
			}
		}
	}
	return p, nil
}

// within reports whether path p is root or below it.
func within(root, p string) bool {
	rel, err := filepath.Rel(root, p)
	if err != nil {
		return false
	}
	return rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) && !filepath.IsAbs(rel)
}

// load is the threads' Load: it runs a module's top level the first time,
// on the loading goroutine's thread, and returns its frozen globals.
func (r *run) load(thread *starlark.Thread, name string) (starlark.StringDict, error) {
	from := thread.CallFrame(0).Pos.Filename()
	p, err := r.resolveLoad(from, name)
	if err != nil {
		return nil, err
	}
	mod := r.modules[p]
	if mod == nil {
		return nil, fmt.Errorf("module %s was not compiled before the run", p)
	}
	return r.initModule(thread, mod)
}

// initModule runs mod's top level the first time it is loaded, on the
// loading thread, and returns its frozen globals.
func (r *run) initModule(thread *starlark.Thread, mod *module) (starlark.StringDict, error) {
	switch mod.state {
	case moduleLoaded:
		return mod.globals, mod.err
	case moduleLoading:
		return nil, errors.New("cycle in load graph")
	}
	mod.state = moduleLoading
	g, err := mod.prog.Init(thread, r.names)
	g.Freeze()
	mod.globals, mod.err, mod.state = g, err, moduleLoaded
	return g, err
}

// checkLoadOrder reports a name used before the load statement that binds
// it. Starlark binds a load's names from the load on, so such a use,
// resolved already, is the predeclared name of the same spelling (a
// builtin such as now or sleep) and the script would run it silently.
func checkLoadOrder(f *syntax.File) error {
	loaded := map[string]*syntax.LoadStmt{}
	for _, stmt := range f.Stmts {
		if load, ok := stmt.(*syntax.LoadStmt); ok {
			for _, id := range load.To {
				if loaded[id.Name] == nil {
					loaded[id.Name] = load
				}
			}
		}
	}
	if len(loaded) == 0 {
		return nil
	}
	var err error
	syntax.Walk(f, func(n syntax.Node) bool {
		id, ok := n.(*syntax.Ident)
		if !ok || err != nil {
			return err == nil
		}
		b, ok := id.Binding.(*resolve.Binding)
		load := loaded[id.Name]
		if !ok || load == nil || (b.Scope != resolve.Predeclared && b.Scope != resolve.Universal) {
			return true
		}
		err = syntax.Error{Pos: id.NamePos, Msg: fmt.Sprintf(
			"%s is used before the load at line %d binds it, so here it is the builtin %s: move the load above its first use (a load binds its names from where it stands)",
			id.Name, load.Load.Line, id.Name)}
		return false
	})
	return err
}
