// Starlark's standard modules: math, json, time and struct, predeclared as
// go.starlark.net's own REPL predeclares them, so that a script written
// for Starlark elsewhere loads here too.
//
// math and json are go.starlark.net's lib/math and lib/json as they are:
// pure functions of their arguments, the same on every machine. struct is
// starlarkstruct.Make. time is lib/time without what would make a run
// depend on the host: its clock and its time-zone database.
//
//   - time.now() is the run's virtual clock, as a time.time: the Unix
//     epoch in UTC plus now() nanoseconds, never the wall clock.
//   - time.time(...), time.parse_time(...) take location "UTC" (the
//     default) only: any other name would be looked up in the host's
//     tzdata, which machines do not share.
//   - time.from_timestamp(sec, nsec) is in UTC, where lib/time's is in
//     the host's local zone.
//   - time.is_valid_timezone is left out, for the same reason.
//   - The durations (time.nanosecond ... time.hour, parse_duration) are
//     lib/time's, and every builtin that takes a duration (sleep, work,
//     after, timers, deadlines) takes one, as Go's time.Sleep(5 *
//     time.Millisecond) reads: sleep(5 * time.millisecond).

package lang

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"go.starlark.net/lib/json"
	"go.starlark.net/lib/math"
	libtime "go.starlark.net/lib/time"
	"go.starlark.net/resolve"
	"go.starlark.net/starlark"
	"go.starlark.net/starlarkstruct"
	"go.starlark.net/syntax"
)

// stdModules returns the standard modules of run r, by predeclared name.
func (r *run) stdModules() starlark.StringDict {
	return starlark.StringDict{
		"math":   math.Module,
		"json":   json.Module,
		"struct": starlark.NewBuiltin("struct", starlarkstruct.Make),
		"time":   r.timeModule(),
	}
}

// timeModule returns lib/time's module with the run's virtual clock and
// UTC only (see the top of this file).
func (r *run) timeModule() *starlarkstruct.Module {
	members := make(starlark.StringDict, len(libtime.Module.Members))
	for name, v := range libtime.Module.Members {
		members[name] = v
	}
	delete(members, "is_valid_timezone")
	members["now"] = starlark.NewBuiltin("time.now", func(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
		if err := starlark.UnpackArgs(b.Name(), args, kwargs); err != nil {
			return nil, err
		}
		gr, err := r.goroutineOf(thread, b)
		if err != nil {
			return nil, err
		}
		return libtime.Time(time.Unix(0, gr.g.Now()).UTC()), nil
	})
	members["time"] = utcOnly(libtime.Module.Members["time"].(*starlark.Builtin), "time.time", -1)
	members["parse_time"] = utcOnly(libtime.Module.Members["parse_time"].(*starlark.Builtin), "time.parse_time", 2)
	fromTimestamp := libtime.Module.Members["from_timestamp"].(*starlark.Builtin)
	members["from_timestamp"] = starlark.NewBuiltin("time.from_timestamp", func(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
		v, err := starlark.Call(thread, fromTimestamp, args, kwargs)
		if err != nil {
			return nil, errors.New(plain(err))
		}
		return libtime.Time(time.Time(v.(libtime.Time)).UTC()), nil
	})
	return &starlarkstruct.Module{Name: "time", Members: members}
}

// utcOnly wraps lib/time's builtin fn, whose argument "location" (the
// positional argument at index pos, or -1 for keyword only) names a time
// zone, so that only UTC is accepted: any other zone would be read from
// the host's tzdata.
func utcOnly(fn *starlark.Builtin, name string, pos int) *starlark.Builtin {
	return starlark.NewBuiltin(name, func(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
		loc := starlark.Value(starlark.String("UTC"))
		if pos >= 0 && len(args) > pos {
			loc = args[pos]
		}
		for _, kv := range kwargs {
			if kv[0] == starlark.String("location") {
				loc = kv[1]
			}
		}
		if s, ok := loc.(starlark.String); ok && s != "UTC" && s != "" {
			return nil, fmt.Errorf("%s: location %s: only \"UTC\" is available (another zone would come from the host's time-zone database, and the run would differ between machines)", name, s)
		}
		v, err := starlark.Call(thread, fn, args, kwargs)
		if err != nil {
			return nil, errors.New(plain(err))
		}
		return v, nil
	})
}

// plain returns the message of err, an error of a builtin called from a
// builtin, without the backtrace starlark.Call adds to it.
func plain(err error) string {
	var ee *starlark.EvalError
	if errors.As(err, &ee) {
		return ee.Msg
	}
	return err.Error()
}

// moduleFields are the members of the predeclared standard modules, for
// checkModuleFields.
var moduleFields = map[string]func(string) bool{
	"math": func(name string) bool { return math.Module.Members.Has(name) },
	"json": func(name string) bool { return json.Module.Members.Has(name) },
	"time": func(name string) bool {
		return name != "is_valid_timezone" && libtime.Module.Members.Has(name)
	},
}

// checkModuleFields reports each field of a standard module that the
// module does not have, such as Go's time.Sleep, before the run: with the
// module's field of the same name in lower case if it has one, and for
// time the builtin that Go's function is. f has been resolved, so that a
// global or a local named time is left alone.
func checkModuleFields(f *syntax.File) []resolve.Error {
	var errs []resolve.Error
	syntax.Walk(f, func(n syntax.Node) bool {
		dot, ok := n.(*syntax.DotExpr)
		if !ok {
			return true
		}
		id, ok := dot.X.(*syntax.Ident)
		if !ok {
			return true
		}
		has := moduleFields[id.Name]
		if b, ok := id.Binding.(*resolve.Binding); !ok || b.Scope != resolve.Predeclared || has == nil || has(dot.Name.Name) {
			return true
		}
		msg := fmt.Sprintf("%s has no .%s", id.Name, dot.Name.Name)
		switch lower := strings.ToLower(dot.Name.Name); {
		case id.Name == "time" && dot.Name.Name == "is_valid_timezone":
			msg += " (only UTC is available: other time zones would come from the host's database)"
		case has(lower):
			msg += fmt.Sprintf(" (did you mean .%s?)", lower)
		case goNames[id.Name] != "":
			msg += " (Go's " + goNames[id.Name] + ")"
		}
		errs = append(errs, resolve.Error{Pos: dot.Name.NamePos, Msg: msg})
		return true
	})
	return errs
}
