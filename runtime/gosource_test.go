package runtime

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// The tests that hold a rule to the toolchain's own runtime read its
// source, $(go env GOROOT)/src/runtime, with these helpers.

// goRuntimeDir returns the directory of the toolchain's runtime source,
// or skips the test when there is none.
func goRuntimeDir(t *testing.T) string {
	t.Helper()
	out, err := exec.Command("go", "env", "GOROOT").Output()
	if err != nil {
		t.Skipf("go env GOROOT: %v", err)
	}
	dir := filepath.Join(strings.TrimSpace(string(out)), "src", "runtime")
	if _, err := os.Stat(filepath.Join(dir, "runtime2.go")); err != nil {
		t.Skipf("Go's source: %v", err)
	}
	return dir
}

// parseGoRuntime parses every non-test file of the toolchain's runtime
// package (all build tags alike), or skips the test.
func parseGoRuntime(t *testing.T) []*ast.File {
	t.Helper()
	dir := goRuntimeDir(t)
	names, err := filepath.Glob(filepath.Join(dir, "*.go"))
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	var files []*ast.File
	for _, name := range names {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, parser.SkipObjectResolution)
		if err != nil {
			t.Fatalf("Go's source: %v", err)
		}
		files = append(files, f)
	}
	return files
}

// goGStatuses returns the G status constants of runtime2.go's iota block,
// by value: "_Gidle" for 0, "_Grunnable" for 1, ...
func goGStatuses(t *testing.T, files []*ast.File) map[int]string {
	t.Helper()
	for _, f := range files {
		for _, d := range f.Decls {
			gd, ok := d.(*ast.GenDecl)
			if !ok || gd.Tok != token.CONST || len(gd.Specs) == 0 {
				continue
			}
			first := gd.Specs[0].(*ast.ValueSpec)
			if first.Names[0].Name != "_Gidle" {
				continue
			}
			byValue := make(map[int]string)
			for iota, s := range gd.Specs {
				vs := s.(*ast.ValueSpec)
				if iota > 0 && len(vs.Values) > 0 {
					break // the _Gscan bits: no longer the iota sequence
				}
				byValue[iota] = vs.Names[0].Name
			}
			return byValue
		}
	}
	t.Fatal("Go's runtime declares no _Gidle")
	return nil
}

// goGTransitions returns every G status transition the toolchain's
// runtime makes, as "_Gfrom→_Gto": the constant arguments of each
// casgstatus(gp, from, to) and gp.atomicstatus.CompareAndSwap(from, to)
// (the _Gscan bit dropped, and a change of that bit alone left out), with an argument that is a local variable
// taken as each G status constant assigned to it in its function, and one
// that is a parameter as the argument of each call of its function.
func goGTransitions(files []*ast.File) map[string]bool {
	funcs := make(map[string]*ast.FuncDecl)
	for _, f := range files {
		for _, d := range f.Decls {
			if fd, ok := d.(*ast.FuncDecl); ok && fd.Body != nil && fd.Recv == nil {
				funcs[fd.Name.Name] = fd
			}
		}
	}
	// calls lists the calls of each function by the functions they are
	// in.
	type call struct {
		in   *ast.FuncDecl
		args []ast.Expr
	}
	calls := make(map[string][]call)
	var sites []call // the transitions: casgstatus's and CompareAndSwap's from and to
	for _, f := range files {
		for _, d := range f.Decls {
			fd, ok := d.(*ast.FuncDecl)
			if !ok || fd.Body == nil {
				continue
			}
			ast.Inspect(fd.Body, func(n ast.Node) bool {
				ce, ok := n.(*ast.CallExpr)
				if !ok {
					return true
				}
				switch fun := ce.Fun.(type) {
				case *ast.Ident:
					calls[fun.Name] = append(calls[fun.Name], call{fd, ce.Args})
					if fun.Name == "casgstatus" && len(ce.Args) == 3 {
						sites = append(sites, call{fd, ce.Args[1:]})
					}
				case *ast.SelectorExpr:
					if recv, ok := fun.X.(*ast.SelectorExpr); ok && recv.Sel.Name == "atomicstatus" && fun.Sel.Name == "CompareAndSwap" && len(ce.Args) == 2 {
						sites = append(sites, call{fd, ce.Args})
					}
				}
				return true
			})
		}
	}
	// statuses returns the constants e may hold in fn, or the index of
	// the parameter of fn it is (-1 if none).
	statuses := func(e ast.Expr, fn *ast.FuncDecl) (consts []string, param int) {
		var walk func(e ast.Expr)
		param = -1
		walk = func(e ast.Expr) {
			switch e := e.(type) {
			case *ast.ParenExpr:
				walk(e.X)
			case *ast.BinaryExpr: // _Gscan|_Gpreempted
				if e.Op == token.OR {
					walk(e.X)
					walk(e.Y)
				}
			case *ast.Ident:
				switch {
				case e.Name == "_Gscan":
				case strings.HasPrefix(e.Name, "_G"):
					consts = append(consts, e.Name)
				default:
					i := 0
					for _, field := range fn.Type.Params.List {
						for _, name := range field.Names {
							if name.Name == e.Name {
								param = i
							}
							i++
						}
					}
					ast.Inspect(fn.Body, func(n ast.Node) bool {
						switch n := n.(type) {
						case *ast.AssignStmt:
							for i, lhs := range n.Lhs {
								if id, ok := lhs.(*ast.Ident); ok && id.Name == e.Name && len(n.Rhs) == len(n.Lhs) {
									if rhs, ok := n.Rhs[i].(*ast.Ident); ok && strings.HasPrefix(rhs.Name, "_G") {
										consts = append(consts, rhs.Name)
									}
								}
							}
						case *ast.ValueSpec:
							for i, id := range n.Names {
								if id.Name == e.Name && i < len(n.Values) {
									if rhs, ok := n.Values[i].(*ast.Ident); ok && strings.HasPrefix(rhs.Name, "_G") {
										consts = append(consts, rhs.Name)
									}
								}
							}
						}
						return true
					})
				}
			}
		}
		walk(e)
		return consts, param
	}
	edges := make(map[string]bool)
	var add func(from, to ast.Expr, fn *ast.FuncDecl, depth int)
	add = func(from, to ast.Expr, fn *ast.FuncDecl, depth int) {
		fromC, fromP := statuses(from, fn)
		toC, toP := statuses(to, fn)
		if fromP >= 0 || toP >= 0 {
			// A parameter: each call of fn says what it is, from and
			// to together.
			if depth == 0 || funcs[fn.Name.Name] != fn {
				return
			}
			for _, c := range calls[fn.Name.Name] {
				f, t := from, to
				if fromP >= 0 && fromP < len(c.args) {
					f = c.args[fromP]
				}
				if toP >= 0 && toP < len(c.args) {
					t = c.args[toP]
				}
				add(f, t, c.in, depth-1)
			}
			return
		}
		for _, f := range fromC {
			for _, t := range toC {
				// _Gscanrunning is _Grunning with the scan bit:
				// setting or clearing the bit alone is no transition.
				f, t = strings.Replace(f, "_Gscan", "_G", 1), strings.Replace(t, "_Gscan", "_G", 1)
				if f != t {
					edges[f+"→"+t] = true
				}
			}
		}
	}
	for _, s := range sites {
		add(s.args[0], s.args[1], s.in, 3)
	}
	return edges
}

// mirrorsName matches a doc comment's "Mirrors f" and the names joined to
// f by "/" or " and " ("Mirrors exitsyscall and exitsyscallNoP").
var (
	mirrorsName = regexp.MustCompile(`Mirrors ([A-Za-z_][A-Za-z0-9_.]*(?:(?:/| and )[A-Za-z_][A-Za-z0-9_.]*)*)`)
	mirrorsSep  = regexp.MustCompile(`/| and `)
)

// TestMirrorsNamesAreGos: every function, type, constant or variable of
// the runtime (or of package time) that a comment here says it mirrors
// ("Mirrors exitsyscall.") is declared under that name in the toolchain's
// source, so that a name Go renamed (exitsyscall0 is exitsyscallNoP in Go
// 1.26, entersyscall_sysmon is entersyscallWakeSysmon) is renamed here
// too.
// Qualified names (sync.Mutex.Unlock, runtime.main), the names after one
// (Weighted.Release and notifyWaiters, of x/sync) and exported ones are
// left out: they name Go's API and other packages, not its runtime's
// insides.
func TestMirrorsNamesAreGos(t *testing.T) {
	declared := make(map[string]bool)
	addDecls := func(files []*ast.File) {
		for _, f := range files {
			for _, d := range f.Decls {
				switch d := d.(type) {
				case *ast.FuncDecl:
					declared[d.Name.Name] = true
				case *ast.GenDecl:
					for _, s := range d.Specs {
						switch s := s.(type) {
						case *ast.TypeSpec:
							declared[s.Name.Name] = true
						case *ast.ValueSpec:
							for _, n := range s.Names {
								declared[n.Name] = true
							}
						}
					}
				}
			}
		}
	}
	addDecls(parseGoRuntime(t))
	timeFiles, err := filepath.Glob(filepath.Join(goRuntimeDir(t), "..", "time", "*.go"))
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	for _, name := range timeFiles {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, parser.SkipObjectResolution)
		if err != nil {
			t.Fatalf("Go's source: %v", err)
		}
		addDecls([]*ast.File{f})
	}
	ours, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	checked := 0
	for _, name := range ours {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		src, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		// Each comment as one line, so that "Mirrors" may end a line.
		var comments []string
		var at []int
		inComment := false
		for i, line := range strings.Split(string(src), "\n") {
			line = strings.TrimSpace(line)
			text, ok := strings.CutPrefix(line, "//")
			switch {
			case !ok:
				inComment = false
			case inComment:
				comments[len(comments)-1] += text
			default:
				comments, at = append(comments, text), append(at, i+1)
				inComment = true
			}
		}
		for i, comment := range comments {
			for _, m := range mirrorsName.FindAllStringSubmatch(comment, -1) {
				names := mirrorsSep.Split(m[1], -1)
				if strings.Contains(strings.TrimSuffix(names[0], "."), ".") {
					continue
				}
				for _, n := range names {
					n = strings.TrimSuffix(n, ".")
					n = n[strings.LastIndex(n, ".")+1:] // p.destroy: a method
					if n == "the" || n == "no" || n[0] < 'a' || n[0] > 'z' {
						continue
					}
					checked++
					if !declared[n] {
						t.Errorf("%s:%d: mirrors %s, which Go's runtime and time do not declare (renamed?)", name, at[i], n)
					}
				}
			}
		}
	}
	if checked < 50 {
		t.Errorf("checked %d mirrored names; the pattern no longer finds them", checked)
	}
}
