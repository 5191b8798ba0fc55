package lang

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	libtime "go.starlark.net/lib/time"
	"go.starlark.net/starlark"
	"go.starlark.net/starlarkstruct"
)

// TestNoHostAccessNames: the names a script can call are Starlark's
// universe and the language's builtins, none of which reaches the host;
// there is no open, exec, getenv, socket or module import. The time module
// is lib/time without its clock and its time zones (stdlib.go): its now is
// the run's virtual clock, and a zone other than UTC is refused.
func TestNoHostAccessNames(t *testing.T) {
	// alloc, retain, release, gc, gogc and memlimit count virtual bytes
	// in the engine's heap (runtime/mgc.go): no host memory.
	want := []string{"after", "after_func", "alloc", "assert", "atomic_int", "background", "cap", "chan", "cond", "current",
		"dial", "gc", "gogc", "gomaxprocs", "gosched", "is_error", "json", "listen", "math", "memlimit", "mutex", "nil_chan", "now", "once", "param", "park", "print", "printf", "println", "rand", "ready",
		"release", "retain", "rwmutex", "sched", "select", "semaphore", "sleep", "spawn", "sprintf", "stats", "struct", "syscall", "tick", "ticker", "time", "timer", "traffic",
		"waitgroup", "with_cancel", "with_deadline", "with_timeout", "work"}
	if got := Builtins().Keys(); !slices.Equal(got, want) {
		t.Errorf("builtins %v, want %v (a new builtin must not reach the host: see docs/security.md)", got, want)
	}
	for _, name := range []string{"open", "exec", "eval", "system", "getenv", "env", "environ", "os", "sys",
		"socket", "http", "file", "read", "write", "import", "__import__", "input", "exit", "random"} {
		if Builtins().Has(name) || starlark.Universe.Has(name) {
			t.Errorf("%s is predeclared", name)
		}
	}
	timeModule := Builtins()["time"].(*starlarkstruct.Module)
	if got := timeModule.Members.Keys(); !slices.Equal(got, []string{"from_timestamp", "hour", "microsecond", "millisecond", "minute", "nanosecond", "now", "parse_duration", "parse_time", "second", "time"}) {
		t.Errorf("the time module has %v: check that a new member reads neither the wall clock nor the host's time zones", got)
	}
	for _, name := range []string{"now", "time", "parse_time", "from_timestamp"} {
		if timeModule.Members[name] == libtime.Module.Members[name] {
			t.Errorf("time.%s is lib/time's own, which reads the host's clock or zones", name)
		}
	}
	// The universe is Starlark's, pure functions on values.
	for _, name := range starlark.Universe.Keys() {
		switch name {
		case "abs", "any", "all", "bool", "bytes", "chr", "dict", "dir", "enumerate", "fail", "float", "getattr",
			"hasattr", "hash", "int", "len", "list", "max", "min", "ord", "print", "range", "repr", "reversed",
			"set", "sorted", "str", "tuple", "type", "zip", "True", "False", "None":
		default:
			t.Errorf("Starlark's universe has a new name %s: check that it cannot reach the host", name)
		}
	}
}

// hostAccess lists, for each package of the run, the functions of os that
// it may call: only source.go reads the script's files, and memory_linux.go the
// one fixed file /proc/self/statm (the process's resident set, for
// --max-memory), whose name no script gives. Nothing else may import a
// package that reaches the host's files, network, processes or
// environment.
var hostAccess = map[string][]string{
	"source.go":       {"os.PathError", "os.ReadFile", "os.Stat"},
	"memory_linux.go": {"os.File", "os.Getpagesize", "os.Open"},
}

var forbiddenImports = []string{"net", "net/http", "os/exec", "os/signal", "syscall", "plugin", "unsafe", "io/ioutil", "os/user"}

// TestNoHostAccessInCode reads the Go source of the packages a script
// runs in (lang, runtime) and fails on any import or use of os that
// could let a script reach the host, except where hostAccess allows it.
func TestNoHostAccessInCode(t *testing.T) {
	for _, dir := range []string{".", "../runtime"} {
		files, err := filepath.Glob(filepath.Join(dir, "*.go"))
		if err != nil || len(files) == 0 {
			t.Fatalf("no Go files in %s: %v", dir, err)
		}
		for _, file := range files {
			if strings.HasSuffix(file, "_test.go") {
				continue
			}
			f, err := parser.ParseFile(token.NewFileSet(), file, nil, 0)
			if err != nil {
				t.Fatal(err)
			}
			base := filepath.Base(file)
			for _, imp := range f.Imports {
				path, _ := strconv.Unquote(imp.Path.Value)
				if slices.Contains(forbiddenImports, path) && !(path == "unsafe" && base == "leak.go") {
					t.Errorf("%s imports %s", file, path)
				}
			}
			ast.Inspect(f, func(n ast.Node) bool {
				sel, ok := n.(*ast.SelectorExpr)
				if !ok {
					return true
				}
				if id, ok := sel.X.(*ast.Ident); ok && id.Name == "os" {
					use := "os." + sel.Sel.Name
					if !slices.Contains(hostAccess[base], use) {
						t.Errorf("%s uses %s", file, use)
					}
				}
				return true
			})
		}
	}
}
